/* profile.h - run a command under `perf record -g` and read its call stacks.
 *
 * latlab does not sample by itself: it runs the perf tool (Debian package
 * linux-perf), `perf record -e EVENT -F HZ -g`, then `perf script`, and streams
 * that text into a lat_flame profile (flame.h), so the caller can fold it,
 * draw it and compare it.  The event is cycles where the machine has a
 * hardware PMU and the cpu-clock software timer otherwise (virtual machines),
 * and the result says which and why. */

/* Before running anything the call checks that perf exists and that this user
 * may sample (perf_event_paranoid), so the caller can tell missing perf, no
 * permission, a failing perf and a failing command apart.
 *
 * Not a hot path: forks, execs, allocates.  Not thread-safe with respect to
 * SIGINT/SIGQUIT dispositions (ignored in the caller while perf runs, as
 * system() does).  The library never prints: perf's own messages go to
 * WORKDIR/perf.log and WORKDIR/perf-script.log. */
#ifndef LATLAB_PROFILE_H
#define LATLAB_PROFILE_H

/* Experimental: its API may change in any release (see latlab.h). */
#ifndef LATLAB_EXPERIMENTAL
#error "latlab/profile.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include "latlab/flame.h"

#include <stdbool.h>
#include <sys/types.h>

/* What went wrong (lat_profile_result.failure). */
typedef enum lat_profile_failure {
    LAT_PROFILE_OK = 0,
    LAT_PROFILE_NO_PERF,       /* the perf tool is not installed / not in PATH */
    LAT_PROFILE_NOT_PERMITTED, /* perf_event_paranoid (or missing capabilities) forbids it */
    LAT_PROFILE_PERF_FAILED,   /* perf record or perf script failed */
    LAT_PROFILE_CMD_NOT_RUN,   /* the command could not be executed */
    LAT_PROFILE_CMD_FAILED,    /* the command ran and failed; its profile was still read */
    LAT_PROFILE_BAD_OUTPUT,    /* perf script's text could not be parsed */
} lat_profile_failure;

typedef struct lat_profile_opts {
    unsigned hz;            /* sampling frequency; 0: 999 (1..100000) */
    const char *event;      /* NULL: cycles where a PMU counts it, else cpu-clock */
    const char *perf;       /* NULL: "perf" from PATH; a name with '/' is used as is */
    bool user_only;         /* sample user space only (allowed at perf_event_paranoid 2) */
    const char *cmd_stdout; /* NULL: the command's stdout is ours; else a file it goes to */
} lat_profile_opts;

typedef struct lat_profile_result {
    lat_flame *flame;    /* the stacks, with thread names; release frees it */
    char event[64];      /* the event recorded (":u" appended when user only) */
    char event_why[192]; /* why that event, e.g. "no hardware PMU: ...; cpu-clock" */
    unsigned hz;         /* the frequency asked of perf */
    int cmd_status;      /* the command's exit code, 128+N for signal N, -1 unknown */
    int failure;         /* lat_profile_failure */
    char message[512];   /* one line for the user when failure != OK */
    int paranoid;        /* /proc/sys/kernel/perf_event_paranoid, INT_MIN unreadable */
    double wall_s;       /* wall time of perf record */
    int signal;          /* a SIGTERM or SIGHUP that came while perf ran (0: none): it was passed on
                            to perf and the command, which were waited for (SIGKILL after 10 s); the
                            profile holds what was recorded until then.  The caller decides whether
                            to end by it after writing its outputs */
} lat_profile_result;

/* Run argv (argv[0] searched in PATH by perf) under perf record, perf.data and
 * the logs in workdir (created if needed), then read perf script's output.
 * Returns 0 when r->flame holds the profile (r->failure is LAT_PROFILE_OK or
 * LAT_PROFILE_CMD_FAILED), else a negative errno with r->failure and
 * r->message set: -ENOENT (no perf), -EACCES (not permitted), -ECHILD (perf
 * failed or the command could not run), LAT_EFORMAT (unparsable output),
 * -EINVAL (bad arguments: empty argv, hz out of range, NULL), -ENOMEM.
 * o may be NULL.  *r is overwritten; release it with lat_profile_result_fini. */
