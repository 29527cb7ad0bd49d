/* pipeline_replay.h - `latlab pipeline --replay FILE.itch`: loading the
 * capture into a replay feed (workloads/book/itchfeed.h), and the replay's
 * own output (work per message kind, arrival figures, final books) printed
 * after the pipeline's stage table.  Kept out of cli/pipeline.c so that file
 * only gains the flags and three calls. */
#ifndef LATLAB_CLI_PIPELINE_REPLAY_H
#define LATLAB_CLI_PIPELINE_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "itchfeed.h"
#include "latlab/pipeline.h"

struct json_t;

/* "original" -> 1, "xN" -> N, "max" -> 0.  Prints a usage error naming
 * --speed and returns 2 when s is none of these; 0 otherwise. */
int pipeline_replay_speed(const char *cmd, const char *s, double *speed);

/* Read and frame the capture, build the books, point c at the feed.  On a
 * bad file prints the file and offset and returns 1; 0 and *out otherwise. */
int pipeline_replay_setup(const char *cmd, const char *path, const itchfeed_options *o,
                          lat_pipe_config *c, itchfeed **out);

/* One line: the capture, passes, speed and what the work stage is. */
void pipeline_replay_header(FILE *f, const char *path, const itchfeed *feed, double speed);

/* Work per kind, arrival figures, itch anomalies, final top of book per stock
 * (the same table as `latlab book itch`). */
void pipeline_replay_print(FILE *f, const itchfeed *feed, double speed, const lat_pipe_result *r);

/* The same as a JSON object (new reference). */
struct json_t *pipeline_replay_json(const itchfeed *feed, double speed, const lat_pipe_result *r);

/* The lab's replay round: the same pipeline (base: placed, e.g. the lab's
 * pinned baseline config) fed first at a steady rate equal to the capture's
 * mean offered rate, then by the capture on its own timestamps (o: speed,
 * loops, max gap).  Prints both stage tables (titled) and the replay's
 * figures to out; *json, when json is non-NULL, gets {"steady": run,
 * "replay": run with its "replay" figures}.  Returns 0, or 1 after printing
 * the error (unreadable or bad capture, failed run). */
int pipeline_replay_round(FILE *out, const char *cmd, const char *path, const itchfeed_options *o,
                          const lat_pipe_config *base, bool over, struct json_t **json);

/* `latlab pipeline --replay FILE --with-steady [--json FILE]`: the round
 * above on stdout, its JSON (plus run conditions) to json_path when set. */
int pipeline_replay_run_with_steady(const char *cmd, const char *path, const itchfeed_options *o,
                                    const lat_pipe_config *base, bool over, const char *json_path);

#endif
