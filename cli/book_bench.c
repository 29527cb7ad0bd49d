/* book_bench.c - `latlab book bench` (placeholder until the scenarios land). */
#include "cli.h"

const char book_bench_usage[] = "usage: latlab book bench SCENARIO|all\n";

int book_bench_main(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_error("book", "bench: not implemented yet");
}
