/* replay.c - the lab's replay round (see lab_replay.h): the capture written
 * by itch-gen when none is given (itchgen.h), then the steady-vs-replay round
 * of workloads/book (itchfeed_report.h) into a memory stream. */
#include "latlab/lab_replay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "itchfeed_report.h"
#include "itchgen.h"
#include "latlab/atomicfile.h"
#include "latlab/error.h"

/* The default capture: bursts at 20x the mean rate, events and rate as the
 * lab's runs (so the round lasts about as long as one run). */
static int write_capture(const lat_pipe_config *base, const char *path) {
    itchgen_config g;
    itchgen_config_default(&g);
    g.messages = base->events;
    g.rate_hz = (double)base->rate_hz;
    g.peak_to_mean = 20;
    g.seed = 18;
    lat_afile *af;
    int rc = lat_afile_open(path, &af);
    if (rc) return rc;
    rc = itchgen_write(&g, lat_afile_stream(af), NULL);
    if (rc) {
        lat_afile_abort(af);
        return rc;
    }
    return lat_afile_commit(af);
}

/* A stage figure of one run of the pair ("steady" or "replay"). */
#define E2E(j, run, pct)                                                                           \
    json_object_get(json_object_get(json_object_get(json_object_get(j, run), "stages_ns"), "e2e"), \
                    pct)

int lat_lab_replay_round(const char *spec, const char *out_dir, const lat_pipe_config *base,
                         bool over, lat_lab_replay *r, char *err, size_t len) {
    memset(r, 0, sizeof *r);
    if (!spec || !strcmp(spec, "none")) return 0;
    char path[4200];
    if (!strcmp(spec, "auto")) {
        snprintf(path, sizeof path, "%s/replay.itch", out_dir);
        int rc = write_capture(base, path);
        if (rc) {
            snprintf(err, len, "%s: %s", path, lat_strerror(rc));
            return rc;
        }
    } else {
        snprintf(path, sizeof path, "%s", spec);
    }
    snprintf(r->capture, sizeof r->capture, "%s%s", path,
             strcmp(spec, "auto") ? "" : " (itch-gen: bursts at 20x the mean rate, seed 18)");
    itchfeed_options o = {.speed = 1, .loops = 1, .max_gap_ns = 1000000};
    size_t tlen = 0;
    FILE *mem = open_memstream(&r->text, &tlen);
    if (!mem) {
        snprintf(err, len, "replay round: %s", lat_strerror(-ENOMEM));
        return -ENOMEM;
    }
    int rc = itchfeed_steady_vs_replay(mem, path, &o, base, over, &r->json, err, len);
    if (fclose(mem) != 0 && !rc) {
        rc = -ENOMEM;
        snprintf(err, len, "replay round: %s", lat_strerror(rc));
    }
    if (rc == 0) r->ran = true;
    if (rc == 0) /* the e2e p99.9 of each run */
        snprintf(r->brief, sizeof r->brief,
                 "e2e p99.9 %" JSON_INTEGER_FORMAT " ns at a steady rate, %" JSON_INTEGER_FORMAT
                 " ns on the capture's own timestamps",
                 json_integer_value(E2E(r->json, "steady", "p99.9")),
                 json_integer_value(E2E(r->json, "replay", "p99.9")));
    return rc;
}

int lat_lab_replay_check(const char *spec, const lat_pipe_config *base, char *err, size_t len) {
    if (!spec || !strcmp(spec, "none") || !strcmp(spec, "auto")) return 0;
    itchfeed_options o = {.speed = 1, .loops = 1, .max_gap_ns = 1000000};
    lat_pipe_config c = *base;
    itchfeed *feed = NULL;
    int rc = itchfeed_load(spec, &o, &c, &feed, err, len);
    itchfeed_destroy(feed);
    return rc;
}

void lat_lab_replay_fini(lat_lab_replay *r) {
    if (!r) return;
    free(r->text);
    json_decref(r->json);
    memset(r, 0, sizeof *r);
}
