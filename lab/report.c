/* report.c - the files a lab session writes (see lab_report.h): LAB.md with the
 * verdicts, their confidence and the rounds behind them, the platform account
 * and tail attribution per configuration, the silence check side by side and
 * the cause -> measurement -> fix narration; lab.json with every run; the
 * plots (report_html.c writes report.html). */
#include "latlab/lab_report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lab_internal.h"

#include "latlab/atomicfile.h"
#include "latlab/censor.h"
#include "latlab/json.h"
#include "latlab/lab_account.h"
#include "latlab/pipeline_report.h"
#include "latlab/report.h"
#include "latlab/stats.h"

void lat_lab_rec_account(const lat_lab_session *x, const lat_lab_run_rec *rec, char *buf,
                         size_t len) {
    lat_lab_account_text(buf, len, x->cfg.pipe.shape, rec->thr, &rec->cpu, x->gap_us);
}

/* Append text to buf (at *n) wrapped at 100 columns: breaks at spaces,
 * continuation lines indented by four; col is the current line's length. */
static void wrap_append(char *buf, size_t len, size_t *n, size_t *col, const char *text) {
    const size_t width = 100;
    while (*text && *n + 1 < len) {
        const char *sp = strchr(text, ' ');
        size_t w = sp ? (size_t)(sp - text) : strlen(text);
        if (*col > 4 && *col + 1 + w > width && *n + 6 < len) {
            memcpy(buf + *n, "\n    ", 5);
            *n += 5, *col = 4;
        } else if (*col > 0 && buf[*n - 1] != ' ' && buf[*n - 1] != '\n') {
            buf[(*n)++] = ' ', (*col)++;
        }
        for (size_t i = 0; i < w && *n + 1 < len; i++)
            buf[(*n)++] = text[i], (*col)++;
        text += w;
        while (*text == ' ')
            text++;
    }
    buf[*n < len ? *n : len - 1] = '\0';
}

/* Start a continuation line (indented by four). */
static void wrap_newline(char *buf, size_t len, size_t *n, size_t *col) {
    if (*n + 6 >= len) return;
    memcpy(buf + *n, "\n    ", 6); /* with its terminator */
    *n += 5, *col = 4;
}

void lat_lab_run_line(const lat_lab_session *x, const lat_lab_run_rec *rec, char *buf, size_t len) {
    if (!buf || !len) return;
    char head[320], fl[96], kept[16] = "n/a", account[1024];
    if (isfinite(rec->kept_work)) snprintf(kept, sizeof kept, "%.0f%%", 100 * rec->kept_work);
    snprintf(head, sizeof head,
             "round %2u %-10s work p50 %4.0f p99.9 %6.0f ns | e2e p50 %.0f p99.9 %.0f ns | "
             "kept %s",
             rec->round + 1, lat_lab_conf_name(rec->conf), rec->p50[LAT_PIPE_WORK],
             rec->p999[LAT_PIPE_WORK], rec->p50[LAT_PIPE_E2E], rec->p999[LAT_PIPE_E2E], kept);
    snprintf(fl, sizeof fl, "floor %.0f -> %.0f ns", rec->floor_ns, rec->floor_after_ns);
    size_t n = 0, col = 0;
    buf[0] = '\0';
    if (strlen(head) <= 100 && strlen(head) < len) { /* as printed: aligned columns */
        n = col = strlen(head);
        memcpy(buf, head, n + 1);
    } else {
        wrap_append(buf, len, &n, &col, head);
    }
    if (col + 3 + strlen(fl) <= 100)
        wrap_append(buf, len, &n, &col, "|");
    else
        wrap_newline(buf, len, &n, &col);
    wrap_append(buf, len, &n, &col, fl);
    if (rec->set_aside) {
        wrap_newline(buf, len, &n, &col);
        wrap_append(buf, len, &n, &col, rec->why);
    }
    lat_lab_rec_account(x, rec, account, sizeof account);
    wrap_newline(buf, len, &n, &col);
    wrap_append(buf, len, &n, &col, account);
}

/* ---- sums over a configuration's usable runs ----------------------------------------------- */

typedef struct conf_sum {
    unsigned usable, set_aside;
    char last_why[120];
    lat_lab_thread_account thr[LAT_PIPE_NHOT];
    lat_pipe_cpustat cpu;
    lat_pipe_tail tail[LAT_PIPE_NSTAGES];
    uint64_t kept, judged_runs; /* kept work samples, runs with a kept share */
    double kept_share;          /* summed over runs with one */
} conf_sum;