int lat_profile_run(char *const argv[], const char *workdir, const lat_profile_opts *o,
                    lat_profile_result *r);
void lat_profile_result_fini(lat_profile_result *r);

/* Attach perf record to the running process pid (0: this one) and all its
 * threads, including threads they create later, for a window the caller
 * closes with lat_profile_detach: the lab profiles one round of an in-process
 * pipeline this way.  Sampling is on when attach returns (perf starts with
 * events disabled and acknowledges "enable" on its control pipe).  Same
 * checks, options (cmd_stdout unused) and errors as lat_profile_run; -ETIME
 * when perf does not answer within 10 s.  On success *out is the session. */
typedef struct lat_profile_session lat_profile_session;
int lat_profile_attach(pid_t pid, const char *workdir, const lat_profile_opts *o,
                       lat_profile_session **out, lat_profile_result *r);
/* Stop sampling, end perf record and read its stacks into r (as
 * lat_profile_run; cmd_status is -1).  Frees s, also on failure.  Returns 0
 * with r->flame set, or a negative errno with r->failure and r->message. */
int lat_profile_detach(lat_profile_session *s, lat_profile_result *r);

/* Can lat_profile_run / attach work here: perf found (o->perf or PATH) and
 * sampling permitted (o->user_only)?  Returns 0, -ENOENT (no perf) or -EACCES
 * (not permitted), with why filled for the user.  o may be NULL. */
int lat_profile_available(const lat_profile_opts *o, char *why, size_t why_len);

/* Is sampling permitted for this user, with the kernel (user_only false) or
 * user space only?  Returns 0, or -EACCES with why filled (it names
 * perf_event_paranoid and the sysctl to change it). */
int lat_profile_check_permission(bool user_only, char *why, size_t why_len);

/* Write dir/flame.svg (titled title, may be NULL; note is a line under it,
 * may be NULL), dir/folded.txt (with the thread level), dir/top.txt and
 * dir/report.html (the flamegraph and the top frames), each atomically.
 * Returns 0 or a negative errno. */
int lat_profile_write(const lat_flame *f, const char *dir, const char *title, const char *note);

/* Add the flamegraph (inline SVG) and a table of the top frames (at most top;
 * 0 means 10) by total share to a report.  Returns 0 or a negative errno. */
int lat_profile_report_add(lat_report *rep, const lat_flame *f, const char *caption,
                           const char *note, size_t top);

/* Can `perf c2c record` run here (it needs the PMU's memory-sampling events)?
 * Runs `perf c2c record -- true` in workdir.  Returns 1 when it can, 0 when
 * not (why gets perf's reason, e.g. "memory events not supported"), or a
 * negative errno when perf is missing or cannot be started. */
int lat_profile_c2c_supported(const char *workdir, const char *perf, char *why, size_t why_len);

/* ---- the lab's profiling step: two profiles side by side ---------------------------- */

/* Two profiles of the same program, e.g. a baseline round and a share-line
 * round, with the work p50 of those same rounds. */
typedef struct lat_profile_pair {
    const lat_flame *a, *b;
    const char *name_a, *name_b;         /* "baseline round 1", "share-line round 1" */
    double work_p50_a_ns, work_p50_b_ns; /* NAN when unknown */
    const char *thread;                  /* the thread the narration speaks of ("worker") */
    const char *event;                   /* "cpu-clock at 999 Hz" (may be NULL) */
} lat_profile_pair;

/* Text: each profile's threads and top frames by self share (at most top; 0
 * means 5), the largest share difference, the work p50 ratio and the
 * narration (lat_flame_narrate) when the ratio is known.  Returns 0, -EINVAL
 * (a profile missing or empty), -EIO, -ENOMEM. */
int lat_profile_compare_text(const lat_profile_pair *p, size_t top, FILE *out);

/* The same in a report: a section's worth of kv lines, the narration as a
 * verdict line, both flamegraphs with their top tables, and the diff table
 * (top 15 rows) with its verdict line.  Returns 0 or a negative errno. */
int lat_profile_compare_report(const lat_profile_pair *p, lat_report *rep);

#endif /* LATLAB_PROFILE_H */
