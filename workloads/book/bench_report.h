/* bench_report.h - `latlab book bench`'s results as documents: the health
 * line, the "where the tail comes from" paragraph (the diagnosis of
 * bench_diag.h in prose), each run's JSON, the .hgrm/.hlog files per
 * scenario, BENCH.md and report.html.  Writes only the files it is given;
 * errors are returned with a message, nothing is printed. */
#ifndef LATBOOK_BENCH_REPORT_H
#define LATBOOK_BENCH_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench_diag.h"
#include "scenario.h"
#include "latlab/budget.h"
#include "latlab/hist.h"
#include "latlab/topo.h"

struct json_t;

/* One finished run and what the caller counted around it. */
typedef struct book_bench_outcome {
    book_bench_result r;
    uint64_t allocs; /* allocation calls in the measured window */
    bool counted;    /* allocs was counted (no counting under sanitizers) */
    int open_loop;
} book_bench_outcome;

/* The documents' context (nothing is copied). */
typedef struct book_bench_doc {
    const book_bench_outcome *runs;
    size_t n;
    const lat_runcond *rc;
    const book_bench_cfg *cfg;
    const lat_budget *bud;
    int cpu;             /* the pinned CPU, -1: not pinned */
    const char *cmdline; /* the command as run */
    bool alloc_counted;  /* allocation counting is available */
    /* why hardware counters cannot be read here (e.g. "this VM exposes no
     * hardware PMU, so on a bare-metal host"), for the next-step advice; NULL:
     * they can */
    const char *no_pmu;
} book_bench_doc;

/* The quantiles reported with 95% intervals: p50, p99, p99.9, p99.99. */
extern const double book_bench_tail_ps[4];
extern const char *const book_bench_tail_names[4];
void book_bench_tail_cis(const lat_hist *h, lat_hist_ci ci[4]);

/* "crossing submits ..., cancel misses ..., empty-book ops ..., mean resting
 * depth ..." into buf (n bytes, cut). */
void book_bench_health_line(char *buf, size_t n, const book_bench_result *r);
/* The tail paragraph: the run's measured figures and which rules of
 * bench_diag.h fired, or that none explains the tail; no method (said once by
 * book_bench_tail_method).  no_pmu is unused (kept for the callers). */
void book_bench_tail_text(char *buf, size_t n, const book_bench_outcome *rn, const char *no_pmu);
/* The method behind every tail paragraph, said once per document: what each
 * figure means and the next step (naming no_pmu, a reason, when not NULL). */
void book_bench_tail_method(char *buf, size_t n, const char *no_pmu);
/* The run as a JSON object (new reference), or NULL. */
struct json_t *book_bench_run_json(const book_bench_outcome *rn);
/* <dir>/<stem>.hgrm and .hlog, atomically: 0 or negative errno (message in err). */
int book_bench_write_hist(const char *dir, const char *stem, const book_bench_outcome *rn,
                          char *err, size_t errlen);
/* <dir>/BENCH.md and <dir>/report.html, atomically: 0 or negative errno
 * (message in err). */
int book_bench_write_md(const char *dir, const book_bench_doc *d, char *err, size_t errlen);
int book_bench_write_html(const char *dir, const book_bench_doc *d, char *err, size_t errlen);

/* The table's header line, then per run its line, its tail quantiles with
 * their intervals, health, lateness (open loop) and CPU share, into f. */
void book_bench_print_head(FILE *f);
void book_bench_print_run(FILE *f, const book_bench_outcome *rn);
/* Why cache and branch misses cannot be counted here (for the doc's no_pmu);
 * NULL when a hardware counter opens. */
const char *book_bench_no_pmu(const lat_runcond *rc);
/* bench.json: the config, the conditions, every run, the error budget.  New
 * reference, or NULL. */
struct json_t *book_bench_doc_json(const book_bench_doc *d);

#endif /* LATBOOK_BENCH_REPORT_H */
