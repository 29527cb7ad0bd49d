/* lab_internal.h - what the lab's own files share and nobody else calls
 * (never installed). */
#ifndef LATLAB_LAB_INTERNAL_H
#define LATLAB_LAB_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "latlab/lab.h"

/* A finished run reduced to the kept figures the verdict reads (usable:
 * enough kept work samples for the p99.9; placement NEAR) (protocol.c). */
void lat__lab_cell_of(const lat_pipe_result *r, lat_lab_cell *cell);
/* The shift function of v as a standalone SVG at path (atomically): ratio
 * with its CI per quantile on a log axis, the band 1/band .. band shaded
 * (band > 1).  0 or a negative errno (shiftplot.c). */
int lat__lab_shift_svg(const lat_lab_verdict *v, const char *title, double band, const char *path);
/* LAB.md's view of it: a link to svg (a file name beside LAB.md) and the
 * table quantile | ratio | CI | p | rounds; "n/a" for points not read. */
void lat__lab_shift_md(FILE *f, const lat_lab_verdict *v, const char *svg);
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
