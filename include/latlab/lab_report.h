/* lab_report.h - the files a lab session (lab_session.h) writes: LAB.md
 * (verdicts, their confidence and the rounds behind them, the platform
 * account and tail attribution per configuration, the silence check side by
 * side, the cause -> measurement -> fix narration), lab.json (every run, and
 * the verdict parameters used) and report.html (each verdict beside its
 * shift function; the reported plots marked as such), and the platform lines they share with the
 * tool's output.  Files are written atomically; nothing is printed. */
#ifndef LATLAB_LAB_REPORT_H
#define LATLAB_LAB_REPORT_H

/* Experimental: its API may change in any release (see latlab.h). */
#ifndef LATLAB_EXPERIMENTAL
#error "latlab/lab_report.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stddef.h>

#include "latlab/lab_session.h"

/* The platform account of configuration conf summed over its runs. */
void lat_lab_conf_account(const lat_lab_session *x, const lat_lab_result *res, int conf, char *buf,
                          size_t len);
/* "the hot threads' worst loss per run: median 84.9% (range 43.7..99.6%) over
 * 60 runs, 60 set aside" */
void lat_lab_lost_summary(const lat_lab_session *x, const lat_lab_result *res, char *buf,
                          size_t len);
/* The one-line platform account of a run record. */
void lat_lab_rec_account(const lat_lab_session *x, const lat_lab_run_rec *rec, char *buf,
                         size_t len);

/* The progress line of one run, wrapped at 100 characters: "round  3 alloc
 * work p50 .. | e2e .. | floor .. | kept 94%" (the kept share of the work
 * samples), then "set aside: kept K work samples < 10,000 needed for the
 * p99.9" when it was, then the platform account on indented continuation
 * lines.  buf gets lines joined by '\n', no final newline; truncated to len. */
void lat_lab_run_line(const lat_lab_session *x, const lat_lab_run_rec *rec, char *buf, size_t len);

/* The writers: 0 or a negative errno (files are written atomically). */
int lat_lab_write_md(const lat_lab_session *x, const lat_lab_result *res, const char *path);
int lat_lab_write_json(const lat_lab_session *x, const lat_lab_result *res, const char *path);
int lat_lab_write_html(const lat_lab_session *x, const lat_lab_result *res, const char *path);
/* <stage>.svg (merged histograms) and intervals-<figure>.svg into out. */
void lat_lab_write_svgs(const lat_lab_session *x, const lat_lab_result *res);

#endif /* LATLAB_LAB_REPORT_H */
