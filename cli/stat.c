/* stat.c - `latlab stat`: count performance events of a command, like
 * `perf stat`, for machines without perf.
 *
 * The child is forked and held on a pipe until its counters are open (pid =
 * child, inherit, enable_on_exec), so counting starts exactly at exec and
 * covers every thread and process it creates.  Events that cannot be counted
 * are listed with the library's reason; context switches fall back to the
 * child's rusage where the kernel refuses.  --per-thread also opens a set per
 * thread of the child, found by polling /proc/PID/task every 10 ms (threads
 * that live less than that appear only in the total).  The child's exit status
 * is ours: its exit code, 128+N when killed by signal N, 127/126 when it could
 * not be run. */
#include "cli.h"
#include "cliopts.h"

#include "latlab/error.h"
#include "latlab/perf.h"
#include "latlab/perf_report.h"
#include "latlab/perf_threads.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static cli_list events_given; /* each -e adds to the list, as with perf stat */
static bool per_thread;
static const char *json_path;

static const cli_opt stat_opts[] = {
    CLI_SHORT_OPT("events", 'e', CLI_CUSTOM, &events_given, "LIST",
                  "comma-separated events (default: " LAT_PERF_DEFAULT_EVENTS ")\n"
                  "names: cycles instructions branches branch-misses\n"
                  "cache-references cache-misses LLC-load-misses\n"
                  "L1-dcache-load-misses stalled-cycles-frontend\n"
                  "stalled-cycles-backend task-clock context-switches\n"
                  "cpu-migrations page-faults minor-faults major-faults, raw rNNNN,\n"
                  "pmu/event=0x..,umask=0x../ ; suffix :u or :k for user/kernel only;\n"
                  "given more than once, the lists add up",
                  cli_list_add),
    CLI_FLAG_OPT("per-thread", &per_thread,
                 "also count each thread of CMD (threads are found by polling\n"
                 "every 10 ms; shorter-lived ones are only in the total)"),
    CLI_STR_OPT("json", CLI_PATH, &json_path, "FILE", "write the results as JSON (atomically)"),
    CLI_END,
};

const cli_spec cmd_stat_spec = {
    .name = "stat",
    .synopsis = "latlab stat [-e LIST] [--per-thread] [--json FILE] [--] CMD [ARGS...]",
    .about = "Run CMD and count performance events over its whole life (all its threads and\n"
             "children), like `perf stat`.  Events that cannot be counted on this machine are\n"
             "listed with the reason; counts multiplexed on the PMU are scaled and show their\n"
             "coverage.  The exit status is CMD's (128+N if killed by signal N; 127 if it\n"
             "could not be found, 126 if it could not be run).\n",
    .opts = stat_opts,
    .max_args = -1,
    .stop_at_args = true,
};

/* One run of the child and what was counted. */
typedef struct stat_run {
    char **cmd;
    const char *events; /* NULL: the default list */
    pid_t pid;
    int go[2], ex[2]; /* go: the child waits on it; ex: its exec errno comes back */
    lat_perf *p;
    lat_perf_threads ts; /* --per-thread */
    int status, exit_code;
    sigset_t oldmask; /* before SIGTERM/SIGHUP were held for the child's run */
    int sig;          /* a SIGTERM or SIGHUP passed on to the child (0: none) */
    struct rusage ru;
    uint64_t wall;
    size_t n;
    lat_perf_count cnt[LAT_PERF_MAX_EVENTS];
    lat_perf_derived d;
} stat_run;

/* Options, the command and the event list, checked before anything is forked:
 * 0, -1 after --help, or the exit status. */
static int stat_parse(int argc, char **argv, stat_run *r) {
    static char joined[4096]; /* the -e lists joined (static: reachable until exit) */
    int first, rc = cli_parse(&cmd_stat_spec, argc, argv, &first);
    if (rc) return rc;
    if (first >= argc) return cli_usage_error("stat", "no command given (latlab stat -- CMD)");
    r->cmd = argv + first;
    if (events_given.n) {
        if (cli_list_join(&events_given, ",", joined, sizeof joined) >= sizeof joined)
            return cli_usage_error("stat", "-e: the event list is too long");
        if (!joined[0]) return cli_usage_error("stat", "-e: empty event list");
        r->events = joined;
    }
    /* validate the list before forking so a typo is a usage error */
    char err[256];
    lat_perf *probe;
    lat_perf_opts o = {.err = err, .err_len = sizeof err};
    rc = lat_perf_create(&probe, r->events, &o);
    if (rc == LAT_EFORMAT || rc == -E2BIG || rc == -ENOENT)
        return cli_usage_error("stat", "-e: %s", err[0] ? err : lat_strerror(rc));
    if (rc) return cli_lib_error("stat", "opening counters", rc);
    lat_perf_destroy(probe);
    return 0;
}

static void fwd_set(sigset_t *set) {
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
}

/* Fork the child, held on the go pipe until its counters are open.  SIGTERM
 * and SIGHUP are held from here on (stat_wait passes them on to the child);
 * the child gets the mask it had. */
