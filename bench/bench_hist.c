/* bench_hist.c - latlab's HdrHistogram against the Java reference, in one run.
 *
 *   record      ns/op of lat_hist_record over 10 M values of three streams
 *               (uniform 0..1e6, log-uniform 1..1e9, latency-like), 3 figures;
 *               median of REPS passes after a warm-up pass.
 *   summary     p50, p90, p99, p99.9, p99.99, max on a (1, 1e9, 3) histogram
 *               holding 10 M latency-like values: the one-pass batch form,
 *               six single-percentile scans, and a percentile-iterator walk
 *               (the reference C library's way); median per call.
 *   codec       compressed V2 encode and decode of 1 M latency-like values:
 *               median time and size.
 * The Java reference (same jar as the interop tests) runs the same streams
 * in the same session: bench/JavaHistBench.java is compiled with javac into
 * the build directory and run after JIT warm-up.  Figures only; never
 * pass/fail.
 *
 *   bench_hist [--n N] [--reps R] [--no-java] */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/clock.h"
#include "latlab/compiler.h"
#include "latlab/hist.h"
#include "latlab/stats.h"

#ifndef LAT_SRC_DIR
#define LAT_SRC_DIR "."
#endif
#ifndef LAT_BIN_DIR
#define LAT_BIN_DIR "."
#endif
#define JAR "/usr/share/java/hdrhistogram.jar"

static uint64_t xs;
static uint64_t next(void) {
    xs ^= xs << 13;
    xs ^= xs >> 7;
    xs ^= xs << 17;
    return xs;
}
static double unit(void) {
    return (double)(next() >> 11) * 0x1.0p-53;
}

/* Keep in step with gen() in JavaHistBench.java. */
static void gen(int kind, int64_t *v, size_t n) {
    xs = 0x9E3779B97F4A7C15ull + (uint64_t)kind;
    for (size_t i = 0; i < n; i++) {
        switch (kind) {
        case 0:
            v[i] = (int64_t)(next() % 1000000u);
            break;
        case 1:
            v[i] = (int64_t)exp(unit() * log(1e9));
            break;
        default: {
            double u = unit();
            int64_t base = 200 + (int64_t)(-log(1.0 - unit()) * 150);
            if (u > 0.999)
                base += (int64_t)(unit() * 5000000);
            else if (u > 0.99)
                base += (int64_t)(unit() * 50000);
            v[i] = base;
        }
        }
    }
}

/* Median of passes: the high median (sorts a), the statistics module's. */
static double median(double *a, size_t n) {
    return lat_stats_median_high(a, n);
}

/* The record loop, kept out of line so every pass runs the same code. */
static LAT_NOINLINE void record_all(lat_hist *h, const int64_t *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        lat_hist_record(h, v[i]);
}

/* Reading 10 M values from an 80 MB array costs ~1.5 ns/value here by itself
 * (memory bandwidth, shared with everyone on the host).  So the headline
 * figure records the stream in 64 Ki-value chunks, each read once untimed
 * (into cache) and then recorded under the clock: what record costs when its
 * input is in a register or cache, as at a real call site.  Wall and thread
 * CPU time are both summed (CPU time leaves out preemption on a busy host). */
#define CHUNK 65536
static void record_chunked(lat_hist *h, const int64_t *v, size_t n, double *wall_ns,
                           double *cpu_ns) {
    uint64_t w = 0, c = 0;
    int64_t sink = 0;
    for (size_t off = 0; off < n; off += CHUNK) {
        size_t len = n - off < CHUNK ? n - off : CHUNK;
        for (size_t i = 0; i < len; i++)
            sink += v[off + i];
        lat_do_not_optimize(sink);
        uint64_t c0 = lat_clock_ns(CLOCK_THREAD_CPUTIME_ID), w0 = lat_mono_ns();
        record_all(h, v + off, len);
        uint64_t w1 = lat_mono_ns(), c1 = lat_clock_ns(CLOCK_THREAD_CPUTIME_ID);
        w += w1 - w0;
        c += c1 - c0;
    }
    *wall_ns = (double)w / (double)n;
    *cpu_ns = (double)c / (double)n;
}

