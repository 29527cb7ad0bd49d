/* book_bench.h - the usage text of `latlab book bench`, shared by
 * cli/book.c (latlab help book) and cli/book_bench.c. */
#ifndef LATLAB_CLI_BOOK_BENCH_H
#define LATLAB_CLI_BOOK_BENCH_H

#include "promcli.h" /* CLI_PROM_USAGE_HEADER CLI_PROM_PUSH_USAGE */

#define BOOK_BENCH_USAGE                                                                           \
    "usage: latlab book bench SCENARIO|all [--warmup N] [--measured N] [--seed N] [--depth N]\n"   \
    "                         [--open-loop RATE] [--also-open-loop RATE] [--quick]\n"              \
    "                         [--cpu N] [--out DIR] [--intervals N] [--json FILE]\n"               \
    "\n"                                                                                           \
    "scenarios: add_only cancel_only aggressive_walk mixed_70_20_10 thin_book_sweep\n"             \
    "           mass_cancel_burst snapshot_capture (or all)\n"                                     \
    "  --warmup N          ops run before the measured window (default 200000)\n"                  \
    "  --measured N        recorded ops (default 1000000)\n"                                       \
    "  --seed N            xorshift seed (default 0xA5A5A5A5; decimal or 0x hex)\n"                \
    "  --depth N           resting orders the scenario holds (default per scenario)\n"             \
    "  --open-loop RATE    ops/s: each op is due at start + i/RATE and its latency runs\n"         \
    "                      from that intended time (coordinated omission handled by\n"             \
    "                      construction); default closed loop = pure service time\n"               \
    "  --also-open-loop RATE  after the closed-loop runs, run mixed_70_20_10 open loop\n"          \
    "                      at RATE too (reported in its own table)\n"                              \
    "  --quick             2000 warm-up and 20000 measured ops (tests)\n"                          \
    "  --cpu N             pin the benchmark thread to CPU N\n"                                    \
    "  --out DIR           output folder (default book-bench): <scenario>.hlog/.hgrm,\n"           \
    "                      BENCH.md, report.html, bench.json\n"                                    \
    "  --intervals N       interval histograms per scenario in the .hlog (default 10)\n"           \
    "  --json FILE         also write the results as JSON to FILE\n" CLI_PROM_USAGE_HEADER         \
        CLI_PROM_PUSH_USAGE

int book_bench_main(int argc, char **argv);

#endif
