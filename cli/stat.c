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

#include "latlab/json.h"
#include "latlab/atomicfile.h"
#include "latlab/error.h"
#include "latlab/perf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
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

const char cmd_stat_usage[] =
    "usage: latlab stat [-e LIST] [--per-thread] [--json FILE] [--] CMD [ARGS...]\n"
    "\n"
    "Run CMD and count performance events over its whole life (all its threads and\n"
    "children), like `perf stat`.  Events that cannot be counted on this machine are\n"
    "listed with the reason; counts multiplexed on the PMU are scaled and show their\n"
    "coverage.  The exit status is CMD's (128+N if killed by signal N; 127 if it\n"
    "could not be found, 126 if it could not be run).\n"
    "\n"
    "  -e, --events LIST   comma-separated events (default: " LAT_PERF_DEFAULT_EVENTS ")\n"
    "                      names: cycles instructions branches branch-misses\n"
    "                      cache-references cache-misses LLC-load-misses\n"
    "                      L1-dcache-load-misses stalled-cycles-frontend\n"
    "                      stalled-cycles-backend task-clock context-switches\n"
    "                      cpu-migrations page-faults minor-faults major-faults, raw rNNNN,\n"
    "                      pmu/event=0x..,umask=0x../ ; suffix :u or :k for user/kernel only\n"
    "      --per-thread    also count each thread of CMD (threads are found by polling\n"
    "                      every 10 ms; shorter-lived ones are only in the total)\n"
    "      --json FILE     write the results as JSON (atomically)\n"
    "  -h, --help          this text\n";

#define MAX_THREADS 256

typedef struct thread_set {
    pid_t tid;
    char comm[32];
    lat_perf *p;
} thread_set;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void read_comm(pid_t pid, pid_t tid, char *buf, size_t len) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/comm", (int)pid, (int)tid);
    FILE *f = fopen(path, "r");
    if (!f) return;
    if (fgets(buf, (int)len, f)) buf[strcspn(buf, "\n")] = 0;
    fclose(f);
}

/* Open a set for every thread of pid not seen yet. */
static void poll_threads(pid_t pid, const char *events, thread_set *ts, int *nts, bool first) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        pid_t tid = (pid_t)atoi(de->d_name);
        int k;
        for (k = 0; k < *nts && ts[k].tid != tid; k++) {
        }
        if (k < *nts) {
            read_comm(pid, tid, ts[k].comm, sizeof ts[k].comm);
            continue;
        }
        if (*nts == MAX_THREADS) break;
        lat_perf_opts o = {.pid = tid, .enable_on_exec = first};
        thread_set *t = &ts[*nts];
        if (lat_perf_open(&t->p, events, &o)) continue;
        if (!first) lat_perf_start(t->p);
        t->tid = tid;
        snprintf(t->comm, sizeof t->comm, "?");
        read_comm(pid, tid, t->comm, sizeof t->comm);
        (*nts)++;
    }
    closedir(d);
}

/* The report goes to stderr, as perf stat's does: the child owns stdout. */
static FILE *report;

/* task-clock and cpu-clock count ns, with or without a :u/:k suffix. */
static bool is_clock(const char *name) {
    size_t n = strcspn(name, ":");
    return (n == 10 && !strncmp(name, "task-clock", n)) ||
           (n == 9 && !strncmp(name, "cpu-clock", n));
}

static void print_count(const char *name, const lat_perf_count *c, const char *note) {
    char num[64];
    if (c->state == LAT_PERF_UNAVAILABLE) {
        fprintf(report, "  %20s      %s\n", "<not supported>", name);
        return;
    }
    if (c->state == LAT_PERF_NOT_COUNTED) {
        fprintf(report, "  %20s      %s\n", "<not counted>", name);
        return;
    }
    if (is_clock(name))
        snprintf(num, sizeof num, "%.2f msec", c->scaled / 1e6);
    else
        snprintf(num, sizeof num, "%.0f", c->scaled);
    fprintf(report, "  %20s      %-24s", num, name);
    if (note && *note) fprintf(report, " # %s", note);
    if (c->state == LAT_PERF_SCALED) fprintf(report, "  (%.2f%%)", 100.0 * c->coverage);
    if (c->state == LAT_PERF_FALLBACK) fprintf(report, "  (getrusage)");
    fputc('\n', report);
}

