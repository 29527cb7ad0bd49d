/* bench_diag.c - the order-book bench's diagnosis rules (bench_diag.h):
 * measured figures in, which rules fired out.  No I/O, no host knowledge. */
#include "bench_diag.h"

#include <string.h>

void book_diag_inputs(const book_bench_result *r, book_diag_in *in) {
    memset(in, 0, sizeof *in);
    in->ops = r->health.ops;
    memcpy(in->ops_by_kind, r->ops_by_kind, sizeof in->ops_by_kind);
    memcpy(in->tail_by_kind, r->tail_by_kind, sizeof in->tail_by_kind);
    in->tail_samples = r->tail_samples;
    in->mean_events = r->mean_events;
    in->tail_mean_events = r->tail_mean_events;
    in->elapsed_s = r->elapsed_s;
    in->cpu_s = r->cpu_s;
    in->p50_ns = lat_hist_value_at_percentile(&r->total, 50);
    in->tail_threshold_ns = r->tail_threshold_ns;
    in->max_ns = lat_hist_max(&r->total);
    in->minor_faults = r->minor_faults;
    in->major_faults = r->major_faults;
    in->vol_switches = r->vol_switches;
    in->invol_switches = r->invol_switches;
    in->steal_ms = r->steal_ms;
    in->open_loop = r->open_loop;
    in->late_ops = r->late_ops;
}

/* KIND: the most over-represented kind among the tail samples. */
static void kind_rule(const book_diag_in *in, book_diag *d) {
    d->kind = -1;
    for (int i = 0; i < BOOK_OPK_COUNT; i++) {
        if (!in->ops_by_kind[i] || !in->tail_samples || !in->ops) continue;
        double share_tail = (double)in->tail_by_kind[i] / (double)in->tail_samples;
        double share_all = (double)in->ops_by_kind[i] / (double)in->ops;
        double ratio = share_tail / share_all;
        if (share_tail >= BOOK_DIAG_TAIL_SHARE && ratio >= BOOK_DIAG_OVERREP &&
            ratio > d->kind_ratio)
            d->kind = i, d->kind_ratio = ratio;
    }
    if (d->kind < 0) d->kind_ratio = 0;
}

/* WAITED and OFF_CPU: the thread's share of the window on a CPU. */
static void cpu_rule(const book_diag_in *in, book_diag *d) {
    d->cpu_known = in->elapsed_s > 0 && in->cpu_s > 0;
    if (!d->cpu_known) return;
    d->cpu_share = in->cpu_s / in->elapsed_s;
    if (d->cpu_share > 1) d->cpu_share = 1;
    d->waited = d->cpu_share < BOOK_DIAG_WAIT_SHARE;
    if (d->cpu_share < BOOK_DIAG_OFFCPU_SHARE &&
        in->tail_threshold_ns > BOOK_DIAG_TAIL_OVER_P50 * in->p50_ns) {
        d->off_cpu = true;
        d->tail_over_p50 = (double)in->tail_threshold_ns / (double)in->p50_ns;
    }
}

void book_diagnose(const book_diag_in *in, book_diag *d) {
    memset(d, 0, sizeof *d);
    kind_rule(in, d);
    d->more_work =
        in->mean_events > 0 && in->tail_mean_events >= BOOK_DIAG_MORE_WORK * in->mean_events;
    cpu_rule(in, d);
    d->interruptions = in->minor_faults + in->major_faults + in->invol_switches + in->vol_switches;
    d->max_over_tail =
        in->tail_threshold_ns ? (double)in->max_ns / (double)in->tail_threshold_ns : 0.0;
    d->stall = (d->interruptions || in->steal_ms > 0) &&
               in->max_ns > BOOK_DIAG_MAX_OVER_TAIL * in->tail_threshold_ns;
    if (in->open_loop) {
        d->late_pct = in->ops ? 100.0 * (double)in->late_ops / (double)in->ops : 0.0;
        d->backlog = d->late_pct > BOOK_DIAG_LATE_PCT;
    }
    d->identified = d->kind >= 0 || d->more_work || d->off_cpu || d->backlog;
}
