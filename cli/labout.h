/* labout.h - what `latlab lab` writes: the state its callbacks collect while
 * the protocol runs (measure/lab.c) and the writers of LAB.md, lab.json and
 * report.html from it.  Split from lab.c so that option parsing and the run
 * stay short. */
#ifndef LATLAB_CLI_LABOUT_H
#define LATLAB_CLI_LABOUT_H

#include <stdbool.h>
#include <stdio.h>

#include "lab_replay.h"
#include "latlab/lab.h"
#include "latlab/topo.h"
#include "labprof.h"

struct json_t;

/* The silence check of one round (root only). */
typedef struct lab_silence {
    int conf;   /* LAT_LAB_BASE or LAT_LAB_NOPIN */
    bool ran;   /* the tracer was started */
    int status; /* its exit status */
    char *text; /* its report (malloc'd), or NULL */
    int pid;    /* while running */
    char path[4096];
} lab_silence;

typedef struct lab_ctx {
    const char *out;
    char runs_dir[4096];
    bool over, quick, root;
    char why[512];
    char banner[768];
    lat_runcond rcnd;
    lat_lab_config cfg;
    struct json_t *jruns; /* every run's JSON */
    int err;              /* first error writing a run file (negative errno) */
    /* flight recorder of the first alloc run that fired */
    bool flight_done;
    char flight_text[320];
    char flight_gap[200];
    char *flight_dump; /* malloc'd, a window around the outlier */
    uint64_t flight_thr;
    char silence_note[200]; /* why the silence check did not run */
    lab_silence sil[2];     /* [0] pinned baseline, [1] no-pin */
    labprof prof;           /* step (e): perf on baseline and share-line round 1 */
    double gap_us;
    uint64_t stamp_cost_ns; /* of the first run: one fenced stamp */
    unsigned stamps_per_event;
    lab_replay replay; /* the replay round (steady vs bursty arrivals) */
    /* --noise: what it took (lab.json "noise"), or NULL */
    struct json_t *noise;
} lab_ctx;

/* The platform account of configuration conf summed over its runs. */
void lab_conf_platform(const lab_ctx *x, const lat_lab_result *res, int conf, char *buf,
                       size_t len);
/* "the hot threads' worst loss per run: median 84.9% (range 43.7..99.6%) over
 * 60 runs, 60 contaminated (threshold 10%)" */
void lab_loss_summary(const lab_ctx *x, const lat_lab_result *res, char *buf, size_t len);
/* The one-line platform account of a run record. */
void lab_rec_platform(const lab_ctx *x, const lat_lab_run_rec *rec, char *buf, size_t len);

int lab_write_md(const lab_ctx *x, const lat_lab_result *res, const char *path);
int lab_write_json(const lab_ctx *x, const lat_lab_result *res, const char *path);
int lab_write_html(const lab_ctx *x, const lat_lab_result *res, const char *path);
/* <stage>.svg (merged histograms) and intervals-<figure>.svg into out. */
void lab_write_svgs(const lab_ctx *x, const lat_lab_result *res);

#endif
