/* co.c - `latlab co` (not built yet: this placeholder exits 1 until its issue lands). */
#include "cli.h"

const char cmd_co_usage[] = "usage: latlab co\n\n(not implemented yet)\n";

int cmd_co(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_error("co", "not implemented yet");
}
