/* pipeplace.c - placement options and planning for the pipeline commands,
 * and the two CPUs of a cross-core measurement (see pipeplace.h). */
#include "pipeplace.h"

#include "cli.h"

#include <string.h>

#include "latlab/error.h"

int lab_shape(const char *s) {
    if (!strcmp(s, "full")) return LAT_PIPE_FULL;
    if (!strcmp(s, "compact")) return LAT_PIPE_COMPACT;
    if (!strcmp(s, "auto")) return LAT_PIPE_AUTO;
    return -1;
}

int lab_opt_shape(const char *cmd, const char *flag, const char *v, void *dest) {
    if ((*(int *)dest = lab_shape(v)) < 0)
        return cli_usage_error(cmd, "%s: '%s' is not full, compact or auto", flag, v);
    return 0;
}

int lab_opt_cpus(const char *cmd, const char *flag, const char *v, void *dest) {
    lab_cpulist *l = dest;
    return cli_parse_cpulist(cmd, flag, v, l->cpus, LAT_MAX_CPUS, &l->n);
}

int lab_place(const char *cmd, lat_pipe_config *c, int shape, const int *cpus, int ncpus,
              bool oversubscribe, bool *over, char *why, size_t why_len) {
    lat_topo *t = NULL;
    int rc = lat_topo_load(NULL, &t);
    if (rc) return cli_lib_error(cmd, "reading the CPU topology", rc);
    if (ncpus > 0) {
        lat_cpuset want, have;
        lat_cpuset_zero(&want);
        for (int i = 0; i < ncpus; i++) {
            if (!lat_cpuset_has(lat_topo_affinity(t), cpus[i])) {
                lat_topo_destroy(t);
                return cli_usage_error(cmd, "--cpus: CPU %d is not online or not allowed here",
                                       cpus[i]);
            }
            lat_cpuset_add(&want, cpus[i]);
        }
        lat_cpuset_and(&have, &want, lat_topo_affinity(t));
        lat_topo_set_affinity(t, &have);
    }
    rc = lat_pipe_place(c, shape, t, oversubscribe, over, why, why_len);
    lat_topo_destroy(t);
    if (rc == LAT_ETOOFEW_CPUS) return cli_error(cmd, "%s", why);
    if (rc) return cli_lib_error(cmd, "planning the placement", rc);
    return 0;
}

/* See pipeplace.h. */
int cli_pick_two_cpus(const char *cmd, const char *list, int cpus[2]) {
    if (list) {
        int n = 0, got[LAT_MAX_CPUS];
        int rc = cli_parse_cpulist(cmd, "--cpus", list, got, LAT_MAX_CPUS, &n);
        if (rc) return rc;
        if (n != 2)
            return cli_usage_error(cmd, "--cpus: needs exactly two CPUs (got %d in '%s')", n, list);
        lat_cpuset mine;
        if (lat_thread_affinity(&mine) == 0)
            for (int i = 0; i < 2; i++)
                if (!lat_cpuset_has(&mine, got[i]))
                    return cli_error(cmd, "--cpus: CPU %d is not available to this process",
                                     got[i]);
        cpus[0] = got[0];
        cpus[1] = got[1];
        return 0;
    }
    lat_topo *t = NULL;
    int err = lat_topo_load(NULL, &t);
    if (err) return cli_lib_error(cmd, "reading the CPU topology", err);
    lat_plan plan;
    err = lat_topo_plan(t, 2, 0, 0, &plan);
    lat_topo_destroy(t);
    if (err == LAT_ETOOFEW_CPUS)
        return cli_error(cmd,
                         "needs two CPUs to put producer and consumer on different cores, "
                         "but this process can use only one (%s); cross-core figures would "
                         "measure the scheduler, not the ring",
                         plan.note[0] ? plan.note : "affinity mask");
    if (err) return cli_lib_error(cmd, "planning CPU placement", err);
    cpus[0] = plan.hot[0];
    cpus[1] = plan.hot[1];
    return 0;
}
