/* lab_internal.h - what the lab's own files share and nobody else calls
 * (never installed). */
#ifndef LATLAB_LAB_INTERNAL_H
#define LATLAB_LAB_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "latlab/lab.h"
#include "latlab/lab_session.h"
#include "latlab/report.h"

/* A finished run reduced to the kept figures the verdict reads (usable:
 * enough kept work samples for the p99.9; placement NEAR) (protocol.c). */
void lat__lab_cell_of(const lat_pipe_result *r, lat_lab_cell *cell);
/* The shift function of v as a standalone SVG at path (atomically): ratio
 * with its CI per quantile on a log axis, the band 1/band .. band shaded
 * (band > 1).  0 or a negative errno (shiftplot.c). */
int lat__lab_shift_svg(const lat_lab_verdict *v, const char *title, double band, const char *path);
/* The same document in memory (malloc'd, *len bytes, NUL-terminated; the
 * caller frees it), or NULL (bad arguments, no memory). */
char *lat__lab_shift_svg_text(const lat_lab_verdict *v, const char *title, double band,
                              size_t *len);
/* LAB.md's view of it: a link to svg (a file name beside LAB.md) and the
 * table quantile | ratio | CI | p | rounds; "n/a" for points not read. */
void lat__lab_shift_md(FILE *f, const lat_lab_verdict *v, const char *svg);
/* report.html's verdicts: per experiment (and the A/A control) the verdict
 * line, its shift function inline (the figures the verdict reads; band: the
 * no-change ratio) and its points as a table, then the summary table
 * (report_html.c). */
void lat__lab_html_verdicts(lat_report *rep, const lat_lab_result *res, double band);
/* The figures the verdicts do not read, each plot saying so on it: one
 * per-interval figure (which: 0 work p50, 1 work p99.9, 2 e2e p99.9) across
 * the clean intervals of usable runs, *npts the points drawn; stage s's
 * merged latency by percentile, *nconf the configurations with samples.
 * NULL: no memory.  report.html's section of them leaves out an empty plot
 * and says so in a line (report_html.c). */
lat_plot *lat__lab_interval_plot(const lat_lab_result *res, int which, size_t *npts);
lat_plot *lat__lab_stage_plot(const lat_lab_result *res, int s, int *nconf);
void lat__lab_html_reported(lat_report *rep, const lat_lab_session *x, const lat_lab_result *res);
/* report.html's silence check: each table of the two tracer reports with its
 * fields as columns and a column naming the run; their other lines as text. */
void lat__lab_html_silence(lat_report *rep, const lat_lab_session *x);
/* A run's worst hot-thread lost share (account.c). */
double lat__lab_worst_lost(const lat_lab_run_rec *r);
/* v with thousands separators ("10,000") in buf; returns buf. */
const char *lat__lab_thousands(uint64_t v, char *buf, size_t len);
/* Floors above the returned value are the far placement (INFINITY: one
 * placement, or no memory to sort them); a run's placement (placement.c). */
double lat__lab_placement_cut(const lat_lab_result *res);
int lat__lab_placement_at(const lat_lab_run_rec *r, double cut);
/* The stop rule, looked at after each round past min_rounds: every
 * experiment decided (or out of reach of the more rounds the budget allows,
 * or host-bound) and every verdict's kind the same as prev[] (the kinds
 * after the round before).  *reach: how many were out of reach
 * (protocol.c). */
bool lat__lab_stop_ready(const lat_lab_config *c, const lat_lab_result *res, const int *prev,
                         unsigned more, int *reach);

#endif
