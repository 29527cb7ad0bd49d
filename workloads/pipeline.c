/* pipeline.c - the lab's stamped pipeline (see pipeline.h): its defaults,
 * the config's checks, the run from set-up to the result, the short steady
 * baseline and the stamp's cost.
 *
 * Threads: producer (hot), worker/transformer (hot), consumer (hot, full shape
 * only), and the stage tracer's aggregator (trace.h: cold, backoff idle).
 * lat_pipe_run sets up the histograms, the queues, the platform account
 * and the tracer, starts the hot threads behind a start gate, joins them and
 * finishes the tracer, the account and the censoring, in that order.  The
 * steps live by concern in the files pipeline_internal.h lists: the hot
 * threads (pipeline_threads.c), aggregation (pipeline_trace.c), platform
 * account and attribution (pipeline_account.c), censoring (pipecensor.c);
 * the stage table and placement are pipeline_place.c's, the JSON
 * pipeline_json.c's. */
#include "latlab/pipeline.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "alloc_internal.h"
#include "latlab/stats.h"
#include "pipeline_internal.h"

typedef lat__pipe_run run;

#define NSLOTS 32

/* ---- set-up ---------------------------------------------------------------------------------- */

void lat_pipe_config_default(lat_pipe_config *c) {
    memset(c, 0, sizeof *c);
    c->shape = LAT_PIPE_FULL;
    c->events = 2000000;
    c->rate_hz = 200000;
    c->queue_cap = 4096;
    c->sample_cap = 65536;
    c->work_iters = 40;
    for (int i = 0; i < LAT_PIPE_NHOT; i++)
        c->cpus[i] = -1;
    c->idle = lat_idle_spin();
    c->perf = true;
    c->flight_threshold_ns = LAT_FLIGHT_NONE;
    c->flight_post = LAT_FLIGHT_DEFAULT_POST;
    c->hlog_interval_ns = 1000000000ull;
}

uint64_t lat_pipe_stamp_cost_ns(const lat_clock_cal *cal, unsigned n) {
    if (!cal) cal = lat_clock_default();
    if (n < 16) n = 16;
    uint64_t *d = lat__alloc(n * sizeof *d);
    if (!d) return 0;
    for (unsigned i = 0; i < n; i++) {
        uint64_t a = lat_cycles_fenced();
        uint64_t b = lat_cycles_fenced();
        d[i] = b - a;
    }
    uint64_t med = lat_stats_median_high_u64(d, n);
    lat__free(d);
    return lat_clock_to_ns(cal, med);
}

static bool valid(const lat_pipe_config *c) {
    return c && (c->shape == LAT_PIPE_FULL || c->shape == LAT_PIPE_COMPACT) && c->events > 0 &&
           c->rate_hz > 0 && c->rate_hz <= 1000000000ull && c->queue_cap >= 2 &&
           c->sample_cap >= 2 && c->work_iters <= 1000000 &&
           !(c->stall_site == LAT_PIPE_STALL_Q2 && c->shape != LAT_PIPE_FULL) &&
           c->stall_site >= 0 && c->stall_site <= LAT_PIPE_STALL_Q2 &&
           c->idle.kind != LAT_IDLE_BLOCK && /* its rings are not LAT_RING_WAKEABLE */
           (!c->source || (c->source->send_offset_ns && c->source->nkinds <= LAT_PIPE_MAXKINDS));
}

int lat_pipe_baseline_p999(const lat_pipe_config *c, uint64_t *p999_ns, uint64_t *events) {
    lat_pipe_config b = *c;
    b.events = c->events < LAT_PIPE_BASELINE_EVENTS ? c->events : LAT_PIPE_BASELINE_EVENTS;
    b.alloc = b.share_line = false;
    b.stall_site = LAT_PIPE_STALL_NONE;
    b.hlog_prefix = NULL;
    b.perf = false;
    b.source = NULL; /* the baseline runs steady at the same mean rate */
    lat_pipe_result br;
    int rc = lat_pipe_run(&b, &br);
    if (rc != 0) return rc;
    *p999_ns = (uint64_t)lat_hist_value_at_percentile(br.h[LAT_PIPE_E2E], 99.9);
    *events = b.events;
    lat_pipe_result_fini(&br);
    return 0;
}

void lat_pipe_result_fini(lat_pipe_result *r) {
    if (!r) return;
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++)
        lat_hist_destroy(r->h[s]);
    for (int k = 0; k < LAT_PIPE_MAXKINDS; k++)
        lat_hist_destroy(r->h_kind[k]);
    lat_flight_destroy(r->flight);
    for (int k = 0; k < LAT_PIPE_NHOT; k++)
        lat_gaps_destroy(r->gaps[k]);
    lat__free(r->iv);
    lat__pipe_censor_fini(r);
    memset(r, 0, sizeof *r);
}

/* ---- the run ------------------------------------------------------------------------------- */

