/* book_bench.h - `latlab book bench` (cli/book_bench.c): its options table,
 * from which `latlab help book` and `latlab book bench --help` are printed,
 * and its entry point. */
#ifndef LATLAB_CLI_BOOK_BENCH_H
#define LATLAB_CLI_BOOK_BENCH_H

#include "cli.h"

extern const cli_spec book_bench_spec;
int book_bench_main(int argc, char **argv);

#endif
