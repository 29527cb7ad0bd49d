/* abrun.c - the runs of `latlab ab` (see abrun.h): fork and exec the program
 * with its output to files in a private folder, wait for it with a timeout
 * (a pidfd, so the wait ends when the program does), read its run-queue wait
 * before reaping it, then parse what it wrote.  A round's harness runs can
 * start together and take turns, one sample each, over a socket apiece. */
#include "latlab/abrun.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "alloc_internal.h"
#include "latlab/bench.h"
#include "latlab/clock.h"
#include "latlab/error.h"
#include "latlab/platform.h"
#include "latlab/stats.h"

static const char *const mode_names[] = {"latlab harness", "Google Benchmark", "command"};

const char *lat_ab_mode_name(int mode) {
    return mode >= 0 && mode <= LAT_AB_COMMAND ? mode_names[mode] : "?";
}

/* Whether the n bytes at p contain needle. */
static bool contains(const void *p, size_t n, const char *needle) {
    return memmem(p, n, needle, strlen(needle)) != NULL;
}

/* Map the file at path read-only: 0, -errno (open), or LAT_EFORMAT (empty
 * or not mappable). */
static int map_file(const char *path, void **m, size_t *n) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    struct stat st;
    int rc = LAT_EFORMAT;
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
        *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        *n = (size_t)st.st_size;
        rc = *m == MAP_FAILED ? LAT_EFORMAT : 0;
    }
    close(fd);
    return rc;
}

int lat_ab_detect(const char *path) {
    void *m;
    size_t n;
    int rc = map_file(path, &m, &n);
    if (rc) return rc;
    /* the harness's usage text; Google Benchmark's flag names (linked
     * statically) or its C++ symbols (linked to libbenchmark.so) */
    if (contains(m, n, "--cooldown-ms N"))
        rc = LAT_AB_HARNESS;
    else if (contains(m, n, "benchmark_format") || contains(m, n, "_ZN9benchmark"))
        rc = LAT_AB_GBENCH;
    else
        rc = LAT_EFORMAT;
    munmap(m, n);
    return rc;
}

bool lat_ab_takes_turns(const char *path) {
    void *m;
    size_t n;
    if (map_file(path, &m, &n)) return false;
    bool yes = contains(m, n, LAT_BENCH_ENV_TURNS);
    munmap(m, n);
    return yes;
}

/* The task's run-queue wait (ns) from /proc/PID/schedstat; NAN if unknown. */
static double runq_ns(pid_t pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/schedstat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return NAN;
    unsigned long long run = 0, wait = 0;
    int n = fscanf(f, "%llu %llu", &run, &wait);
    fclose(f);
    return n == 2 ? (double)wait : NAN;
}

/* The last non-empty line of a file, for an error message. */
static void last_line(const char *path, char *buf, size_t len) {
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (line[0]) {
            size_t n = strlen(line) < len - 1 ? strlen(line) : len - 1;
            memcpy(buf, line, n);
            buf[n] = 0;
        }
    }
    fclose(f);
}

/* Fork and exec argv with stdout to out_path and stderr to err_path, pinned
 * to cpu (>= 0), LAT_BENCH_RUNNER_CPU=runner_cpu in its environment (>= 0),
 * LAT_BENCH_TURNS naming turn_fd (>= 0, the child's end of its turn socket)
 * and the clock anchor of ab's start (a harness run skips its 200 ms clock
 * calibration).  Returns the pid or -errno. */
static pid_t start_child(char *const *argv, const char *out_path, const char *err_path, int cpu,
                         int runner_cpu, int turn_fd) {
    static char anchor[64]; /* one for every run: their clock windows share an end */
    if (!anchor[0] && lat_clock_anchor(anchor, sizeof anchor) != 0) anchor[0] = 0;
    int ofd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (ofd < 0) return -errno;
    int efd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (efd < 0) {
        int e = -errno;
        close(ofd);
        return e;
    }
    pid_t pid = fork();
    if (pid == 0) { /* setenv after fork: ab has one thread, no lock is held */
        dup2(ofd, 1);
        dup2(efd, 2);
        int nfd = open("/dev/null", O_RDONLY);
        if (nfd >= 0) dup2(nfd, 0);
        if (cpu >= 0) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(cpu, &set);
            sched_setaffinity(0, sizeof set, &set);
        }
        char v[32];
        if (runner_cpu >= 0) {
            snprintf(v, sizeof v, "%d", runner_cpu);
            setenv(LAT_BENCH_ENV_RUNNER_CPU, v, 1);
        }
        if (turn_fd >= 0) { /* the one descriptor the program keeps */
            fcntl(turn_fd, F_SETFD, 0);
            snprintf(v, sizeof v, "%d:%d", turn_fd, turn_fd);
            setenv(LAT_BENCH_ENV_TURNS, v, 1);
        }
        if (anchor[0]) setenv(LAT_CLOCK_ENV_ANCHOR, anchor, 1);
        execvp(argv[0], argv);
        dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int e = pid < 0 ? -errno : 0;
    close(ofd);
    close(efd);
    return e ? e : pid;
}