int lat_pipe_run(const lat_pipe_config *cfg, lat_pipe_result *r) {
    if (!r || !valid(cfg)) return -EINVAL;
    memset(r, 0, sizeof *r);
    run *R = lat__calloc(1, sizeof *R);
    if (!R) return -ENOMEM;
    int rc = -ENOMEM, nthreads = 0;
    pthread_t th[3];
    lat__pipe_iv fv; /* per-interval figures, filled on the tracer's thread */
    memset(&fv, 0, sizeof fv);
    R->c = *cfg;
    R->r = r;
    R->cal = cfg->cal ? cfg->cal : lat_clock_default();
    bool full = cfg->shape == LAT_PIPE_FULL;
    r->shape = cfg->shape;
    r->events = cfg->events;
    r->cycles_per_ns = R->cal->cycles_per_ns;
    r->stamps_per_event = (full ? 3u : 2u) + (cfg->split_q1 ? 1u : 0u);
    for (int k = 0; k < LAT_PIPE_NHOT; k++)
        r->thr[k].cpu_start = r->thr[k].cpu_end = -1;

    R->slots = lat__calloc_aligned(NSLOTS, sizeof(uint64_t), LAT_DESTRUCTIVE);
    if (!R->slots) goto fail;
    R->ia = 0;
    R->ib = cfg->share_line ? 1 : 16; /* 8 bytes apart (one line) or 128 bytes apart */
    r->counter_addr[0] = (uintptr_t)&R->slots[R->ia];
    r->counter_addr[1] = (uintptr_t)&R->slots[R->ib];

    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        if (s == LAT_PIPE_SEND && !cfg->split_q1) continue;
        if (s == LAT_PIPE_Q2 && !full) continue;
        if ((rc = lat_hist_create(1, LAT__PIPE_HIST_HIGHEST_NS, 3, &r->h[s])) != 0) goto fail;
    }
    for (unsigned k = 0; cfg->source && cfg->source->work && k < cfg->source->nkinds; k++)
        if ((rc = lat_hist_create(1, LAT__PIPE_HIST_HIGHEST_NS, 3, &r->h_kind[k])) != 0) goto fail;
    if ((rc = lat__pipe_queues_create(R, full, cfg->queue_cap)) != 0) goto fail;
    if ((rc = lat__pipe_account_create(R, cfg, r)) != 0) goto fail;
    if (lat__pipe_iv_init(R, &fv)) R->fv = &fv;
    if ((rc = lat__pipe_trace_create(R, cfg)) != 0) goto fail;
    if ((rc = lat_trace_start(R->tr)) != 0) goto fail;
    lat_cpustat cs0, cs1;
    lat__pipe_cpustat_sum(cfg, &cs0);

    r->stamp_cost_ns = lat_pipe_stamp_cost_ns(R->cal, 10001);
    R->interval_cycles = R->cal->cycles_per_ns * 1e9 / (double)cfg->rate_hz;
    int nth = full ? 3 : 2;
    void *(*fns[3])(void *) = {lat__pipe_producer, lat__pipe_worker, lat__pipe_consumer};
    /* Thread names (comm) so profiles and top say which stage a stack is (the
     * tracer names its thread "aggregator"). */
    static const char *const names[3] = {"producer", "worker", "consumer"};
    for (int i = 0; i < 3; i++) {
        if (!full && fns[i] == lat__pipe_consumer) continue;
        int e = pthread_create(&th[nthreads], NULL, fns[i], R);
        if (!e) pthread_setname_np(th[nthreads], names[i]); /* best effort */
        if (e) {
            rc = -e;
            atomic_store_explicit(&R->go, -1, memory_order_release);
            for (int k = 0; k < nthreads; k++)
                pthread_join(th[k], NULL);
            nthreads = 0;
            goto fail;
        }
        nthreads++;
    }
    /* Everyone is pinned and has opened its counters: start 1 ms from now. */
    while (atomic_load_explicit(&R->ready, memory_order_relaxed) < nth)
        lat__pipe_nap_us(100);
    R->start_cycles = lat_cycles() + lat_clock_from_ns(R->cal, 1000000);
    atomic_store_explicit(&R->go, 1, memory_order_release);
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    nthreads = 0;
    if ((rc = lat__pipe_trace_finish(R, r)) != 0) goto fail;
    r->sent = R->sent;
    r->transformed = atomic_load_explicit(&R->slots[full ? R->ia : R->ib], memory_order_relaxed);
    r->consumed = full ? atomic_load_explicit(&R->slots[R->ib], memory_order_relaxed) : R->shipped;
    r->q1_full_spins = R->full_spins;
    if (r->flight) lat_flight_freeze(r->flight);
    lat__pipe_cpustat_sum(cfg, &cs1);
    lat__pipe_cpustat_delta(&cs0, &cs1, &r->cpu);
    lat__pipe_account_finish(R, r);
    if ((rc = lat__pipe_censor_finish(cfg, R->cal, &R->cb, R->start_cycles, R->ivc, r)) != 0)
        goto fail;
    for (int k = 0; k < LAT_PIPE_NHOT; k++)
        if (R->pin_err[k]) rc = R->pin_err[k];
    /* Keep the logs only when every one of them is complete (the tracer's
     * hlog_atomic: otherwise destroy removes them and the old files stay). */
    if (rc == 0 && !r->log_error && cfg->hlog_prefix) r->log_error = lat_trace_logs_commit(R->tr);
fail:
    lat_trace_destroy(R->tr); /* stops it first when a step above failed */
    lat__pipe_iv_fini(&fv);
    lat__pipe_queues_free(R);
    lat__pipe_account_destroy(R);
    lat__free(R->slots);
    lat__free(R);
    if (rc) { /* a failed run keeps only which log failed, for the message */
        char path[sizeof r->log_error_path];
        int log_error = r->log_error;
        memcpy(path, r->log_error_path, sizeof path);
        lat_pipe_result_fini(r);
        r->log_error = log_error;
        memcpy(r->log_error_path, path, sizeof path);
    }
    return rc;
}
