/* lab_replay.h - the lab's replay round: after the protocol, the same
 * pinned baseline pipeline is fed first at a steady rate, then by a capture
 * on its own timestamps (bursts included), so LAB.md shows steady vs bursty
 * arrivals side by side.  The capture is the user's or, by default, a seeded
 * synthetic one written by itch-gen into the output folder (a documented
 * quiet/burst arrival process: bursts at 20x the mean rate, seed 18).  Runs
 * the pipeline twice; blocks; never prints. */
#ifndef LATLAB_LAB_REPLAY_H
#define LATLAB_LAB_REPLAY_H

/* Experimental: its API may change in any release (see latlab.h). */
#ifndef LATLAB_EXPERIMENTAL
#error "latlab/lab_replay.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stdbool.h>
#include <stddef.h>

#include "latlab/pipeline.h"

struct json_t;

/* The replay round's outcome. */
typedef struct lat_lab_replay {
    bool ran;
    char capture[4400];  /* the capture replayed, and where it came from */
    char *text;          /* both stage tables and the replay figures (malloc'd) */
    struct json_t *json; /* {"steady": run, "replay": run} */
    char brief[160];     /* one line: both runs' e2e p99.9 */
} lat_lab_replay;

/* spec: "auto" (a synthetic capture in out_dir/replay.itch), "none", or a
 * capture's path.  base: the lab's placed, pinned baseline configuration.
 * Returns 0 (r filled; r->ran false for "none"; release with
 * lat_lab_replay_fini), or a negative errno with the message in err (len
 * bytes). */
int lat_lab_replay_round(const char *spec, const char *out_dir, const lat_pipe_config *base,
                         bool over, lat_lab_replay *r, char *err, size_t len);
/* Release r's text and JSON.  NULL is fine. */
/* Before any measurement: a capture named by spec (not "auto" or "none")
 * reads and parses as ITCH 5.0, so a bad one fails before the rounds, not
 * after them.  0, or a negative errno with the message (file and offset) in
 * err. */
int lat_lab_replay_check(const char *spec, const lat_pipe_config *base, char *err, size_t len);
void lat_lab_replay_fini(lat_lab_replay *r);

#endif /* LATLAB_LAB_REPLAY_H */