/* Wait for pid until deadline (lat_mono_ns; killed then: -ETIMEDOUT), read
 * its run-queue wait before reaping it, reap it and fill the account (wall
 * from t0). */
static int finish_child(pid_t pid, uint64_t t0, uint64_t deadline, lat_ab_account *a) {
    int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
    bool timed_out = false;
    for (;;) {
        uint64_t now = lat_mono_ns();
        if (now >= deadline) {
            timed_out = true;
            break;
        }
        uint64_t left_ms = (deadline - now) / 1000000 + 1;
        if (pfd >= 0) {
            struct pollfd p = {pfd, POLLIN, 0};
            int r = poll(&p, 1, left_ms > 1000 ? 1000 : (int)left_ms);
            if (r > 0) break;
            if (r < 0 && errno != EINTR) break;
        } else { /* no pidfd: poll the child every 200 us */
            siginfo_t si = {0};
            if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid) break;
            struct timespec ts = {0, 200000};
            nanosleep(&ts, NULL);
        }
    }
    if (timed_out) kill(pid, SIGKILL);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
    }
    a->wall_ns = (double)(lat_mono_ns() - t0);
    a->runq_ns = runq_ns(pid); /* a zombie keeps its schedstat until reaped */
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    int status = 0;
    while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
    }
    if (pfd >= 0) close(pfd);
    a->status = status;
    a->cpu_ns = (double)ru.ru_utime.tv_sec * 1e9 + (double)ru.ru_utime.tv_usec * 1e3 +
                (double)ru.ru_stime.tv_sec * 1e9 + (double)ru.ru_stime.tv_usec * 1e3;
    a->nivcsw = ru.ru_nivcsw;
    return timed_out ? -ETIMEDOUT : 0;
}

/* ---- where to measure ------------------------------------------------------------------------ */

int lat_ab_pick_cpu(const double *idle, int n, const lat_cpuset *allowed) {
    double top = -1;
    for (int c = 0; c < n; c++)
        if (lat_cpuset_has(allowed, c) && isfinite(idle[c]) && idle[c] > top) top = idle[c];
    int best = -ENOENT;
    for (int c = 0; c < n; c++)
        if (lat_cpuset_has(allowed, c) && isfinite(idle[c]) && idle[c] >= top - LAT_AB_IDLE_TIE)
            best = c;
    return best;
}

int lat_ab_quietest_cpu(uint64_t window_ns, double *idle_share) {
    lat_cpuset allowed;
    int rc = lat_thread_affinity(&allowed), n = 0; /* n: one past the highest allowed CPU */
    if (rc) return rc;
    for (int c = lat_cpuset_next(&allowed, 0); c >= 0; c = lat_cpuset_next(&allowed, c + 1))
        n = c + 1;
    if (n == 0) return -ENOENT;
    lat_cpustat *t0 = lat__calloc((size_t)n, sizeof *t0);
    double *idle = lat__calloc((size_t)n, sizeof *idle);
    if (!t0 || !idle) rc = -ENOMEM;
    for (int c = 0; !rc && c < n; c++)
        if (lat_cpuset_has(&allowed, c) && lat_cpustat_read(NULL, c, &t0[c])) idle[c] = NAN;
    if (!rc) {
        struct timespec ts = {(time_t)(window_ns / 1000000000u), (long)(window_ns % 1000000000u)};
        while (nanosleep(&ts, &ts) && errno == EINTR) {
        }
    }
    for (int c = 0; !rc && c < n; c++) {
        lat_cpustat t1;
        if (!lat_cpuset_has(&allowed, c) || isnan(idle[c]) || lat_cpustat_read(NULL, c, &t1)) {
            idle[c] = NAN;
            continue;
        }
        uint64_t all = lat_cpustat_total(&t1) - lat_cpustat_total(&t0[c]);
        idle[c] = all ? (double)(t1.idle + t1.iowait - t0[c].idle - t0[c].iowait) / (double)all
                      : 1; /* no tick elapsed: nothing ran there either */
    }
    if (!rc) rc = lat_ab_pick_cpu(idle, n, &allowed);
    if (rc >= 0 && idle_share) *idle_share = idle[rc];
    lat__free(t0);
    lat__free(idle);
    return rc;
}

