/* hist_export.h - `latlab hist export` (cli/hist_export.c): its entry point and
 * options table (cli/hist.c's help is generated from it). */
#ifndef LATLAB_CLI_HIST_EXPORT_H
#define LATLAB_CLI_HIST_EXPORT_H

#include "cli.h"

/* Its options table (the help is generated from it). */
extern const cli_spec hist_export_spec;
int cli_hist_export(int argc, char **argv);

#endif /* LATLAB_CLI_HIST_EXPORT_H */