static void sum_conf(const lat_lab_result *res, int conf, conf_sum *o) {
    memset(o, 0, sizeof *o);
    int votes[LAT_PIPE_NSTAGES][LAT_PIPE_NHOT] = {{0}};
    double share[LAT_PIPE_NHOT] = {0};
    for (size_t i = 0; i < res->nruns; i++) {
        const lat_lab_run_rec *r = &res->runs[i];
        if (r->conf != conf) continue;
        if (r->set_aside) {
            o->set_aside++;
            snprintf(o->last_why, sizeof o->last_why, "%s", r->why);
        } else {
            o->usable++;
        }
        o->kept += r->cell.kept;
        if (isfinite(r->cell.kept_share)) o->judged_runs++, o->kept_share += r->cell.kept_share;
        for (int k = 0; k < LAT_PIPE_NHOT; k++) {
            const lat_lab_thread_account *a = &r->thr[k];
            lat_lab_thread_account *s = &o->thr[k];
            if (!a->ran) continue;
            s->ran = true;
            s->gaps += a->gaps, s->lost_ns += a->lost_ns, share[k] += a->lost_share;
            s->longest_ns = fmax(s->longest_ns, a->longest_ns);
            s->wait_ns = isnan(a->wait_ns) ? s->wait_ns : s->wait_ns + a->wait_ns;
            s->vol += a->vol, s->invol += a->invol;
            for (int b = 0; b < LAT_GAPS_BUCKETS; b++)
                s->hist[b] += a->hist[b];
        }
        o->cpu.steal_pct += isnan(r->cpu.steal_pct) ? 0 : r->cpu.steal_pct;
        o->cpu.irq_pct += isnan(r->cpu.irq_pct) ? 0 : r->cpu.irq_pct;
        o->cpu.softirq_pct += isnan(r->cpu.softirq_pct) ? 0 : r->cpu.softirq_pct;
        for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
            lat_pipe_tail *t = &o->tail[s];
            t->above99 += r->tail[s].above99, t->above99_gap += r->tail[s].above99_gap;
            t->above999 += r->tail[s].above999, t->above999_gap += r->tail[s].above999_gap;
            if (r->tail[s].thread999 >= 0) votes[s][r->tail[s].thread999]++;
        }
    }
    unsigned all = o->usable + o->set_aside;
    for (int k = 0; k < LAT_PIPE_NHOT && all; k++)
        o->thr[k].lost_share = share[k] / all;
    if (all) {
        o->cpu.steal_pct /= all, o->cpu.irq_pct /= all;
        o->cpu.softirq_pct /= all;
    }
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        o->tail[s].thread999 = -1;
        for (int k = 0; k < LAT_PIPE_NHOT; k++)
            if (votes[s][k] &&
                (o->tail[s].thread999 < 0 || votes[s][k] > votes[s][o->tail[s].thread999]))
                o->tail[s].thread999 = k;
    }
}

void lat_lab_conf_account(const lat_lab_session *x, const lat_lab_result *res, int conf, char *buf,
                          size_t len) {
    conf_sum s;
    sum_conf(res, conf, &s);
    char p[1024];
    lat_lab_account_text(p, sizeof p, x->cfg.pipe.shape, s.thr, &s.cpu, x->gap_us);
    snprintf(buf, len, "%u runs (%u set aside, repeated): %s", s.usable + s.set_aside, s.set_aside,
             p);
}

void lat_lab_lost_summary(const lat_lab_session *x, const lat_lab_result *res, char *buf,
                          size_t len) {
    double *v = res->nruns ? malloc(res->nruns * sizeof *v) : NULL;
    size_t n = 0, bad = 0, over = 0;
    for (size_t i = 0; v && i < res->nruns; i++) {
        double w = lat__lab_worst_lost(&res->runs[i]);
        v[n++] = w;
        bad += res->runs[i].set_aside;
        over += w > x->cfg.max_run_lost;
    }
    if (!n) {
        snprintf(buf, len, "no runs");
        free(v);
        return;
    }
    lat_stats_sort(v, n);
    snprintf(buf, len,
             "the hot threads' worst loss per run: median %.1f%% (range %.1f..%.1f%%) over %zu "
             "runs (%zu above %.0f%%); %zu set aside for too few kept samples",
             100 * v[n / 2], 100 * v[0], 100 * v[n - 1], n, over, 100 * x->cfg.max_run_lost, bad);
    free(v);
}

/* "x1.23 [1.10, 1.40]", or "n/a" for a ratio not measured (NAN). */
static const char *ratio_ci(char *buf, size_t len, double r, double lo, double hi) {
    if (isnan(r))
        snprintf(buf, len, "n/a");
    else
        snprintf(buf, len, "x%.2f [%.2f, %.2f]", r, lo, hi);
    return buf;
}

static const char *matched(const lat_lab_verdict *v, int conf) {
    if (v->kind == lat_lab_expected(conf)) return "matched";
    return v->kind == LAT_LAB_UNDECIDED ? "inconclusive" : "WRONG";
}

/* ---- LAB.md ------------------------------------------------------------------------------- */

/* "x1.23 [1.10, 1.40]" for shift point q, or "n/a". */
static const char *shift_ci(char *buf, size_t len, const lat_lab_verdict *v, int q) {
    return ratio_ci(buf, len, v->shift[q].ratio, v->shift[q].lo, v->shift[q].hi);
}

static void md_verdicts(FILE *f, const lat_lab_session *x, const lat_lab_result *res) {
    fprintf(f, "## Verdicts\n\n| experiment | expected | verdict | confidence | rounds used | "
               "set aside | work p50 | work p99.9 | work p99.99 | e2e p99.9 dispersion | "
               "matched |\n"
               "|---|---|---|--:|--:|--:|---|---|---|--:|---|\n");
    for (int c = 1; c < LAT_LAB_NCONF; c++) {
        const lat_lab_verdict *v = &res->verdict[c];
        char p50[96];
        if (isnan(v->shift[LAT_LAB_Q50].ratio))
            snprintf(p50, sizeof p50, "n/a");
        else if (v->p50_below_tick && !isnan(v->mean_shift_ns))
            snprintf(p50, sizeof p50, "%+.0f ns (below granularity; body mean %+.1f ns)",
                     v->p50_shift_ns, v->mean_shift_ns);
        else if (v->p50_below_tick)
            snprintf(p50, sizeof p50, "%+.0f ns (below granularity)", v->p50_shift_ns);
        else
            shift_ci(p50, sizeof p50, v, LAT_LAB_Q50);
        char p999[64], p9999[64], sp[32] = "n/a";
        shift_ci(p999, sizeof p999, v, LAT_LAB_Q999);
        shift_ci(p9999, sizeof p9999, v, LAT_LAB_Q9999);
        if (!isnan(v->disp_ratio)) snprintf(sp, sizeof sp, "x%.2f", v->disp_ratio);
        fprintf(f, "| %s | %s | %s | %.1f%% | %u | %u | %s | %s | %s | %s | %s |\n",
                lat_lab_conf_name(c), lat_lab_kind_name(lat_lab_expected(c)),
                lat_lab_kind_name(v->kind), 100 * v->confidence, v->rounds, v->set_aside, p50, p999,
                p9999, sp, matched(v, c));
    }
    fprintf(f, "\n");
    for (int c = 1; c < LAT_LAB_NCONF; c++) {
        char t[1024];
        lat_lab_verdict_text(&res->verdict[c], t, sizeof t);
        fprintf(f, "- **%s**: %s.\n", lat_lab_conf_name(c), t);
    }
    char lost[300];
    lat_lab_lost_summary(x, res, lost, sizeof lost);
    fprintf(f, "\nPlatform: %s.\n", lost);
    char place[200];
    lat_lab_placement_text(&res->placement, place, sizeof place);
    fprintf(f, "\nPlacement: %s.\n", place);
    fprintf(f, "\nConfidence is 1 - p of the deciding Wilcoxon signed-rank test over paired "
               "rounds; brackets are Hodges-Lehmann confidence intervals on the ratio "
               "experiment / baseline of each run's figures over the samples censoring kept "
               "(work stage).\n\n");
}