typedef struct java_figs {
    double rec[3], rec_cpu[3], rec_cpu_best[3], rec_stream[3], summary6_ns, encode_ns, decode_ns,
        encoded_bytes;
    int ok;
} java_figs;

static void run_java(java_figs *j, size_t n, int reps) {
    memset(j, 0, sizeof *j);
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "command -v javac >/dev/null 2>&1 && [ -f " JAR " ] && mkdir -p %s/java && "
             "javac -nowarn -d %s/java -cp " JAR " %s/bench/JavaHistBench.java && "
             "java -cp " JAR ":%s/java JavaHistBench %zu %d",
             LAT_BIN_DIR, LAT_BIN_DIR, LAT_SRC_DIR, LAT_BIN_DIR, n, reps);
    FILE *p = popen(cmd, "r");
    if (!p) return;
    char line[256];
    static const char *names[] = {"record_uniform_ns", "record_loguniform_ns", "record_latency_ns"};
    while (fgets(line, sizeof line, p)) {
        char key[64];
        double val;
        if (sscanf(line, "%63s %lf", key, &val) != 2) continue;
        for (int k = 0; k < 3; k++) {
            char nm[80];
            if (!strcmp(key, names[k])) j->rec[k] = val;
            snprintf(nm, sizeof nm, "%s_cpu", names[k]);
            if (!strcmp(key, nm)) j->rec_cpu[k] = val;
            snprintf(nm, sizeof nm, "%s_cpu_best", names[k]);
            if (!strcmp(key, nm)) j->rec_cpu_best[k] = val;
            snprintf(nm, sizeof nm, "%s_stream", names[k]);
            if (!strcmp(key, nm)) j->rec_stream[k] = val;
        }
        if (!strcmp(key, "summary6_ns")) j->summary6_ns = val;
        if (!strcmp(key, "encode_ns")) j->encode_ns = val;
        if (!strcmp(key, "decode_ns")) j->decode_ns = val;
        if (!strcmp(key, "encoded_bytes")) j->encoded_bytes = val;
    }
    j->ok = pclose(p) == 0 && j->rec[0] > 0;
}

typedef struct hist_args {
    size_t n;
    int reps, java, summary_only;
} hist_args;

/* 0, or 2 after the usage line. */
static int parse_args(int argc, char **argv, hist_args *a) {
    *a = (hist_args){.n = 10000000, .reps = 5, .java = 1};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc)
            a->n = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            a->reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-java"))
            a->java = 0;
        else if (!strcmp(argv[i], "--summary-only"))
            a->summary_only = 1, a->java = 0;
        else {
            fprintf(stderr, "usage: bench_hist [--n N] [--reps R] [--no-java] [--summary-only]\n");
            return 2;
        }
    }
    if (a->n < 1000000) a->n = 1000000;
    if (a->reps < 1 || a->reps > 100) a->reps = 5;
    return 0;
}

static const char *const stream_names[] = {"uniform 0..1e6", "log-uniform 1..1e9", "latency-like"};

/* record: per stream, the medians of wall and CPU ns/op (chunked), the best
 * CPU pass and the streamed (memory-bound) wall figure. */
typedef struct record_figs {
    double wall[3], cpu[3], cpu_best[3], stream[3];
} record_figs;

/* 0, or 1 when a pass lost values. */
static int bench_record(int64_t *v, size_t n, int reps, record_figs *f) {
    lat_hist h;
    if (lat_hist_init(&h, 1, INT64_C(3600000000000), 3)) return 1;
    for (int k = 0; k < 3; k++) {
        gen(k, v, n);
        double t[100], tc[100], ts[100];
        record_all(&h, v, n); /* warm-up: pages and caches */
        for (int r = 0; r < reps; r++) {
            lat_hist_reset(&h);
            record_chunked(&h, v, n, &t[r], &tc[r]);
            if (lat_hist_total(&h) != (int64_t)n) return 1;
            lat_hist_reset(&h);
            uint64_t t0 = lat_mono_ns();
            record_all(&h, v, n);
            ts[r] = (double)(lat_mono_ns() - t0) / (double)n;
        }
        f->wall[k] = median(t, (size_t)reps);
        f->cpu[k] = median(tc, (size_t)reps);
        f->cpu_best[k] = tc[0]; /* median() sorted tc */
        f->stream[k] = median(ts, (size_t)reps);
    }
    lat_hist_fini(&h);
    return 0;
}

