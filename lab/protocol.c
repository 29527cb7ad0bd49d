/* protocol.c - the pipeline lab's protocol (see lab.h): interleaved,
 * shuffled rounds of the four configurations through the pipeline
 * (workloads/pipeline.c), each run reduced to the figures of the samples
 * per-sample censoring kept (a cell) and its platform account, runs whose
 * kept samples cannot support the p99.9 repeated, the cache-line floor
 * (core/pingpong.c) before and after every run, and the verdict rule
 * (verdict.c) after every round. */
#include "latlab/lab.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_internal.h"
#include "lab_internal.h"
#include "latlab/censor.h"
#include "latlab/clock.h"
#include "latlab/pingpong.h"
#include "latlab/pipeline_report.h"
#include "latlab/stats.h"
#include "latlab/topo.h"

void lat_lab_conf_apply(int conf, lat_pipe_config *c) {
    c->alloc = conf == LAT_LAB_ALLOC;
    c->share_line = conf == LAT_LAB_SHARE;
    c->no_pin = conf == LAT_LAB_NOPIN;
}

/* ---- the configuration -------------------------------------------------------------------- */

void lat_lab_config_default(lat_lab_config *c) {
    memset(c, 0, sizeof *c);
    lat_pipe_config_default(&c->pipe);
    /* 0.15 s at the default rate: a run's p99.9 moves from run to run with
     * the host's state far more than with its sample count, so shorter runs
     * give more paired rounds per second, as long as a run keeps the 10,000
     * samples a p99.9 needs (V1; the measurements: docs/lab-evidence.md) */
    c->pipe.events = 30000;
    lat_lab_params_default(&c->params);
    c->pipe.interval_ns = 100000000ull;
    c->seed = 1;
    c->min_rounds = 10;
    c->max_rounds = 80;
    c->budget_s = 120;
    c->max_repeats = 2;
    c->max_lengthen = 8;
    c->max_run_lost = 0.20;
    c->floor_round_trips = 20000;
    c->pipe.cal = lat_clock_default();
    /* the tick of a stage figure: the counter's step, the spacing of the
     * values a stamped duration can take.  Not the stamp's cost: that is a
     * constant inside both sides of a comparison, not a resolution. */
    uint64_t g = lat_clock_granularity_cycles(4000);
    double tick = (double)g / c->pipe.cal->cycles_per_ns;
    c->params.tick_ns = tick > 0 ? tick : 0.1;
    lat_lab_config_derive(c);
}

void lat_lab_config_derive(lat_lab_config *c) {
    c->params.min_rounds = c->min_rounds;
    c->params.nhot = c->pipe.shape == LAT_PIPE_FULL ? 3 : 2;
    lat_cpuset mine;
    c->params.ncpus = lat_thread_affinity(&mine) == 0 ? lat_cpuset_count(&mine) : 2;
}

/* ---- the protocol ------------------------------------------------------------------------ */

static double nan_sum(double a, double b) {
    if (isnan(a)) return b;
    if (isnan(b)) return a;
    return a + b;
}

const char *lat__lab_thousands(uint64_t v, char *buf, size_t len) {
    char d[24];
    int n = snprintf(d, sizeof d, "%" PRIu64, v);
    size_t o = 0;
    for (int i = 0; i < n && o + 1 < len; i++) {
        if (i && (n - i) % 3 == 0 && o + 2 < len) buf[o++] = ',';
        buf[o++] = d[i];
    }
    if (len) buf[o < len ? o : len - 1] = '\0';
    return buf;
}

/* ns: the mean of the samples in h at or below its p99 (NAN: empty). */
static double body_mean(const lat_hist *h) {
    if (!h || lat_hist_total(h) == 0) return NAN;
    int64_t cut = lat_hist_value_at_percentile(h, 99);
    lat_hist_iter it;
    lat_hist_iter_recorded(&it, h);
    double sum = 0, n = 0;
    while (lat_hist_iter_next(&it)) {
        if (it.value > cut) break;
        sum += (double)lat_hist_median_equivalent(h, it.value) * (double)it.count_at_value;
        n += (double)it.count_at_value;
    }
    return n > 0 ? sum / n : NAN;
}