/* "shift-alloc.svg" */
static void shift_svg_name(int conf, char *buf, size_t len) {
    snprintf(buf, len, "shift-%s.svg", lat_lab_conf_name(conf));
}

/* One letter per round for a verdict's kind after that round. */
static char kind_letter(int kind) {
    static const char l[LAT_LAB_NKINDS] = {'.', 'N', 'T', 'M', 'V'};
    return kind >= 0 && kind < LAT_LAB_NKINDS ? l[kind] : '?';
}

/* How each verdict settled, round by round: the stop rule's evidence. */
static void md_history(FILE *f, const lat_lab_result *res) {
    if (!res->kinds || !res->rounds) return;
    fprintf(f, "**Verdicts after each round** (. inconclusive, N no change, T tail, M median, "
               "V variance; the protocol stops once every one repeats):\n\n```\n");
    for (int c = 1; c < LAT_LAB_NCONF; c++) {
        fprintf(f, "%-10s ", lat_lab_conf_name(c));
        for (unsigned k = 0; k < res->rounds; k++)
            fputc(kind_letter(res->kinds[k][c]), f);
        fputc('\n', f);
    }
    fprintf(f, "```\n\n");
}

static void md_shifts(FILE *f, const lat_lab_result *res) {
    fprintf(f, "## Shift functions\n\nPer experiment (and the A/A control), the work stage's "
               "ratio experiment / baseline at each quantile of the samples censoring kept: the "
               "Hodges-Lehmann estimate over paired rounds, its confidence interval and the "
               "signed-rank p.  The shaded band is \"no change\".\n\n");
    for (int c = 1; c < LAT_LAB_NCONF; c++) {
        char svg[64];
        shift_svg_name(c, svg, sizeof svg);
        fprintf(f, "### %s\n\n", lat_lab_conf_name(c));
        lat__lab_shift_md(f, &res->verdict[c], svg);
    }
}

static void md_rounds(FILE *f, const lat_lab_session *x, const lat_lab_result *res) {
    (void)x;
    fprintf(f, "## Rounds\n\nEach cell: work p50 / p99.9 ns of the samples censoring kept "
               "(what the verdict reads), the kept share, the worst hot-thread loss, the run's "
               "placement "
               "(n near, f far, m moved during the run); `x` = set aside.  Floor: the cache-line "
               "round trip before the round's first run.\n\n"
               "| round | order | floor ns |");
    for (int c = 0; c < LAT_LAB_NCONF; c++)
        fprintf(f, " %s |", lat_lab_conf_name(c));
    fprintf(f, "\n|--:|---|--:|---|---|---|---|\n");
    for (unsigned k = 0; k < res->rounds; k++) {
        fprintf(f, "| %u | ", k + 1);
        for (int i = 0; i < LAT_LAB_NCONF; i++)
            fprintf(f, "%s%s", i ? "," : "", lat_lab_conf_name(res->order[k][i]));
        double fl = NAN;
        for (size_t i = 0; i < res->nruns && isnan(fl); i++)
            if (res->runs[i].round == k) fl = res->runs[i].floor_ns;
        fprintf(f, " | %.0f |", fl);
        for (int c = 0; c < LAT_LAB_NCONF; c++) {
            const lat_lab_run_rec *r = lat_lab_cell_run(res, c, k);
            if (!r) { /* set aside: how much its last attempt lost */
                double worst = 0;
                unsigned tries = 0;
                for (size_t i = 0; i < res->nruns; i++) {
                    const lat_lab_run_rec *a = &res->runs[i];
                    if (a->conf != c || a->round != k) continue;
                    tries++, worst = lat__lab_worst_lost(a);
                }
                fprintf(f, " x (%u tries, too few kept samples; last lost %.0f%%) |", tries,
                        100 * worst);
                continue;
            }
            double lost = lat__lab_worst_lost(r);
            char kept[16] = "n/a";
            if (isfinite(r->cell.kept_share))
                snprintf(kept, sizeof kept, "%.0f%%", 100 * r->cell.kept_share);
            fprintf(f, " %.0f / %.0f, kept %s, lost %.1f%%, %c |", r->cell.work_q[LAT_LAB_Q50],
                    r->cell.work_q[LAT_LAB_Q999], kept, 100 * lost,
                    "nfm"[lat_lab_run_placement(res, r)]);
        }
        fprintf(f, "\n");
    }
    fprintf(f, "\n");
}