static const double summary_ps[] = {50, 90, 99, 99.9, 99.99, 100};
/* with p99.999 instead of the max: n*q*(1-q) = 99.999 < 100, the exact
 * binomial branch (the slowest) */
static const double summary_ps5[] = {50, 90, 99, 99.9, 99.99, 99.999};

/* summary: median ns per call of each way to get the six percentiles, the
 * answers and their intervals. */
typedef struct summary_figs {
    double batch, single, iter, ci, ci5;
    int64_t out[6];
    lat_hist_ci cis[6], cis5[6];
} summary_figs;

enum { SUMREPS = 2001 };
typedef struct summary_times {
    double batch[SUMREPS], single[SUMREPS], iter[SUMREPS], ci[SUMREPS], ci5[SUMREPS];
} summary_times;

/* Pass r: each way timed once into t; 0, or 1 when two ways disagree. */
static int summary_pass(const lat_hist *s, int r, summary_times *t, summary_figs *f) {
    int64_t check[6];
    uint64_t t0 = lat_mono_ns();
    lat_hist_values_at_percentiles(s, summary_ps, f->out, 6);
    uint64_t t1 = lat_mono_ns();
    /* the same six with their 95% intervals (18 ranks, one pass) */
    uint64_t c0 = lat_mono_ns();
    lat_hist_cis_at_percentiles(s, summary_ps, LAT_HIST_CI_DEFAULT, f->cis, 6);
    uint64_t c1 = lat_mono_ns();
    lat_do_not_optimize(f->cis[0].lo);
    t->ci[r] = (double)(c1 - c0);
    c0 = lat_mono_ns();
    lat_hist_cis_at_percentiles(s, summary_ps5, LAT_HIST_CI_DEFAULT, f->cis5, 6);
    c1 = lat_mono_ns();
    lat_do_not_optimize(f->cis5[0].lo);
    t->ci5[r] = (double)(c1 - c0);
    for (int k = 0; k < 6; k++)
        if (f->cis[k].value != f->out[k] || f->cis[k].lo > f->out[k] || f->cis[k].hi < f->out[k]) {
            fprintf(stderr, "bench_hist: interval and point estimate disagree\n");
            return 1;
        }
    for (int k = 0; k < 6; k++)
        check[k] = lat_hist_value_at_percentile(s, summary_ps[k]);
    uint64_t t2 = lat_mono_ns();
    /* iterator walk: what HdrHistogram_c's percentile summary does */
    lat_hist_iter it;
    lat_hist_iter_recorded(&it, s);
    int k = 0;
    int64_t walk[6] = {0};
    while (k < 6 && lat_hist_iter_next(&it))
        while (k < 6 && it.percentile >= summary_ps[k])
            walk[k++] = it.value;
    uint64_t t3 = lat_mono_ns();
    lat_do_not_optimize(walk[0]);
    t->batch[r] = (double)(t1 - t0);
    t->single[r] = (double)(t2 - t1);
    t->iter[r] = (double)(t3 - t2);
    if (memcmp(f->out, check, sizeof check) != 0) {
        fprintf(stderr, "bench_hist: batch and single percentiles disagree\n");
        return 1;
    }
    return 0;
}

/* 0, or 1 (init failed, or two ways disagree). */
static int bench_summary(int64_t *v, size_t n, summary_figs *f) {
    gen(2, v, n);
    lat_hist s;
    if (lat_hist_init(&s, 1, 1000000000, 3)) return 1;
    for (size_t i = 0; i < n; i++)
        lat_hist_record(&s, v[i] > 1000000000 ? 1000000000 : v[i]);
    static summary_times t;
    for (int r = 0; r < SUMREPS; r++)
        if (summary_pass(&s, r, &t, f)) return 1;
    f->batch = median(t.batch, SUMREPS);
    f->single = median(t.single, SUMREPS);
    f->iter = median(t.iter, SUMREPS);
    f->ci = median(t.ci, SUMREPS);
    f->ci5 = median(t.ci5, SUMREPS);
    lat_hist_fini(&s);
    return 0;
}

