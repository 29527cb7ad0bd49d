/* labprof.h - the lab's step (e) in the tool: perf attached to this process
 * for one baseline round and one share-line round of the in-process pipeline,
 * then both profiles, their diff, the work p50 ratio of the same rounds and
 * the narration, printed and written (files, LAB.md section, report.html
 * section).  `latlab lab` and `latlab profile lab` both use it.  Where perf is
 * missing or not permitted, init says why, every other call does nothing, and
 * the lab goes on. */
#ifndef LATLAB_CLI_LABPROF_H
#define LATLAB_CLI_LABPROF_H

#include <stdbool.h>
#include <stdio.h>

#include "latlab/profile.h"
#include "latlab/report.h"

enum { LABPROF_BASE = 0, LABPROF_SHARE = 1 };

typedef struct labprof_side {
    lat_profile_session *sess;
    lat_profile_result r;
    bool have;     /* a profile was read */
    char err[512]; /* why not, when it failed */
    double work_p50_ns, e2e_p50_ns;
    double ipc, cache_misses; /* the worker's; NAN without a PMU */
} labprof_side;

typedef struct labprof {
    char out[4096]; /* profiles go to <out>/profile-baseline, <out>/profile-share-line */
    unsigned hz;
    bool enabled;
    char why[512]; /* why step (e) does not run */
    int c2c;       /* 1 supported, 0 not (c2c_why says why), < 0 unknown */
    char c2c_why[200];
    labprof_side side[2];
} labprof;

/* Check perf and permission (p->enabled, p->why) and probe perf c2c.  off:
 * nothing is checked or run; why says off. */
void labprof_init(labprof *p, const char *out, unsigned hz, const char *off);
/* Around the profiled round of side (LABPROF_BASE / LABPROF_SHARE). */
void labprof_begin(labprof *p, int side);
void labprof_end(labprof *p, int side);
/* The figures of the profiled round (ns; NAN unknown). */
void labprof_figures(labprof *p, int side, double work_p50_ns, double e2e_p50_ns, double ipc,
                     double cache_misses);
/* Both profiles present? */
bool labprof_ready(const labprof *p);
/* Write <out>/profile-baseline/ and <out>/profile-share-line/ (flame.svg,
 * folded.txt, top.txt, report.html) and <out>/profile-diff.txt.  Returns 0 or a negative errno
 * (nothing when not ready). */
int labprof_write(const labprof *p);
/* The step (e) block: the comparison, counters, c2c; or why it did not run. */
void labprof_print(const labprof *p, FILE *f);
/* The same as a LAB.md section (## heading included). */
void labprof_markdown(const labprof *p, FILE *f);
/* The same as a report section (flamegraphs, diff table, verdict lines). */
int labprof_report(const labprof *p, lat_report *rep);
void labprof_fini(labprof *p);

#endif