/* "10-20 us: 120, 20-40 us: 31, ..." from the log2 gap histograms (cycles). */
static void gap_hist_text(const lat_lab_session *x, const lat_lab_thread_account *thr, char *buf,
                          size_t len) {
    size_t o = 0;
    buf[0] = 0;
    double cpn = x->cfg.pipe.cal->cycles_per_ns;
    for (int b = 0; b < LAT_GAPS_BUCKETS && o < len; b++) {
        uint64_t n = 0;
        for (int k = 0; k < LAT_PIPE_NHOT; k++)
            n += thr[k].hist[b];
        if (!n) continue;
        double lo = fmax(ldexp(1.0, b) / cpn / 1e3, x->gap_us), hi = ldexp(1.0, b + 1) / cpn / 1e3;
        int w = snprintf(buf + o, len - o, "%s%.0f-%.0f us: %" PRIu64, o ? ", " : "", lo, hi, n);
        if (w < 0) return;
        o += (size_t)w;
    }
}

static void md_confs(FILE *f, const lat_lab_session *x, const lat_lab_result *res) {
    fprintf(f, "## Per configuration (usable runs merged)\n\n");
    for (int c = 0; c < LAT_LAB_NCONF; c++) {
        conf_sum s;
        sum_conf(res, c, &s);
        fprintf(f,
                "### %s (%s)\n\n| stage | p50 ns | p99 ns | p99.9 ns | p99.9 95%% CI | max ns "
                "|\n|---|--:|--:|--:|---|--:|\n",
                lat_lab_conf_name(c), lat_lab_conf_flag(c));
        for (int st = 0; st < LAT_PIPE_NSTAGES; st++) {
            const lat_hist *h = res->merged[c][st];
            if (!h) continue;
            static const double ps[] = {50, 99, 99.9};
            lat_hist_ci ci[3];
            char b[96];
            lat_hist_cis_at_percentiles(h, ps, LAT_HIST_CI_DEFAULT, ci, 3);
            lat_hist_ci_format(&ci[2], 1, 0, b, sizeof b);
            fprintf(f, "| %s | %" PRId64 " | %" PRId64 " | %" PRId64 " | %s | %" PRId64 " |\n",
                    lat_pipe_stage_name(st), ci[0].value, ci[1].value, ci[2].value, b,
                    lat_hist_max(h));
        }
        char buf[1024];
        lat_lab_account_text(buf, sizeof buf, x->cfg.pipe.shape, s.thr, &s.cpu, x->gap_us);
        fprintf(f,
                "\n%u usable runs, %u set aside and repeated%s%s%s; kept work samples %" PRIu64
                " (mean kept share %.1f%%).\n\n**Platform** (summed over all %u runs; the share "
                "is their mean): %s.\n\n",
                s.usable, s.set_aside, s.set_aside ? " (last: " : "", s.last_why,
                s.set_aside ? ")" : "", s.kept,
                s.judged_runs ? 100 * s.kept_share / (double)s.judged_runs : 0.0,
                s.usable + s.set_aside, buf);
        gap_hist_text(x, s.thr, buf, sizeof buf);
        if (buf[0]) fprintf(f, "**Gap lengths** (all hot threads): %s.\n\n", buf);
        lat_lab_attrib_text(buf, sizeof buf, x->cfg.pipe.shape, s.tail);
        if (buf[0]) fprintf(f, "**Attribution**: %s.\n\n", buf);
        if (x->over) fprintf(f, "**%s**\n\n", LAT_PIPE_OVERSUB_STAMP);
    }
}

/* The median over conf's runs (set-aside ones too: censoring judges
 * latency samples, not counters) of the figure at offset off in a record;
 * NAN when no run has it. */
static double conf_median(const lat_lab_result *res, int conf, size_t off) {
    double v[256];
    size_t n = 0;
    for (size_t i = 0; i < res->nruns && n < sizeof v / sizeof *v; i++) {
        const lat_lab_run_rec *r = &res->runs[i];
        double x = *(const double *)(const void *)((const char *)r + off);
        if (r->conf == conf && isfinite(x)) v[n++] = x;
    }
    return n ? lat_stats_median_inplace(v, n) : NAN;
}

static void md_count(FILE *f, double v, const char *fmt) {
    if (isfinite(v))
        fprintf(f, fmt, v);
    else
        fprintf(f, " n/a |");
}

/* The counters of each configuration beside the baseline's: what the
 * experiment did to the threads (switches, migrations, faults), the
 * allocator (calls per event) and, where a PMU exists, the CPU. */
static void md_counters(FILE *f, const lat_lab_result *res) {
    fprintf(f, "## Counters\n\nPer configuration, the median over all its runs (hot threads "
               "summed; allocations are the work stage's).  n/a: not counted here (allocations "
               "need the counting allocator, absent under sanitizers; IPC and cache misses need "
               "a hardware PMU).\n\n| configuration | context switches | migrations | page "
               "faults | allocations per event | IPC | cache misses per event |\n"
               "|---|--:|--:|--:|--:|--:|--:|\n");
    for (int c = 0; c < LAT_LAB_NCONF; c++) {
        fprintf(f, "| %s |", lat_lab_conf_name(c));
        md_count(f, conf_median(res, c, offsetof(lat_lab_run_rec, cs)), " %.0f |");
        md_count(f, conf_median(res, c, offsetof(lat_lab_run_rec, migrations)), " %.0f |");
        md_count(f, conf_median(res, c, offsetof(lat_lab_run_rec, faults)), " %.0f |");
        md_count(f, conf_median(res, c, offsetof(lat_lab_run_rec, allocs_per_event)), " %.2f |");
        md_count(f, conf_median(res, c, offsetof(lat_lab_run_rec, ipc)), " %.2f |");
        md_count(f, conf_median(res, c, offsetof(lat_lab_run_rec, misses_per_event)), " %.2f |");
        fprintf(f, "\n");
    }
    fprintf(f, "\n");
}