/* A stage's kept figures at lat_lab_quantile_pct, IPW-corrected at the
 * stage's gap rate; NAN where the kept samples cannot support the quantile. */
static void kept_quantiles(const lat_pipe_censor_fig *f, double *q) {
    int64_t v[LAT_LAB_NQ] = {0};
    bool ok = f->net && lat_censor_ipw_percentiles(f->net, f->gap_rate_hz / 1e9,
                                                   lat_lab_quantile_pct, v, LAT_LAB_NQ) == 0;
    for (int i = 0; i < LAT_LAB_NQ; i++)
        q[i] = ok && lat_censor_supports(f->kept, lat_lab_quantile_pct[i]) ? (double)v[i] : NAN;
}

void lat__lab_cell_of(const lat_pipe_result *r, lat_lab_cell *cell) {
    memset(cell, 0, sizeof *cell);
    const lat_pipe_censor_fig *w = &r->censor[LAT_PIPE_WORK];
    cell->kept = w->kept;
    cell->kept_share = r->censor_judged ? (double)w->kept / (double)r->censor_judged : NAN;
    kept_quantiles(w, cell->work_q);
    kept_quantiles(&r->censor[LAT_PIPE_E2E], cell->e2e_q);
    cell->work_mean = body_mean(w->net);
    cell->usable = lat_censor_supports(w->kept, 99.9);
    cell->placement = LAT_LAB_NEAR;
}

/* Per event: the work stage's allocation calls (the worker's count), the
 * hot threads' cache misses; their instructions per cycle.  NAN where the
 * build or the machine cannot count (no counting allocator, no PMU). */
static void count_rates(const lat_pipe_result *r, lat_lab_run_rec *rec) {
    double ev = r->events ? (double)r->events : NAN, cyc = 0, ins = 0, miss = 0;
    for (int k = 0; k < LAT_PIPE_NHOT; k++) {
        const lat_pipe_counters *t = &r->thr[k];
        if (!t->ran) continue;
        cyc += t->cycles, ins += t->instructions, miss += t->cache_misses;
    }
    const lat_pipe_counters *w = &r->thr[LAT_PIPE_WORKER];
    rec->allocs_per_event = w->ran ? w->allocs / ev : NAN;
    rec->ipc = cyc > 0 ? ins / cyc : NAN;
    rec->misses_per_event = miss / ev;
}

/* Reduce a finished run to its record: figures, platform account, intervals. */
static int reduce_run(const lat_lab_config *c, const lat_pipe_config *pc, const lat_pipe_result *r,
                      lat_lab_run_rec *rec) {
    (void)c;
    static const double ps[] = {50, 99, 99.9};
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        rec->p50[s] = rec->p99[s] = rec->p999[s] = rec->max[s] = NAN;
        if (!r->h[s]) continue;
        int64_t v[3];
        lat_hist_values_at_percentiles(r->h[s], ps, v, 3);
        rec->p50[s] = (double)v[0], rec->p99[s] = (double)v[1], rec->p999[s] = (double)v[2];
        rec->max[s] = (double)lat_hist_max(r->h[s]);
        rec->tail[s] = r->tail[s];
    }
    rec->wall_ns = (double)r->wall_ns;
    rec->cpu = r->cpu;
    rec->faults = rec->cs = rec->migrations = NAN;
    lat_lab_thread_accounts(pc, r, rec->thr);
    for (int k = 0; k < LAT_PIPE_NHOT; k++) {
        const lat_pipe_counters *t = &r->thr[k];
        if (!rec->thr[k].ran) continue;
        rec->faults = nan_sum(rec->faults, t->page_faults);
        rec->cs = nan_sum(rec->cs, t->ctx_switches);
        rec->migrations = nan_sum(rec->migrations, t->migrations);
    }
    count_rates(r, rec);
    rec->kept_work = rec->kept_e2e = NAN;
    if (r->censor_judged) {
        rec->kept_work = (double)r->censor[LAT_PIPE_WORK].kept / (double)r->censor_judged;
        rec->kept_e2e = (double)r->censor[LAT_PIPE_E2E].kept / (double)r->censor_judged;
    }
    lat__lab_cell_of(r, &rec->cell);
    rec->iv = r->niv ? lat__calloc(r->niv, sizeof *rec->iv) : NULL;
    if (r->niv && !rec->iv) return -ENOMEM;
    uint64_t expect = pc->interval_ns ? pc->rate_hz * pc->interval_ns / 1000000000ull : 0;
    for (size_t i = 0; i < r->niv; i++) {
        const lat_pipe_interval *s = &r->iv[i];
        if (!s->count || s->count < expect / 4) continue; /* partial last interval */
        lat_lab_fig *f = &rec->iv[rec->niv++];
        f->work_p50 = (double)s->p50[LAT_PIPE_WORK], f->work_p99 = (double)s->p99[LAT_PIPE_WORK];
        f->work_p999 = (double)s->p999[LAT_PIPE_WORK], f->work_mean = s->body_mean[LAT_PIPE_WORK];
        f->work_max = (double)s->max[LAT_PIPE_WORK];
        f->e2e_p50 = (double)s->p50[LAT_PIPE_E2E], f->e2e_p999 = (double)s->p999[LAT_PIPE_E2E];
        f->tput_hz = s->tput_hz;
        for (int k = 0; k < LAT_PIPE_NHOT; k++) {
            double l = (double)s->lost_ns[k] / (double)pc->interval_ns;
            if (l > f->lost_share) f->lost_share = l;
        }
    }
    /* set aside only when the kept samples cannot support the p99.9 */
    if (!rec->cell.usable) {
        char k[32], need[32];
        rec->set_aside = true;
        snprintf(rec->why, sizeof rec->why,
                 "set aside: kept %s work samples < %s needed for the p99.9",
                 lat__lab_thousands(rec->cell.kept, k, sizeof k),
                 lat__lab_thousands(lat_censor_min_kept(99.9), need, sizeof need));
    }
    return 0;
}

