/* flight.c - flight recorder set-up, analysis and dump (see flight.h).
 *
 * Recording is inline in the header; this file holds the cold parts: creating
 * the window, reading it back oldest first, classifying the outlier's
 * neighbourhood and printing it. */
#include "latlab/flight.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_internal.h"
#include "error_internal.h"
#include "latlab/stats.h"

int lat_flight_create(lat_flight **out, size_t capacity, unsigned nstages, const char *const *names,
                      uint64_t threshold_ns, uint64_t post) {
    lat_flight *f = NULL;
    if (!out || nstages < 1 || nstages > LAT_FLIGHT_STAGES) return -EINVAL;
    *out = NULL;
    if (capacity == 0) capacity = LAT_FLIGHT_DEFAULT_CAP;
    if (capacity > ((size_t)1 << 24)) return -EINVAL;
    size_t cap = 1;
    while (cap < capacity)
        cap <<= 1;
    f = lat__calloc(1, sizeof *f);
    if (!f) goto fail;
    f->ring = lat__calloc(cap, sizeof *f->ring);
    if (!f->ring) goto fail;
    f->mask = cap - 1;
    f->threshold_ns = threshold_ns;
    f->post = post > cap - 1 ? cap - 1 : post;
    f->trigger_at = LAT_FLIGHT_NONE;
    f->stop_at = LAT_FLIGHT_NONE;
    f->drain_ns = LAT_FLIGHT_NONE;
    f->drain_limit = cap - 1 - cap / 4;
    if (f->drain_limit < f->post) f->drain_limit = f->post;
    f->nstages = nstages;
    for (unsigned s = 0; s < nstages; s++) {
        if (names && names[s])
            snprintf(f->names[s], LAT_FLIGHT_NAME_MAX, "%s", names[s]);
        else
            snprintf(f->names[s], LAT_FLIGHT_NAME_MAX, "stage%u", s);
    }
    *out = f;
    return 0;
fail:
    lat_flight_destroy(f);
    return -ENOMEM;
}

void lat_flight_destroy(lat_flight *f) {
    if (!f) return;
    lat__free(f->ring);
    lat__free(f);
}

uint64_t lat_flight_count(const lat_flight *f) {
    if (!f) return 0;
    return f->head > f->mask + 1 ? f->mask + 1 : f->head;
}

static uint64_t first_index(const lat_flight *f) {
    return f->head > f->mask + 1 ? f->head - (f->mask + 1) : 0;
}

const lat_flight_sample *lat_flight_at(const lat_flight *f, uint64_t i) {
    if (!f || i >= lat_flight_count(f)) return NULL;
    return &f->ring[(first_index(f) + i) & f->mask];
}

/* Is window sample i slow in stage s? */
static int slow_in(const lat_flight *f, uint64_t i, unsigned s, const uint64_t *median,
                   uint64_t margin) {
    const lat_flight_sample *x = lat_flight_at(f, i);
    return x->stage_ns[s] > median[s] && x->stage_ns[s] - median[s] > margin;
}

static const char *fmt_ns(char *buf, size_t len, uint64_t ns) {
    if (ns >= 10000000ull)
        snprintf(buf, len, "%.1f ms", (double)ns / 1e6);
    else if (ns >= 10000ull)
        snprintf(buf, len, "%.1f us", (double)ns / 1e3);
    else
        snprintf(buf, len, "%" PRIu64 " ns", ns);
    return buf;
}

