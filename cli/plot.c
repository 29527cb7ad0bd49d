/* plot.c - `latlab plot` (not built yet: this placeholder exits 1 until its issue lands). */
#include "cli.h"

const char cmd_plot_usage[] = "usage: latlab plot\n\n(not implemented yet)\n";

int cmd_plot(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_error("plot", "not implemented yet");
}
