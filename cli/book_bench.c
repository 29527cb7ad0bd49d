/* book_bench.c - `latlab book bench SCENARIO|all`: the order-book HDR
 * scenarios (book/scenario.h), their tables, workload health, histograms
 * (.hlog + .hgrm per scenario), BENCH.md and report.html.
 *
 * Allocation counting: the latlab binary links the counting allocator
 * (latlab/alloccount.h), which counts calls made by the benchmark thread while
 * the measured window is open, so the report states the number instead of
 * assuming it.  Under sanitizers (which own the allocator) the count is
 * reported as unavailable. */
#include "cli.h"
#include "cliopts.h"
#include "book_bench.h"
#include "promcli.h"

#include "latlab/pipeline_report.h"
#include "latlab/json.h"
#include "latlab/alloccount.h"

#include "book.h"
#include "scenario.h"
#include "latlab/atomicfile.h"
#include "latlab/budget.h"
#include "latlab/clock.h"
#include "latlab/error.h"
#include "latlab/hist.h"
#include "latlab/hlog.h"
#include "latlab/report.h"
#include "latlab/topo.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t window_allocs; /* allocation calls in the last measured window */

static void window_cb(int begin, void *ud) {
    (void)ud;
    if (begin)
        lat_alloccount_begin();
    else
        window_allocs = lat_alloccount_end();
}

/* ---- usage --------------------------------------------------------------------------------- */

static const char *CMD = "book";

typedef struct run {
    book_bench_result r;
    uint64_t allocs;
    int open_loop;
} run;

