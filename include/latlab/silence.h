/* silence.h - the ftrace silence check as a library engine: what disturbs
 * the chosen CPUs (`latlab silence`, the lab's check).
 *
 * Two halves.  The parsers and the report are pure: they read ftrace's text
 * and fill a lat_silence_report, so they are tested from fixtures without
 * root.  The text is per-CPU trace lines of sched_switch, sched_wakeup,
 * irq_handler_entry, softirq_entry, the x86 irq_vectors and
 * sched_process_fork, and per-CPU stats with "overrun: N". */

/* The root-only half (lat_silence_run) is the tracefs work.  It finds or
 * mounts tracefs and makes a private instance (instances/latlab-silence-<pid>)
 * with the CPU mask and events.  Tracing runs for some seconds or while a
 * command runs; then the per-CPU files are fed to the parsers.  Everything is
 * undone at the end, and instances left by killed runs (their pid gone) are
 * removed at the start.
 *
 * Experimental: the report's layout and the run's configuration may change. */
#ifndef LATLAB_SILENCE_H
#define LATLAB_SILENCE_H

#ifndef LATLAB_EXPERIMENTAL
#error "latlab/silence.h is experimental: define LATLAB_EXPERIMENTAL before including it"
#endif

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LAT_SILENCE_MAXCPU 1024
#define LAT_SILENCE_MAXTASK 512 /* distinct (task, CPU) rows kept */
#define LAT_SILENCE_MAXIRQ 128  /* distinct (source, CPU) rows kept */
#define LAT_SILENCE_MAXWL 8192  /* workload tasks and fork edges kept */

/* A task that ran on (or was woken onto) a traced CPU. */
typedef struct lat_silence_task {
    int pid;
    int cpu;
    char comm[32];
    uint64_t count;   /* times switched in */
    double held_us;   /* time on the CPU, microseconds */
    uint64_t wakeups; /* sched_wakeup lines for it in the CPU's trace */
} lat_silence_task;

/* An interrupt source on one CPU: "irq N (name)", "softirq ACTION" or an
 * irq_vectors event name ("local_timer_entry"). */
typedef struct lat_silence_irq {
    int cpu;
    char name[48];
    uint64_t count;
} lat_silence_irq;

/* Per-CPU counts; cur_pid and cur_since are the parser's state (who holds
 * the CPU since when, seconds). */
typedef struct lat_silence_cpu {
    uint64_t sw, wake, irq, softirq, vec, overrun, entries;
    double intruded_us; /* time held by tasks that are not the workload nor idle */
    int cur_pid;
    double cur_since;
} lat_silence_cpu;

/* The report: filled by the parsers (and lat_silence_run), printed by
 * lat_silence_report_print.  Large (per-CPU arrays): keep it off the stack. */
typedef struct lat_silence_report {
    int cpus[LAT_SILENCE_MAXCPU], ncpus;    /* the traced CPUs, in the caller's order */
    lat_silence_cpu cs[LAT_SILENCE_MAXCPU]; /* indexed by CPU number */
    lat_silence_task *tasks;                /* LAT_SILENCE_MAXTASK slots */
    int ntasks;
    uint64_t dropped_tasks; /* rows that did not fit */
    lat_silence_irq irqs[LAT_SILENCE_MAXIRQ];
    int nirqs;
    /* the workload: its first pid (0: none) and every task it forked */
    int child;
    int *wl, nwl;
    int (*forks)[2]; /* parent, child */
    int nforks;
    /* the run, for the renderer */
    uint64_t traced_ns;
    int reader_cpu;      /* where the reader ran, -1: on a traced CPU */
    const char *cmd;     /* the workload's argv[0], or NULL */
    char child_comm[32]; /* its name, read before it was reaped */
    bool child_done;     /* status holds its wait status */
    int status;
    bool interrupted; /* stopped by a signal */
} lat_silence_report;

/* Zero r, allocate its tables, set the traced CPUs (copied; each in
 * [0, LAT_SILENCE_MAXCPU)).  0, -EINVAL or -ENOMEM (r is then safe to fini). */
int lat_silence_report_init(lat_silence_report *r, const int *cpus, int ncpus);
/* Free r's tables.  NULL is fine. */
void lat_silence_report_fini(lat_silence_report *r);

/* Parsers, fed ftrace text; not thread-safe on one report.  A line needs no
 * trailing newline; unknown or malformed lines are ignored.
 * fork_line: a sched_process_fork edge (pid -> child_pid), kept for
 * lat_silence_build_workload.  build_workload: the workload is r->child and
 * every descendant seen in the edges (call after the fork lines, before the
 * trace lines).  trace_line: one line of CPU cpu's trace (cpu in r's range).
 * stats_line: one line of its per_cpu stats ("overrun: N").  parse_trace /
 * parse_forks / parse_stats feed every line of a NUL-terminated text. */
void lat_silence_fork_line(lat_silence_report *r, const char *line);
void lat_silence_build_workload(lat_silence_report *r);
void lat_silence_trace_line(lat_silence_report *r, int cpu, const char *line);
void lat_silence_stats_line(lat_silence_report *r, int cpu, const char *line);
void lat_silence_parse_forks(lat_silence_report *r, const char *text);
void lat_silence_parse_trace(lat_silence_report *r, int cpu, const char *text);
void lat_silence_parse_stats(lat_silence_report *r, int cpu, const char *text);

/* Sort the tables for printing: tasks by time held then times switched in
 * (most first), interrupts by count. */
void lat_silence_report_sort(lat_silence_report *r);
/* The text report (what `latlab silence` prints), top rows per table; sorts
 * r first.  0 or -EIO when a write to f failed. */
int lat_silence_report_print(lat_silence_report *r, FILE *f, int top);
/* The JSON form (traced_ns, reader_cpu, interrupted, cpus, intruders,
 * interrupts) written atomically to path: 0 or negative errno. */
int lat_silence_report_write_json(const lat_silence_report *r, const char *path);

/* ---- the root-only half: tracefs ---------------------------------------------------------- */

typedef struct lat_silence_config {
    const int *cpus; /* the CPUs to trace */
    int ncpus;
    double seconds;              /* how long to trace; with cmd only when seconds_given */
    bool seconds_given;          /* with cmd: stop (SIGTERM) after seconds */
    char **cmd;                  /* a workload to run while tracing (argv, NULL-ended), or NULL */
    uint64_t buffer_kb;          /* per-CPU ring size */
    volatile sig_atomic_t *stop; /* nonzero: stop now (a signal number), or NULL */
    const struct sigaction *child_sig; /* SIGINT, SIGTERM, SIGHUP handlers the workload gets back */
    /* a warning for stderr (a stale instance removed, a setting refused); NULL: none */
    void (*warn)(void *ud, const char *msg);
    void *ud;
} lat_silence_config;

/* Trace c->cpus into r (initialised for the same CPUs) and fill it: needs
 * root.  Blocks for the run.  0; or negative errno with a message in err
 * (no tracefs, no instance, an event that cannot be enabled, the workload
 * could not be started).  The instance is removed and a tracefs mount made
 * here undone in every case.  Not thread-safe: one run per process. */
int lat_silence_run(const lat_silence_config *c, lat_silence_report *r, char *err, size_t errlen);
/* Only remove instances left by dead runs (and undo a mount made for it):
 * how many were removed, or negative errno with a message in err. */
int lat_silence_cleanup_stale(void (*warn)(void *ud, const char *msg), void *ud, char *err,
                              size_t errlen);

#endif