static void md_silence(FILE *f, const lat_lab_session *x) {
    fprintf(f, "## Silence check (ftrace on the hot CPUs)\n\n");
    if (!x->root) {
        fprintf(f, "Not run: %s.\n\n", x->silence_note);
        return;
    }
    fprintf(f, "`latlab silence` traced the hot CPUs while round 1's pinned baseline and no-pin "
               "runs ran (the tracer's reader shares those CPUs on a small machine, so its own "
               "activity shows up too).\n\n");
    static const char *const what[2] = {"pinned baseline, round 1", "no-pin, round 1"};
    for (int i = 0; i < 2; i++) {
        const lat_lab_silence *s = &x->sil[i];
        fprintf(f, "### %s\n\n", what[i]);
        if (!s->ran)
            fprintf(f, "The tracer did not start.\n\n");
        else
            fprintf(f, "exit %d\n\n```\n%s```\n\n", s->status, s->text ? s->text : "(no output)\n");
    }
}

static const char *const cause_text[LAT_LAB_NCONF] = {
    "",
    ("One small heap allocation (a 32 x u64 vector) per event in the work stage: usually a "
     "free-list pop, sometimes a trip into the allocator's slow path or the kernel."),
    ("The two stage counters moved 8 bytes apart onto one 64-byte line instead of 128 bytes "
     "apart: every relaxed increment drags the line between the two cores (false sharing)."),
    ("The hot threads were left to the scheduler instead of the planner's pinned CPUs; nothing in "
     "the code changed, only placement."),
    ("Nothing: the baseline again, in the same round.  The control: decided by the same rules, "
     "it must read no change; a disease here is the host's, and no verdict above stands.")};
static const char *const fix_text[LAT_LAB_NCONF] = {
    "",
    ("Keep the hot path allocation-free: preallocate at setup, reuse a pool or the message's own "
     "storage, and prove it with a counting allocator rather than code review.  Medians measure "
     "the design, tails measure the discipline."),
    ("Give each writer's counter its own line: pad or align to 128 bytes (adjacent-line prefetch "
     "pulls pairs), as the baseline does.  Confirm with IPC/cache-miss counters and `perf c2c` "
     "where the machine has a PMU."),
    ("Pin every hot thread to its own CPU (the planner avoids CPU 0 and SMT siblings), keep cold "
     "threads off them, and check the hot CPUs are quiet with `latlab silence`."),
    ("None needed when it reads no change.  When it reads a disease, quiet the host (`latlab "
     "silence` names what runs on the hot CPUs) or run on one with isolated CPUs, and repeat.")};

/* The measurement sentence of one verdict: only the figures that exist (a
 * verdict without usable rounds has none, and says so). */
static void md_measurement(FILE *f, const lat_lab_verdict *v) {
    const lat_lab_shift *t = &v->shift[LAT_LAB_Q999], *d = &v->shift[LAT_LAB_Q9999];
    if (!v->rounds || !isfinite(t->ratio)) {
        fprintf(f, "**Measurement.** No paired round was usable, so there is no figure to "
                   "report (see the verdict's reason).\n\n");
        return;
    }
    fprintf(f,
            "**Measurement.** Over %u paired rounds (each against the baseline run of the same "
            "round, so the host's placement hit both alike): ",
            v->rounds);
    if (v->p50_below_tick && isfinite(v->p50_shift_ns))
        fprintf(f, "work p50 %+.0f ns (below the counter's granularity)", v->p50_shift_ns);
    else if (isfinite(v->shift[LAT_LAB_Q50].ratio))
        fprintf(f, "work p50 x%.2f [%.2f, %.2f]", v->shift[0].ratio, v->shift[0].lo,
                v->shift[0].hi);
    fprintf(f, ", work p99.9 x%.2f [%.2f, %.2f] (p = %.4f)", t->ratio, t->lo, t->hi, t->p);
    if (isfinite(d->ratio))
        fprintf(f, ", work p99.99 x%.2f [%.2f, %.2f] (p = %.4f)", d->ratio, d->lo, d->hi, d->p);
    if (isfinite(v->disp_ratio))
        fprintf(f, ", round-to-round e2e p99.9 dispersion x%.2f (p = %.4f)", v->disp_ratio,
                v->disp_p);
    if (isfinite(v->base_p50_ns) && v->base_p50_ns > 0)
        fprintf(f, "; the baseline's work p50 was %.0f ns", v->base_p50_ns);
    fprintf(f, ".\n\n");
}

static void md_narrate(FILE *f, const lat_lab_result *res) {
    fprintf(f, "## Cause -> measurement -> fix\n\n");
    for (int c = 1; c < LAT_LAB_NCONF; c++) {
        const lat_lab_verdict *v = &res->verdict[c];
        char t[1024];
        lat_lab_verdict_text(v, t, sizeof t);
        fprintf(f, "### %s (%s)\n\n**Cause.** %s\n\n", lat_lab_conf_name(c), lat_lab_conf_flag(c),
                cause_text[c]);
        md_measurement(f, v);
        fprintf(f, "**Verdict.** %s", t);
        if (v->kind != lat_lab_expected(c))
            fprintf(f, " (the expected signature is %s)", lat_lab_kind_name(lat_lab_expected(c)));
        fprintf(f, ".\n\n**Fix.** %s\n\n", fix_text[c]);
    }
}

