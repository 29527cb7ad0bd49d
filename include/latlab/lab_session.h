/* lab_session.h - one lab session: what the tool's lab collects beside
 * the protocol's result (lab.h), its printed header and summary, and the
 * files it writes at the end (the writers: lab_report.h).
 *
 * A session is the lab as the tool runs it: the protocol's configuration,
 * the run conditions, every run's JSON (also written to <out>/runs/), the
 * flight recorder's window around the first alloc outlier, the silence
 * check's reports, the profiling step (lab_profile.h) and the replay round
 * (lab_replay.h). */

/* lat_lab_session_record() is meant to be called from the protocol's on_run
 * callback, lat_lab_session_silence() and lat_lab_session_around() from its
 * around_run.  Nothing here prints to stdout or stderr except the functions
 * named print, which write to the FILE they are given.  Not thread-safe: one session is filled from
 * the thread that runs the protocol. */
#ifndef LATLAB_LAB_SESSION_H
#define LATLAB_LAB_SESSION_H

/* Experimental: its API may change in any release (see latlab.h). */
#ifndef LATLAB_EXPERIMENTAL
#error "latlab/lab_session.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/lab.h"
#include "latlab/lab_profile.h"
#include "latlab/lab_replay.h"
#include "latlab/topo.h"

struct json_t;

/* The silence check of one round (root only): filled by the caller that
 * runs the tracer. */
typedef struct lat_lab_silence {
    int conf;   /* LAT_LAB_BASE or LAT_LAB_NOPIN */
    bool ran;   /* the tracer was started */
    int status; /* its exit status */
    char *text; /* its report (malloc'd, freed by the session), or NULL */
    int pid;    /* while running (a tracer process the caller started), or 0 */
    char path[4096];
    struct lat_lab_silence_job *job; /* lat_lab_silence_start's tracer, while running */
} lat_lab_silence;

typedef struct lat_lab_session {
    const char *out;     /* the output folder (not copied) */
    char runs_dir[4096]; /* <out>/runs */
    bool over, quick, root;
    bool verbose;  /* print every run and every table (else: verdicts; the rest in LAB.md) */
    char why[512]; /* the placement's reason */
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
    lat_lab_silence sil[2]; /* [0] pinned baseline, [1] no-pin */
    lat_lab_prof prof;      /* the profiling step: perf on baseline and share-line round 1 */
    double gap_us;
    uint64_t stamp_cost_ns; /* of the first run: one fenced stamp */
    unsigned stamps_per_event;
    lat_lab_replay replay; /* the replay round (steady vs bursty arrivals) */
    struct json_t *noise;  /* --noise: what the injector took (lab.json "noise"), or NULL */
    lat_lab_others others; /* what else ran, from the first round on */
    char others_text[240]; /* after the rounds: "cc1 1.3 CPUs, ..." ("" none) */
    double others_cpus;
} lat_lab_session;

/* Zero s, set out and runs_dir, create the runs array.  0 or -ENOMEM (s is
 * then safe to fini).  Creates no folder. */
int lat_lab_session_init(lat_lab_session *s, const char *out);
/* Release everything the session owns (the profiling step included).  NULL
 * is fine. */
void lat_lab_session_fini(lat_lab_session *s);
/* After the caller filled s->cfg (placed, sized): over and why (the
 * placement's), root (the silence check runs only as root; otherwise
 * silence_note says why), prof_off (NULL: the profiling step runs where perf
 * may sample, at 999 Hz; else the reason it is off).  Sets the run logs'
 * folder (cfg.hlog_dir = runs_dir), gap_us, the banner, removes an earlier
 * lab's flight-alloc.txt from out, and collects the run conditions: 0 or
 * their negative errno. */
int lat_lab_session_setup(lat_lab_session *s, bool over, const char *why, bool root,
                          const char *prof_off);
