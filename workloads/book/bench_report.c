/* bench_report.c - the order-book bench's documents (bench_report.h): the
 * prose of the tail diagnosis (bench_diag.h), the run's JSON, the
 * histogram files, BENCH.md and report.html. */
#include "bench_report.h"

#include "latlab/atomicfile.h"
#include "latlab/clock.h"
#include "latlab/error.h"
#include "latlab/hlog.h"
#include "latlab/json.h"
#include "latlab/perf.h"
#include "latlab/pipeline_report.h"
#include "latlab/report.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static double pct(uint64_t a, uint64_t b) {
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

static int64_t q(const lat_hist *h, double p) {
    return lat_hist_value_at_percentile(h, p);
}

/* The total's p50, p99, p99.9, p99.99 with their 95% intervals. */
const double book_bench_tail_ps[4] = {50, 99, 99.9, 99.99};
const char *const book_bench_tail_names[4] = {"p50", "p99", "p99.9", "p99.99"};
void book_bench_tail_cis(const lat_hist *h, lat_hist_ci ci[4]) {
    lat_hist_cis_at_percentiles(h, book_bench_tail_ps, LAT_HIST_CI_DEFAULT, ci, 4);
}

void book_bench_health_line(char *buf, size_t n, const book_bench_result *r) {
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

/* KIND and MORE_WORK. */
static void tail_kinds(text_buf *sb, const book_bench_result *r, const book_diag *d,
                       const char *t) {
    say(sb, "%" PRIu64 " samples lie at or above p99.9 (%s). ", r->tail_samples, t);
    if (d->kind >= 0)
        say(sb, "%.0f%% of them were %s ops, %.0f%% of all ops (%.1fx over-represented). ",
            pct(r->tail_by_kind[d->kind], r->tail_samples), book_opk_name((book_opk)d->kind),
            pct(r->ops_by_kind[d->kind], r->health.ops), d->kind_ratio);
    if (d->more_work)
        say(sb, "They emitted %.1f events per op against %.1f on average: more work. ",
            r->tail_mean_events, r->mean_events);
}

/* Allocations, faults, switches, stolen time; WAITED and OFF_CPU. */
static void tail_interference(text_buf *sb, const book_bench_outcome *rn, const book_diag *d) {
    const book_bench_result *r = &rn->r;
    if (rn->counted)
        say(sb, "The window made %" PRIu64 " allocation calls (counted). ", rn->allocs);
    say(sb,
        "Minor page faults %" PRIu64 ", involuntary switches %" PRIu64 " (voluntary %" PRIu64 ")",
        r->minor_faults, r->invol_switches, r->vol_switches);
    if (r->steal_ms >= 0) say(sb, ", steal %.0f ms in %.2f s", r->steal_ms, r->elapsed_s);
    if (!d->cpu_known) return;
    say(sb, ". On a CPU for %.0f%% of the wall time (%.2f s of %.2f s; load %.1f on %d CPUs)",
        100 * d->cpu_share, r->cpu_s, r->elapsed_s, r->loadavg1, r->ncpus);
    if (d->waited) say(sb, ": it waited to run the rest");
    if (d->off_cpu)
        say(sb,
            "; off its CPU for most of the window, waiting to run is the dominant contributor "
            "to the samples above p99.9, %.0fx the median",
            d->tail_over_p50);
}

/* How many samples the switches and faults can explain; STALL. */
static void tail_max(text_buf *sb, const book_bench_result *r, const book_diag *d, const char *mx) {
    uint64_t interruptions = d->interruptions;
    if (r->open_loop)
        ; /* in an open loop one stall delays every op queued behind it: no per-sample bound */
    else if (interruptions && interruptions < r->tail_samples)
        say(sb,
            ". Switches and faults explain at most %" PRIu64 " samples (%.3f%%): above p%.3f, "
            "not the %" PRIu64 " at or above p99.9",
            interruptions, pct(interruptions, r->health.ops),
            100.0 - pct(interruptions, r->health.ops), r->tail_samples);
    else if (interruptions)
        say(sb, ". The %" PRIu64 " switches and faults outnumber the %" PRIu64 " tail samples",
            interruptions, r->tail_samples);
    say(sb, ". Max %s, ", mx);
    if (d->stall)
        say(sb, "%.0fx the p99.9: a CPU lost mid-operation. ",
            (double)lat_hist_max(&r->total) / (double)r->tail_threshold_ns);
    else
        say(sb, "%.1fx the p99.9. ", d->max_over_tail);
}

/* Open loop: late starts; BACKLOG. */
static void tail_open_loop(text_buf *sb, const book_bench_result *r, const book_diag *d) {
    if (!r->open_loop) return;
    say(sb,
        "Open loop: %" PRIu64
        " ops (%.1f%%) started over 1 us late; %.0f ops/s achieved of %.0f asked%s. ",
        r->late_ops, d->late_pct, r->elapsed_s > 0 ? (double)r->health.ops / r->elapsed_s : 0.0,
        r->rate, d->backlog ? " (it fell behind)" : "");
    if (d->backlog)
        say(sb,
            "The dominant contributor is queueing (%.0f%% of the window on a CPU): these "
            "percentiles measure the backlog, not the engine. ",
            r->elapsed_s > 0 ? 100.0 * r->cpu_s / r->elapsed_s : 0.0);
}

void book_bench_tail_method(char *buf, size_t n, const char *no_pmu) {
    text_buf sb = {buf, n, 0};
    if (n) buf[0] = '\0';
    say(&sb,
        "How each paragraph below reads its figures. Every sample includes the timer's own "
        "floor (two fenced counter reads). Allocation calls in the measured window are counted "
        "by interposition: zero means the allocator is not a contributor. In a closed loop each "
        "involuntary switch or page fault can inflate at most one sample, so N of them explain "
        "at most the N slowest. Steal is the hypervisor's, over all CPUs (/proc/stat). A thread "
        "on a CPU for part of the wall time spent the rest waiting to run, and a sample that "
        "spans such a wait carries it. A max far above the p99.9 is longer than an operation "
        "of this kind takes by itself: it is consistent with the thread losing its CPU (a "
        "switch or stolen time) mid-operation. In an open loop a stall delays every operation "
        "queued behind it. Where the dominant contributor is not yet identified, the next "
        "step is to count cache and branch misses over the measured window (perf stat -e "
        "cache-misses,branch-misses%s%s) and compare the slowest ops' book depth with the "
        "median's.",
        no_pmu ? "; " : "", no_pmu ? no_pmu : "");
}

void book_bench_tail_text(char *buf, size_t n, const book_bench_outcome *rn, const char *no_pmu) {
    const book_bench_result *r = &rn->r;
    text_buf sb = {buf, n, 0};
    char t[32], mx[32], floor_s[32];
    (void)no_pmu; /* the next step is in book_bench_tail_method, said once */
    fmt_ns(t, sizeof t, r->tail_threshold_ns);
    fmt_ns(mx, sizeof mx, lat_hist_max(&r->total));
    fmt_ns(floor_s, sizeof floor_s, r->timer_floor_p50_ns);
    if (n) buf[0] = '\0';
    book_diag_in in;
    book_diag d;
    book_diag_inputs(r, &in);
    book_diagnose(&in, &d);
    tail_kinds(&sb, r, &d, t);
    tail_interference(&sb, rn, &d);
    tail_max(&sb, r, &d, mx);
    tail_open_loop(&sb, r, &d);
    say(&sb, "Timer floor p50 %s. ", floor_s);
    if (!d.identified) say(&sb, "The dominant contributor is not yet identified.");
}

int book_bench_write_hist(const char *dir, const char *stem, const book_bench_outcome *rn,
                          char *err, size_t errlen) {
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

json_t *book_bench_run_json(const book_bench_outcome *rn) {
    const book_bench_result *r = &rn->r;
    char hl[512];
    book_bench_health_line(hl, sizeof hl, r);
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
        rn->counted ? (json_int_t)rn->allocs : (json_int_t)-1, "minor_faults",
        (json_int_t)r->minor_faults, "involuntary_switches", (json_int_t)r->invol_switches,
        "voluntary_switches", (json_int_t)r->vol_switches, "late_ops", (json_int_t)r->late_ops,
        "timer_floor_p50_ns", (json_int_t)r->timer_floor_p50_ns, "elapsed_s", r->elapsed_s);
    lat_hist_ci ci[4];
    book_bench_tail_cis(&r->total, ci);
    for (int k = 0; k < 4; k++)
        lat_json_set_ci(o, book_bench_tail_names[k], "_ns", &ci[k]);
    return o;
}

static void md_table(FILE *f, const book_bench_outcome *runs, size_t n, int open_loop) {
    fprintf(f, "| scenario | samples | p50 | p99 | p99.9 | p99.99 | max | allocations |\n"
               "|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < n; i++) {
        const book_bench_result *r = &runs[i].r;
        if (runs[i].open_loop != open_loop) continue;
        char a[32];
        if (runs[i].counted)
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

/* BENCH.md's title, run conditions and the closed- and open-loop tables. */
static void md_head(FILE *f, const book_bench_doc *d) {
    const book_bench_outcome *runs = d->runs;
    size_t n = d->n;
    const book_bench_cfg *cfg = d->cfg;
    const lat_runcond *rc = d->rc;
    int any_open = 0, any_closed = 0;
    for (size_t i = 0; i < n; i++)
        *(runs[i].open_loop ? &any_open : &any_closed) = 1;
    fprintf(f, "# Order-book tail latency (latlab book bench)\n\n");
    fprintf(f, "Generated by `latlab book bench`; every figure below was measured in this run. "
               "Values are per operation, in ns, from HdrHistogram (1 ns .. 1 s, 3 significant "
               "digits), timed with the calibrated cycle counter (fenced reads before and after "
               "each operation).\n\n");
    fprintf(f, "Command: `%s`\n\n", d->cmdline);
    fprintf(f, "## Run conditions\n\n");
    fprintf(f, "| parameter | value |\n|---|---|\n");
    fprintf(f, "| warm-up ops | %" PRIu64 " |\n| measured ops | %" PRIu64 " |\n", cfg->warmup,
            cfg->measured);
    fprintf(f, "| seed | 0x%" PRIX64 " (xorshift64) |\n", cfg->seed);
    if (d->cpu >= 0)
        fprintf(f, "| pinning | benchmark thread pinned to CPU %d |\n", d->cpu);
    else
        fprintf(f, "| pinning | not pinned (use --cpu N) |\n");
    fprintf(f, "| LTO | %s |\n", strstr(rc->compiler_flags, "-flto") ? "yes" : "no");
    fprintf(f,
            "| allocator | glibc malloc, used at setup only; calls in the measured window "
            "are counted by interposition%s |\n",
            d->alloc_counted ? "" : " (unavailable in this sanitizer build)");
    fprintf(f, "| clock | %.4f cycles/ns (calibrated) |\n", lat_clock_default()->cycles_per_ns);
    char bline[512];
    lat_budget_format(d->bud, bline, sizeof bline);
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
}

/* One scenario's section of BENCH.md. */
static void md_scenario(FILE *f, const book_bench_doc *d, const book_bench_outcome *rn) {
    const book_bench_cfg *cfg = d->cfg;
    const book_bench_result *r = &rn->r;
    char hl[512], tp[4096];
    book_bench_health_line(hl, sizeof hl, r);
    book_bench_tail_text(tp, sizeof tp, rn, d->no_pmu);
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
    fprintf(f, "Samples: %" PRId64 " after %" PRIu64 " warm-up ops.\n\n", lat_hist_total(&r->total),
            cfg->warmup);
    fprintf(f, "Workload health: %s.\n\n", hl);
    fprintf(f, "| quantile | latency | 95%% interval |\n|---|---:|---|\n");
    fprintf(f, "| min | %" PRId64 " ns | |\n", lat_hist_min(&r->total));
    lat_hist_ci ci[4];
    book_bench_tail_cis(&r->total, ci);
    for (int k = 0; k < 4; k++) {
        char b[160];
        lat_hist_ci_format(&ci[k], 1, 0, b, sizeof b);
        fprintf(f, "| %s | %" PRId64 " ns | %s ns |\n", book_bench_tail_names[k], ci[k].value, b);
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
                        "| %s | %" PRIu64 " | %" PRId64 " ns | %" PRId64 " ns | %" PRId64 " ns |\n",
                        book_opk_name((book_opk)k), r->ops_by_kind[k], q(&r->kind[k], 50),
                        q(&r->kind[k], 99.9), lat_hist_max(&r->kind[k]));
        fprintf(f, "\n");
    }
    fprintf(f, "**Where the tail comes from.** %s\n\n", tp);
}

int book_bench_write_md(const char *dir, const book_bench_doc *d, char *err, size_t errlen) {
    char path[4096];
    snprintf(path, sizeof path, "%s/BENCH.md", dir);
    lat_afile *af;
    int e = lat_afile_open(path, &af);
    if (e) {
        snprintf(err, errlen, "%s: %s", path, lat_strerror(e));
        return e;
    }
    FILE *f = lat_afile_stream(af);
    md_head(f, d);
    char method[2048];
    book_bench_tail_method(method, sizeof method, d->no_pmu);
    fprintf(f, "## Where the tail comes from: the method\n\n%s\n\n", method);
    for (size_t i = 0; i < d->n; i++)
        md_scenario(f, d, &d->runs[i]);
    e = lat_afile_commit(af);
    if (e) snprintf(err, errlen, "%s: %s", path, lat_strerror(e));
    return e;
}

int book_bench_write_html(const char *dir, const book_bench_doc *d, char *err, size_t errlen) {
    const book_bench_outcome *runs = d->runs;
    size_t n = d->n;
    const lat_runcond *rc = d->rc;
    const book_bench_cfg *cfg = d->cfg;
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
            book_bench_health_line(hl, sizeof hl, r);
            const char *cells[] = {book_scn_name(r->scn), c[0], c[1], c[2], c[3], c[4], c[5], hl};
            lat_report_table_row(rep, cells);
            if (lat_plot_series_count(*pp) < LAT_PLOT_MAX_SERIES)
                lat_plot_add_hist(*pp, book_scn_name(r->scn), &r->total, 1.0, 0);
        }
        lat_report_plot(rep, *pp);
    }
    lat_report_section(rep, "Where the tail comes from");
    char method[2048];
    book_bench_tail_method(method, sizeof method, d->no_pmu);
    lat_report_text(rep, method);
    for (size_t i = 0; i < n; i++) {
        char tp[4096], line[4300];
        book_bench_tail_text(tp, sizeof tp, &runs[i], d->no_pmu);
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
void book_bench_print_head(FILE *f) {
    fprintf(f, "%-18s %-6s %9s %8s %8s %8s %8s %10s %7s\n", "scenario", "loop", "samples", "p50",
            "p99", "p99.9", "p99.99", "max", "allocs");
}

void book_bench_print_run(FILE *f, const book_bench_outcome *rn) {
    const book_bench_result *r = &rn->r;
    char a[24];
    if (rn->counted)
        snprintf(a, sizeof a, "%" PRIu64, rn->allocs);
    else
        snprintf(a, sizeof a, "n/a");
    fprintf(f,
            "%-18s %-6s %9" PRId64 " %8" PRId64 " %8" PRId64 " %8" PRId64 " %8" PRId64 " %10" PRId64
            " %7s\n",
            book_scn_name(r->scn), rn->open_loop ? "open" : "closed", lat_hist_total(&r->total),
            lat_hist_value_at_percentile(&r->total, 50),
            lat_hist_value_at_percentile(&r->total, 99),
            lat_hist_value_at_percentile(&r->total, 99.9),
            lat_hist_value_at_percentile(&r->total, 99.99), lat_hist_max(&r->total), a);
    lat_hist_ci ci[4];
    book_bench_tail_cis(&r->total, ci);
    lat_pipe_print_cis(f, book_bench_tail_ps, ci, 4);
    char hl[512];
    book_bench_health_line(hl, sizeof hl, r);
    fprintf(f, "  health: %s\n", hl);
    if (rn->open_loop)
        fprintf(
            f, "  open loop at %.0f ops/s (achieved %.0f): %" PRIu64 " ops started > 1 us late\n",
            r->rate, r->elapsed_s > 0 ? (double)r->health.ops / r->elapsed_s : 0.0, r->late_ops);
    fprintf(f, "  thread had a CPU for %.0f%% of the window (load average %.1f on %d CPUs)\n",
            r->elapsed_s > 0 ? 100 * (r->cpu_s / r->elapsed_s > 1 ? 1 : r->cpu_s / r->elapsed_s)
                             : 0.0,
            r->loadavg1, r->ncpus);
}

const char *book_bench_no_pmu(const lat_runcond *rc) {
    char why[256];
    if (lat_perf_probe("cache-misses", NULL, why, sizeof why) != LAT_ENOPMU) return NULL;
    return strncmp(rc->virt, "yes", 3) ? "this host exposes no hardware PMU"
                                       : "this VM exposes no hardware PMU, so on a bare-metal host";
}

json_t *book_bench_doc_json(const book_bench_doc *d) {
    json_t *arr = json_array();
    for (size_t i = 0; i < d->n; i++)
        json_array_append_new(arr, book_bench_run_json(&d->runs[i]));
    json_t *o = json_pack("{s:I,s:I,s:I,s:b,s:o,s:o}", "warmup", (json_int_t)d->cfg->warmup,
                          "measured", (json_int_t)d->cfg->measured, "seed",
                          (json_int_t)d->cfg->seed, "allocation_counting", d->alloc_counted,
                          "conditions", lat_runcond_json(d->rc), "runs", arr);
    if (o) json_object_set_new(o, "error_budget", lat_budget_json(d->bud));
    if (o) json_object_set_new(o, "percentile_confidence", json_real(LAT_HIST_CI_DEFAULT));
    return o;
}
