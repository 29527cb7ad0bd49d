/* lab_replay.c - the lab's replay round: after the protocol, the same pinned
 * baseline pipeline is fed first at a steady rate, then by a capture on its
 * own timestamps (bursts included), so LAB.md shows steady vs bursty
 * arrivals side by side.  The capture is the user's (--replay FILE) or, by
 * default, a seeded synthetic one written by itch-gen into the output folder
 * (a documented quiet/burst arrival process; see itchgen.h). */
#include "lab_replay.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "itchgen.h"
#include "latlab/atomicfile.h"
#include "latlab/error.h"
#include "pipeline_replay.h"

/* The default capture: bursts at 20x the mean rate, events and rate as the
 * lab's runs (so the round lasts about as long as one run). */
static int write_capture(const char *cmd, const lat_pipe_config *base, const char *path) {
    itchgen_config g;
    itchgen_config_default(&g);
    g.messages = base->events;
    g.rate_hz = (double)base->rate_hz;
    g.peak_to_mean = 20;
    g.seed = 18;
    lat_afile *af;
    int rc = lat_afile_open(path, &af);
    if (rc) return cli_lib_error(cmd, path, rc);
    rc = itchgen_write(&g, lat_afile_stream(af), NULL);
    if (rc) {
        lat_afile_abort(af);
        return cli_lib_error(cmd, path, rc);
    }
    if ((rc = lat_afile_commit(af))) return cli_lib_error(cmd, path, rc);
    return 0;
}

int lab_replay_round(const char *cmd, const char *spec, const char *out_dir,
                     const lat_pipe_config *base, bool over, lat_lab_replay *r) {
    memset(r, 0, sizeof *r);
    if (!spec || !strcmp(spec, "none")) return 0;
    char path[4200];
    if (!strcmp(spec, "auto")) {
        snprintf(path, sizeof path, "%s/replay.itch", out_dir);
        int rc = write_capture(cmd, base, path);
        if (rc) return rc;
    } else {
        snprintf(path, sizeof path, "%s", spec);
    }
    snprintf(r->capture, sizeof r->capture, "%s%s", path,
             strcmp(spec, "auto") ? "" : " (itch-gen: bursts at 20x the mean rate, seed 18)");
    itchfeed_options o = {.speed = 1, .loops = 1, .max_gap_ns = 1000000};
    size_t len = 0;
    FILE *mem = open_memstream(&r->text, &len);
    if (!mem) return cli_lib_error(cmd, "replay round", -ENOMEM);
    int rc = pipeline_replay_round(mem, cmd, path, &o, base, over, &r->json);
    if (fclose(mem) != 0 && !rc) rc = cli_lib_error(cmd, "replay round", -ENOMEM);
    if (rc == 0) r->ran = true;
    return rc;
}
