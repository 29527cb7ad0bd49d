/* lab.c - `latlab lab` (not built yet: this placeholder exits 1 until its issue lands). */
#include "cli.h"

const char cmd_lab_usage[] = "usage: latlab lab\n\n(not implemented yet)\n";

int cmd_lab(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_error("lab", "not implemented yet");
}