/* The ONE_EVENT verdict: the events right after it, and its sentence. */
static void one_event_text(const lat_flight *f, lat_flight_verdict *v, uint64_t t, uint64_t n,
                           const uint64_t *median, uint64_t margin) {
    unsigned stage = (unsigned)v->stage;
    const lat_flight_sample *trig = lat_flight_at(f, t);
    const char *ref = v->baseline ? "baseline" : "window median";
    char a[32], b[32];
    v->shape = LAT_FLIGHT_ONE_EVENT;
    /* Did the events right after it queue up behind it in another stage? */
    for (unsigned s = 0; s < f->nstages; s++) {
        if (s == stage) continue;
        uint64_t k = 0;
        while (t + 1 + k < n && slow_in(f, t + 1 + k, s, median, margin))
            k++;
        if (k > v->after_run) v->after_run = k, v->after_stage = (int)s;
    }
    int len;
    if (v->baseline && v->stage_ns <= median[stage] + margin) /* nothing stands out */
        len = snprintf(v->text, sizeof v->text,
                       "seq %" PRIu64 " crossed the threshold, but no stage stood out against its "
                       "baseline (the most: %s, %s against %s): the whole window was backed up or "
                       "slow, not one event",
                       trig->seq, f->names[stage], fmt_ns(a, sizeof a, v->stage_ns),
                       fmt_ns(b, sizeof b, median[stage]));
    else
        len = snprintf(v->text, sizeof v->text,
                       "one event slow in %s: seq %" PRIu64 " took %s there (%s %s), its "
                       "neighbours were normal in %s",
                       f->names[stage], trig->seq, fmt_ns(a, sizeof a, v->stage_ns), ref,
                       fmt_ns(b, sizeof b, median[stage]), f->names[stage]);
    if (v->after_run > 0 && len > 0 && (size_t)len < sizeof v->text)
        len += snprintf(v->text + len, sizeof v->text - (size_t)len,
                        "; the next %" PRIu64 " events waited behind it in %s", v->after_run,
                        f->names[v->after_stage]);
    v->run_cut = v->after_run > 0 && t + 1 + v->after_run == n;
    if (v->run_cut && len > 0 && (size_t)len < sizeof v->text)
        snprintf(v->text + len, sizeof v->text - (size_t)len,
                 " (still waiting at seq %" PRIu64 ", where the window ends: cut there)",
                 lat_flight_at(f, n - 1)->seq);
}

/* The RUN verdict's sentence. */
static void run_text(const lat_flight *f, lat_flight_verdict *v, const uint64_t *median) {
    unsigned stage = (unsigned)v->stage;
    const char *ref = v->baseline ? "baseline" : "window median";
    char a[32], c[32];
    v->shape = LAT_FLIGHT_RUN;
    int len = snprintf(v->text, sizeof v->text,
                       "a run of %" PRIu64 " consecutive events slow in %s (seq %" PRIu64
                       "..%" PRIu64 ", worst %s, %s %s): the queue backed up behind a stall",
                       v->run, f->names[stage], v->run_first_seq, v->run_last_seq,
                       fmt_ns(a, sizeof a, v->run_max_ns), ref, fmt_ns(c, sizeof c, median[stage]));
    if (v->run_cut && len > 0 && (size_t)len < sizeof v->text)
        snprintf(v->text + len, sizeof v->text - (size_t)len,
                 "; still backed up at seq %" PRIu64 ", where the window ends: cut there",
                 v->run_last_seq);
}