/* ---- reading what the programs wrote ------------------------------------------------------- */

static int read_harness(const char *path, lat_ab *ab, unsigned round, int side, lat_ab_account *a,
                        char *err, size_t len) {
    lat_bench_report *rep = NULL;
    char why[256] = "";
    int rc = lat_bench_report_load(path, &rep, why, sizeof why);
    if (rc) {
        snprintf(err, len, "its JSON report: %s", why[0] ? why : lat_strerror(rc));
        return LAT_EFORMAT;
    }
    snprintf(a->suite, sizeof a->suite, "%s", rep->suite ? rep->suite : "");
    for (uint32_t i = 0; i < rep->n_results && !rc; i++) {
        const lat_bench_result *res = &rep->results[i];
        char name[256];
        snprintf(name, sizeof name, "%s/%s", res->group, res->name);
        double *v = lat__alloc((res->n ? res->n : 1) * sizeof *v);
        if (!v) {
            rc = -ENOMEM;
            break;
        }
        uint32_t m = 0;
        /* the kept figures of the samples the harness did not set aside */
        for (uint32_t k = 0; k < res->n; k++)
            if (isfinite(res->ns_per_op[k]) && res->ns_per_op[k] > 0 &&
                !lat_bench_sample_set_aside(res, k))
                v[m++] = res->ns_per_op[k];
        double med = m ? lat_stats_median_inplace(v, m) : NAN;
        lat__free(v);
        double kept = isfinite(res->kept_share_all) ? res->kept_share_all : NAN;
        rc = lat_ab_record(ab, round, side, name, "time/op", med, kept);
        const lat_bench_tail *t = &res->tail;
        if (!rc && t->count > 0) {
            const char *fig[4] = {"p50", "p90", "p99", "p99.9"};
            const double val[4] = {t->p50_ns, t->p90_ns, t->p99_ns, t->p999_ns};
            for (int k = 0; k < 4 && !rc; k++)
                rc = lat_ab_record(ab, round, side, name, fig[k], val[k], kept);
        }
        a->benches++;
    }
    lat_bench_report_destroy(rep);
    if (!rc && a->benches == 0) {
        snprintf(err, len, "its JSON report holds no benchmark (a --filter that matches none?)");
        return LAT_EFORMAT;
    }
    return rc;
}

static double unit_ns(const char *u) {
    if (!u || !strcmp(u, "ns")) return 1;
    if (!strcmp(u, "us")) return 1e3;
    if (!strcmp(u, "ms")) return 1e6;
    if (!strcmp(u, "s")) return 1e9;
    return NAN;
}

