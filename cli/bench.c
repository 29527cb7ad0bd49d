/* bench.c - `latlab bench` (not built yet: this placeholder exits 1 until its issue lands). */
#include "cli.h"

const char cmd_bench_usage[] = "usage: latlab bench\n\n(not implemented yet)\n";

int cmd_bench(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_error("bench", "not implemented yet");
}
