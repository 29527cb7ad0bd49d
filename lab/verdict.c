/* verdict.c - the pipeline lab's verdict rule (see lab_verdict.h).
 *
 * (Being rebuilt on the shift-function model: not decided yet.) */
#include "latlab/lab_verdict.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_internal.h"
#include "latlab/clock.h"
#include "latlab/stats.h"

static const char *const conf_names[LAT_LAB_NCONF] = {"baseline", "alloc", "share-line", "no-pin",
                                                      "aa-control"};
static const char *const conf_flags[LAT_LAB_NCONF] = {"no flags", "--alloc", "--share-line",
                                                      "--no-pin", "no flags (the baseline again)"};
static const char *const kind_names[LAT_LAB_NKINDS] = {"inconclusive", "no significant change",
                                                       "tail disease", "median/throughput disease",
                                                       "variance disease"};

const char *lat_lab_conf_name(int conf) {
    return conf >= 0 && conf < LAT_LAB_NCONF ? conf_names[conf] : "?";
}
const char *lat_lab_conf_flag(int conf) {
    return conf >= 0 && conf < LAT_LAB_NCONF ? conf_flags[conf] : "?";
}
const char *lat_lab_kind_name(int kind) {
    return kind >= 0 && kind < LAT_LAB_NKINDS ? kind_names[kind] : "?";
}

int lat_lab_expected(int conf) {
    switch (conf) {
    case LAT_LAB_ALLOC:
        return LAT_LAB_TAIL;
    case LAT_LAB_SHARE:
        return LAT_LAB_MEDIAN;
    case LAT_LAB_NOPIN:
        return LAT_LAB_VARIANCE;
    }
    return LAT_LAB_NO_CHANGE;
}

const double lat_lab_quantile_pct[LAT_LAB_NQ] = {50, 90, 99, 99.9, 99.99};

void lat_lab_params_default(lat_lab_params *p) {
    memset(p, 0, sizeof *p);
    p->alpha = 0.01;
    p->min_median_ratio = 1.10;
    p->min_median_ticks = 3;
    p->min_tail_ratio = 1.3;
    p->tail_log_multiple = 1.5;
    p->min_var_ratio = 1.5;
    p->no_change_ratio = 1.25;
    p->tick_ns = 10;
    p->min_rounds = 10;
    p->min_placement_rounds = 8;
    p->ncpus = 2;
    p->nhot = 2;
}

static void verdict_clear(lat_lab_verdict *v) {
    memset(v, 0, sizeof *v);
    for (int q = 0; q < LAT_LAB_NQ; q++)
        v->shift[q] = (lat_lab_shift){NAN, NAN, NAN, NAN, 0};
    v->disp_ratio = v->disp_lo = v->disp_hi = v->disp_p = NAN;
    v->p50_shift_ns = v->base_p50_ns = NAN;
    v->mean_ratio = v->mean_lo = v->mean_hi = v->mean_shift_ns = NAN;
    v->placement_kind[0] = v->placement_kind[1] = -1;
    v->decided_in = -1;
}

int lat_lab_decide(const lat_lab_params *p, int conf, const lat_lab_cell *base,
                   const lat_lab_cell *expc, unsigned nrounds, lat_lab_verdict *v) {
    (void)conf;
    if (!p || !v || (nrounds && (!base || !expc)) || !(p->alpha > 0 && p->alpha < 1))
        return -EINVAL;
    verdict_clear(v);
    snprintf(v->reason, sizeof v->reason, "not built yet");
    return 0;
}

bool lat_lab_is_disease(int kind) {
    return kind == LAT_LAB_TAIL || kind == LAT_LAB_MEDIAN || kind == LAT_LAB_VARIANCE;
}

bool lat_lab_apply_aa(lat_lab_verdict *v) {
    const lat_lab_verdict *aa = &v[LAT_LAB_AA];
    if (!lat_lab_is_disease(aa->kind)) return false;
    char why[sizeof aa->reason];
    snprintf(why, sizeof why,
             "this host fails its own A/A control: the baseline against itself read %s "
             "(work p50 x%.2f, p99.9 x%.2f, e2e p99.9 dispersion x%.2f over %u rounds)",
             lat_lab_kind_name(aa->kind), aa->shift[LAT_LAB_Q50].ratio,
             aa->shift[LAT_LAB_Q999].ratio, aa->disp_ratio, aa->rounds);
    for (int x = LAT_LAB_ALLOC; x < LAT_LAB_AA; x++) {
        v[x].kind = LAT_LAB_UNDECIDED;
        v[x].confidence = 0;
        snprintf(v[x].reason, sizeof v[x].reason, "%s", why);
    }
    return true;
}

void lat_lab_verdict_text(const lat_lab_verdict *v, char *buf, size_t len) {
    const lat_lab_shift *s50 = &v->shift[LAT_LAB_Q50], *s999 = &v->shift[LAT_LAB_Q999];
    char p50[96];
    if (isnan(s50->ratio))
        snprintf(p50, sizeof p50, "work p50 n/a");
    else if (v->p50_below_tick)
        snprintf(p50, sizeof p50, "work p50 %+.0f ns (below the counter's granularity)",
                 v->p50_shift_ns);
    else
        snprintf(p50, sizeof p50, "work p50 x%.2f [%.2f..%.2f]", s50->ratio, s50->lo, s50->hi);
    int n = snprintf(buf, len, "%s", lat_lab_kind_name(v->kind));
    if (v->kind == LAT_LAB_UNDECIDED && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, " on this machine: %s", v->reason);
    else if (n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, " (confidence %.1f%%%s%s)", 100 * v->confidence,
                      v->reason[0] ? ": " : "", v->reason);
    if (n < 0 || (size_t)n >= len) return;
    n += snprintf(buf + n, len - (size_t)n, "; %u rounds used, %u set aside", v->rounds,
                  v->set_aside);
    if (n < 0 || (size_t)n >= len || isnan(s999->ratio)) return;
    n += snprintf(buf + n, len - (size_t)n, "; %s, p99.9 x%.2f [%.2f..%.2f]", p50, s999->ratio,
                  s999->lo, s999->hi);
    if (n >= 0 && (size_t)n < len && isfinite(v->disp_ratio))
        snprintf(buf + n, len - (size_t)n, ", e2e p99.9 dispersion x%.2f", v->disp_ratio);
}
