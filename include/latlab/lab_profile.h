/* lab_profile.h - the lab's profiling step: perf attached to this process
 * for one baseline round and one share-line round of the in-process pipeline,
 * then both profiles, their diff, the work p50 ratio of the same rounds and
 * the narration, printed and written (files, LAB.md section, report.html
 * section).  `latlab lab` and `latlab profile lab` both use it.  Where perf is
 * missing or not permitted, init says why, every other call does nothing, and
 * the lab goes on. */
#ifndef LATLAB_LAB_PROFILE_H
#define LATLAB_LAB_PROFILE_H

/* Experimental: its API may change in any release (see latlab.h). */
#ifndef LATLAB_EXPERIMENTAL
#error "latlab/lab_profile.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stdbool.h>
#include <stdio.h>

#include "latlab/pipeline.h"
#include "latlab/profile.h"
#include "latlab/report.h"

enum { LAT_LAB_PROF_BASE = 0, LAT_LAB_PROF_SHARE = 1 };

typedef struct lat_lab_prof_side {
    lat_profile_session *sess;
    lat_profile_result r;
    bool have;     /* a profile was read */
    char err[512]; /* why not, when it failed */
    double work_p50_ns, e2e_p50_ns;
    double ipc, cache_misses; /* the worker's; NAN without a PMU */
} lat_lab_prof_side;

typedef struct lat_lab_prof {
    char out[4096]; /* profiles go to <out>/profile-baseline, <out>/profile-share-line */
    unsigned hz;
    bool enabled;
    char why[512]; /* why the profiling step does not run */
    int c2c;       /* 1 supported, 0 not (c2c_why says why), < 0 unknown */
    char c2c_why[200];
    lat_lab_prof_side side[2];
} lat_lab_prof;

/* Check perf and permission (p->enabled, p->why) and probe perf c2c.  off:
 * nothing is checked or run; why says off. */
void lat_lab_prof_init(lat_lab_prof *p, const char *out, unsigned hz, const char *off);
/* Around the profiled round of side (LAT_LAB_PROF_BASE / LAT_LAB_PROF_SHARE). */
void lat_lab_prof_begin(lat_lab_prof *p, int side);
void lat_lab_prof_end(lat_lab_prof *p, int side);
/* The figures of the profiled round (ns; NAN unknown). */
void lat_lab_prof_figures(lat_lab_prof *p, int side, double work_p50_ns, double e2e_p50_ns,
                          double ipc, double cache_misses);
/* Both profiles present? */
bool lat_lab_prof_ready(const lat_lab_prof *p);
/* Write <out>/profile-baseline/ and <out>/profile-share-line/ (flame.svg,
 * folded.txt, top.txt, report.html) and <out>/profile-diff.txt.  Returns 0 or a negative errno
 * (nothing when not ready). */
int lat_lab_prof_write(const lat_lab_prof *p);
/* The profiling step's block: the comparison, counters, c2c; or why it did not run. */
void lat_lab_prof_print(const lat_lab_prof *p, FILE *f);
/* The same as a LAB.md section (## heading included). */
void lat_lab_prof_markdown(const lat_lab_prof *p, FILE *f);
/* The same as a report section (flamegraphs, diff table, verdict lines). */
int lat_lab_prof_report(const lat_lab_prof *p, lat_report *rep);
void lat_lab_prof_fini(lat_lab_prof *p);

/* One pipeline round of base (share-line when share) for the profiling step
 * on its own: profiled as side (LAT_LAB_PROF_*) unless side < 0, its
 * figures recorded, one line "NAME work p50 ... e2e p50 ..." to out; *e2e
 * gets the e2e p50 (ns).  0, or a negative errno with err saying why. */
int lat_lab_prof_round(lat_lab_prof *p, const lat_pipe_config *base, int side, bool share,
                       const char *name, FILE *out, double *e2e, char *err, size_t errlen);
/* Everything the profiling step writes under p->out: the profiles
 * (lat_lab_prof_write), PROFILES.md and report.html.  0 or a negative errno. */
int lat_lab_prof_write_all(const lat_lab_prof *p);

#endif /* LATLAB_LAB_PROFILE_H */
