/* lab_replay.h - the lab's replay round (see lab_replay.c). */
#ifndef LATLAB_CLI_LAB_REPLAY_H
#define LATLAB_CLI_LAB_REPLAY_H

#include <stdbool.h>

#include "latlab/pipeline.h"

#include "latlab/lab_report.h"

/* spec: "auto" (a synthetic capture in out_dir/replay.itch), "none", or a
 * capture's path.  base: the lab's placed, pinned baseline configuration.
 * Returns 0 (r filled; r->ran false for "none") or an exit status after
 * printing why. */
int lab_replay_round(const char *cmd, const char *spec, const char *out_dir,
                     const lat_pipe_config *base, bool over, lat_lab_replay *r);

#endif
