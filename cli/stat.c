/* stat.c - `latlab stat` (not built yet: this placeholder exits 1 until its issue lands). */
#include "cli.h"

const char cmd_stat_usage[] = "usage: latlab stat\n\n(not implemented yet)\n";

int cmd_stat(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_error("stat", "not implemented yet");
}