int lat_lab_write_md(const lat_lab_session *x, const lat_lab_result *res, const char *path) {
    lat_afile *af = NULL;
    int rc = lat_afile_open(path, &af);
    if (rc) return rc;
    FILE *f = lat_afile_stream(af);
    const lat_lab_config *c = &x->cfg;
    fprintf(f, "# latlab lab\n\n%s\n\n", x->banner);
    if (c->pipe.shape == LAT_PIPE_COMPACT && !x->over)
        fprintf(f, "This machine runs the **compact shape, pinned**: producer -> q1 -> worker "
                   "(stamps, works, stamps, ships the sample); q1+wake, work and e2e are honest "
                   "pinned hops, q2+wake does not exist.\n\n");
    if (x->over) fprintf(f, "**%s**\n\n", LAT_PIPE_OVERSUB_STAMP);
    fprintf(f,
            "## Protocol\n\n%" PRIu64 " events per run at %" PRIu64 "/s offered (open loop), "
            "%.0f ms intervals, counter tick %.1f ns, calibrated %.4f cycles/ns.  %u rounds "
            "(min %u, max %u, budget %.0f s) in %.1f s; stopped: %s.  Order shuffled with seed "
            "%" PRIu64 " (replay with `--seed %" PRIu64 "`).  Each sample whose window met a "
            "platform gap (spin-loop gaps >= %.0f us on a thread that carried it) or the backlog "
            "a gap built is censored; a run is set aside and repeated (at most %u times) only "
            "when its kept work samples cannot support the p99.9 (%" PRIu64 " needed).\n\n",
            c->pipe.events, c->pipe.rate_hz, (double)c->pipe.interval_ns / 1e6, c->params.tick_ns,
            c->pipe.cal->cycles_per_ns, res->rounds, c->min_rounds, c->max_rounds, c->budget_s,
            res->wall_s, res->stop, res->seed, res->seed, x->gap_us, c->max_repeats,
            lat_censor_min_kept(99.9));
    md_verdicts(f, x, res);
    md_history(f, res);
    md_shifts(f, res);
    md_counters(f, res);
    fprintf(f, "## Run conditions\n\n");
    lat_runcond_write_markdown(&x->rcnd, f);
    fprintf(f, "\n");
    md_rounds(f, x, res);
    md_confs(f, x, res);
    fprintf(f, "## Per-interval figures\n\nThe distributions of the per-interval figures the "
               "platform leaves least touched (intervals a hot thread lost at most 2%% of, usable "
               "runs; the verdicts read each run's kept samples, not these): ![work "
               "p50](intervals-work-p50.svg) "
               "![work p99.9](intervals-work-p999.svg) ![e2e p99.9](intervals-e2e-p999.svg)\n\n");
    if (x->flight_done) {
        fprintf(f,
                "## Flight recorder (alloc, threshold = baseline e2e p99.9 = %" PRIu64
                " ns)\n\n**%s**\n\n",
                x->flight_thr, x->flight_text);
        if (x->flight_gap[0]) fprintf(f, "**Gap:** %s.\n\n", x->flight_gap);
        if (x->flight_dump)
            fprintf(f, "```\n%s```\n\nThe whole window is in flight-alloc.txt.\n\n",
                    x->flight_dump);
    }
    const lat_hist *b = res->merged[LAT_LAB_BASE][LAT_PIPE_E2E];
    double p50 = b ? (double)lat_hist_value_at_percentile(b, 50) : 0;
    if (p50 > 0)
        fprintf(f,
                "## Instrumentation cost\n\nOne fenced stamp costs %" PRIu64 " ns = %.2f%% of "
                "the baseline e2e p50 (%.0f ns); %u stamps per event = %.2f%%.  Goal: < 1%% "
                "per stamp.\n\n",
                x->stamp_cost_ns, 100.0 * (double)x->stamp_cost_ns / p50, p50, x->stamps_per_event,
                100.0 * (double)x->stamp_cost_ns * x->stamps_per_event / p50);
    md_silence(f, x);
    lat_lab_prof_markdown(&x->prof, f);
    fprintf(f, "\n");
    md_narrate(f, res);
    if (x->replay.ran)
        fprintf(f,
                "## Replay round: steady vs bursty arrivals\n\n"
                "The baseline pipeline (pinned) fed at a steady rate equal to the capture's mean, "
                "then by the capture on its own timestamps (quiet gaps over 1 ms cut to 1 ms); "
                "capture: %s.\n\n```\n%s```\n\n",
                x->replay.capture, x->replay.text ? x->replay.text : "");
    fprintf(f, "Files: lab.json (every run), report.html, runs/<experiment>-r<round>.json, "
               "runs/<experiment>-1-<stage>.hlog (round 1 interval logs).\n");
    return lat_afile_commit(af);
}

/* ---- lab.json ------------------------------------------------------------------------------- */

