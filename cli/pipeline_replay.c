/* pipeline_replay.c - the replay side of `latlab pipeline` (see
 * pipeline_replay.h): the library's errors printed, the round's JSON
 * written. */
#include "pipeline_replay.h"

#include "cli.h"
#include "cliopts.h"

#include <errno.h>
#include <string.h>
#include <stdio.h>

#include <jansson.h>

#include "latlab/json.h"
#include "latlab/topo.h"

int pipeline_replay_speed(const char *cmd, const char *s, double *speed) {
    return cli_parse_pace(cmd, "--speed", s, 1e9, speed);
}

int pipeline_replay_setup(const char *cmd, const char *path, const itchfeed_options *o,
                          lat_pipe_config *c, itchfeed **out) {
    char err[4400];
    if (itchfeed_load(path, o, c, out, err, sizeof err) != 0) return cli_error(cmd, "%s", err);
    return 0;
}

int pipeline_replay_run_with_steady(const char *cmd, const char *path, const itchfeed_options *o,
                                    const lat_pipe_config *base, bool over, const char *json_path) {
    json_t *doc = NULL;
    char msg[4400];
    int rc = itchfeed_steady_vs_replay(stdout, path, o, base, over, json_path ? &doc : NULL, msg,
                                       sizeof msg);
    if (rc) rc = cli_error(cmd, "%s", msg);
    if (rc == 0 && fflush(stdout) != 0)
        rc = cli_error(cmd, "writing stdout failed: %s", strerror(errno ? errno : EIO));
    if (rc == 0 && json_path) {
        lat_runcond rcnd;
        if (doc && lat_runcond_collect(&rcnd, NULL) == 0)
            json_object_set_new(doc, "run_conditions", lat_runcond_json(&rcnd));
        int err = doc ? lat_write_json_atomic(json_path, doc) : -ENOMEM;
        if (err) rc = cli_lib_error(cmd, json_path, err);
    }
    json_decref(doc);
    return rc;
}