static void print_summary_only(size_t n, const summary_figs *f) {
    printf("\n6-percentile summary on (1, 1e9, 3) with %zu values (us per call, median of "
           "%d)\n",
           n, SUMREPS);
    printf("  latlab batch (one pass)          %9.3f\n", f->batch / 1e3);
    printf("  latlab batch + 95%% intervals     %9.3f   %.2fx the batch; goal <= 2x: %s\n",
           f->ci / 1e3, f->ci / f->batch, f->ci <= 2 * f->batch ? "met" : "not met");
    printf("  the same, p99.999 for p100       %9.3f   %.2fx (p99.999: exact binomial ranks)\n",
           f->ci5 / 1e3, f->ci5 / f->batch);
    for (int k = 0; k < 6; k++) {
        char b[160];
        lat_hist_ci_format(&f->cis[k], 1, 0, b, sizeof b);
        printf("  p%-7g %10" PRId64 " ns  ranks %" PRId64 "..%" PRId64 "  %s\n", summary_ps[k],
               f->cis[k].value, f->cis[k].lo_rank, f->cis[k].hi_rank, b);
    }
    char b5[160];
    lat_hist_ci_format(&f->cis5[5], 1, 0, b5, sizeof b5);
    printf("  p99.999 %10" PRId64 " ns  ranks %" PRId64 "..%" PRId64 "  %s\n", f->cis5[5].value,
           f->cis5[5].lo_rank, f->cis5[5].hi_rank, b5);
}

/* codec: median encode and decode ns and the encoded size of 1 M values. */
typedef struct codec_figs {
    double enc, dec;
    size_t len;
} codec_figs;

/* 0, or 1 when encoding or decoding failed. */
static int bench_codec(int64_t *v, codec_figs *f) {
    size_t m = 1000000;
    gen(2, v, m);
    lat_hist e, d;
    if (lat_hist_init(&e, 1, INT64_C(3600000000000), 3)) return 1;
    for (size_t i = 0; i < m; i++)
        lat_hist_record(&e, v[i]);
    enum { CREPS = 201 };
    static double te[CREPS], td[CREPS];
    f->len = 0;
    for (int r = 0; r < CREPS; r++) {
        uint8_t *buf;
        uint64_t t0 = lat_mono_ns();
        if (lat_hist_encode_compressed(&e, -1, &buf, &f->len)) return 1;
        uint64_t t1 = lat_mono_ns();
        if (lat_hist_decode(buf, f->len, &d)) return 1;
        uint64_t t2 = lat_mono_ns();
        if (lat_hist_total(&d) != (int64_t)m) return 1;
        lat_hist_fini(&d);
        lat_hist_buf_free(buf);
        te[r] = (double)(t1 - t0);
        td[r] = (double)(t2 - t1);
    }
    f->enc = median(te, CREPS);
    f->dec = median(td, CREPS);
    lat_hist_fini(&e);
    return 0;
}

static void print_record(int reps, const record_figs *o, const java_figs *j) {
    printf("\nrecord, ns/op (median of %d passes; inputs in cache, 64 Ki-value chunks)\n", reps);
    printf("  %-22s %8s %8s   %8s %8s   %7s %7s   %s\n", "stream", "latlab", "Java", "latlab",
           "Java", "ratio", "ratio", "goal <= 2.0");
    printf("  %-22s %8s %8s   %8s %8s   %7s %7s\n", "", "wall", "wall", "cpu", "cpu", "wall",
           "cpu");
    for (int k = 0; k < 3; k++) {
        printf("  %-22s %8.3f %8.3f   %8.3f %8.3f   %7.2f %7.2f   %s\n", stream_names[k],
               o->wall[k], j->ok ? j->rec[k] : NAN, o->cpu[k], j->ok ? j->rec_cpu[k] : NAN,
               j->ok ? o->wall[k] / j->rec[k] : NAN, j->ok ? o->cpu[k] / j->rec_cpu[k] : NAN,
               o->cpu[k] <= 2.0 ? "met (cpu)" : "not met (cpu)");
    }
    printf("record, ns/op, best pass (thread CPU time; the least disturbed pass on a busy host)\n");
    for (int k = 0; k < 3; k++)
        printf("  %-22s %8.3f %8.3f   ratio %5.2f\n", stream_names[k], o->cpu_best[k],
               j->ok ? j->rec_cpu_best[k] : NAN, j->ok ? o->cpu_best[k] / j->rec_cpu_best[k] : NAN);
    printf("record, ns/op streamed from the 80 MB array (memory-bound, wall, median)\n");
    for (int k = 0; k < 3; k++)
        printf("  %-22s %8.3f %8.3f\n", stream_names[k], o->stream[k],
               j->ok ? j->rec_stream[k] : NAN);
}