const lat_lab_run_rec *lat_lab_cell_run(const lat_lab_result *res, int conf, unsigned round) {
    const lat_lab_run_rec *best = NULL;
    for (size_t i = 0; res && i < res->nruns; i++) {
        const lat_lab_run_rec *r = &res->runs[i];
        if (r->conf == conf && r->round == round && !r->set_aside) best = r;
    }
    return best;
}

static int decide_all(const lat_lab_config *c, lat_lab_result *res) {
    unsigned n = res->rounds;
    double cut = lat__lab_placement_cut(res);
    lat_lab_cell *cells = lat__calloc((size_t)LAT_LAB_NCONF * (n ? n : 1), sizeof *cells);
    if (!cells) return -ENOMEM;
    for (int x = 0; x < LAT_LAB_NCONF; x++)
        for (unsigned k = 0; k < n; k++) {
            const lat_lab_run_rec *r = lat_lab_cell_run(res, x, k);
            lat_lab_cell *cell = &cells[(size_t)x * n + k];
            if (!r) continue; /* calloc: not usable */
            *cell = r->cell;
            cell->placement = (unsigned)lat__lab_placement_at(r, cut);
        }
    int rc = 0;
    for (int x = 1; x < LAT_LAB_NCONF && !rc; x++)
        rc = lat_lab_decide(&c->params, x, cells, cells + (size_t)x * n, n, &res->verdict[x]);
    if (!rc) lat_lab_apply_aa(res->verdict);
    lat__free(cells);
    return rc;
}

/* Every verdict decided, and each (the A/A control's too) the same as after
 * the previous round: the rule is looked at after every round, and one look's
 * fluke must not stop the protocol (optional stopping inflates the error
 * rate).  The A/A control need not be decided: on a counter too coarse to
 * claim "no change" it stays inconclusive, and that is its answer; but while
 * the rounds left would narrow its intervals into the band, the lab waits.  Nor need
 * an experiment this host cannot show (host_bound: too few CPUs for no-pin,
 * share-line seen only near), once it reads so twice.  An
 * experiment undecided on its shape alone counts as decided when the rounds
 * the budget still allows (more) could not decide it, even at
 * reach_est_multiple times its estimate (lat_lab_out_of_reach): both its
 * median and its tail grew by about the shape's multiple, and more rounds
 * would only narrow an interval around 0.  *reach: how many were. */
