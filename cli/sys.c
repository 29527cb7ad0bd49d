/* sys.c - `latlab sys` (not built yet: this placeholder exits 1 until its issue lands). */
#include "cli.h"

const char cmd_sys_usage[] = "usage: latlab sys\n\n(not implemented yet)\n";

int cmd_sys(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_error("sys", "not implemented yet");
}