static void print_summary(size_t n, const summary_figs *f, const java_figs *j) {
    printf("\n6-percentile summary on (1, 1e9, 3) with %zu values (us per call, median)\n", n);
    printf("  latlab batch (one pass)       %9.3f   goal <= 10: %s\n", f->batch / 1e3,
           f->batch <= 10000 ? "met" : "not met");
    printf("  latlab batch + 95%% intervals  %9.3f   (%.2fx the batch; goal <= 2x)\n", f->ci / 1e3,
           f->ci / f->batch);
    printf("  latlab 6 single scans         %9.3f   (batch is %.1fx faster)\n", f->single / 1e3,
           f->single / f->batch);
    printf("  latlab recorded-iterator walk %9.3f   (the reference C library's method; %.1fx)\n",
           f->iter / 1e3, f->iter / f->batch);
    if (j->ok)
        printf("  Java 6 x getValueAtPercentile %9.3f   (batch is %.1fx faster)\n",
               j->summary6_ns / 1e3, j->summary6_ns / f->batch);
    printf("  answers: p50=%" PRId64 " p90=%" PRId64 " p99=%" PRId64 " p99.9=%" PRId64
           " p99.99=%" PRId64 " max=%" PRId64 "\n",
           f->out[0], f->out[1], f->out[2], f->out[3], f->out[4], f->out[5]);
}

static void print_codec(const codec_figs *f, const java_figs *j) {
    printf("\ncompressed V2, 1 M latency-like values   latlab        Java 2.1.11\n");
    printf("  size (bytes)                         %9zu", f->len);
    if (j->ok) printf("     %9.0f", j->encoded_bytes);
    printf("\n  encode (us, median)                  %9.1f", f->enc / 1e3);
    if (j->ok) printf("     %9.1f", j->encode_ns / 1e3);
    printf("\n  decode (us, median)                  %9.1f", f->dec / 1e3);
    if (j->ok) printf("     %9.1f", j->decode_ns / 1e3);
    printf("\n");
}

int main(int argc, char **argv) {
    hist_args a;
    if (parse_args(argc, argv, &a)) return 2;
    int64_t *v = malloc(a.n * sizeof *v);
    if (!v) return 1;
    printf("bench_hist: %zu values per stream, 3 significant figures, median of %d passes\n", a.n,
           a.reps);
    record_figs rec;
    memset(&rec, 0, sizeof rec);
    if (!a.summary_only && bench_record(v, a.n, a.reps, &rec)) return 1;
    summary_figs sum;
    if (bench_summary(v, a.n, &sum)) return 1;
    if (a.summary_only) {
        print_summary_only(a.n, &sum);
        free(v);
        return 0;
    }
    codec_figs codec;
    if (bench_codec(v, &codec)) return 1;
    free(v);

    java_figs j;
    memset(&j, 0, sizeof j);
    if (a.java) {
        fflush(stdout);
        run_java(&j, a.n, a.reps);
    }
    print_record(a.reps, &rec, &j);
    print_summary(a.n, &sum, &j);
    print_codec(&codec, &j);
    if (a.java && !j.ok) printf("\n(Java peer not available: javac/java or " JAR " missing)\n");
    return 0;
}