static json_t *verdict_json(const lat_lab_verdict *v, int c) {
    json_t *o = json_object();
    char t[1024];
    lat_lab_verdict_text(v, t, sizeof t);
    json_object_set_new(o, "verdict", json_string(lat_lab_kind_name(v->kind)));
    json_object_set_new(o, "expected", json_string(lat_lab_kind_name(lat_lab_expected(c))));
    json_object_set_new(o, "matched", json_string(matched(v, c)));
    json_object_set_new(o, "confidence", json_real(v->confidence));
    json_object_set_new(o, "rounds_used", json_integer(v->rounds));
    json_object_set_new(o, "rounds_set_aside", json_integer(v->set_aside));
    json_object_set_new(o, "work_p50_ratio", lat_json_real_or_null(v->shift[LAT_LAB_Q50].ratio));
    json_object_set_new(o, "work_p50_shift_ns", lat_json_real_or_null(v->p50_shift_ns));
    json_object_set_new(o, "work_p50_below_granularity", json_boolean(v->p50_below_tick));
    json_object_set_new(o, "work_p999_ratio", lat_json_real_or_null(v->shift[LAT_LAB_Q999].ratio));
    json_object_set_new(o, "work_p9999_ratio",
                        lat_json_real_or_null(v->shift[LAT_LAB_Q9999].ratio));
    json_t *sh = json_array();
    for (int q = 0; q < LAT_LAB_NQ; q++) {
        const lat_lab_shift *z = &v->shift[q];
        json_t *e = json_object();
        json_object_set_new(e, "quantile", json_real(lat_lab_quantile_pct[q]));
        json_object_set_new(e, "ratio", lat_json_real_or_null(z->ratio));
        json_object_set_new(e, "lo", lat_json_real_or_null(z->lo));
        json_object_set_new(e, "hi", lat_json_real_or_null(z->hi));
        json_object_set_new(e, "p", lat_json_real_or_null(z->p));
        json_object_set_new(e, "rounds", json_integer(z->rounds));
        json_array_append_new(sh, e);
    }
    json_object_set_new(o, "shift_function", sh);
    json_t *shp = json_object(); /* ln r_tail - tail_log_multiple ln r50, ln scale */
    json_object_set_new(shp, "estimate", lat_json_real_or_null(v->shape_est));
    json_object_set_new(shp, "lo", lat_json_real_or_null(v->shape_lo));
    json_object_set_new(shp, "hi", lat_json_real_or_null(v->shape_hi));
    json_object_set_new(shp, "rounds", json_integer(v->shape_rounds));
    json_object_set_new(shp, "median", json_string(v->shape_on_mean ? "body mean" : "p50"));
    json_object_set_new(shp, "open", json_boolean(v->shape_open));
    json_object_set_new(o, "shape", shp);
    /* undecided only on intervals wider than the no-change band: the rounds
     * after which they would fit (null: no such promise) */
    json_object_set_new(o, "band_rounds",
                        v->band_rounds ? json_integer(v->band_rounds) : json_null());
    json_object_set_new(o, "e2e_p999_dispersion_ratio", lat_json_real_or_null(v->disp_ratio));
    json_object_set_new(o, "e2e_p999_dispersion_p", lat_json_real_or_null(v->disp_p));
    json_object_set_new(o, "work_body_mean_ratio", lat_json_real_or_null(v->mean_ratio));
    json_object_set_new(o, "work_body_mean_shift_ns", lat_json_real_or_null(v->mean_shift_ns));
    static const char *const where[2] = {"near", "far"};
    json_object_set_new(o, "decided_in",
                        v->decided_in >= 0 ? json_string(where[v->decided_in]) : json_null());
    json_t *pk = json_object();
    for (int i = 0; i < 2; i++)
        if (v->placement_kind[i] >= 0)
            json_object_set_new(pk, where[i],
                                json_pack("{s:s, s:i}", "verdict",
                                          lat_lab_kind_name(v->placement_kind[i]), "rounds",
                                          (int)v->placement_rounds[i]));
    json_object_set_new(o, "by_placement", pk);
    json_object_set_new(o, "reason", json_string(v->reason));
    json_object_set_new(o, "text", json_string(t));
    return o;
}

int lat_lab_write_json(const lat_lab_session *x, const lat_lab_result *res, const char *path) {
    json_t *doc = json_object();
    json_object_set_new(doc, "tool", json_string("latlab lab"));
    json_object_set_new(doc, "banner", json_string(x->banner));
    json_object_set_new(doc, "shape", json_string(lat_pipe_shape_name(x->cfg.pipe.shape)));
    json_object_set_new(doc, "oversubscribed", json_boolean(x->over));
    if (x->over) json_object_set_new(doc, "warning", json_string(LAT_PIPE_OVERSUB_STAMP));
    json_object_set_new(doc, "run_conditions", lat_runcond_json(&x->rcnd));
    json_object_set_new(doc, "seed", json_integer((json_int_t)res->seed));
    json_object_set_new(doc, "rounds", json_integer(res->rounds));
    json_object_set_new(doc, "wall_s", json_real(res->wall_s));
    json_object_set_new(doc, "stopped", json_string(res->stop));
    json_object_set_new(doc, "params", lat_lab_params_json(&x->cfg.params));
    const lat_lab_placement pl = res->placement;
    json_object_set_new(doc, "placement",
                        json_pack("{s:i, s:i, s:i, s:i, s:o, s:o, s:b}", "runs_measured",
                                  pl.measured, "near_runs", pl.near, "far_runs", pl.far,
                                  "moved_during_run", pl.during, "near_floor_ns",
                                  lat_json_real_or_null(pl.near_ns), "far_floor_ns",
                                  lat_json_real_or_null(pl.far_ns), "moved", pl.moved));
    json_t *ord = json_array();
    for (unsigned k = 0; k < res->rounds; k++) {
        json_t *r = json_array();
        for (int i = 0; i < LAT_LAB_NCONF; i++)
            json_array_append_new(r, json_string(lat_lab_conf_name(res->order[k][i])));
        json_array_append_new(ord, r);
    }
    json_object_set_new(doc, "order", ord);
    json_t *hist = json_array(); /* each verdict's kind after each round */
    for (unsigned k = 0; res->kinds && k < res->rounds; k++) {
        json_t *o = json_object();
        for (int x = 1; x < LAT_LAB_NCONF; x++)
            json_object_set_new(o, lat_lab_conf_name(x),
                                json_string(lat_lab_kind_name(res->kinds[k][x])));
        json_array_append_new(hist, o);
    }
    json_object_set_new(doc, "verdict_history", hist);
    json_t *vs = json_object();
    for (int c = 1; c < LAT_LAB_NCONF; c++)
        json_object_set_new(vs, lat_lab_conf_name(c), verdict_json(&res->verdict[c], c));
    json_object_set_new(doc, "verdicts", vs);
    json_object_set_new(doc, "runs", json_incref(x->jruns));
    json_t *sil = json_object();
    json_object_set_new(sil, "root", json_boolean(x->root));
    if (!x->root) json_object_set_new(sil, "note", json_string(x->silence_note));
    for (int i = 0; i < 2 && x->root; i++)
        json_object_set_new(sil, i ? "no-pin" : "baseline",
                            x->sil[i].text ? json_string(x->sil[i].text) : json_null());
    json_object_set_new(doc, "silence", sil);
    if (x->flight_done) {
        json_t *fl = json_object();
        json_object_set_new(fl, "experiment", json_string("alloc"));
        json_object_set_new(fl, "threshold_ns", json_integer((json_int_t)x->flight_thr));
        json_object_set_new(fl, "verdict", json_string(x->flight_text));
        json_object_set_new(fl, "gap", json_string(x->flight_gap));
        json_object_set_new(doc, "flight", fl);
    }
    if (x->replay.ran) {
        json_t *rp = json_object();
        json_object_set_new(rp, "capture", json_string(x->replay.capture));
        if (x->replay.json) json_object_set_new(rp, "runs", json_incref(x->replay.json));
        json_object_set_new(doc, "replay_round", rp);
    }
    if (x->noise) json_object_set_new(doc, "noise", json_incref(x->noise));
    int rc = lat_write_json_atomic(path, doc);
    json_decref(doc);
    return rc;
}