static int stat_fork(stat_run *r) {
    if (pipe2(r->go, O_CLOEXEC) || pipe2(r->ex, O_CLOEXEC))
        return cli_error("stat", "pipe: %s", strerror(errno));
    fflush(NULL);
    sigset_t fwd;
    fwd_set(&fwd);
    sigprocmask(SIG_BLOCK, &fwd, &r->oldmask);
    r->pid = fork();
    if (r->pid < 0) {
        sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
        return cli_error("stat", "fork: %s", strerror(errno));
    }
    if (r->pid == 0) {
        char b;
        sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
        close(r->go[1]);
        close(r->ex[0]);
        if (read(r->go[0], &b, 1) != 1) _exit(127);
        execvp(r->cmd[0], r->cmd);
        int e = errno;
        if (write(r->ex[1], &e, sizeof e) < 0) _exit(127);
        _exit(e == ENOENT ? 127 : 126);
    }
    close(r->go[0]);
    close(r->ex[1]);
    return 0;
}

static void stat_free(stat_run *r) {
    lat_perf_destroy(r->p);
    lat_perf_threads_fini(&r->ts);
}

/* Open the counters on the child, let it go and wait for it (polling its
 * threads with --per-thread).  0, or the exit status after a message. */
static int stat_wait(stat_run *r) {
    char err[256];
    lat_perf_opts o = {
        .pid = r->pid, .inherit = true, .enable_on_exec = true, .err = err, .err_len = sizeof err};
    int rc = lat_perf_create(&r->p, r->events, &o);
    if (!rc && per_thread && lat_perf_threads_init(&r->ts, r->pid, r->events) == 0)
        lat_perf_threads_poll(&r->ts, true);
    /* Ctrl-C reaches the child (same process group); we stay to report. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    uint64_t t0 = now_ns();
    if (rc == 0 && write(r->go[1], "g", 1) != 1) rc = -errno;
    close(r->go[1]);
    if (rc) { /* the child sees EOF on the pipe and exits 127 */
        waitpid(r->pid, NULL, 0);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
        return cli_lib_error("stat", "opening counters", rc);
    }
    memset(&r->ru, 0, sizeof r->ru);
    /* A SIGTERM or SIGHUP sent to us alone is passed on to the child, which
     * is waited for as usual: its counts are reported, its status is ours. */
    sigset_t fwd;
    fwd_set(&fwd);
    for (;;) {
        pid_t w = wait4(r->pid, &r->status, WNOHANG, &r->ru);
        if (w == r->pid) break;
        if (w < 0 && errno != EINTR) break;
        if (w != 0) continue;
        struct timespec d = {0, 10000000};
        int sig = sigtimedwait(&fwd, NULL, &d);
        if (sig > 0) {
            kill(r->pid, sig);
            if (!r->sig) r->sig = sig;
        }
        if (per_thread) lat_perf_threads_poll(&r->ts, false);
    }
    r->wall = now_ns() - t0;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
    if (r->sig)
        cli_warn("stat", "%s: passed on to '%s'; its counts until then are reported",
                 strsignal(r->sig), r->cmd[0]);
    return 0;
}

/* The child's exit status as ours; *exec_failed when it never ran CMD. */
static int stat_exit_code(stat_run *r, bool *exec_failed) {
    int exec_err = 0;
    *exec_failed = read(r->ex[0], &exec_err, sizeof exec_err) == (ssize_t)sizeof exec_err;
    close(r->ex[0]);
    int code = CLI_ERR;
    if (WIFEXITED(r->status))
        code = WEXITSTATUS(r->status);
    else if (WIFSIGNALED(r->status))
        code = 128 + WTERMSIG(r->status);
    if (*exec_failed) cli_error("stat", "cannot run '%s': %s", r->cmd[0], strerror(exec_err));
    return code;
}

static void stat_read(stat_run *r) {
    r->n = lat_perf_nevents(r->p);
    int rc = lat_perf_read(r->p, r->cnt, r->n);
    if (rc < 0) cli_warn("stat", "reading counters: %s", lat_strerror(rc));
    lat_perf_derive(r->p, r->cnt, r->n, 0, &r->d);
    int itc = lat_perf_find(r->p, "task-clock"); /* inherit sums enabled time: use the wall */
    if (itc >= 0 && !isnan(r->d.cpu_utilization))
        r->d.cpu_utilization = r->cnt[itc].scaled / (double)(r->wall ? r->wall : 1);
}

/* The report on stderr, as perf stat's (the child owns stdout), and --json. */
static int report(const stat_run *r) {
    lat_perf_report rep = {r->cmd,         r->p,           r->cnt,
                           r->n,           &r->d,          r->wall,
                           r->ru.ru_utime, r->ru.ru_stime, per_thread ? &r->ts : NULL,
                           r->exit_code};
    lat_perf_report_print(&rep, stderr);
    fflush(stderr);
    if (WIFSIGNALED(r->status))
        cli_warn("stat", "'%s' was killed by signal %d (%s)", r->cmd[0], WTERMSIG(r->status),
                 strsignal(WTERMSIG(r->status)));
    return json_path ? cli_write_json("stat", json_path, lat_perf_report_json(&rep)) : 0;
}

int cmd_stat(int argc, char **argv) {
    static stat_run r; /* big (counts); one per process */
    int rc = stat_parse(argc, argv, &r);
    if (rc) return rc < 0 ? CLI_OK : rc;
    if ((rc = stat_fork(&r)) || (rc = stat_wait(&r))) {
        stat_free(&r);
        return rc;
    }
    bool exec_failed;
    r.exit_code = stat_exit_code(&r, &exec_failed);
    if (!exec_failed) {
        stat_read(&r);
        if (report(&r) && r.exit_code == 0) r.exit_code = CLI_ERR;
    }
    stat_free(&r);
    return r.exit_code;
}