static bool out_of_reach(const lat_lab_config *c, const lat_lab_verdict *v, unsigned more) {
    /* V19: a shape of fewer than reach_min_multiple times min_rounds rounds
     * is not judged: its estimate moves too much from round to round; with
     * no rounds left the budget is what stops the lab */
    return more > 0 && v->shape_rounds >= c->params.reach_min_multiple * c->params.min_rounds &&
           lat_lab_out_of_reach(&c->params, v, more);
}

/* V20: the A/A control undecided only because its intervals are still wider
 * than the no-change band, and the rounds the budget allows would narrow them
 * into it: the lab waits for it.  One beyond reach does not hold the lab. */
static bool aa_within_reach(const lat_lab_verdict *v, unsigned more) {
    return v->kind == LAT_LAB_UNDECIDED && v->band_rounds > 0 && v->band_rounds <= v->rounds + more;
}

bool lat__lab_stop_ready(const lat_lab_config *c, const lat_lab_result *res, const int *prev,
                         unsigned more, int *reach) {
    *reach = 0;
    for (int x = 1; x < LAT_LAB_NCONF; x++) {
        const lat_lab_verdict *v = &res->verdict[x];
        bool out = out_of_reach(c, v, more);
        if (x != LAT_LAB_AA && v->kind == LAT_LAB_UNDECIDED && !out && !v->host_bound) return false;
        if (x == LAT_LAB_AA && aa_within_reach(v, more)) return false;
        if (v->kind != prev[x]) return false;
        *reach += x != LAT_LAB_AA && out;
    }
    return true;
}

/* The stop's note on each verdict left out of reach. */
static void note_out_of_reach(const lat_lab_config *c, lat_lab_result *res, unsigned more) {
    for (int x = 1; x < LAT_LAB_AA; x++) {
        lat_lab_verdict *v = &res->verdict[x];
        if (!out_of_reach(c, v, more)) continue;
        size_t len = strlen(v->reason);
        snprintf(v->reason + len, sizeof v->reason - len,
                 "; [V19] out of reach: the %u rounds the budget still allows would not decide "
                 "the shape (%+.2f [%+.2f, %+.2f] after %u rounds) even at twice its estimate, "
                 "so the lab stopped",
                 more, v->shape_est, v->shape_lo, v->shape_hi, v->shape_rounds);
    }
}

static int push_rec(lat_lab_result *res, size_t *cap, const lat_lab_run_rec *rec) {
    if (res->nruns == *cap) {
        size_t nc = *cap ? 2 * *cap : 64;
        lat_lab_run_rec *n = lat__calloc(nc, sizeof *n);
        if (!n) return -ENOMEM;
        if (res->runs) memcpy(n, res->runs, res->nruns * sizeof *n);
        lat__free(res->runs);
        res->runs = n;
        *cap = nc;
    }
    res->runs[res->nruns++] = *rec;
    return 0;
}

static int merge_run(lat_lab_result *res, int conf, const lat_pipe_result *r) {
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        if (!r->h[s]) continue;
        if (!res->merged[conf][s]) {
            int rc = lat_hist_create(1, 100000000000ll, 3, &res->merged[conf][s]);
            if (rc) return rc;
        }
        lat_hist_add(res->merged[conf][s], r->h[s]);
    }
    return 0;
}

/* The cache-line round trip between the first two hot CPUs (NAN: not
 * measured, or the measurement failed). */
static double measure_floor(const lat_lab_config *c) {
    if (!c->floor_round_trips || c->pipe.cpus[0] < 0 || c->pipe.cpus[1] < 0) return NAN;
    lat_pingpong_result l;
    return lat_pingpong(c->pipe.cpus[0], c->pipe.cpus[1], c->floor_round_trips, &l) == 0 ? l.p50_ns
                                                                                         : NAN;
}

