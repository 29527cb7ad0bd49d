/* pipeplace.h - the hot threads' placement from the command line, shared by
 * `latlab pipeline`, `latlab lab` and `latlab book bench`: --shape and
 * --cpus parsers for the options table, and the planner (lat_pipe_place)
 * with its refusals turned into exit statuses and messages; and the two CPUs
 * of `latlab dce` and `latlab bakeoff ring`. */
#ifndef LATLAB_CLI_PIPEPLACE_H
#define LATLAB_CLI_PIPEPLACE_H

#include <stdbool.h>
#include <stddef.h>

#include "latlab/pipeline.h"
#include "latlab/topo.h"

/* Resolve the shape and plan hot CPUs (within cpus[0..ncpus) when ncpus > 0).
 * On too few CPUs without oversubscribe prints the planner's reason and
 * returns 1 (runtime error); 2 for a --cpus list the machine cannot honour;
 * 0 on success with *over and why filled. */
int lab_place(const char *cmd, lat_pipe_config *c, int shape, const int *cpus, int ncpus,
              bool oversubscribe, bool *over, char *why, size_t why_len);

/* "full"/"compact"/"auto" -> LAT_PIPE_*; -1 when unknown. */
int lab_shape(const char *s);

/* --shape and --cpus as options-table parsers (cli.h CLI_CUSTOM): dest is an
 * int (the shape) or a lab_cpulist. */
typedef struct lab_cpulist {
    int cpus[LAT_MAX_CPUS];
    int n;
} lab_cpulist;
int lab_opt_shape(const char *cmd, const char *flag, const char *v, void *dest);
int lab_opt_cpus(const char *cmd, const char *flag, const char *v, void *dest);

/* Pick two CPUs for a cross-core measurement (`latlab dce`, `latlab bakeoff
 * ring`): from `list` when not NULL (exactly two CPUs this process may use),
 * else from the topology planner.  Returns 0, or an exit status after
 * printing why (one CPU, bad list). */
int cli_pick_two_cpus(const char *cmd, const char *list, int cpus[2]);

#endif
