/* bench_figures.c - how accurate and how quiet latlab's harness is: the three
 * operations of bench/support/figure_ops.c (a 64-bit hash, a 1 KiB memcpy, a
 * histogram record) timed by the harness `--repeats` times (mean ns/op and
 * the CV of the per-repeat figure), the harness's timer overhead per sample,
 * and how often comparison calls a no-change rerun "changed" (`--fp` reruns,
 * each compared like `--compare auto` would over successive runs: the newest
 * earlier run is the baseline, up to 10 earlier runs the history).  Google Benchmark times the same
 * compiled operations in bench_figures_gb.cc; scripts/bench-vs-gbench.sh interleaves the two and
 * prints them side by side.
 *
 * Each repeat is a full harness run with quick settings (10 ms samples,
 * 0.1 s warm-up, 0.5 s budget, >= 20 samples).  Prints figures; never fails
 * on them.
 *
 * usage: bench_figures [--repeats N] [--fp N] [--tsv] [--verbose] */
#include "latlab/bench.h"

#include "latlab/compiler.h"
#include "support/figure_ops.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void hash_fn(void *ctx, uint64_t n, uint64_t idx) {
    (void)ctx;
    (void)idx;
    uint64_t acc = 1;
    for (uint64_t i = 0; i < n; i++)
        acc = fig_hash64(acc);
    lat_do_not_optimize(acc);
}

static unsigned char src[1024] LAT_ALIGNED(64), dst[1024] LAT_ALIGNED(64);

static void copy_fn(void *ctx, uint64_t n, uint64_t idx) {
    (void)ctx;
    (void)idx;
    for (uint64_t i = 0; i < n; i++)
        fig_copy1k(dst, src);
    lat_do_not_optimize(dst[0]);
}

static uint64_t hist_i;
static void hist_fn(void *ctx, uint64_t n, uint64_t idx) {
    (void)idx;
    uint64_t i = hist_i;
    for (uint64_t k = 0; k < n; k++)
        fig_hist_record(ctx, i++);
    hist_i = i;
}

#define NB 3
static const char *const names[NB] = {"hash64", "memcpy1k", "hist_record"};

static int run_once(void *hist, lat_bench_report **out) {
    lat_bench_config cfg;
    lat_bench_config_quick(&cfg);
    cfg.min_samples = 20;
    lat_bench_runner *r;
    int rc = lat_bench_runner_create("figures", &cfg, &r);
    if (rc) return rc;
    lat_bench_group *g = lat_bench_group_create(r, "ops");
    if (!g) rc = -ENOMEM;
    if (!rc) rc = lat_bench_add(g, &(lat_bench_def){.name = names[0], .fn = hash_fn});
    if (!rc) rc = lat_bench_add(g, &(lat_bench_def){.name = names[1], .fn = copy_fn});
    if (!rc) rc = lat_bench_add(g, &(lat_bench_def){.name = names[2], .fn = hist_fn, .arg = hist});
    if (!rc) rc = lat_bench_run(r);
    if (!rc) rc = lat_bench_report_clone(lat_bench_runner_report(r), out);
    lat_bench_runner_destroy(r);
    return rc;
}