static void note_for(const lat_perf *p, size_t i, const lat_perf_count *c, size_t n,
                     const lat_perf_derived *d, uint64_t wall_ns, char *buf, size_t len) {
    buf[0] = 0;
    if ((int)i == lat_perf_find(p, "task-clock") && wall_ns && i < n &&
        (c[i].state == LAT_PERF_COUNTED || c[i].state == LAT_PERF_SCALED))
        snprintf(buf, len, "%.3f CPUs utilized", c[i].scaled / (double)wall_ns);
    else if ((int)i == lat_perf_find(p, "instructions") && !isnan(d->ipc))
        snprintf(buf, len, "%.2f insn per cycle", d->ipc);
    else if ((int)i == lat_perf_find(p, "branch-misses") && !isnan(d->branch_miss_pct))
        snprintf(buf, len, "%.2f%% of all branches", d->branch_miss_pct);
    else if ((int)i == lat_perf_find(p, "cache-misses") && !isnan(d->cache_miss_pct))
        snprintf(buf, len, "%.2f%% of all cache refs", d->cache_miss_pct);
    else if (wall_ns && i < n &&
             ((int)i == lat_perf_find(p, "context-switches") ||
              (int)i == lat_perf_find(p, "cpu-migrations") ||
              (int)i == lat_perf_find(p, "page-faults") ||
              (int)i == lat_perf_find(p, "minor-faults") ||
              (int)i == lat_perf_find(p, "major-faults")) &&
             (c[i].state != LAT_PERF_UNAVAILABLE && c[i].state != LAT_PERF_NOT_COUNTED))
        snprintf(buf, len, "%.3f K/sec", c[i].scaled / ((double)wall_ns / 1e9) / 1e3);
}

static json_t *dnum(double v) {
    return isnan(v) ? json_null() : json_real(v);
}

static json_t *counts_json(const lat_perf *p, const lat_perf_count *c, size_t n) {
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        const char *r = lat_perf_reason(p, i);
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(lat_perf_name(p, i)));
        json_object_set_new(o, "state", json_string(lat_perf_state_name(c[i].state)));
        bool has = c[i].state != LAT_PERF_UNAVAILABLE && c[i].state != LAT_PERF_NOT_COUNTED;
        json_object_set_new(o, "value", has ? json_integer((json_int_t)c[i].value) : json_null());
        json_object_set_new(o, "scaled", has ? json_real(c[i].scaled) : json_null());
        json_object_set_new(o, "enabled_ns", json_integer((json_int_t)c[i].enabled_ns));
        json_object_set_new(o, "running_ns", json_integer((json_int_t)c[i].running_ns));
        json_object_set_new(o, "coverage", json_real(c[i].coverage));
        json_object_set_new(o, "reason", r ? json_string(r) : json_null());
        json_array_append_new(arr, o);
    }
    return arr;
}

