/* pipeline_report.h - the pipeline's presentation, shared by `latlab
 * pipeline`, `latlab lab` and the lab's replay round: the per-stage table in
 * the shape `latlab pipeline` prints, the counts and counters lines, the
 * error budget, the backlog rule and the JSON document of one run.  Writes
 * only to the FILE it is given; never prints otherwise. */
#ifndef LATLAB_PIPELINE_REPORT_H
#define LATLAB_PIPELINE_REPORT_H

/* Experimental: its API may change in any release (see latlab.h). */
#ifndef LATLAB_EXPERIMENTAL
#error "latlab/pipeline_report.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/budget.h"
#include "latlab/hist.h"
#include "latlab/pipeline.h"

struct json_t;

#define LAT_PIPE_OVERSUB_STAMP "oversubscribed: latencies are not representative"

/* The flight recorder's verdict ("flight recorder: ...") into f; when it
 * fired, its window written atomically to path, or (path NULL) its last 20
 * events into dump.  0, or the file's negative errno. */
int lat_pipe_report_flight(FILE *f, FILE *dump, const lat_flight *fl, const char *path);
/* "latlab pipeline: WHY" (with the no-pin note) and the run's parameters
 * line (calibration, events, rate, queue, sample ring, work, idle, flags);
 * replay: the work is a replay's books, not LCG rounds. */
void lat_pipe_print_header(FILE *f, const lat_pipe_config *c, const char *why, bool replay);
/* The stages c's run has, in order: their LAT_PIPE_* indexes and names
 * (arrays of LAT_PIPE_NSTAGES); returns how many. */
int lat_pipe_stages_of(const lat_pipe_config *c, int *stage, const char **name);

/* The per-stage table (one line per stage, `latlab pipeline`'s shape), stamped when
 * oversubscribed.  title may be NULL. */
/* More than max_share of the run's samples were dropped by the aggregation
 * ring: true, and buf says the tables come from a minority (or part) of the
 * events.  `latlab pipeline` fails above LAT_PIPE_MAX_DROP_SHARE unless
 * --allow-drops; every table printed says so above 0. */
#define LAT_PIPE_MAX_DROP_SHARE 0.01
bool lat_pipe_drops_note(const lat_pipe_result *r, double max_share, char *buf, size_t len);
void lat_pipe_print_table(FILE *f, const lat_pipe_config *c, const lat_pipe_result *r, bool over,
                          const char *title);
/* "  95% CI p50 [lo, hi] p99 [...] ..." and a newline: the intervals of a
 * table line (max-bound ones say how many samples they need). */
void lat_pipe_print_cis(FILE *f, const double *ps, const lat_hist_ci *ci, size_t n);
/* The run's error budget (timer measured now; the run's stamp cost, 2 stamps
 * per stage figure, the e2e histogram's resolution); 0 or -EINVAL. */
int lat_pipe_budget(const lat_pipe_config *c, const lat_pipe_result *r, lat_budget *b);
/* Its line, with a newline. */
void lat_pipe_print_budget(FILE *f, const lat_budget *b);
/* processed/dropped lines, per-thread counters and the instrumentation cost. */
void lat_pipe_print_details(FILE *f, const lat_pipe_config *c, const lat_pipe_result *r, bool over);
/* The instrumentation cost: one stamp and the event's stamps as shares of
 * the e2e p50, and a warning when one stamp is over LAT_BUDGET_STAMP_SHARE
 * of it.  Part of lat_pipe_print_details. */
void lat_pipe_print_stamp_cost(FILE *f, const lat_pipe_result *r);
/* Per-sample censoring (the run's censor figures): per stage the kept share of
 * samples and of send time, why the others left, the net figures beside the
 * gross ones, and whether the kept samples support a p99.9.  Nothing when the
 * run judged no sample. */
void lat_pipe_print_censoring(FILE *f, const lat_pipe_result *r);

/* The backlog rule, written once: a median e2e of LAT_PIPE_BACKLOG_SENDS
 * send intervals or more means the run measured queueing backlog, not the
 * pipeline.  lat_pipe_backlog_ns is that e2e in ns at rate_hz (0 for rate 0);
 * `latlab pipeline` notes a backlog above it (the lab censors backlog
 * samples one by one instead: censor.h). */
#define LAT_PIPE_BACKLOG_SENDS 20
double lat_pipe_backlog_ns(uint64_t rate_hz);
/* True (and a sentence in buf) when r's median e2e is at or above the
 * backlog rule's figure. */
bool lat_pipe_backlog_note(const lat_pipe_config *c, const lat_pipe_result *r, char *buf,
                           size_t len);

/* The JSON of one run (lat_pipe_result_json plus placement and the
 * oversubscribed stamp).  New reference or NULL. */
struct json_t *lat_pipe_run_json(const lat_pipe_config *c, const lat_pipe_result *r, bool over,
                                 const char *why);

/* Read back the e2e p99.9 (ns, stages_ns.e2e."p99.9") of a run's JSON file
 * at path (as lat_pipe_run_json writes it), e.g. a baseline run's.  Returns 0
 * and *out_ns; -EIO when the file cannot be read or parsed (why, of size
 * cap, says so: jansson's text, after "line N: " when it names a line); or
 * -ENODATA when it has no positive integer there. */
int lat_pipe_json_e2e_p999(const char *path, uint64_t *out_ns, char *why, size_t cap);

#endif /* LATLAB_PIPELINE_REPORT_H */
