/* pipeline.c - `latlab pipeline` (not built yet: this placeholder exits 1 until its issue lands).
 */
#include "cli.h"

const char cmd_pipeline_usage[] = "usage: latlab pipeline\n\n(not implemented yet)\n";

int cmd_pipeline(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_error("pipeline", "not implemented yet");
}