/* One configuration in one round: run, repeat while set_aside. */
static int run_cell(const lat_lab_config *c, lat_lab_result *res, size_t *cap, int conf,
                    unsigned round, uint64_t t0, uint64_t events) {
    for (unsigned att = 0; att <= c->max_repeats; att++) {
        /* no repeat once the budget is spent: the round is then set aside */
        if (att > 0 && (double)(lat_mono_ns() - t0) / 1e9 > c->budget_s) break;
        lat_pipe_config pc = c->pipe;
        pc.events = events;
        lat_lab_conf_apply(conf, &pc);
        char prefix[4096];
        if (c->hlog_dir && round == 0) {
            snprintf(prefix, sizeof prefix, "%s/%s-1-", c->hlog_dir, lat_lab_conf_name(conf));
            pc.hlog_prefix = prefix;
        }
        const lat_hist *b999 = res->merged[LAT_LAB_BASE][LAT_PIPE_E2E];
        if (conf == LAT_LAB_ALLOC && b999 && lat_hist_total(b999) > 0)
            pc.flight_threshold_ns = (uint64_t)lat_hist_value_at_percentile(b999, 99.9);
        double floor_before = measure_floor(c);
        if (c->around_run) c->around_run(c->ud, conf, round, att, 1, &pc);
        lat_pipe_result r;
        int rc = lat_pipe_run(&pc, &r);
        if (c->around_run) c->around_run(c->ud, conf, round, att, 0, &pc);
        double floor_after = rc ? NAN : measure_floor(c);
        if (rc) {
            snprintf(res->log_error_path, sizeof res->log_error_path, "%s", r.log_error_path);
            return rc;
        }
        if (r.log_error) { /* a full disk: stop, never report from half the logs */
            rc = r.log_error;
            snprintf(res->log_error_path, sizeof res->log_error_path, "%s", r.log_error_path);
            lat_pipe_result_fini(&r);
            return rc;
        }
        lat_lab_run_rec rec;
        memset(&rec, 0, sizeof rec);
        rec.conf = conf, rec.round = round, rec.attempt = att;
        rec.floor_ns = floor_before, rec.floor_after_ns = floor_after;
        rc = reduce_run(c, &pc, &r, &rec);
        if (!rc && !rec.set_aside) rc = merge_run(res, conf, &r);
        if (!rc && c->on_run) c->on_run(c->ud, &rec, &pc, &r);
        lat_pipe_result_fini(&r);
        if (!rc) rc = push_rec(res, cap, &rec);
        if (rc) {
            lat__free(rec.iv);
            return rc;
        }
        if (!rec.set_aside) break;
    }
    return 0;
}

/* After round k: a run set aside for too few kept samples lengthens the runs
 * of the rounds after it by what it lacked and a quarter more, within
 * max_lengthen times the configured length and within what the budget
 * leaves for the rounds still needed (round_s: what round k took at
 * `events`).  Returns the new length; the note says what was done. */
static uint64_t lengthen(const lat_lab_config *c, lat_lab_result *res, unsigned k, uint64_t events,
                         double round_s, double left_s) {
    uint64_t need = lat_censor_min_kept(99.9), least = UINT64_MAX;
    for (size_t i = 0; i < res->nruns; i++) {
        const lat_lab_run_rec *r = &res->runs[i];
        if (r->round == k && r->set_aside && r->cell.kept < least) least = r->cell.kept;
    }
    if (least == UINT64_MAX || c->max_lengthen <= 1) return events;
    double want = (double)events * (double)need * 1.25 / (double)(least ? least : 1);
    double cap = (double)c->pipe.events * c->max_lengthen;
    unsigned todo = c->min_rounds > k + 1 ? c->min_rounds - (k + 1) : 1;
    double fit = round_s > 0 ? (double)events * left_s / (round_s * todo) : cap;
    double n = ceil(fmin(want, fmin(cap, fit)) / 1000) * 1000;
    if (n <= (double)events) return events;
    char from[32], to[32], kept[32], nd[32];
    snprintf(res->lengthened, sizeof res->lengthened,
             "runs lengthened from %s to %s events after round %u (a run kept %s work samples, "
             "%s needed)%s",
             lat__lab_thousands(c->pipe.events, from, sizeof from),
             lat__lab_thousands((uint64_t)n, to, sizeof to), k + 1,
             lat__lab_thousands(least, kept, sizeof kept), lat__lab_thousands(need, nd, sizeof nd),
             want > n + 1000
                 ? (cap < fit ? "; no longer: the length cap" : "; no longer: the budget")
                 : "");
    return (uint64_t)n;
}