static int by_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static int read_gbench(const char *path, lat_ab *ab, unsigned round, int side, lat_ab_account *a,
                       char *err, size_t len) {
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    if (!doc) {
        snprintf(err, len, "its JSON output: %s at byte %d", je.text, je.position);
        return LAT_EFORMAT;
    }
    json_t *arr = json_object_get(doc, "benchmarks");
    size_t n = json_array_size(arr);
    int rc = 0;
    if (!json_is_array(arr)) {
        snprintf(err, len, "its JSON output has no \"benchmarks\" array");
        rc = LAT_EFORMAT;
    }
    double *rt = lat__alloc((n ? n : 1) * sizeof *rt), *ct = lat__alloc((n ? n : 1) * sizeof *ct);
    bool *done = lat__calloc(n ? n : 1, sizeof *done);
    if (!rc && (!rt || !ct || !done)) rc = -ENOMEM;
    /* group the repetitions by run_name (name, for old versions), in order */
    for (size_t i = 0; !rc && i < n; i++) {
        json_t *e = json_array_get(arr, i);
        const char *rtype = json_string_value(json_object_get(e, "run_type"));
        if (done[i] || (rtype && strcmp(rtype, "iteration"))) continue;
        const char *key = json_string_value(json_object_get(e, "run_name"));
        if (!key) key = json_string_value(json_object_get(e, "name"));
        if (!key) continue;
        size_t m = 0;
        for (size_t j = i; j < n; j++) {
            json_t *f = json_array_get(arr, j);
            const char *t2 = json_string_value(json_object_get(f, "run_type"));
            const char *k2 = json_string_value(json_object_get(f, "run_name"));
            if (!k2) k2 = json_string_value(json_object_get(f, "name"));
            if (done[j] || !k2 || strcmp(k2, key) || (t2 && strcmp(t2, "iteration"))) continue;
            done[j] = true;
            if (json_is_true(json_object_get(f, "error_occurred"))) {
                snprintf(err, len, "benchmark %s reported an error: %s", key,
                         json_string_value(json_object_get(f, "error_message")) ?: "?");
                rc = LAT_EFORMAT;
                break;
            }
            double u = unit_ns(json_string_value(json_object_get(f, "time_unit")));
            rt[m] = json_number_value(json_object_get(f, "real_time")) * u;
            ct[m++] = json_number_value(json_object_get(f, "cpu_time")) * u;
        }
        if (rc || m == 0) continue;
        qsort(rt, m, sizeof *rt, by_double);
        qsort(ct, m, sizeof *ct, by_double);
        rc =
            lat_ab_record(ab, round, side, key, "time", lat_stats_quantile_sorted(rt, m, 0.5), NAN);
        if (!rc)
            rc = lat_ab_record(ab, round, side, key, "cpu", lat_stats_quantile_sorted(ct, m, 0.5),
                               NAN);
        a->benches++;
    }
    if (!rc && a->benches == 0) {
        snprintf(err, len, "its JSON output holds no benchmark (a filter that matches none?)");
        rc = LAT_EFORMAT;
    }
    lat__free(rt);
    lat__free(ct);
    lat__free(done);
    json_decref(doc);
    return rc;
}

int lat_ab_place(int mode, double warm_cpus, lat_ab_run_opts *o, double *idle) {
    *idle = NAN;
    if (mode != LAT_AB_HARNESS && !(mode == LAT_AB_COMMAND && warm_cpus <= LAT_AB_PIN_CPUS))
        return -1;
    int at = lat_ab_quietest_cpu(200000000u, idle);
    if (at < 0) return -1;
    if (mode == LAT_AB_HARNESS)
        o->runner_cpu = at;
    else
        o->cpu = at;
    return at;
}

/* ---- one run ------------------------------------------------------------------------------ */

#define MAX_ARGS 256

/* One run's command line and files. */
typedef struct run_files {
    char json[4096], out[4096], errp[4096], filt[1024], reps[64];
    char *argv[MAX_ARGS + 8];
} run_files;

static int prepare(const lat_ab_prog *prog, const lat_ab_run_opts *o, const lat_ab *ab,
                   unsigned round, int side, lat_ab_account *acct, char *err, size_t errlen,
                   run_files *f) {
    if (!prog || !prog->argv || !prog->argv[0] || !o || !o->dir || !acct ||
        (!ab && prog->mode != LAT_AB_COMMAND))
        return -EINVAL;
    memset(acct, 0, sizeof *acct);
    if (errlen) err[0] = 0;
    snprintf(f->json, sizeof f->json, "%s/%s-%u.json", o->dir, lat_ab_side_name(side), round);
    snprintf(f->out, sizeof f->out, "%s/%s-%u.out", o->dir, lat_ab_side_name(side), round);
    snprintf(f->errp, sizeof f->errp, "%s/%s-%u.err", o->dir, lat_ab_side_name(side), round);
    int n = 0;
    for (; prog->argv[n] && n < MAX_ARGS; n++)
        f->argv[n] = prog->argv[n];
    if (prog->mode == LAT_AB_HARNESS) {
        f->argv[n++] = "--json";
        f->argv[n++] = f->json;
        if (!o->full) f->argv[n++] = "--quick";
        if (o->filter) {
            f->argv[n++] = "--filter";
            f->argv[n++] = (char *)o->filter;
        }
    } else if (prog->mode == LAT_AB_GBENCH) {
        f->argv[n++] = "--benchmark_format=json";
        snprintf(f->reps, sizeof f->reps, "--benchmark_repetitions=%u",
                 o->repetitions ? o->repetitions : 5);
        f->argv[n++] = f->reps;
        if (o->filter) {
            snprintf(f->filt, sizeof f->filt, "--benchmark_filter=%s", o->filter);
            f->argv[n++] = f->filt;
        }
    }
    f->argv[n] = NULL;
    return 0;
}

