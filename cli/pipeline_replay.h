/* pipeline_replay.h - `latlab pipeline --replay FILE.itch`: the --speed
 * parser, loading the capture with its errors printed, and the
 * steady-vs-replay round on stdout (workloads/book/itchfeed_report.h does the
 * work and the output).  Kept out of cli/cmd_pipeline.c so that file only gains
 * the flags and a few calls. */
#ifndef LATLAB_CLI_PIPELINE_REPLAY_H
#define LATLAB_CLI_PIPELINE_REPLAY_H

#include <stdbool.h>

#include "itchfeed_report.h"
#include "latlab/pipeline.h"

/* "original" -> 1, "xN" -> N, "max" -> 0.  Prints a usage error naming
 * --speed and returns 2 when s is none of these; 0 otherwise. */
int pipeline_replay_speed(const char *cmd, const char *s, double *speed);

/* Read and frame the capture, build the books, point c at the feed.  On a
 * bad file prints the file and offset and returns 1; 0 and *out otherwise. */
int pipeline_replay_setup(const char *cmd, const char *path, const itchfeed_options *o,
                          lat_pipe_config *c, itchfeed **out);

/* `latlab pipeline --replay FILE --with-steady [--json FILE]`: the round
 * (itchfeed_steady_vs_replay) on stdout, its JSON (plus run conditions) to
 * json_path when set. */
int pipeline_replay_run_with_steady(const char *cmd, const char *path, const itchfeed_options *o,
                                    const lat_pipe_config *base, bool over, const char *json_path);

#endif