int lat_lab_run(const lat_lab_config *c, lat_lab_result *res) {
    if (!c || !res || c->max_rounds == 0 || c->min_rounds > c->max_rounds ||
        c->pipe.interval_ns == 0)
        return -EINVAL;
    memset(res, 0, sizeof *res);
    res->seed = c->seed;
    res->order = lat__calloc(c->max_rounds, sizeof *res->order);
    res->kinds = lat__calloc(c->max_rounds, sizeof *res->kinds);
    if (!res->order || !res->kinds) {
        lat_lab_result_fini(res);
        return -ENOMEM;
    }
    lat_stats_rng g = {c->seed};
    size_t cap = 0;
    uint64_t t0 = lat_mono_ns();
    int rc = 0;
    snprintf(res->stop, sizeof res->stop, "the round limit (%u) was reached", c->max_rounds);
    int prev[LAT_LAB_NCONF] = {0};
    uint64_t events = c->pipe.events;
    double round_s = 0; /* the last round's time, at the current length */
    for (unsigned k = 0; k < c->max_rounds && !rc; k++) {
        double spent = (double)(lat_mono_ns() - t0) / 1e9;
        /* rounds the budget still allows, at this lab's pace so far */
        double per = k ? fmax(spent / k, round_s) : 0;
        double pace = k ? (c->budget_s - spent) / per - 1.5 : 0;
        unsigned more = pace > 0 ? (unsigned)fmin(pace, c->max_rounds - k) : 0;
        int reach;
        if (k > c->min_rounds && lat__lab_stop_ready(c, res, prev, more, &reach)) {
            snprintf(res->stop, sizeof res->stop,
                     "every verdict decided%s after %u rounds (the same after %u)",
                     reach ? ", or out of reach of the rounds left," : "", k, k - 1);
            note_out_of_reach(c, res, more);
            break;
        }
        if (k > 0 && spent + 1.5 * per > c->budget_s) { /* a round can run long */
            snprintf(res->stop, sizeof res->stop,
                     "one more round (about %.1f s) would overrun the time budget (%.0f s, %.1f s "
                     "spent) after %u rounds",
                     per, c->budget_s, spent, k);
            break;
        }
        int *ord = res->order[k];
        for (int i = 0; i < LAT_LAB_NCONF; i++)
            ord[i] = i;
        lat_stats_shuffle(&g, ord, LAT_LAB_NCONF);
        uint64_t r0 = lat_mono_ns();
        for (int i = 0; i < LAT_LAB_NCONF && !rc; i++)
            rc = run_cell(c, res, &cap, ord[i], k, t0, events);
        res->rounds = k + 1;
        res->events = events;
        round_s = (double)(lat_mono_ns() - r0) / 1e9;
        uint64_t longer = rc ? events
                             : lengthen(c, res, k, events, round_s,
                                        c->budget_s - (double)(lat_mono_ns() - t0) / 1e9);
        round_s *= (double)longer / (double)events;
        events = longer;
        for (int x = 0; x < LAT_LAB_NCONF; x++)
            prev[x] = res->verdict[x].kind;
        if (!rc) rc = decide_all(c, res);
        for (int x = 0; x < LAT_LAB_NCONF; x++)
            res->kinds[k][x] = res->verdict[x].kind;
    }
    res->wall_s = (double)(lat_mono_ns() - t0) / 1e9;
    lat_lab_placement_of(res, &res->placement);
    if (rc) { /* a failed protocol keeps only which log failed, for the message */
        char path[sizeof res->log_error_path];
        memcpy(path, res->log_error_path, sizeof path);
        lat_lab_result_fini(res);
        memcpy(res->log_error_path, path, sizeof path);
    }
    return rc;
}

void lat_lab_result_fini(lat_lab_result *res) {
    if (!res) return;
    for (size_t i = 0; i < res->nruns; i++)
        lat__free(res->runs[i].iv);
    lat__free(res->runs);
    lat__free(res->order);
    lat__free(res->kinds);
    for (int x = 0; x < LAT_LAB_NCONF; x++)
        for (int s = 0; s < LAT_PIPE_NSTAGES; s++)
            lat_hist_destroy(res->merged[x][s]);
    memset(res, 0, sizeof *res);
}
