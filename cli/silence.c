/* silence.c - `latlab silence` (not built yet: this placeholder exits 1 until its issue lands). */
#include "cli.h"

const char cmd_silence_usage[] = "usage: latlab silence\n\n(not implemented yet)\n";

int cmd_silence(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_error("silence", "not implemented yet");
}
