/* bench_perf.c - what counting a region costs, and whether `latlab stat`
 * agrees with `perf stat`.
 *
 * Part 1: per-region cost of lat_perf_start + lat_perf_stop + lat_perf_read
 * for a 1-event and a 4-event software group, next to peers measured in the
 * same run: an empty region (two clock reads), two
 * clock_gettime(CLOCK_THREAD_CPUTIME_ID) (the task-clock peer) and two
 * getrusage(RUSAGE_THREAD) (the switches/faults peer).  Median and minimum
 * over batches of regions, ns per region.
 *
 * Part 2: one fixed workload (this program with --workload: touch a fresh
 * 32 MiB mapping, compute ~50 ms, sleep 10 x 1 ms) counted by `perf stat` and
 * by `latlab stat`, alternating, 3 runs each; medians side by side.  The
 * latlab tool is found at $LATLAB or next to this program's build folder.
 * Prints figures only; never decides pass/fail. */
#include "latlab/clock.h"
#include "latlab/compiler.h"
#include "latlab/perf.h"
#include "latlab/stats.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BATCH 2000
#define BATCHES 15

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

typedef void (*region_fn)(void *);

static void measure(const char *what, region_fn fn, void *arg) {
    double per[BATCHES];
    for (int w = 0; w < BATCH / 10; w++)
        fn(arg); /* warm */
    for (int b = 0; b < BATCHES; b++) {
        uint64_t t0 = mono_ns();
        for (int i = 0; i < BATCH; i++)
            fn(arg);
        per[b] = (double)(mono_ns() - t0) / BATCH;
    }
    double med = lat_stats_median_high(per, BATCHES); /* sorts per */
    printf("  %-52s %9.1f %9.1f\n", what, med, per[0]);
}

static void r_empty(void *a) {
    (void)a;
    uint64_t x = lat_cycles(), y = lat_cycles();
    lat_do_not_optimize(x);
    lat_do_not_optimize(y);
}

static void r_cputime(void *a) {
    (void)a;
    struct timespec t0, t1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    lat_do_not_optimize(t1.tv_nsec);
}

static void r_rusage(void *a) {
    (void)a;
    struct rusage r0, r1;
    getrusage(RUSAGE_THREAD, &r0);
    getrusage(RUSAGE_THREAD, &r1);
    lat_do_not_optimize(r1.ru_nvcsw);
}

static void r_perf(void *a) {
    lat_perf *p = a;
    lat_perf_count c[4];
    lat_perf_start(p);
    lat_perf_stop(p);
    lat_perf_read(p, c, 4);
}

/* Counters left enabled: the region is two reads (deltas). */
static void r_perf_reads(void *a) {
    lat_perf *p = a;
    lat_perf_count c[4];
    lat_perf_read(p, c, 4);
    lat_perf_read(p, c, 4);
}

/* The fixed workload both tools count. */
static int workload(void) {
    size_t len = 32u << 20;
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return 1;
    madvise(m, len, MADV_NOHUGEPAGE);
    long pg = sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < len; i += (size_t)pg)
        m[i] = 1;
    volatile uint64_t x = 0;
    uint64_t t0 = mono_ns();
    while (mono_ns() - t0 < 50000000ull)
        for (int i = 0; i < 1000; i++)
            x += (uint64_t)i * 7;
    for (int i = 0; i < 10; i++) {
        struct timespec d = {0, 1000000};
        nanosleep(&d, NULL);
    }
    munmap(m, len);
    return 0;
}

static int run(char *const argv[]) {
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) dup2(devnull, 1), dup2(devnull, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#define NEV 4
static const char *const evnames[NEV] = {"task-clock", "page-faults", "context-switches",
                                         "cpu-migrations"};

/* perf stat -x, output: value,unit,event,... ; -1 when absent */
static void parse_perf(const char *path, double *v) {
    for (int i = 0; i < NEV; i++)
        v[i] = NAN;
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        /* fields may be empty (",,"), so no strtok */
        char *val = line, *unit = strchr(val, ',');
        if (!unit) continue;
        *unit++ = 0;
        char *ev = strchr(unit, ',');
        if (!ev) continue;
        *ev++ = 0;
        ev[strcspn(ev, ",\n")] = 0;
        for (int i = 0; i < NEV; i++)
            if (!strncmp(ev, evnames[i], strlen(evnames[i])) &&
                (ev[strlen(evnames[i])] == 0 || ev[strlen(evnames[i])] == ':')) {
                char *end;
                double d = strtod(val, &end);
                if (end != val) v[i] = i == 0 ? d * 1e6 : d; /* task-clock is in msec */
            }
    }
    fclose(f);
}