static pid_t start_run(const lat_ab_prog *prog, const lat_ab_run_opts *o, const run_files *f,
                       int turn_fd) {
    return start_child(f->argv, prog->mode == LAT_AB_GBENCH ? f->json : f->out, f->errp, o->cpu,
                       prog->mode == LAT_AB_HARNESS ? o->runner_cpu : -1, turn_fd);
}

/* What came of a run (rc: the start's or the wait's): err, the figures. */
static int collect(const lat_ab_prog *prog, const lat_ab_run_opts *o, int rc, run_files *f,
                   lat_ab *ab, unsigned round, int side, lat_ab_account *acct, char *err,
                   size_t errlen) {
    char tail[300];
    if (rc == -ETIMEDOUT) {
        snprintf(err, errlen, "did not end within its timeout (%.1f s): killed",
                 (double)o->timeout_ns / 1e9);
    } else if (rc) {
        snprintf(err, errlen, "cannot start it: %s", lat_strerror(rc));
    } else if (!WIFEXITED(acct->status) || WEXITSTATUS(acct->status) != 0) {
        last_line(f->errp, tail, sizeof tail);
        if (WIFEXITED(acct->status))
            snprintf(err, errlen, "exited with status %d%s%s", WEXITSTATUS(acct->status),
                     tail[0] ? ": " : "", tail);
        else
            snprintf(err, errlen, "was killed by signal %d", WTERMSIG(acct->status));
        rc = LAT_EFORMAT;
    } else if (prog->mode == LAT_AB_HARNESS)
        rc = read_harness(f->json, ab, round, side, acct, err, errlen);
    else if (prog->mode == LAT_AB_GBENCH)
        rc = read_gbench(f->json, ab, round, side, acct, err, errlen);
    else {
        bool disturbed =
            isfinite(acct->runq_ns) && acct->runq_ns > LAT_AB_RUNQ_SET_ASIDE * acct->wall_ns;
        double wall = acct->wall_ns - (isfinite(acct->runq_ns) ? acct->runq_ns : 0);
        double kept = isfinite(acct->runq_ns) ? 1 - acct->runq_ns / acct->wall_ns : NAN;
        if (ab)
            rc = lat_ab_record(ab, round, side, "command", "wall", disturbed ? NAN : wall, kept);
        if (ab && !rc) rc = lat_ab_record(ab, round, side, "command", "cpu", acct->cpu_ns, NAN);
        acct->benches = 1;
    }
    /* the run's files go whatever came of it: err holds what a failure said */
    unlink(f->json);
    unlink(f->out);
    unlink(f->errp);
    return rc;
}

int lat_ab_run(const lat_ab_prog *prog, const lat_ab_run_opts *o, lat_ab *ab, unsigned round,
               int side, lat_ab_account *acct, char *err, size_t errlen) {
    run_files f;
    int rc = prepare(prog, o, ab, round, side, acct, err, errlen, &f);
    if (rc) return rc;
    uint64_t t0 = lat_mono_ns();
    pid_t pid = start_run(prog, o, &f, -1);
    rc = pid < 0 ? (int)pid : finish_child(pid, t0, t0 + o->timeout_ns, acct);
    return collect(prog, o, rc, &f, ab, round, side, acct, err, errlen);
}

/* ---- a round's runs taking turns ---------------------------------------------------------- */

/* Wait for one byte from fd until deadline: the byte, 0 at its end (the
 * program exited), -1 at the deadline. */