int cmd_stat(int argc, char **argv) {
    static const struct option longopts[] = {
        {"events", required_argument, NULL, 'e'},
        {"per-thread", no_argument, NULL, 'T'},
        {"json", required_argument, NULL, 'J'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *events = NULL, *json_path = NULL;
    static char *events_buf; /* several -e joined (static: reachable until exit) */
    bool per_thread = false;
    report = stderr;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+:e:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'e': /* each -e adds to the list, as with perf stat */
            if (events) {
                size_t n = strlen(events) + strlen(optarg) + 2;
                char *both = malloc(n);
                if (!both) return cli_error("stat", "out of memory");
                snprintf(both, n, "%s,%s", events, optarg);
                free(events_buf);
                events = events_buf = both;
            } else {
                events = optarg;
            }
            break;
        case 'T':
            per_thread = true;
            break;
        case 'J':
            json_path = optarg;
            break;
        case 'h':
            fputs(cmd_stat_usage, stdout);
            return CLI_OK;
        default:
            return cli_getopt_fail("stat", c, argv);
        }
    }
    if (optind >= argc) return cli_usage_error("stat", "no command given (latlab stat -- CMD)");
    char **cmd = argv + optind;
    if (events && !*events) return cli_usage_error("stat", "-e: empty event list");
    { /* validate the list before forking so a typo is a usage error */
        char err[256];
        lat_perf *probe;
        lat_perf_opts o = {.err = err, .err_len = sizeof err};
        int rc = lat_perf_open(&probe, events, &o);
        if (rc == LAT_EFORMAT || rc == -E2BIG || rc == -ENOENT)
            return cli_usage_error("stat", "-e: %s", err[0] ? err : lat_strerror(rc));
        if (rc) return cli_lib_error("stat", "opening counters", rc);
        lat_perf_close(probe);
    }

    int go[2], ex[2];
    if (pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC))
        return cli_error("stat", "pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return cli_error("stat", "fork: %s", strerror(errno));
    if (pid == 0) {
        char b;
        close(go[1]);
        close(ex[0]);
        if (read(go[0], &b, 1) != 1) _exit(127);
        execvp(cmd[0], cmd);
        int e = errno;
        if (write(ex[1], &e, sizeof e) < 0) _exit(127);
        _exit(e == ENOENT ? 127 : 126);
    }
    close(go[0]);
    close(ex[1]);

    lat_perf *p = NULL;
    char err[256];
    lat_perf_opts o = {
        .pid = pid, .inherit = true, .enable_on_exec = true, .err = err, .err_len = sizeof err};
    int rc = lat_perf_open(&p, events, &o);
    thread_set *ts = NULL;
    int nts = 0;
    if (!rc && per_thread) {
        ts = calloc(MAX_THREADS, sizeof *ts);
        if (ts) poll_threads(pid, events, ts, &nts, true);
    }
    /* Ctrl-C reaches the child (same process group); we stay to report. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    uint64_t t0 = now_ns();
    if (rc == 0 && write(go[1], "g", 1) != 1) rc = -errno;
    close(go[1]);
    if (rc) { /* the child sees EOF on the pipe and exits 127 */
        waitpid(pid, NULL, 0);
        lat_perf_close(p);
        free(ts);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        return cli_lib_error("stat", "opening counters", rc);
    }
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    for (;;) {
        pid_t w = wait4(pid, &status, per_thread ? WNOHANG : 0, &ru);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) break;
        if (w == 0) {
            struct timespec d = {0, 10000000};
            nanosleep(&d, NULL);
            poll_threads(pid, events, ts, &nts, false);
        }
    }
    uint64_t wall = now_ns() - t0;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);

    int exec_err = 0;
    bool exec_failed = read(ex[0], &exec_err, sizeof exec_err) == (ssize_t)sizeof exec_err;
    close(ex[0]);
    int exit_code;
    if (WIFEXITED(status))
        exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        exit_code = 128 + WTERMSIG(status);
    else
        exit_code = CLI_ERR;
    if (exec_failed) {
        cli_error("stat", "cannot run '%s': %s", cmd[0], strerror(exec_err));
        lat_perf_close(p);
        for (int k = 0; k < nts; k++)
            lat_perf_close(ts[k].p);
        free(ts);
        return exit_code;
    }

    size_t n = lat_perf_nevents(p);
    lat_perf_count cnt[LAT_PERF_MAX_EVENTS];
    rc = lat_perf_read(p, cnt, n);
    if (rc < 0) cli_warn("stat", "reading counters: %s", lat_strerror(rc));
    lat_perf_derived d;
    lat_perf_derive(p, cnt, n, 0, &d);
    int itc = lat_perf_find(p, "task-clock"); /* inherit sums enabled time: use the wall */
    if (itc >= 0 && !isnan(d.cpu_utilization))
        d.cpu_utilization = cnt[itc].scaled / (double)(wall ? wall : 1);

    fprintf(report, "\n Performance counter stats for '");
    for (char **a = cmd; *a; a++)
        fprintf(report, "%s%s", a == cmd ? "" : " ", *a);
    fprintf(report, "':\n\n");
    for (size_t i = 0; i < n; i++) {
        char note[96];
        note_for(p, i, cnt, n, &d, wall, note, sizeof note);
        print_count(lat_perf_name(p, i), &cnt[i], note);
    }
    fprintf(report, "\n  %14.9f seconds time elapsed\n", (double)wall / 1e9);
    fprintf(report, "  %14.9f seconds user\n",
            (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6);
    fprintf(report, "  %14.9f seconds sys\n",
            (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        const char *r = lat_perf_reason(p, i);
        if (!r) continue;
        if (!any) fprintf(report, "\n Notes:\n");
        any = true;
        fprintf(report, "  %-24s %s\n", lat_perf_name(p, i), r);
    }
    if (per_thread && nts) {
        fprintf(report, "\n Per thread (%d seen):\n  %-8s %-16s", nts, "tid", "comm");
        for (size_t i = 0; i < n; i++)
            if (cnt[i].state != LAT_PERF_UNAVAILABLE)
                fprintf(report, " %16.16s", lat_perf_name(p, i));
        fputc('\n', report);
        for (int k = 0; k < nts; k++) {
            lat_perf_count t[LAT_PERF_MAX_EVENTS];
            lat_perf_read(ts[k].p, t, n);
            fprintf(report, "  %-8d %-16s", (int)ts[k].tid, ts[k].comm);
            for (size_t i = 0; i < n; i++) {
                if (cnt[i].state == LAT_PERF_UNAVAILABLE) continue;
                if (t[i].state == LAT_PERF_UNAVAILABLE || t[i].state == LAT_PERF_NOT_COUNTED)
                    fprintf(report, " %16s", "-");
                else if (is_clock(lat_perf_name(p, i)))
                    fprintf(report, " %11.2f msec", t[i].scaled / 1e6);
                else
                    fprintf(report, " %16.0f", t[i].scaled);
            }
            fputc('\n', report);
        }
    }
    fflush(report);
    if (WIFSIGNALED(status))
        cli_warn("stat", "'%s' was killed by signal %d (%s)", cmd[0], WTERMSIG(status),
                 strsignal(WTERMSIG(status)));

    int ret = exit_code;
    if (json_path) {
        json_t *root = json_object();
        json_t *argv_j = json_array();
        for (char **a = cmd; *a; a++)
            json_array_append_new(argv_j, json_string(*a));
        json_object_set_new(root, "command", argv_j);
        json_object_set_new(root, "exit_status", json_integer(exit_code));
        json_object_set_new(root, "elapsed_ns", json_integer((json_int_t)wall));
        json_object_set_new(root, "user_ns",
                            json_integer((json_int_t)ru.ru_utime.tv_sec * 1000000000 +
                                         (json_int_t)ru.ru_utime.tv_usec * 1000));
        json_object_set_new(root, "sys_ns",
                            json_integer((json_int_t)ru.ru_stime.tv_sec * 1000000000 +
                                         (json_int_t)ru.ru_stime.tv_usec * 1000));
        json_object_set_new(root, "events", counts_json(p, cnt, n));
        json_t *dj = json_object();
        json_object_set_new(dj, "ipc", dnum(d.ipc));
        json_object_set_new(dj, "branch_miss_pct", dnum(d.branch_miss_pct));
        json_object_set_new(dj, "cache_miss_pct", dnum(d.cache_miss_pct));
        json_object_set_new(dj, "cpu_utilization", dnum(d.cpu_utilization));
        json_object_set_new(root, "derived", dj);
        if (per_thread) {
            json_t *tj = json_array();
            for (int k = 0; k < nts; k++) {
                lat_perf_count t[LAT_PERF_MAX_EVENTS];
                lat_perf_total(ts[k].p, t, n);
                json_t *o2 = json_object();
                json_object_set_new(o2, "tid", json_integer(ts[k].tid));
                json_object_set_new(o2, "comm", json_string(ts[k].comm));
                json_object_set_new(o2, "events", counts_json(ts[k].p, t, n));
                json_array_append_new(tj, o2);
            }
            json_object_set_new(root, "threads", tj);
        }
        int jrc = lat_write_json_atomic(json_path, root);
        json_decref(root);
        if (jrc) {
            cli_lib_error("stat", json_path, jrc);
            if (ret == 0) ret = CLI_ERR;
        }
    }
    lat_perf_close(p);
    for (int k = 0; k < nts; k++)
        lat_perf_close(ts[k].p);
    free(ts);
    return ret;
}