int main(int argc, char **argv) {
    int repeats = 10, fp = 20, tsv = 0, verbose = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc)
            repeats = atoi(argv[++i]);
        else if (strcmp(argv[i], "--fp") == 0 && i + 1 < argc)
            fp = atoi(argv[++i]);
        else if (strcmp(argv[i], "--tsv") == 0)
            tsv = 1;
        else if (strcmp(argv[i], "--verbose") == 0)
            verbose = 1;
        else {
            fprintf(stderr, "usage: %s [--repeats N] [--fp N] [--tsv] [--verbose]\n", argv[0]);
            return 2;
        }
    }
    if (repeats < 0 || fp < 0 || repeats > 1000 || fp > 1000) return 2;
    memset(src, 7, sizeof src);
    void *hist = fig_hist_new();
    if (!hist) return 1;
    int runs = repeats > fp + (fp > 0) ? repeats : fp + (fp > 0);
    lat_bench_report **reps = calloc((size_t)runs + 1, sizeof *reps);
    if (!reps) return 1;
    for (int k = 0; k < runs; k++) {
        int rc = run_once(hist, &reps[k]);
        if (rc) {
            fprintf(stderr, "bench_figures: run %d failed: %d\n", k, rc);
            return 1;
        }
    }
    /* ns/op: mean over repeats of each run's mean (total time / total ops);
     * CV across repeats with the sample stddev (n - 1), as Google Benchmark's. */
    for (int b = 0; b < NB && repeats > 0; b++) {
        double sum = 0, ss = 0, ovh = 0, sample_ns = 0, inrun_cv = 0;
        for (int k = 0; k < repeats; k++) {
            const lat_bench_result *res = &reps[k]->results[b];
            sum += res->mean_ns_per_op;
            ovh += res->timer_overhead_ns;
            sample_ns += res->total_ns / res->n;
            inrun_cv += res->latency.cv_pct;
        }
        double mean = sum / repeats;
        for (int k = 0; k < repeats; k++) {
            double d = reps[k]->results[b].mean_ns_per_op - mean;
            ss += d * d;
        }
        double cv = repeats > 1 ? sqrt(ss / (repeats - 1)) / mean * 100 : 0;
        ovh /= repeats;
        sample_ns /= repeats;
        inrun_cv /= repeats;
        if (tsv)
            printf("latlab\t%s\t%.6f\t%.4f\t%.2f\t%.1f\t%.3f\n", names[b], mean, cv, ovh, sample_ns,
                   inrun_cv);
        else
            printf("%-12s %10.3f ns/op  CV over %d repeats %6.2f%%  timer overhead %.1f ns per "
                   "%.2f ms sample (%.2f ppm, subtracted)  mean within-run CV %.2f%%\n",
                   names[b], mean, repeats, cv, ovh, sample_ns / 1e6, ovh / sample_ns * 1e6,
                   inrun_cv);
    }
    /* False "changed" calls: reruns 1..fp of the same code, each against the
     * runs before it. */
    if (fp > 0) {
        /* Three rules: Mann-Whitney + materiality alone (the spec's core);
         * the default (plus the noise floor, the run-to-run drift of the
         * history and the busy-machine guard); the default on CPU time. */
        static const char *const rule[3] = {"MWU+5% only", "default", "default, CPU time"};
        const lat_bench_compare_opts opts[3] = {{.alpha = 0.05, .materiality = 0.05},
                                                {.alpha = 0.05,
                                                 .materiality = 0.05,
                                                 .noise_mult = 1,
                                                 .min_cpu_share = 0.9,
                                                 .drift_mult = 3},
                                                {.alpha = 0.05,
                                                 .cpu_time = true,
                                                 .materiality = 0.05,
                                                 .noise_mult = 1,
                                                 .min_cpu_share = 0.9,
                                                 .drift_mult = 3}};
        double share = 0;
        for (int k = 0; k <= fp; k++)
            for (int b = 0; b < NB; b++)
                share += reps[k]->results[b].cpu_share;
        share /= (fp + 1) * NB;
        for (int m = 0; m < 3; m++) {
            int runs_changed = 0, changed = 0, inconclusive = 0;
            for (int k = 1; k <= fp; k++) {
                lat_bench_comparison *c = NULL;
                /* Like --compare auto over successive runs: the runs before k
                 * (up to 10) are the history, the newest the baseline. */
                int first = k > 10 ? k - 10 : 0;
                if (lat_bench_compare_history((const lat_bench_report *const *)&reps[first],
                                              (size_t)(k - first), reps[k], &opts[m], &c) != 0)
                    continue;
                if (verbose && m == 1) {
                    lat_bench_comparison_print(c, stdout);
                    for (int b = 0; b < NB; b++)
                        printf("  cpu share %s: %.3f -> %.3f\n", names[b],
                               reps[0]->results[b].cpu_share, reps[k]->results[b].cpu_share);
                }
                changed += (int)(c->improved + c->regressed);
                inconclusive += (int)c->inconclusive;
                runs_changed += c->improved + c->regressed > 0;
                lat_bench_comparison_destroy(c);
            }
            if (tsv)
                printf("latlab_fp\t%s\t%d\t%d\t%d\t%d\t%.3f\n", rule[m], fp, runs_changed, changed,
                       inconclusive, share);
            else
                printf("no-change reruns called changed, rule %-18s %2d of %d runs (%d of %d "
                       "results changed, %d inconclusive)\n",
                       rule[m], runs_changed, fp, changed, fp * NB, inconclusive);
        }
        if (!tsv) printf("the measuring thread had a CPU %.0f%% of the wall time\n", share * 100);
    }
    for (int k = 0; k < runs; k++)
        lat_bench_report_destroy(reps[k]);
    free(reps);
    fig_hist_free(hist);
    return 0;
}