static int turn_read(int fd, uint64_t deadline) {
    for (;;) {
        uint64_t now = lat_mono_ns();
        if (now >= deadline) return -1;
        uint64_t ms = (deadline - now) / 1000000 + 1;
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, ms > 1000 ? 1000 : (int)ms);
        if (r < 0 && errno != EINTR) return 0;
        if (r <= 0) continue;
        unsigned char c;
        ssize_t n = read(fd, &c, 1);
        if (n == 1) return c;
        if (n == 0 || errno != EINTR) return 0;
    }
}

int lat_ab_run_round(const lat_ab_prog *prog, const lat_ab_run_opts *o, lat_ab *ab, unsigned round,
                     const int *sides, int n, bool turns, lat_stats_rng *rng, lat_ab_account *acct,
                     int *failed_side, char *err, size_t errlen) {
    if (!failed_side) return -EINVAL;
    *failed_side = sides ? sides[0] : LAT_AB_A; /* a failure names a side */
    if (!prog || !sides || n < 1 || n > LAT_AB_NSIDES || !rng || !ab) return -EINVAL;
    *failed_side = -1;
    for (int i = 0; i < n && !turns; i++) { /* whole runs, one after another */
        int rc = lat_ab_run(&prog[sides[i]], o, ab, round, sides[i], &acct[i], err, errlen);
        if (rc) {
            *failed_side = sides[i];
            return rc;
        }
    }
    if (!turns) return 0;
    run_files f[LAT_AB_NSIDES];
    pid_t pid[LAT_AB_NSIDES];
    int fd[LAT_AB_NSIDES], state[LAT_AB_NSIDES] = {0}; /* 0 starting, 1 taking turns, 2 done */
    int rc = 0, started = 0;
    for (int i = 0; i < n; i++)
        if ((rc = prepare(&prog[sides[i]], o, ab, round, sides[i], &acct[i], err, errlen, &f[i]))) {
            *failed_side = sides[i];
            return rc;
        }
    uint64_t t0 = lat_mono_ns(), deadline = t0 + (uint64_t)n * o->timeout_ns;
    for (; started < n; started++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
            rc = -errno;
            snprintf(err, errlen, "cannot start it: %s", lat_strerror(rc));
            *failed_side = sides[started];
            break;
        }
        pid[started] = start_run(&prog[sides[started]], o, &f[started], sv[1]);
        close(sv[1]);
        fd[started] = sv[0];
        if (pid[started] < 0) {
            rc = (int)pid[started];
            close(sv[0]);
            snprintf(err, errlen, "cannot start it: %s", lat_strerror(rc));
            *failed_side = sides[started];
            break;
        }
    }
    /* every program ready (or ended: one that does not take turns ran alone) */
    for (int i = 0; i < started && !rc; i++) {
        int c = turn_read(fd[i], deadline);
        state[i] = c < 0 ? 2 : c == 'r' ? 1 : 2;
        if (c < 0) rc = -ETIMEDOUT, *failed_side = sides[i];
    }
    /* turns, in a fresh random order each cycle, until every program ended */
    for (bool any = true; any && !rc;) {
        int order[LAT_AB_NSIDES];
        for (int i = 0; i < started; i++)
            order[i] = i;
        lat_stats_shuffle(rng, order, (size_t)started);
        any = false;
        for (int k = 0; k < started && !rc; k++) {
            int i = order[k];
            if (state[i] != 1) continue;
            any = true;
            int c = send(fd[i], "g", 1, MSG_NOSIGNAL) == 1 ? turn_read(fd[i], deadline) : 0;
            if (c < 0) rc = -ETIMEDOUT, *failed_side = sides[i];
            if (c == 0) state[i] = 2;
        }
    }
    if (rc)
        for (int i = 0; i < started; i++)
            kill(pid[i], SIGKILL);
    int out = rc;
    char why[400];
    for (int i = 0; i < started; i++) {
        close(fd[i]);
        bool failed_here = *failed_side == sides[i]; /* timed out */
        int w = finish_child(pid[i], t0, deadline, &acct[i]);
        int r = collect(&prog[sides[i]], o, failed_here ? -ETIMEDOUT : w, &f[i], ab, round,
                        sides[i], &acct[i], why, sizeof why);
        if (failed_here || (r && *failed_side < 0 && !out)) {
            snprintf(err, errlen, "%s", why);
            *failed_side = sides[i];
            out = r;
        }
    }
    return out;
}