int lat_flight_analyze(const lat_flight *f, lat_flight_verdict *v) {
    if (!f || !v) return -EINVAL;
    memset(v, 0, sizeof *v);
    v->stage = -1;
    v->after_stage = -1;
    uint64_t n = lat_flight_count(f);
    if (f->trigger_at == LAT_FLIGHT_NONE || f->trigger_at < first_index(f)) {
        v->shape = LAT_FLIGHT_NO_TRIGGER;
        snprintf(v->text, sizeof v->text, "no sample crossed the threshold");
        return 0;
    }
    uint64_t median[LAT_FLIGHT_STAGES] = {0};
    uint64_t *tmp = lat__alloc(n * sizeof *tmp);
    if (!tmp) return -ENOMEM;
    v->baseline = 1;
    for (unsigned s = 0; s < f->nstages; s++) {
        for (uint64_t i = 0; i < n; i++)
            tmp[i] = lat_flight_at(f, i)->stage_ns[s];
        /* the lower of the run's baseline and the window median: a run that is
         * backlogged throughout has a high p50, a backlog filling the window a
         * high median; the lower one is still what an event takes unqueued */
        median[s] = lat_stats_median_high_u64(tmp, n);
        if (f->baseline_ns[s] && f->baseline_ns[s] < median[s]) median[s] = f->baseline_ns[s];
        if (!f->baseline_ns[s]) v->baseline = 0;
    }
    lat__free(tmp);

    uint64_t t = f->trigger_at - first_index(f); /* trigger's window position */
    const lat_flight_sample *trig = lat_flight_at(f, t);
    uint64_t margin = f->threshold_ns / 2;
    if (margin == 0) margin = 1;
    /* The slow stage: largest excess over its own median. */
    uint64_t best = 0;
    unsigned stage = 0;
    for (unsigned s = 0; s < f->nstages; s++) {
        uint64_t ex = trig->stage_ns[s] > median[s] ? trig->stage_ns[s] - median[s] : 0;
        if (s == 0 || ex > best) best = ex, stage = s;
    }
    v->stage = (int)stage;
    v->trigger_seq = trig->seq;
    v->trigger_e2e_ns = trig->e2e_ns;
    v->stage_ns = trig->stage_ns[stage];
    v->stage_median_ns = median[stage];

    /* The run in that stage around the trigger (the trigger counts even when
     * its excess is below the margin, e.g. a threshold set very low). */
    uint64_t lo = t, hi = t;
    while (lo > 0 && slow_in(f, lo - 1, stage, median, margin))
        lo--;
    while (hi + 1 < n && slow_in(f, hi + 1, stage, median, margin))
        hi++;
    v->run = hi - lo + 1;
    v->run_cut = hi + 1 == n && hi > t;
    v->run_first_seq = lat_flight_at(f, lo)->seq;
    v->run_last_seq = lat_flight_at(f, hi)->seq;
    v->run_max_ns = 0;
    for (uint64_t i = lo; i <= hi; i++)
        if (lat_flight_at(f, i)->stage_ns[stage] > v->run_max_ns)
            v->run_max_ns = lat_flight_at(f, i)->stage_ns[stage];

    if (v->run == 1)
        one_event_text(f, v, t, n, median, margin);
    else
        run_text(f, v, median);
    return 0;
}

int lat_flight_dump(const lat_flight *f, FILE *out, uint64_t context) {
    if (!f || !out) return -EINVAL;
    lat_flight_verdict v;
    int rc = lat_flight_analyze(f, &v);
    if (rc) return rc;
    errno = 0; /* a failed write's cause: lat__write_status */
    uint64_t n = lat_flight_count(f);
    uint64_t lo = 0, hi = n; /* [lo, hi) */
    int have = v.shape != LAT_FLIGHT_NO_TRIGGER;
    uint64_t t = have ? f->trigger_at - first_index(f) : 0;
    if (have && context) {
        lo = t > context ? t - context : 0;
        hi = t + context + 1 < n ? t + context + 1 : n;
    } else if (context) { /* no outlier: the most recent samples */
        lo = n > context ? n - context : 0;
    }
    fprintf(out, "# flight recorder: %" PRIu64 " samples in the window", n);
    if (n)
        fprintf(out, ", seq %" PRIu64 "..%" PRIu64, lat_flight_at(f, 0)->seq,
                lat_flight_at(f, n - 1)->seq);
    if (have)
        fprintf(out, "; trigger seq %" PRIu64 " (e2e %" PRIu64 " ns > threshold %" PRIu64 " ns)\n",
                v.trigger_seq, v.trigger_e2e_ns, f->threshold_ns);
    else
        fprintf(out, "; no trigger\n");
    fprintf(out, "# verdict: %s\n", v.text);
    if (lo > 0 || hi < n) {
        if (have)
            fprintf(out, "# showing %" PRIu64 " samples either side of the outlier\n", context);
        else
            fprintf(out, "# showing the last %" PRIu64 " samples\n", hi - lo);
    }
    fprintf(out, "#  %12s", "seq");
    for (unsigned s = 0; s < f->nstages; s++)
        fprintf(out, " %12s", f->names[s]);
    fprintf(out, " %12s\n", "e2e");
    for (uint64_t i = lo; i < hi; i++) {
        const lat_flight_sample *x = lat_flight_at(f, i);
        fprintf(out, "%s %12" PRIu64, have && i == t ? ">>" : "  ", x->seq);
        for (unsigned s = 0; s < f->nstages; s++)
            fprintf(out, " %12" PRIu64, x->stage_ns[s]);
        fprintf(out, " %12" PRIu64 "%s\n", x->e2e_ns, have && i == t ? "  <- outlier" : "");
    }
    return lat__write_status(out, 0);
}