static double pct(uint64_t a, uint64_t b) {
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

static int64_t q(const lat_hist *h, double p) {
    return lat_hist_value_at_percentile(h, p);
}

/* The total's p50, p99, p99.9, p99.99 with their 95% intervals. */
static const double tail_ps[] = {50, 99, 99.9, 99.99};
static const char *const tail_names[] = {"p50", "p99", "p99.9", "p99.99"};
static void tail_cis(const lat_hist *h, lat_hist_ci ci[4]) {
    lat_hist_cis_at_percentiles(h, tail_ps, LAT_HIST_CI_DEFAULT, ci, 4);
}

static void health_line(char *buf, size_t n, const book_bench_result *r) {
    const book_bench_health *h = &r->health;
    snprintf(buf, n,
             "crossing submits %.1f%% (%" PRIu64 "/%" PRIu64 "), cancel misses %.1f%% (%" PRIu64
             "/%" PRIu64 "), empty-book ops %.2f%%, mean resting depth %.1f",
             pct(h->crossing_submits, h->submits), h->crossing_submits, h->submits,
             pct(h->cancel_misses, h->cancels), h->cancel_misses, h->cancels,
             pct(h->empty_book_ops, h->ops), h->mean_depth);
}

static void fmt_ns(char *buf, size_t n, int64_t v) {
    if (v < 10000)
        snprintf(buf, n, "%" PRId64 " ns", v);
    else if (v < 10000000)
        snprintf(buf, n, "%.1f us", (double)v / 1e3);
    else
        snprintf(buf, n, "%.1f ms", (double)v / 1e6);
}

/* "Where the tail comes from": only measured facts; or the not-identified
 * sentence when they point nowhere. */
/* A paragraph built by appending (cut at the buffer's end). */
typedef struct text_buf {
    char *buf;
    size_t n, k;
} text_buf;

static void say(text_buf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(text_buf *sb, const char *fmt, ...) {
    if (sb->k >= sb->n) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(sb->buf + sb->k, sb->n - sb->k, fmt, ap);
    va_end(ap);
    if (w > 0) sb->k += (size_t)w;
}

/* Which kind of op is over-represented among the slowest samples; more
 * events per op in the tail.  Returns whether either explains it. */
static int tail_kinds(text_buf *sb, const book_bench_result *r, const char *t) {
    int identified = 0, best = -1;
    double best_ratio = 0;
    for (int i = 0; i < BOOK_OPK_COUNT; i++) {
        if (!r->ops_by_kind[i] || !r->tail_samples) continue;
        double share_tail = (double)r->tail_by_kind[i] / (double)r->tail_samples;
        double share_all = (double)r->ops_by_kind[i] / (double)r->health.ops;
        double ratio = share_tail / share_all;
        if (share_tail >= 0.5 && ratio >= 1.5 && ratio > best_ratio) best = i, best_ratio = ratio;
    }
    say(sb, "%" PRIu64 " samples lie at or above p99.9 (%s). ", r->tail_samples, t);
    if (best >= 0) {
        say(sb,
            "%.0f%% of them were %s ops, which are %.0f%% of all ops (%.1fx over-represented). ",
            pct(r->tail_by_kind[best], r->tail_samples), book_opk_name((book_opk)best),
            pct(r->ops_by_kind[best], r->health.ops), best_ratio);
        identified = 1;
    }
    if (r->mean_events > 0 && r->tail_mean_events >= 1.5 * r->mean_events) {
        say(sb,
            "They emitted %.1f events per op against %.1f on average: the "
            "slow ops are the ones doing more work (fills, level updates, "
            "cancellations). ",
            r->tail_mean_events, r->mean_events);
        identified = 1;
    }
    return identified;
}

/* Allocations, faults, switches, stolen time and the thread's CPU share.
 * Returns whether waiting to run explains the tail. */
static int tail_interference(text_buf *sb, const run *rn) {
    const book_bench_result *r = &rn->r;
    int identified = 0;
    if (lat_alloccount_available())
        say(sb,
            "The measured window made %" PRIu64
            " allocation calls (counted), so the allocator %s. ",
            rn->allocs, rn->allocs ? "may contribute" : "is not a contributor");
    say(sb,
        "The thread took %" PRIu64 " minor page fault%s and was switched out %" PRIu64
        " time%s involuntarily (%" PRIu64 " voluntarily) during the window",
        r->minor_faults, r->minor_faults == 1 ? "" : "s", r->invol_switches,
        r->invol_switches == 1 ? "" : "s", r->vol_switches);
    if (r->steal_ms >= 0)
        say(sb,
            ", and the hypervisor stole %.0f ms of CPU time (all CPUs, "
            "/proc/stat) over the %.2f s window",
            r->steal_ms, r->elapsed_s);
    if (r->elapsed_s > 0 && r->cpu_s > 0) {
        double share = r->cpu_s / r->elapsed_s;
        if (share > 1) share = 1;
        say(sb,
            ". The thread had a CPU for %.0f%% of the window's wall time "
            "(%.2f s of CPU in %.2f s; load average %.1f on %d CPUs)",
            100 * share, r->cpu_s, r->elapsed_s, r->loadavg1, r->ncpus);
        if (share < 0.9)
            say(sb, ", so it spent the rest waiting to run and any sample that "
                    "spans such a wait carries it");
        if (share < 0.5 && r->tail_threshold_ns > 20 * q(&r->total, 50)) {
            say(sb,
                "; with the thread off its CPU for most of the window, "
                "waiting to run is the dominant contributor to the samples "
                "above p99.9, which sit %.0fx above the median",
                (double)r->tail_threshold_ns / (double)q(&r->total, 50));
            identified = 1;
        }
    }
    return identified;
}

/* How many samples the switches and faults can explain, and the max. */
static void tail_max(text_buf *sb, const book_bench_result *r, const char *mx) {
    uint64_t interruptions =
        r->minor_faults + r->major_faults + r->invol_switches + r->vol_switches;
    if (r->open_loop)
        ; /* in an open loop one stall delays every op queued behind it: no per-sample bound */
    else if (interruptions && interruptions < r->tail_samples)
        say(sb,
            ". Those %" PRIu64 " switches and faults can inflate at most %" PRIu64
            " samples (%.3f%%): enough to explain the quantiles above "
            "p%.3f, not the %" PRIu64 " samples at or above p99.9",
            interruptions, interruptions, pct(interruptions, r->health.ops),
            100.0 - pct(interruptions, r->health.ops), r->tail_samples);
    else if (interruptions)
        say(sb,
            ". Those %" PRIu64 " switches and faults outnumber the %" PRIu64
            " samples at or above p99.9",
            interruptions, r->tail_samples);
    say(sb, ". The max (%s) ", mx);
    if ((interruptions || r->steal_ms > 0) && lat_hist_max(&r->total) > 20 * r->tail_threshold_ns)
        say(sb,
            "is %.0fx the p99.9 value: an operation of this kind does not take "
            "that long by itself, so it is consistent with the thread losing "
            "its CPU (a switch or stolen time) mid-operation. ",
            (double)lat_hist_max(&r->total) / (double)r->tail_threshold_ns);
    else
        say(sb, "is %.1fx the p99.9 value. ",
            r->tail_threshold_ns ? (double)lat_hist_max(&r->total) / (double)r->tail_threshold_ns
                                 : 0.0);
}

/* Open loop: late starts and whether the backlog dominates. */
static int tail_open_loop(text_buf *sb, const book_bench_result *r) {
    if (!r->open_loop) return 0;
    double late = pct(r->late_ops, r->health.ops);
    say(sb,
        "Open loop: %" PRIu64 " ops (%.1f%%) started more than 1 us after "
        "their intended time; the driver achieved %.0f ops/s against the "
        "%.0f ops/s asked for%s; every wait is in the samples. ",
        r->late_ops, late, r->elapsed_s > 0 ? (double)r->health.ops / r->elapsed_s : 0.0, r->rate,
        late > 10 ? " (it fell behind: the queue of due operations grew, which "
                    "is what the open-loop percentiles show)"
                  : "");
    if (late <= 10) return 0;
    say(sb,
        "The dominant contributor is queueing: with %.0f%% of the window "
        "on a CPU, operations waited for the ones due before them, so "
        "these percentiles measure the backlog, not the engine. ",
        r->elapsed_s > 0 ? 100.0 * r->cpu_s / r->elapsed_s : 0.0);
    return 1;
}

static void tail_paragraph(char *buf, size_t n, const run *rn) {
    const book_bench_result *r = &rn->r;
    text_buf sb = {buf, n, 0};
    char t[32], mx[32], floor_s[32];
    fmt_ns(t, sizeof t, r->tail_threshold_ns);
    fmt_ns(mx, sizeof mx, lat_hist_max(&r->total));
    fmt_ns(floor_s, sizeof floor_s, r->timer_floor_p50_ns);
    if (n) buf[0] = '\0';
    int identified = tail_kinds(&sb, r, t);
    identified |= tail_interference(&sb, rn);
    tail_max(&sb, r, mx);
    identified |= tail_open_loop(&sb, r);
    say(&sb,
        "Every sample includes the timer's own floor (two "
        "fenced counter reads: p50 %s). ",
        floor_s);
    if (!identified)
        say(&sb, "The dominant contributor is not yet identified; next step: count cache and "
                 "branch misses over the measured window (perf stat -e "
                 "cache-misses,branch-misses; this VM exposes no hardware PMU, so on a "
                 "bare-metal host) and compare the slowest ops' book depth with the median's.");
}

static int write_hist_files(const char *dir, const char *stem, const run *rn, char *err,
                            size_t errlen) {
    char path[4096];
    lat_afile *af;
    int e;
    snprintf(path, sizeof path, "%s/%s.hgrm", dir, stem);
    if ((e = lat_afile_open(path, &af))) goto fail;
    if ((e = lat_hist_write_percentiles(lat_afile_stream(af), &rn->r.total, 5, 1.0, false))) {
        lat_afile_abort(af);
        goto fail;
    }
    if ((e = lat_afile_commit(af))) goto fail;
    snprintf(path, sizeof path, "%s/%s.hlog", dir, stem);
    if ((e = lat_afile_open(path, &af))) goto fail;
    lat_hlog_writer w;
    FILE *f = lat_afile_stream(af);
    e = lat_hlog_writer_init(&w, f, rn->r.start_epoch_s, rn->r.start_epoch_s, 0);
    char comment[256];
    snprintf(comment, sizeof comment, "latlab book bench %s, %s, values in ns",
             book_scn_name(rn->r.scn), rn->open_loop ? "open loop" : "closed loop");
    if (!e) e = lat_hlog_write_comment(&w, comment);
    for (uint32_t i = 0; !e && i < rn->r.nintervals; i++)
        e = lat_hlog_write_interval(&w, &rn->r.interval[i], NULL,
                                    rn->r.start_epoch_s + rn->r.interval_start_s[i],
                                    rn->r.interval_len_s[i]);
    if (e) {
        lat_afile_abort(af);
        goto fail;
    }
    if ((e = lat_afile_commit(af))) goto fail;
    return 0;
fail:
    snprintf(err, errlen, "%s: %s", path, lat_strerror(e));
    return e;
}

static json_t *run_json(const run *rn) {
    const book_bench_result *r = &rn->r;
    char hl[512];
    health_line(hl, sizeof hl, r);
    json_t *kinds = json_object();
    for (int i = 0; i < BOOK_OPK_COUNT; i++)
        if (r->ops_by_kind[i])
            json_object_set_new(
                kinds, book_opk_name((book_opk)i),
                json_pack("{s:I,s:I,s:I,s:I,s:I}", "ops", (json_int_t)r->ops_by_kind[i], "p50",
                          (json_int_t)q(&r->kind[i], 50), "p99.9", (json_int_t)q(&r->kind[i], 99.9),
                          "max", (json_int_t)lat_hist_max(&r->kind[i]), "tail_samples",
                          (json_int_t)r->tail_by_kind[i]));
    json_t *o = json_pack(
        "{s:s,s:s,s:f,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:f,s:{s:f,s:f,s:f,s:f,s:I,s:I},s:s,"
        "s:o,s:I,s:I,s:I,s:I,s:I,s:I,s:f}",
        "scenario", book_scn_name(r->scn), "loop", rn->open_loop ? "open" : "closed",
        "rate_ops_per_s", r->rate, "depth", (json_int_t)r->depth, "samples",
        (json_int_t)lat_hist_total(&r->total), "min_ns", (json_int_t)lat_hist_min(&r->total),
        "p50_ns", (json_int_t)q(&r->total, 50), "p99_ns", (json_int_t)q(&r->total, 99), "p99.9_ns",
        (json_int_t)q(&r->total, 99.9), "p99.99_ns", (json_int_t)q(&r->total, 99.99), "max_ns",
        (json_int_t)lat_hist_max(&r->total), "mean_ns", lat_hist_mean(&r->total), "health",
        "crossing_submits_pct", pct(r->health.crossing_submits, r->health.submits),
        "cancel_misses_pct", pct(r->health.cancel_misses, r->health.cancels), "empty_book_ops_pct",
        pct(r->health.empty_book_ops, r->health.ops), "mean_resting_depth", r->health.mean_depth,
        "trades", (json_int_t)r->health.trades, "events", (json_int_t)r->health.events,
        "health_line", hl, "by_kind", kinds, "allocations",
        lat_alloccount_available() ? (json_int_t)rn->allocs : (json_int_t)-1, "minor_faults",
        (json_int_t)r->minor_faults, "involuntary_switches", (json_int_t)r->invol_switches,
        "voluntary_switches", (json_int_t)r->vol_switches, "late_ops", (json_int_t)r->late_ops,
        "timer_floor_p50_ns", (json_int_t)r->timer_floor_p50_ns, "elapsed_s", r->elapsed_s);
    lat_hist_ci ci[4];
    tail_cis(&r->total, ci);
    for (int k = 0; k < 4; k++)
        lat_json_set_ci(o, tail_names[k], "_ns", &ci[k]);
    return o;
}

static void md_table(FILE *f, const run *runs, size_t n, int open_loop) {
    fprintf(f, "| scenario | samples | p50 | p99 | p99.9 | p99.99 | max | allocations |\n"
               "|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < n; i++) {
        const book_bench_result *r = &runs[i].r;
        if (runs[i].open_loop != open_loop) continue;
        char a[32];
        if (lat_alloccount_available())
            snprintf(a, sizeof a, "%" PRIu64, runs[i].allocs);
        else
            snprintf(a, sizeof a, "n/a (sanitizer build)");
        fprintf(f,
                "| %s | %" PRId64 " | %" PRId64 " ns | %" PRId64 " ns | %" PRId64 " ns | %" PRId64
                " ns | %" PRId64 " ns | %s |\n",
                book_scn_name(r->scn), lat_hist_total(&r->total), q(&r->total, 50),
                q(&r->total, 99), q(&r->total, 99.9), q(&r->total, 99.99), lat_hist_max(&r->total),
                a);
    }
}

static int write_bench_md(const char *dir, const run *runs, size_t n, const lat_runcond *rc,
                          const book_bench_cfg *cfg, const lat_budget *bud, int cpu,
                          const char *cmdline, char *err, size_t errlen) {
    char path[4096];
    snprintf(path, sizeof path, "%s/BENCH.md", dir);
    lat_afile *af;
    int e = lat_afile_open(path, &af);
    if (e) {
        snprintf(err, errlen, "%s: %s", path, lat_strerror(e));
        return e;
    }
    FILE *f = lat_afile_stream(af);
    int any_open = 0, any_closed = 0;
    for (size_t i = 0; i < n; i++)
        *(runs[i].open_loop ? &any_open : &any_closed) = 1;
    fprintf(f, "# Order-book tail latency (latlab book bench)\n\n");
    fprintf(f, "Generated by `latlab book bench`; every figure below was measured in this run. "
               "Values are per operation, in ns, from HdrHistogram (1 ns .. 1 s, 3 significant "
               "digits), timed with the calibrated cycle counter (fenced reads before and after "
               "each operation).\n\n");
    fprintf(f, "Command: `%s`\n\n", cmdline);
    fprintf(f, "## Run conditions\n\n");
    fprintf(f, "| parameter | value |\n|---|---|\n");
    fprintf(f, "| warm-up ops | %" PRIu64 " |\n| measured ops | %" PRIu64 " |\n", cfg->warmup,
            cfg->measured);
    fprintf(f, "| seed | 0x%" PRIX64 " (xorshift64) |\n", cfg->seed);
    if (cpu >= 0)
        fprintf(f, "| pinning | benchmark thread pinned to CPU %d |\n", cpu);
    else
        fprintf(f, "| pinning | not pinned (use --cpu N) |\n");
    fprintf(f, "| LTO | %s |\n", strstr(rc->compiler_flags, "-flto") ? "yes" : "no");
    fprintf(f,
            "| allocator | glibc malloc, used at setup only; calls in the measured window "
            "are counted by interposition%s |\n",
            lat_alloccount_available() ? "" : " (unavailable in this sanitizer build)");
    fprintf(f, "| clock | %.4f cycles/ns (calibrated) |\n", lat_clock_default()->cycles_per_ns);
    char bline[512];
    lat_budget_format(bud, bline, sizeof bline);
    fprintf(f, "| error budget | %s |\n\n", bline + strlen("error budget: "));
    lat_runcond_write_markdown(rc, f);
    fprintf(f, "\n");
    if (any_closed) {
        fprintf(f, "## Closed loop (pure service time)\n\n"
                   "The next operation starts only when the previous one and the generator's "
                   "untimed bookkeeping are done, so these figures are service time: a lower "
                   "bound and a regression signal, not latency under load (coordinated omission "
                   "is not corrected; see the open-loop table for that).\n\n");
        md_table(f, runs, n, 0);
        fprintf(f, "\n");
    }
    if (any_open) {
        fprintf(f, "## Open loop (latency from the intended arrival time)\n\n"
                   "Operation i is due at start + i / rate; each sample runs from that intended "
                   "time to completion, so a stall counts against every operation queued behind "
                   "it (coordinated omission handled by construction). Not comparable row by row "
                   "with the closed-loop table.\n\n");
        md_table(f, runs, n, 1);
        fprintf(f, "\n");
    }
    for (size_t i = 0; i < n; i++) {
        const run *rn = &runs[i];
        const book_bench_result *r = &rn->r;
        char hl[512], tp[4096];
        health_line(hl, sizeof hl, r);
        tail_paragraph(tp, sizeof tp, rn);
        fprintf(f, "## %s (%s)\n\n", book_scn_name(r->scn),
                rn->open_loop ? "open loop" : "closed loop");
        if (r->depth)
            fprintf(f, "Workload: %s. Depth target %u resting orders. Seed 0x%" PRIX64 ".\n",
                    book_scn_describe(r->scn), r->depth, cfg->seed);
        else
            fprintf(f, "Workload: %s. The book grows with every op. Seed 0x%" PRIX64 ".\n",
                    book_scn_describe(r->scn), cfg->seed);
        if (rn->open_loop)
            fprintf(f, "Loop: open loop at %.0f ops/s; latency from the intended arrival time.\n",
                    r->rate);
        else
            fprintf(f, "Loop: closed loop; the figures are pure service time.\n");
        fprintf(f, "Samples: %" PRId64 " after %" PRIu64 " warm-up ops.\n\n",
                lat_hist_total(&r->total), cfg->warmup);
        fprintf(f, "Workload health: %s.\n\n", hl);
        fprintf(f, "| quantile | latency | 95%% interval |\n|---|---:|---|\n");
        fprintf(f, "| min | %" PRId64 " ns | |\n", lat_hist_min(&r->total));
        lat_hist_ci ci[4];
        tail_cis(&r->total, ci);
        for (int k = 0; k < 4; k++) {
            char b[160];
            lat_hist_ci_format(&ci[k], 1, 0, b, sizeof b);
            fprintf(f, "| %s | %" PRId64 " ns | %s ns |\n", tail_names[k], ci[k].value, b);
        }
        fprintf(f, "| max | %" PRId64 " ns | |\n\n", lat_hist_max(&r->total));
        int kinds = 0;
        for (int k = 0; k < BOOK_OPK_COUNT; k++)
            kinds += r->ops_by_kind[k] != 0;
        if (kinds > 1) {
            fprintf(f, "| operation kind | ops | p50 | p99.9 | max |\n|---|---:|---:|---:|---:|\n");
            for (int k = 0; k < BOOK_OPK_COUNT; k++)
                if (r->ops_by_kind[k])
                    fprintf(f,
                            "| %s | %" PRIu64 " | %" PRId64 " ns | %" PRId64 " ns | %" PRId64
                            " ns |\n",
                            book_opk_name((book_opk)k), r->ops_by_kind[k], q(&r->kind[k], 50),
                            q(&r->kind[k], 99.9), lat_hist_max(&r->kind[k]));
            fprintf(f, "\n");
        }
        fprintf(f, "**Where the tail comes from.** %s\n\n", tp);
    }
    e = lat_afile_commit(af);
    if (e) snprintf(err, errlen, "%s: %s", path, lat_strerror(e));
    return e;
}

static int write_report_html(const char *dir, const run *runs, size_t n, const lat_runcond *rc,
                             const book_bench_cfg *cfg, char *err, size_t errlen) {
    char path[4096];
    snprintf(path, sizeof path, "%s/report.html", dir);
    lat_report *rep = NULL;
    lat_plot *pc = NULL, *po = NULL;
    int e = lat_report_create("latlab book bench: order-book tail latency", &rep);
    if (e) goto out;
    lat_report_section(rep, "Run conditions");
    char v[256];
    snprintf(v, sizeof v, "%" PRIu64 " warm-up, %" PRIu64 " measured, seed 0x%" PRIX64, cfg->warmup,
             cfg->measured, cfg->seed);
    lat_report_kv(rep, "ops", v);
    lat_report_kv(rep, "cpu model", rc->cpu_model);
    lat_report_kv(rep, "cpus online", rc->cpus_online);
    lat_report_kv(rep, "governor", rc->governor);
    lat_report_kv(rep, "smt", rc->smt_active);
    lat_report_kv(rep, "isolated", rc->isolated);
    lat_report_kv(rep, "nohz_full", rc->cmdline_nohz_full);
    lat_report_kv(rep, "rcu_nocbs", rc->cmdline_rcu_nocbs);
    lat_report_kv(rep, "compiler", rc->compiler);
    lat_report_kv(rep, "flags", rc->compiler_flags);
    lat_report_kv(rep, "virtualised", rc->virt);
    for (int loop = 0; loop < 2; loop++) {
        int have = 0;
        for (size_t i = 0; i < n; i++)
            have |= runs[i].open_loop == loop;
        if (!have) continue;
        lat_report_section(rep, loop ? "Open loop (latency from intended arrival)"
                                     : "Closed loop (pure service time)");
        static const char *const hdr[] = {"scenario", "samples",   "p50 ns", "p99 ns",
                                          "p99.9 ns", "p99.99 ns", "max ns", "health"};
        lat_report_table_begin(rep, NULL, 8, hdr);
        lat_plot **pp = loop ? &po : &pc;
        if ((e = lat_plot_create(loop ? "open loop" : "closed loop", pp))) goto out;
        lat_plot_set_log_y(*pp, true);
        lat_plot_set_note(*pp, loop ? "latency from the intended arrival time"
                                    : "pure service time (closed loop)");
        for (size_t i = 0; i < n; i++) {
            if (runs[i].open_loop != loop) continue;
            const book_bench_result *r = &runs[i].r;
            char c[7][32], hl[512];
            snprintf(c[0], 32, "%" PRId64, lat_hist_total(&r->total));
            snprintf(c[1], 32, "%" PRId64, q(&r->total, 50));
            snprintf(c[2], 32, "%" PRId64, q(&r->total, 99));
            snprintf(c[3], 32, "%" PRId64, q(&r->total, 99.9));
            snprintf(c[4], 32, "%" PRId64, q(&r->total, 99.99));
            snprintf(c[5], 32, "%" PRId64, lat_hist_max(&r->total));
            health_line(hl, sizeof hl, r);
            const char *cells[] = {book_scn_name(r->scn), c[0], c[1], c[2], c[3], c[4], c[5], hl};
            lat_report_table_row(rep, cells);
            if (lat_plot_series_count(*pp) < LAT_PLOT_MAX_SERIES)
                lat_plot_add_hist(*pp, book_scn_name(r->scn), &r->total, 1.0, 0);
        }
        lat_report_plot(rep, *pp);
    }
    lat_report_section(rep, "Where the tail comes from");
    for (size_t i = 0; i < n; i++) {
        char tp[4096], line[4300];
        tail_paragraph(tp, sizeof tp, &runs[i]);
        snprintf(line, sizeof line, "%s (%s): %s", book_scn_name(runs[i].r.scn),
                 runs[i].open_loop ? "open loop" : "closed loop", tp);
        lat_report_text(rep, line);
    }
    e = lat_report_write(rep, path);
out:
    if (e) snprintf(err, errlen, "%s: %s", path, lat_strerror(e));
    lat_plot_destroy(pc);
    lat_plot_destroy(po);
    lat_report_destroy(rep);
    return e;
}

static int parse_seed(const char *s, uint64_t *out) {
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ') return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10); /* decimal: "010" is ten, not eight */
    if (*end || errno) return -1;
    *out = v;
    return 0;
}

static int opt_seed(const char *cmd, const char *flag, const char *v, void *dest) {
    if (parse_seed(v, dest) || *(uint64_t *)dest == 0)
        return cli_usage_error(cmd, "%s: '%s' is not a non-zero integer", flag, v);
    return 0;
}

/* What the options say (the table's destinations). */
typedef struct bb_opts {
    book_bench_cfg cfg;
    uint64_t depth, intervals;
    double open_rate, also_rate;
    int cpu;
    bool quick, warmup_set, measured_set;
    const char *out, *json, *which;
    cli_prom prom; /* --push: the scenarios' histograms as stage=<scenario> */
} bb_opts;

static bb_opts bo;

static const cli_opt bb_table[] = {
    CLI_SEEN_OPT("warmup", CLI_U64, &bo.cfg.warmup, "N",
                 "ops run before the measured window (default 200000)", 0, 1000000000, NULL,
                 &bo.warmup_set),
    CLI_SEEN_OPT("measured", CLI_U64, &bo.cfg.measured, "N", "recorded ops (default 1000000)", 1,
                 200000000, NULL, &bo.measured_set),
    CLI_CUSTOM_OPT("seed", opt_seed, &bo.cfg.seed, "N",
                   "xorshift seed (default 0xA5A5A5A5 = 2779096485; decimal)"),
    CLI_NUM_OPT("depth", CLI_U64, &bo.depth, "N",
                "resting orders the scenario holds (default per scenario)", 2, 10000000),
    CLI_NUM_OPT("open-loop", CLI_DOUBLE, &bo.open_rate, "RATE",
                "ops/s: each op is due at start + i/RATE and its latency runs\n"
                "from that intended time (coordinated omission handled by\n"
                "construction); default closed loop = pure service time",
                1, 1e9),
    CLI_NUM_OPT("also-open-loop", CLI_DOUBLE, &bo.also_rate, "RATE",
                "after the closed-loop runs, run mixed_70_20_10 open loop\n"
                "at RATE too (reported in its own table)",
                1, 1e9),
    CLI_FLAG_OPT("quick", &bo.quick, "2000 warm-up and 20000 measured ops (tests)"),
    CLI_NUM_OPT("cpu", CLI_INT, &bo.cpu, "N", "pin the benchmark thread to CPU N", 0, 4095),
    CLI_STR_OPT("out", CLI_STRING, &bo.out, "DIR",
                "output folder (default book-bench): <scenario>.hlog/.hgrm,\n"
                "BENCH.md, report.html, bench.json"),
    CLI_NUM_OPT("intervals", CLI_U64, &bo.intervals, "N",
                "interval histograms per scenario in the .hlog (default 10)", 1, 1000),
    CLI_STR_OPT("json", CLI_STRING, &bo.json, "FILE", "also write the results as JSON to FILE"),
    CLI_PROM_PUSH_ROWS(bo.prom),
    CLI_END,
};

const cli_spec book_bench_spec = {
    .name = "book",
    .synopsis =
        "latlab book bench SCENARIO|all [--warmup N] [--measured N] [--seed N] [--depth N]\n"
        "                         [--open-loop RATE] [--also-open-loop RATE] [--quick]\n"
        "                         [--cpu N] [--out DIR] [--intervals N] [--json FILE]",
    .about = "The HDR tail-latency scenarios on latlab's order book, closed loop (service\n"
             "time) or open loop (latency from the intended arrival time); writes per\n"
             "scenario .hlog/.hgrm and BENCH.md, report.html, bench.json in --out.\n"
             "scenarios: add_only cancel_only aggressive_walk mixed_70_20_10 thin_book_sweep\n"
             "           mass_cancel_burst snapshot_capture (or all)\n",
    .opts = bb_table,
    .max_args = -1,
};

/* Options and the scenario, checked before any work: 0, -1 after --help, or
 * the exit status.  sel[]: the scenarios chosen, *nsel how many. */
static int bb_parse(int argc, char **argv, int sel[BOOK_SCN_COUNT], int *nsel) {
    memset(&bo, 0, sizeof bo);
    bo.cfg = (book_bench_cfg){.seed = 0xA5A5A5A5ull,
                              .warmup = 200000,
                              .measured = 1000000,
                              .intervals = 10,
                              .window = window_cb};
    bo.cpu = -1, bo.out = "book-bench", bo.intervals = 10;
    cli_prom_init(&bo.prom);
    bo.prom.metric = "latlab_book_latency_seconds";
    int rc = cli_parse_one(&book_bench_spec, argc, argv,
                           "bench needs one SCENARIO (or all); see 'latlab book bench --help'",
                           &bo.which);
    if (rc) return rc;
    bo.cfg.depth = (uint32_t)bo.depth;
    bo.cfg.intervals = (uint32_t)bo.intervals;
    if (bo.quick) {
        if (!bo.warmup_set) bo.cfg.warmup = 2000;
        if (!bo.measured_set) bo.cfg.measured = 20000;
    }
    if (cli_prom_check(&bo.prom, CMD)) return CLI_USAGE;
    if (!strcmp(bo.which, "all")) {
        for (int i = 0; i < BOOK_SCN_COUNT; i++)
            sel[i] = 1;
        *nsel = BOOK_SCN_COUNT;
        return 0;
    }
    int s = book_scn_from_name(bo.which);
    if (s < 0 && !bo.prom.push_delete)
        return cli_usage_error(CMD,
                               "unknown scenario '%s' (add_only, cancel_only, "
                               "aggressive_walk, mixed_70_20_10, thin_book_sweep, "
                               "mass_cancel_burst, snapshot_capture or all)",
                               bo.which);
    if (s >= 0) sel[s] = 1, *nsel = 1;
    return 0;
}

/* The scenario of pass `pass` and its config (the --also-open-loop pass last). */
static int pass_scenario(size_t pass, const int sel[BOOK_SCN_COUNT], int nsel,
                         book_bench_cfg *rcfg) {
    int s = -1;
    *rcfg = bo.cfg;
    if (pass < (size_t)nsel) {
        int seen = -1;
        for (int i = 0; i < BOOK_SCN_COUNT; i++)
            if (sel[i] && ++seen == (int)pass) s = i;
        rcfg->open_loop_rate = bo.open_rate;
    } else {
        s = BOOK_SCN_MIXED;
        rcfg->open_loop_rate = bo.also_rate;
    }
    if (s != BOOK_SCN_MIXED && s != BOOK_SCN_CANCEL_ONLY && s != BOOK_SCN_SNAPSHOT_CAPTURE &&
        s != BOOK_SCN_ADD_ONLY && bo.cfg.depth == 0)
        rcfg->depth = 0; /* scenario default */
    return s;
}

/* One run's line, intervals, health and CPU share on stdout. */
static void print_run(const run *rn) {
    const book_bench_result *r = &rn->r;
    char a[24];
    if (lat_alloccount_available())
        snprintf(a, sizeof a, "%" PRIu64, rn->allocs);
    else
        snprintf(a, sizeof a, "n/a");
    printf("%-18s %-6s %9" PRId64 " %8" PRId64 " %8" PRId64 " %8" PRId64 " %8" PRId64 " %10" PRId64
           " %7s\n",
           book_scn_name(r->scn), rn->open_loop ? "open" : "closed", lat_hist_total(&r->total),
           q(&r->total, 50), q(&r->total, 99), q(&r->total, 99.9), q(&r->total, 99.99),
           lat_hist_max(&r->total), a);
    lat_hist_ci ci[4];
    tail_cis(&r->total, ci);
    lat_pipe_print_cis(stdout, tail_ps, ci, 4);
    char hl[512];
    health_line(hl, sizeof hl, r);
    printf("  health: %s\n", hl);
    if (rn->open_loop)
        printf("  open loop at %.0f ops/s (achieved %.0f): %" PRIu64 " ops started > 1 us late\n",
               r->rate, r->elapsed_s > 0 ? (double)r->health.ops / r->elapsed_s : 0.0, r->late_ops);
    printf("  thread had a CPU for %.0f%% of the window (load average %.1f on %d CPUs)\n",
           r->elapsed_s > 0 ? 100 * (r->cpu_s / r->elapsed_s > 1 ? 1 : r->cpu_s / r->elapsed_s)
                            : 0.0,
           r->loadavg1, r->ncpus);
    fflush(stdout);
}

/* Every pass: run, print, write its histograms.  *done: the runs that
 * finished.  CLI_OK or the exit status after a message. */
static int run_passes(run *runs, size_t nruns, const int sel[BOOK_SCN_COUNT], int nsel,
                      size_t *done) {
    char errbuf[4400];
    printf("%-18s %-6s %9s %8s %8s %8s %8s %10s %7s\n", "scenario", "loop", "samples", "p50", "p99",
           "p99.9", "p99.99", "max", "allocs");
    for (size_t pass = 0; pass < nruns; pass++) {
        book_bench_cfg rcfg;
        int s = pass_scenario(pass, sel, nsel, &rcfg);
        cli_progress("running %s...", book_scn_name((book_scn)s));
        run *rn = &runs[*done];
        int e = book_bench_run((book_scn)s, &rcfg, &rn->r);
        cli_progress_done();
        if (e) return cli_lib_error(CMD, book_scn_name((book_scn)s), e);
        rn->allocs = window_allocs;
        rn->open_loop = rcfg.open_loop_rate > 0;
        (*done)++;
        print_run(rn);
        char stem[64];
        snprintf(stem, sizeof stem, "%s%s", book_scn_name(rn->r.scn), rn->open_loop ? ".open" : "");
        if (write_hist_files(bo.out, stem, rn, errbuf, sizeof errbuf))
            return cli_error(CMD, "%s", errbuf);
    }
    return CLI_OK;
}

/* bench.json in --out, and --json. */
static int write_results_json(const run *runs, size_t done, const lat_runcond *cond,
                              const lat_budget *bud) {
    json_t *arr = json_array();
    for (size_t i = 0; i < done; i++)
        json_array_append_new(arr, run_json(&runs[i]));
    json_t *o = json_pack("{s:I,s:I,s:I,s:b,s:o,s:o}", "warmup", (json_int_t)bo.cfg.warmup,
                          "measured", (json_int_t)bo.cfg.measured, "seed", (json_int_t)bo.cfg.seed,
                          "allocation_counting", lat_alloccount_available(), "conditions",
                          lat_runcond_json(cond), "runs", arr);
    if (o) json_object_set_new(o, "error_budget", lat_budget_json(bud));
    if (o) json_object_set_new(o, "percentile_confidence", json_real(LAT_HIST_CI_DEFAULT));
    char path[4096];
    snprintf(path, sizeof path, "%s/bench.json", bo.out);
    int rc = CLI_OK, e;
    if (!o || (e = lat_write_json_atomic(path, o))) rc = cli_lib_error(CMD, path, o ? e : -ENOMEM);
    if (bo.json && o && (e = lat_write_json_atomic(bo.json, o)))
        rc = cli_lib_error(CMD, bo.json, e);
    json_decref(o);
    return rc;
}

/* BENCH.md, report.html and the JSON for the runs that finished. */
static int write_results(const run *runs, size_t done, int argc, char **argv) {
    char errbuf[4400];
    int rc = CLI_OK;
    printf("values in ns; closed loop = pure service time; open loop = latency from the "
           "intended arrival time\n");
    lat_budget bud;
    lat_budget_measure(&bud, bo.cfg.cal, (double)runs[0].r.timer_floor_p50_ns, 2,
                       runs[0].r.total.sig_figs);
    lat_pipe_print_budget(stdout, &bud);
    lat_runcond cond;
    lat_runcond_collect(&cond, NULL);
    char cmdline[1024] = "latlab book";
    for (int i = 0; i < argc; i++) {
        size_t l = strlen(cmdline);
        snprintf(cmdline + l, sizeof cmdline - l, " %s", argv[i]);
    }
    if (write_bench_md(bo.out, runs, done, &cond, &bo.cfg, &bud, bo.cpu, cmdline, errbuf,
                       sizeof errbuf))
        rc = cli_error(CMD, "%s", errbuf);
    if (write_report_html(bo.out, runs, done, &cond, &bo.cfg, errbuf, sizeof errbuf))
        rc = cli_error(CMD, "%s", errbuf);
    if (write_results_json(runs, done, &cond, &bud)) rc = CLI_ERR;
    printf("wrote %s/BENCH.md, %s/report.html, %s/bench.json and .hlog/.hgrm per scenario\n",
           bo.out, bo.out, bo.out);
    return rc;
}

/* After the local results: an unreachable gateway exits 1. */
static int push_runs(const run *runs, size_t done) {
    const char *names[LAT_PROM_MAX_SERIES];
    const lat_hist *hs[LAT_PROM_MAX_SERIES];
    char stems[LAT_PROM_MAX_SERIES][64];
    size_t n = done < LAT_PROM_MAX_SERIES ? done : LAT_PROM_MAX_SERIES;
    for (size_t i = 0; i < n; i++) {
        snprintf(stems[i], sizeof stems[i], "%s%s", book_scn_name(runs[i].r.scn),
                 runs[i].open_loop ? ".open" : "");
        names[i] = stems[i];
        hs[i] = &runs[i].r.total;
    }
    return cli_prom_push(&bo.prom, CMD, (int)n, names, hs) ? CLI_ERR : CLI_OK;
}

int book_bench_main(int argc, char **argv) {
    int sel[BOOK_SCN_COUNT] = {0}, nsel = 0;
    int rc = bb_parse(argc, argv, sel, &nsel);
    if (rc) return rc < 0 ? CLI_OK : rc;
    if (bo.prom.push_delete) { /* the group is job/run/host: no run needed */
        static const char *const any[1] = {"all"};
        return cli_prom_push(&bo.prom, CMD, 1, any, NULL);
    }
    if (bo.cpu >= 0) {
        int e = lat_pin_thread(bo.cpu);
        if (e) return cli_lib_error(CMD, "--cpu", e);
    }
    int e = lat_mkdir_p(bo.out);
    if (e) return cli_lib_error(CMD, bo.out, e);
    bo.cfg.cal = lat_clock_default();
    size_t nruns = (size_t)nsel + (bo.also_rate > 0 ? 1 : 0), done = 0;
    run *runs = calloc(nruns, sizeof(run));
    if (!runs) return cli_error(CMD, "out of memory");
    rc = run_passes(runs, nruns, sel, nsel, &done);
    if (done && write_results(runs, done, argc, argv)) rc = CLI_ERR;
    if (bo.prom.push_url && done && push_runs(runs, done)) rc = CLI_ERR;
    for (size_t i = 0; i < done; i++)
        book_bench_result_fini(&runs[i].r);
    free(runs);
    return rc;
}