/* Where a run's watchers go, for the protocol's around_run: the silence
 * check's slot for round 1's pinned baseline and no-pin run as root (NULL
 * for other runs); lat_lab_session_around() starts (begin) or stops the
 * profiling step around round 1 of the baseline and of share-line.  Call it
 * after the silence check started and before it stops, so the tracer is not
 * profiled. */
lat_lab_silence *lat_lab_session_silence(lat_lab_session *s, int conf, unsigned round,
                                         unsigned attempt);
void lat_lab_session_around(lat_lab_session *s, int conf, unsigned round, unsigned attempt,
                            int begin);
/* The silence check's plan for the run of c: the hot CPUs as a list
 * ("0,1") and the seconds to trace (the run's send time + 0.2 s) for the
 * tracer's arguments, and sl->path, the .part file its report goes to.  The
 * caller starts the tracer (lat_lab_silence_start does it all), then after the
 * run calls lat_lab_silence_done with its exit status: the report is renamed
 * to silence-<conf>.txt and read into sl->text (at most 64 KiB). */
void lat_lab_silence_plan(const lat_lab_session *s, lat_lab_silence *sl, const lat_pipe_config *c,
                          char *cpus, size_t cpus_len, char *secs, size_t secs_len);
void lat_lab_silence_done(lat_lab_silence *sl, int status);
/* The silence check in this process (the engine of silence.h, root only):
 * plan it for the run of c, start a thread that traces the hot CPUs and
 * writes the report `latlab silence` prints (warnings and errors as it
 * words them) to sl->path, and give it 100 ms to set up.  Sets sl->ran;
 * 0 or negative errno (nothing started).  lat_lab_silence_stop waits for
 * it (the traced time ends on its own) and calls lat_lab_silence_done with
 * its status: 0, or 1 when tracing failed.  Not thread-safe: one check at a
 * time per process. */
int lat_lab_silence_start(const lat_lab_session *s, lat_lab_silence *sl, const lat_pipe_config *c);
void lat_lab_silence_stop(lat_lab_silence *sl);
/* The protocol's on_run for a session: remember the stamp cost, write the
 * run's JSON (runs/<experiment>-r<round>[-set-aside].json, with account, its
 * platform account as text), keep the alloc run's flight window
 * (flight-alloc.txt), hand round 1's baseline and share-line figures to the
 * profiling step.  A failed write is kept in s->err. */
void lat_lab_session_record(lat_lab_session *s, const lat_lab_run_rec *rec,
                            const lat_pipe_config *c, const lat_pipe_result *r,
                            const char *account);

/* LAB.md, lab.json (and a copy at json_out unless NULL), the SVGs and
 * report.html into out, then s->err.  0, or a negative errno with the file
 * that failed in failed (len bytes). */
int lat_lab_write_all(const lat_lab_session *x, const lat_lab_result *res, const char *json_out,
                      char *failed, size_t len);

/* The session's header (banner, shape note, calibration, rounds, the
 * contamination rules, run conditions) and, after the rounds, the summary
 * (rounds, platform, placement, per configuration its merged table,
 * platform and verdict, the flight recorder).  Unless s->verbose, both are
 * short: the run conditions' warnings, and one line per verdict; then, when
 * a verdict was left undecided on a busy host, what took the CPUs and what
 * to do. */
void lat_lab_print_header(FILE *f, const lat_lab_session *x);
void lat_lab_print_summary(FILE *f, const lat_lab_session *x, const lat_lab_result *res);
/* With s->verbose, one run's line (lat_lab_run_line), flushed. */
void lat_lab_print_run(FILE *f, const lat_lab_session *x, const lat_lab_run_rec *rec);
/* The replay round, if it ran: its tables with s->verbose, else one line. */
void lat_lab_print_replay(FILE *f, const lat_lab_session *x);
/* The progress line before a run: the round, the time spent of the budget,
 * the configuration, its length.  Returns buf. */
const char *lat_lab_progress_line(const lat_lab_session *x, int conf, unsigned round,
                                  unsigned attempt, const lat_pipe_config *c, char *buf,
                                  size_t len);

#endif /* LATLAB_LAB_SESSION_H */