static void parse_latlab(const char *path, double *v) {
    for (int i = 0; i < NEV; i++)
        v[i] = NAN;
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root) return;
    json_t *evs = json_object_get(root, "events");
    for (size_t k = 0; k < json_array_size(evs); k++) {
        json_t *e = json_array_get(evs, k);
        const char *name = json_string_value(json_object_get(e, "name"));
        json_t *val = json_object_get(e, "scaled");
        for (int i = 0; name && i < NEV; i++)
            if (!strcmp(name, evnames[i]) && json_is_number(val)) v[i] = json_number_value(val);
    }
    json_decref(root);
}

static double median3(double a, double b, double c) {
    double x[3] = {a, b, c};
    return lat_stats_median_high(x, 3);
}

static void side_by_side(const char *self) {
    char latlab[PATH_MAX];
    const char *env = getenv("LATLAB");
    if (env)
        snprintf(latlab, sizeof latlab, "%s", env);
    else {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", self);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = 0;
        else
            snprintf(dir, sizeof dir, ".");
        snprintf(latlab, sizeof latlab, "%.4000s/../latlab", dir);
    }
    if (access(latlab, X_OK)) {
        printf("\nside by side: skipped (no latlab tool at %s; set LATLAB)\n", latlab);
        return;
    }
    char *tmp = getenv("TMPDIR");
    char pf[PATH_MAX], lf[PATH_MAX];
    snprintf(pf, sizeof pf, "%s/bench_perf_%d.perf", tmp ? tmp : "/tmp", (int)getpid());
    snprintf(lf, sizeof lf, "%s/bench_perf_%d.json", tmp ? tmp : "/tmp", (int)getpid());
    const char *list = "task-clock,page-faults,context-switches,cpu-migrations";
    double pv[3][NEV], lv[3][NEV];
    int perf_ok = 1;
    for (int r = 0; r < 3; r++) {
        char *pa[] = {"perf",       "stat", "-x,",        "-o",         pf,  "-e",
                      (char *)list, "--",   (char *)self, "--workload", NULL};
        char *la[] = {latlab,       "stat", "--json",     lf,           "-e",
                      (char *)list, "--",   (char *)self, "--workload", NULL};
        if (run(pa) != 0) perf_ok = 0;
        parse_perf(pf, pv[r]);
        if (run(la) != 0) printf("latlab stat failed\n");
        parse_latlab(lf, lv[r]);
    }
    unlink(pf);
    unlink(lf);
    printf("\nthe same workload (%s --workload: 32 MiB fresh pages, ~50 ms compute, 10 x 1 ms "
           "sleep),\ncounted by perf stat and latlab stat, alternating, median of 3 each:\n",
           self);
    if (!perf_ok) printf("  (perf stat failed or is not installed: its column is n/a)\n");
    printf("  %-18s %16s %16s %8s\n", "event", "perf stat", "latlab stat", "ratio");
    for (int i = 0; i < NEV; i++) {
        double a = median3(pv[0][i], pv[1][i], pv[2][i]);
        double b = median3(lv[0][i], lv[1][i], lv[2][i]);
        if (i == 0) a /= 1e6, b /= 1e6;
        char r[16] = "-";
        if (a != 0 && !isnan(a) && !isnan(b)) snprintf(r, sizeof r, "%.3f", b / a);
        printf("  %-18s %16.3f %16.3f %8s%s\n", evnames[i], a, b, r, i == 0 ? "  (msec)" : "");
    }
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--workload")) return workload();
    printf("bench_perf: cost of counting one region (ns per region: median, min over %d "
           "batches of %d)\n",
           BATCHES, BATCH);
    printf("  %-52s %9s %9s\n", "region", "median", "min");
    lat_perf *p1 = NULL, *p4 = NULL;
    if (lat_perf_create(&p1, "task-clock", NULL) || lat_perf_create(&p4,
                                                                    "task-clock,context-switches,"
                                                                    "cpu-migrations,page-faults",
                                                                    NULL)) {
        printf("cannot open counters\n");
        return 1;
    }
    for (size_t i = 0; i < lat_perf_nevents(p4); i++)
        if (lat_perf_reason(p4, i))
            printf("  note: %s: %s\n", lat_perf_name(p4, i), lat_perf_reason(p4, i));
    measure("empty region (2 x rdtsc)", r_empty, NULL);
    measure("peer: 2 x clock_gettime(CLOCK_THREAD_CPUTIME_ID)", r_cputime, NULL);
    measure("peer: 2 x getrusage(RUSAGE_THREAD)", r_rusage, NULL);
    measure("lat_perf start+stop+read, 1 event (task-clock)", r_perf, p1);
    measure("lat_perf start+stop+read, 4 software events, 1 group", r_perf, p4);
    lat_perf_start(p1);
    lat_perf_start(p4);
    measure("lat_perf 2 x read (left enabled), 1 event", r_perf_reads, p1);
    measure("lat_perf 2 x read (left enabled), 4 software events", r_perf_reads, p4);
    lat_perf_destroy(p1);
    lat_perf_destroy(p4);
    side_by_side(argv[0]);
    return 0;
}
