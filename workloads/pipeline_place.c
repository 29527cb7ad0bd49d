/* pipeline_place.c - what runs where in the stamped pipeline (see
 * pipeline.h): the one table of its stages (which hot threads carry each
 * hop, each stage's flight recorder slot), the names of its stages, roles
 * and shapes, and the placement of its hot threads on CPUs through the
 * topology planner (topo.h). */
#include "latlab/pipeline.h"

#include <errno.h>
#include <stdio.h>

#include "latlab/error.h"
#include "latlab/topo.h"

/* ---- stages, roles, shapes -------------------------------------------------------------- */

#define P_ (1u << LAT_PIPE_PRODUCER)
#define W_ (1u << LAT_PIPE_WORKER)
#define C_ (1u << LAT_PIPE_CONSUMER)
const lat_pipe_stage_desc lat_pipe_stages[LAT_PIPE_NSTAGES] = {
    [LAT_PIPE_SEND] = {"send", "send", 3, P_},
    [LAT_PIPE_Q1] = {"q1+wake", "q1-wake", 0, P_ | W_},
    [LAT_PIPE_WORK] = {"work", "work", 1, W_},
    [LAT_PIPE_Q2] = {"q2+wake", "q2-wake", 2, W_ | C_},
    [LAT_PIPE_E2E] = {"e2e", "e2e", -1, P_ | W_ | C_},
};

const char *lat_pipe_stage_name(int stage) {
    return stage >= 0 && stage < LAT_PIPE_NSTAGES ? lat_pipe_stages[stage].name : "?";
}

unsigned lat_pipe_stage_threads(int stage) {
    return stage >= 0 && stage < LAT_PIPE_NSTAGES ? lat_pipe_stages[stage].threads : 0;
}

bool lat_pipe_stage_present(int stage, int shape, bool split_q1) {
    if (stage == LAT_PIPE_SEND) return split_q1;
    if (stage == LAT_PIPE_Q2) return shape == LAT_PIPE_FULL;
    return stage >= 0 && stage < LAT_PIPE_NSTAGES;
}

int lat_pipe_flight_slot(int stage, int shape, bool split_q1) {
    if (!lat_pipe_stage_present(stage, shape, split_q1) || lat_pipe_stages[stage].flight_rank < 0)
        return -1;
    int slot = 0;
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++)
        if (lat_pipe_stage_present(s, shape, split_q1) && lat_pipe_stages[s].flight_rank >= 0 &&
            lat_pipe_stages[s].flight_rank < lat_pipe_stages[stage].flight_rank)
            slot++;
    return slot;
}

const char *lat_pipe_role_name(int shape, int role) {
    switch (role) {
    case LAT_PIPE_PRODUCER:
        return "producer";
    case LAT_PIPE_WORKER:
        return shape == LAT_PIPE_FULL ? "transformer" : "worker";
    case LAT_PIPE_CONSUMER:
        return "consumer";
    }
    return "?";
}

const char *lat_pipe_shape_name(int shape) {
    return shape == LAT_PIPE_FULL ? "full" : shape == LAT_PIPE_COMPACT ? "compact" : "auto";
}

/* ---- placement ----------------------------------------------------------------------------- */

int lat_pipe_place(lat_pipe_config *c, int shape, const lat_topo *t, bool oversubscribe,
                   bool *oversubscribed, char *why, size_t why_len) {
    if (!c || !t || !oversubscribed || !why || why_len == 0) return -EINVAL;
    *oversubscribed = false;
    why[0] = 0;
    lat_plan p;
    int rc;
    char auto_note[160] = "";
    if (shape == LAT_PIPE_AUTO) {
        rc = lat_topo_plan(t, 3, 1, 0, &p);
        if (rc == 0 && !p.smt_shared) {
            shape = LAT_PIPE_FULL;
            snprintf(auto_note, sizeof auto_note,
                     "auto chose full: three hot threads can each be pinned to their own CPU");
        } else {
            shape = LAT_PIPE_COMPACT;
            snprintf(auto_note, sizeof auto_note,
                     "auto chose compact: %d usable CPUs cannot pin three hot threads apart, "
                     "so the consumer runs inside the worker",
                     lat_cpuset_count(lat_topo_affinity(t)));
        }
    }
    if (shape != LAT_PIPE_FULL && shape != LAT_PIPE_COMPACT) return -EINVAL;
    int nhot = shape == LAT_PIPE_FULL ? 3 : 2;
    rc = lat_topo_plan(t, nhot, 1, 0, &p);
    if (rc == LAT_ETOOFEW_CPUS) {
        if (!oversubscribe) {
            snprintf(why, why_len, "%s%s%s; use --oversubscribe to run anyway", auto_note,
                     auto_note[0] ? "; " : "",
                     p.note[0] ? p.note : "too few CPUs for the hot threads");
            return LAT_ETOOFEW_CPUS;
        }
        rc = lat_topo_plan(t, nhot, 1, LAT_PLAN_SHARE, &p);
        if (rc) return rc;
        *oversubscribed = true;
        c->idle = lat_idle_backoff(10, 20, 1000, 1000000);
    } else if (rc) {
        return rc;
    }
    if (p.oversubscribed) {
        *oversubscribed = true;
        c->idle = lat_idle_backoff(10, 20, 1000, 1000000);
    }
    c->shape = shape;
    c->cpus[LAT_PIPE_PRODUCER] = p.hot[0];
    c->cpus[LAT_PIPE_WORKER] = p.hot[1];
    c->cpus[LAT_PIPE_CONSUMER] = shape == LAT_PIPE_FULL ? p.hot[2] : -1;
    int len = snprintf(why, why_len, "%s%sshape %s: producer on CPU %d, %s on CPU %d", auto_note,
                       auto_note[0] ? "; " : "", lat_pipe_shape_name(shape), p.hot[0],
                       shape == LAT_PIPE_FULL ? "transformer" : "worker", p.hot[1]);
    if (shape == LAT_PIPE_FULL && len > 0 && (size_t)len < why_len)
        len += snprintf(why + len, why_len - (size_t)len, ", consumer on CPU %d", p.hot[2]);
    if (*oversubscribed && len > 0 && (size_t)len < why_len)
        len +=
            snprintf(why + len, why_len - (size_t)len, "; hot threads share CPUs (backoff idle)");
    if (p.note[0] && len > 0 && (size_t)len < why_len)
        snprintf(why + len, why_len - (size_t)len, "; %s", p.note);
    return 0;
}