/* ---- plots and report.html ------------------------------------------------------------------ */

/* The files of lat__lab_interval_plot's figures 0, 1, 2. */
static const char *const iv_fig_file[3] = {"work-p50", "work-p999", "e2e-p999"};

void lat_lab_write_svgs(const lat_lab_session *x, const lat_lab_result *res) {
    char p[4300];
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        if (!lat_pipe_stage_present(s, x->cfg.pipe.shape, x->cfg.pipe.split_q1)) continue;
        int n;
        lat_plot *pl = lat__lab_stage_plot(res, s, &n);
        if (!pl) continue;
        snprintf(p, sizeof p, "%s/%s.svg", x->out, lat_pipe_stages[s].file);
        lat_plot_save_svg(pl, p);
        lat_plot_destroy(pl);
    }
    for (int c = 1; c < LAT_LAB_NCONF; c++) {
        char name[64], title[96];
        shift_svg_name(c, name, sizeof name);
        snprintf(title, sizeof title, "%s: shift function", lat_lab_conf_name(c));
        snprintf(p, sizeof p, "%s/%s", x->out, name);
        lat__lab_shift_svg(&res->verdict[c], title, x->cfg.params.no_change_ratio, p);
    }
    for (int w = 0; w < 3; w++) {
        size_t n;
        lat_plot *pl = lat__lab_interval_plot(res, w, &n);
        if (!pl) continue;
        snprintf(p, sizeof p, "%s/intervals-%s.svg", x->out, iv_fig_file[w]);
        lat_plot_save_svg(pl, p);
        lat_plot_destroy(pl);
    }
}

static void html_confs(lat_report *rep, const lat_lab_session *x, const lat_lab_result *res) {
    lat_report_section(rep, "Platform account and tail attribution");
    for (int c = 0; c < LAT_LAB_NCONF; c++) {
        conf_sum s;
        sum_conf(res, c, &s);
        char buf[1024], line[1400];
        lat_lab_account_text(buf, sizeof buf, x->cfg.pipe.shape, s.thr, &s.cpu, x->gap_us);
        snprintf(line, sizeof line, "%s: %u usable runs, %u set aside and repeated; %s",
                 lat_lab_conf_name(c), s.usable, s.set_aside, buf);
        lat_report_text(rep, line);
        lat_lab_attrib_text(buf, sizeof buf, x->cfg.pipe.shape, s.tail);
        if (buf[0]) {
            snprintf(line, sizeof line, "%s attribution: %s", lat_lab_conf_name(c), buf);
            lat_report_text(rep, line);
        }
    }
}

int lat_lab_write_html(const lat_lab_session *x, const lat_lab_result *res, const char *path) {
    lat_report *rep = NULL;
    int rc = lat_report_create("latlab lab: the pipeline experiments", &rep);
    if (rc) return rc;
    lat_report_text(rep, x->banner);
    if (x->over) lat_report_verdict(rep, LAT_VERDICT_WARN, LAT_PIPE_OVERSUB_STAMP);
    char buf[512];
    snprintf(buf, sizeof buf, "%u rounds in %.1f s (stopped: %s); order seed %" PRIu64, res->rounds,
             res->wall_s, res->stop, res->seed);
    lat_report_text(rep, buf);
    lat__lab_html_verdicts(rep, res, x->cfg.params.no_change_ratio);
    lat_report_section(rep, "Run conditions");
    lat_report_kv(rep, "cpu model", x->rcnd.cpu_model);
    lat_report_kv(rep, "cpus online", x->rcnd.cpus_online);
    lat_report_kv(rep, "kernel", x->rcnd.kernel);
    lat_report_kv(rep, "virtualised", x->rcnd.virt);
    lat_report_kv(rep, "isolated", x->rcnd.isolated);
    html_confs(rep, x, res);
    lat__lab_html_reported(rep, x, res);
    if (x->flight_done) {
        lat_report_section(rep, "Flight recorder (alloc)");
        lat_report_verdict(rep, LAT_VERDICT_INFO, x->flight_text);
        if (x->flight_gap[0]) lat_report_text(rep, x->flight_gap);
        if (x->flight_dump) lat_report_pre(rep, "the window around the outlier", x->flight_dump);
    }
    lat__lab_html_silence(rep, x);
    lat_lab_prof_report(&x->prof, rep);
    rc = lat_report_write(rep, path);
    lat_report_destroy(rep);
    return rc;
}
