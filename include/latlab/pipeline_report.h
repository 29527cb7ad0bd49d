/* labrun.h - pieces shared by `latlab pipeline` and `latlab lab`: placement
 * through the planner, the per-stage table in the seed's shape, the counts and
 * counters lines, and the JSON document of one run. */
#ifndef LATLAB_CLI_LABRUN_H
#define LATLAB_CLI_LABRUN_H

#include <stdbool.h>
#include <stdio.h>

#include "latlab/budget.h"
#include "latlab/hist.h"
#include "latlab/pipeline.h"
#include "latlab/topo.h"

struct json_t;

#define LAB_OVERSUB_STAMP "oversubscribed: latencies are not representative"

/* Resolve the shape and plan hot CPUs (within cpus[0..ncpus) when ncpus > 0).
 * On too few CPUs without oversubscribe prints the planner's reason and
 * returns 1 (runtime error); 2 for a --cpus list the machine cannot honour;
 * 0 on success with *over and why filled. */
int lab_place(const char *cmd, lat_pipe_config *c, int shape, const int *cpus, int ncpus,
              bool oversubscribe, bool *over, char *why, size_t why_len);

/* The per-stage table (one line per stage, seed shape), stamped when
 * oversubscribed.  title may be NULL. */
void lab_print_table(FILE *f, const lat_pipe_config *c, const lat_pipe_result *r, bool over,
                     const char *title);
/* "  95% CI p50 [lo, hi] p99 [...] ..." and a newline: the intervals of a
 * table line (max-bound ones say how many samples they need). */
void lab_print_cis(FILE *f, const double *ps, const lat_hist_ci *ci, size_t n);
/* The run's error budget (timer measured now; the run's stamp cost, 2 stamps
 * per stage figure, the e2e histogram's resolution); 0 or -EINVAL. */
int lab_budget(const lat_pipe_config *c, const lat_pipe_result *r, lat_budget *b);
/* Its line, with a newline. */
void lab_print_budget(FILE *f, const lat_budget *b);
/* processed/dropped lines, per-thread counters and the instrumentation cost. */
void lab_print_details(FILE *f, const lat_pipe_config *c, const lat_pipe_result *r, bool over);

/* True (and a sentence in buf) when the median e2e spans >= 20 send
 * intervals: the run measured queueing backlog, not the pipeline. */
bool lab_backlog_note(const lat_pipe_config *c, const lat_pipe_result *r, char *buf, size_t len);

/* The JSON of one run (lat_pipe_result_json plus placement and the
 * oversubscribed stamp).  New reference or NULL. */
struct json_t *lab_run_json(const lat_pipe_config *c, const lat_pipe_result *r, bool over,
                            const char *why);

struct lat_lab_thread_acct;

/* "worker lost 41.2 ms (0.8%) in 312 gaps >= 10 us, longest 7.3 ms; run-queue
 * wait 38.9 ms; ..." for every hot thread that ran, then the hot CPUs' steal,
 * irq and softirq shares. */
void lab_platform_text(char *buf, size_t len, int shape, const struct lat_lab_thread_acct *thr,
                       const lat_pipe_cpustat *cpu, double gap_us);
/* Tail attribution: per stage, the share of samples above p99 / p99.9 whose
 * hop overlapped a gap of a thread carrying it. */
void lab_attrib_text(char *buf, size_t len, int shape, const lat_pipe_tail *tail);
/* Both lines for one run of `latlab pipeline`, and the flight gap if any. */
void lab_print_accounting(FILE *f, const lat_pipe_config *c, const lat_pipe_result *r);

/* "spin"/"yield"/"backoff" -> kind; -1 when unknown. */
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

#endif
