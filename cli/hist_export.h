/* hist_export.h - `latlab hist export` (cli/hist_export.c): its entry point and
 * options table (cli/cmd_hist.c's help is generated from it). */
#ifndef LATLAB_CLI_HIST_EXPORT_H
#define LATLAB_CLI_HIST_EXPORT_H

#include "cli.h"

/* Its options table (the help is generated from it). */
extern const cli_spec hist_export_spec;
int cli_hist_export(int argc, char **argv);

/* Drop the paths that name a file already listed (same device and inode: a
 * second name, a link, the same path twice), warning on stderr for each, so
 * that no input is counted twice.  Paths that cannot be stat'ed stay (their
 * reader reports them).  Returns the number kept, compacted in place. */
int cli_hist_unique_paths(const char *cmd, char **paths, int n);

#endif /* LATLAB_CLI_HIST_EXPORT_H */
