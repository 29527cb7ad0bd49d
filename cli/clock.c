/* clock.c - `latlab clock` (not built yet: this placeholder exits 1 until its issue lands). */
#include "cli.h"

const char cmd_clock_usage[] = "usage: latlab clock\n\n(not implemented yet)\n";

int cmd_clock(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_error("clock", "not implemented yet");
}
