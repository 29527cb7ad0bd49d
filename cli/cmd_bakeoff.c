/* cmd_bakeoff.c - `latlab bakeoff ring`: the SPSC ring bake-off's options, run and
 * output; the bake-off itself is workloads/bakeoff.c. */
#include "cli.h"
#include "cliopts.h"
#include "pipeplace.h"

#include "bakeoff.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/clock.h"

static uint64_t rounds, ops, items, samples, cap;
static bool same_thread_only;
static const char *cpulist, *json_path;

static const cli_opt ring_opts[] = {
    CLI_NUM_OPT("rounds", CLI_U64, &rounds, "N", "rounds, queues interleaved in each (default 5)",
                1, LAT_BAKEOFF_MAX_ROUNDS),
    CLI_NUM_OPT("ops", CLI_U64, &ops, "N",
                "same-thread push+pop pairs per measurement (default 10000000)", 1000,
                10000000000.0),
    CLI_NUM_OPT("items", CLI_U64, &items, "N",
                "items per throughput run (default 2000000; mutex: N/20); the figure is\n"
                "the fastest window of 65536 items in the run",
                1000, 10000000000.0),
    CLI_NUM_OPT("samples", CLI_U64, &samples, "N",
                "round trips per latency run (default 100000; mutex: N/20)", 1000, 100000000),
    CLI_NUM_OPT("capacity", CLI_U64, &cap, "N",
                "queue capacity for the throughput runs: a power of two, 2..16777216\n"
                "(default 4096)",
                2, 1u << 24),
    CLI_FLAG_OPT("same-thread", &same_thread_only,
                 "only the same-thread push+pop figures (seconds; no second CPU used)"),
    CLI_STR_OPT("cpus", CLI_STRING, &cpulist, "A,B",
                "the two CPUs (default: chosen by the topology planner)"),
    CLI_STR_OPT("json", CLI_PATH, &json_path, "FILE",
                "also write every figure (medians and each round) as JSON"),
    CLI_END,
};

static const cli_spec bakeoff_ring_spec = {
    .name = "bakeoff",
    .synopsis =
        "latlab bakeoff ring [--rounds N] [--ops N] [--items N] [--samples N] [--capacity N]\n"
        "                           [--same-thread] [--cpus A,B] [--json FILE]",
    .about = "The SPSC ring bake-off: latlab's cached-index ring (ring) and per-slot sequence\n"
             "ring (seqring) against Concurrency Kit's ck_ring and a mutex+condvar queue, all\n"
             "in one run on two pinned CPUs:\n"
             "  push+pop     same-thread push then pop, ns per pair: 8-byte items and the\n"
             "               pipeline's 56-byte message (capacity 1024 for every queue)\n"
             "  Mops/s       cross-core streaming throughput, 8-byte and 40-byte items\n"
             "  round trip   p50/p99/p99.9 of a stamp sent through one queue and back through\n"
             "               another (8-byte items)\n"
             "  floor        the raw cache-line ping-pong between the same two CPUs, measured\n"
             "               every round; latencies are also given as a ratio to it\n"
             "Each figure is the median over the rounds and a ratio to ck_ring's.\n",
    .opts = ring_opts,
    .epilog = "Needs two CPUs; exits 1 with a message on a single-CPU machine or affinity mask.\n",
};

/* Options, checked before any work: 0, -1 after --help, or the exit status. */
static int ring_parse(int argc, char **argv) {
    rounds = 5, ops = 10000000, items = 2000000, samples = 100000, cap = 4096;
    same_thread_only = false;
    int first, rc = cli_parse(&bakeoff_ring_spec, argc, argv, &first);
    if (rc) return rc;
    if (cap & (cap - 1)) /* every ring here (ours, ck_ring) indexes with a mask */
        return cli_usage_error("bakeoff", "--capacity: %" PRIu64 " must be a power of two", cap);
    if (cpulist && !*cpulist) return cli_usage_error("bakeoff", "--cpus: needs a CPU list");
    return 0;
}

static void on_round(void *ud, int round, int n) {
    (void)ud;
    cli_progress("ring bake-off: round %d of %d", round, n);
}

static int bakeoff_ring(int argc, char **argv) {
    int rc = ring_parse(argc, argv);
    if (rc) return rc < 0 ? CLI_OK : rc;
    lat__bakeoff_config cfg = {(int)rounds,      ops,     items, samples, (size_t)cap,
                               same_thread_only, {-1, -1}};
    if (!same_thread_only && (rc = cli_pick_two_cpus("bakeoff", cpulist, cfg.cpus))) return rc;
    (void)lat_clock_default(); /* calibrate before timing anything */
    lat__bakeoff *res = calloc(1, lat__bakeoff_size());
    if (!res) return cli_error("bakeoff", "out of memory");
    int err = lat__bakeoff_run(res, &cfg, on_round, NULL);
    cli_progress_done();
    if (err) {
        free(res);
        return cli_lib_error("bakeoff", "ring bake-off", err);
    }
    lat__bakeoff_print(res, stdout);
    err = json_path ? lat__bakeoff_write_json(res, json_path) : 0;
    free(res);
    if (err) return cli_lib_error("bakeoff", json_path, err);
    return CLI_OK;
}

static const cli_sub bakeoff_subs[] = {
    {"ring", bakeoff_ring, &bakeoff_ring_spec,
     "the SPSC ring bake-off against ck_ring and a mutex queue"},
    {NULL, NULL, NULL, NULL},
};

const cli_spec cmd_bakeoff_spec = {.name = "bakeoff", .subs = bakeoff_subs};

int cmd_bakeoff(int argc, char **argv) {
    if (argc < 2) return cli_usage_error("bakeoff", "which bake-off? (ring)");
    const char *sub = argv[1];
    if (sub[0] != '-' && strcmp(sub, "help") && !cli_group_find(&cmd_bakeoff_spec, sub))
        return cli_usage_error("bakeoff", "unknown bake-off '%s' (known: ring)", sub);
    return cli_group_run(&cmd_bakeoff_spec, argc, argv);
}
