/* dce.c - `latlab dce` (not built yet: this placeholder exits 1 until its issue lands). */
#include "cli.h"

const char cmd_dce_usage[] = "usage: latlab dce\n\n(not implemented yet)\n";

int cmd_dce(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_error("dce", "not implemented yet");
}
