/* account.c - the platform account of a pipeline run (see lab_account.h):
 * per hot thread what the platform took, and the tail samples that
 * overlapped a gap. */
#include "latlab/lab_account.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "latlab/clock.h"

void lat_lab_thread_accounting(const lat_pipe_config *pc, const lat_pipe_result *r,
                               lat_lab_thread_acct out[LAT_PIPE_NHOT]) {
    const lat_clock_cal *cal = pc->cal ? pc->cal : lat_clock_default();
    for (int k = 0; k < LAT_PIPE_NHOT; k++) {
        lat_lab_thread_acct *a = &out[k];
        const lat_pipe_counters *t = &r->thr[k];
        memset(a, 0, sizeof *a);
        if (!t->ran || !r->gaps[k]) continue;
        a->ran = true;
        a->gaps = r->gaps[k]->count;
        a->lost_ns = (double)lat_clock_to_ns(cal, r->gaps[k]->total);
        a->longest_ns = (double)lat_clock_to_ns(cal, r->gaps[k]->longest);
        /* the gap account starts at the run's start and the loop's clock when
         * the thread reached its loop: a thread that started late lost that
         * span too, so the run it had is the larger of the two */
        a->lost_share = t->loop_ns ? a->lost_ns / fmax((double)t->loop_ns, a->lost_ns) : 0;
        a->wait_ns = r->plat[k].have_schedstat ? (double)r->plat[k].wait_ns : NAN;
        a->vol = r->plat[k].vol_switches;
        a->invol = r->plat[k].invol_switches;
        memcpy(a->hist, r->gaps[k]->hist, sizeof a->hist);
    }
}

static void fmt_ms(char *b, size_t n, double ns) {
    if (ns >= 1e6)
        snprintf(b, n, "%.1f ms", ns / 1e6);
    else
        snprintf(b, n, "%.1f us", ns / 1e3);
}

void lat_lab_platform_text(char *buf, size_t len, int shape, const lat_lab_thread_acct *thr,
                           const lat_pipe_cpustat *cpu, double gap_us) {
    size_t o = 0;
    buf[0] = 0;
    for (int k = 0; k < LAT_PIPE_NHOT && o < len; k++) {
        const lat_lab_thread_acct *a = &thr[k];
        if (!a->ran) continue;
        char lost[32], lng[32], wait[64] = "";
        fmt_ms(lost, sizeof lost, a->lost_ns);
        fmt_ms(lng, sizeof lng, a->longest_ns);
        if (!isnan(a->wait_ns)) {
            char w[32];
            fmt_ms(w, sizeof w, a->wait_ns);
            snprintf(wait, sizeof wait, "; run-queue wait %s", w);
        }
        int n =
            snprintf(buf + o, len - o,
                     "%s%s lost %s (%.1f%%) in %" PRIu64
                     " gaps >= %.0f us, longest %s%s; switches %" PRIu64 " vol %" PRIu64 " invol",
                     o ? "; " : "", lat_pipe_role_name(shape, k), lost, 100 * a->lost_share,
                     a->gaps, gap_us, lng, wait, a->vol, a->invol);
        if (n < 0) return;
        o += (size_t)n;
    }
    if (o < len && cpu && !isnan(cpu->steal_pct))
        snprintf(buf + o, len - o, "; hot CPUs: steal %.1f%%, irq %.1f%%, softirq %.1f%%",
                 cpu->steal_pct, cpu->irq_pct, cpu->softirq_pct);
}

void lat_lab_attrib_text(char *buf, size_t len, int shape, const lat_pipe_tail *tail) {
    size_t o = 0;
    buf[0] = 0;
    for (int s = 0; s < LAT_PIPE_NSTAGES && o < len; s++) {
        const lat_pipe_tail *t = &tail[s];
        if (!t->above99 && !t->above999) continue;
        char who[48] = "";
        if (t->thread999 >= 0)
            snprintf(who, sizeof who, " (mostly %s gaps)", lat_pipe_role_name(shape, t->thread999));
        int n = snprintf(buf + o, len - o,
                         "%s%s: %.0f%% of %" PRIu64 " samples above p99 and %.0f%% of %" PRIu64
                         " above p99.9 overlap a gap%s",
                         o ? "; " : "", lat_pipe_stage_name(s),
                         t->above99 ? 100.0 * (double)t->above99_gap / (double)t->above99 : 0.0,
                         t->above99,
                         t->above999 ? 100.0 * (double)t->above999_gap / (double)t->above999 : 0.0,
                         t->above999, who);
        if (n < 0) return;
        o += (size_t)n;
    }
}

void lat_lab_print_accounting(FILE *f, const lat_pipe_config *c, const lat_pipe_result *r) {
    lat_lab_thread_acct thr[LAT_PIPE_NHOT];
    lat_lab_thread_accounting(c, r, thr);
    char buf[1024];
    double gap_us = (double)(c->gap_threshold_ns ? c->gap_threshold_ns : LAT_GAPS_DEFAULT_NS) / 1e3;
    lat_lab_platform_text(buf, sizeof buf, c->shape, thr, &r->cpu, gap_us);
    fprintf(f, "platform: %s\n", buf);
    lat_lab_attrib_text(buf, sizeof buf, c->shape, r->tail);
    if (buf[0]) fprintf(f, "attribution: %s\n", buf);
    if (r->flight_gap[0]) fprintf(f, "flight recorder: %s\n", r->flight_gap);
}
