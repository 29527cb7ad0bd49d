/* hist.c - `latlab hist` (not built yet: this placeholder exits 1 until its issue lands). */
#include "cli.h"

const char cmd_hist_usage[] = "usage: latlab hist\n\n(not implemented yet)\n";

int cmd_hist(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_error("hist", "not implemented yet");
}
