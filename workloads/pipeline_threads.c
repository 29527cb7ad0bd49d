/* pipeline_threads.c - the stamped pipeline's hot threads (see
 * pipeline_internal.h): producer, worker/transformer and consumer, the SPSC
 * queues between them, and the counters each reads around its loop.
 *
 * Hot threads only read the cycle counter, move fixed-size messages through
 * SPSC rings (ring.h) and bump one relaxed counter each; the last one ships
 * the stamps into its tracer sink (trace.h).  The platform account: the
 * producer's spin-to-send loop and the workers' empty-queue poll loops
 * already read the counter, so each read is checked against the previous one
 * and gaps go into a preallocated recorder (gaps.h); schedstat and context
 * switches are read around each hot loop (platform.h); the worker's work
 * window, which has no spin loop, asks the rseq probe (preempt.h) whether the
 * kernel took the CPU there.  Counters per hot thread come from perf.h. */
#include "latlab/pipeline.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "latlab/perf.h"
#include "latlab/platform.h"
#include "latlab/preempt.h"
#include "latlab/topo.h"
#include "latlab/trace.h"
#include "pipeline_internal.h"

typedef lat__pipe_run run;

/* ---- messages ------------------------------------------------------------------ */

/* What travels producer -> worker (-> consumer): the stamps ride along. */
typedef struct msg {
    uint64_t seq, payload;
    uint64_t t0; /* intended send time */
    uint64_t tp; /* producer ready to push (split_q1), else t0 */
    uint64_t t1; /* worker dequeued */
    uint64_t t2; /* work done */
    /* the source's kind of event (its work callback's answer), else 0 */
    uint64_t kind;
} msg;

/* ---- queues and idling: thin bindings to ring.h ---------------------------------------- */

typedef lat_spsc qring;

static int q_create(qring **q, size_t cap, size_t elem) {
    return lat_spsc_create(elem, cap, 0, q);
}
static void q_free(qring *q) {
    lat_spsc_destroy(q);
}
LAT_INLINE bool q_push(qring *q, const void *item) {
    return lat_spsc_try_push(q, item);
}
LAT_INLINE bool q_pop(qring *q, void *item) {
    return lat_spsc_try_pop(q, item);
}

/* An idle strategy and its progress through the current wait. */
typedef struct idler {
    lat_idle how;
    lat_idle_state st;
} idler;

static void idle_init(idler *s, lat_idle how) {
    s->how = how;
    lat_idle_reset(&s->st);
}
LAT_INLINE void idle_wait(idler *s) {
    if (LAT_LIKELY(s->how.kind == LAT_IDLE_SPIN))
        lat_cpu_relax();
    else
        lat_idle_step(&s->how, &s->st);
}
LAT_INLINE void idle_reset(idler *s) {
    lat_idle_reset(&s->st);
}

int lat__pipe_queues_create(run *R, bool full, uint32_t cap) {
    int rc = q_create(&R->q1, cap, sizeof(msg));
    if (rc == 0 && full) rc = q_create(&R->q2, cap, sizeof(msg));
    return rc;
}

void lat__pipe_queues_free(run *R) {
    q_free(R->q1);
    q_free(R->q2);
}

/* Test hook: sleep off-CPU inside a spin loop, stamping the sleep itself;
 * returns the stamp after it, which the loop takes as its next read. */
static inline __attribute__((always_inline)) uint64_t test_sleep(run *R) {
    uint64_t a = lat_cycles();
    struct timespec ts = {(time_t)(R->c.sleep_ns / 1000000000u),
                          (long)(R->c.sleep_ns % 1000000000u)};
    nanosleep(&ts, NULL);
    uint64_t b = lat_cycles();
    lat_pipe_result *r = R->r;
    if (r->nsleeps < LAT_PIPE_MAX_SLEEPS) {
        r->sleeps[r->nsleeps][0] = a;
        r->sleeps[r->nsleeps][1] = b;
        r->nsleeps++;
    }
    return b;
}

/* The next event index at which role sleeps (test hook), or UINT64_MAX. */
static uint64_t next_sleep(const run *R, int role, unsigned *k) {
    if (R->c.sleep_role != role || !R->c.sleep_ns || *k >= R->c.sleep_count ||
        *k >= LAT_PIPE_MAX_SLEEPS)
        return UINT64_MAX;
    return R->c.sleep_seq + (uint64_t)(*k)++ * (R->c.sleep_every ? R->c.sleep_every : 1);
}

void lat__pipe_nap_us(long us) {
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

/* Returns false when the run was aborted. */
static bool wait_go(run *R) {
    atomic_fetch_add_explicit(&R->ready, 1, memory_order_relaxed);
    int g;
    while ((g = atomic_load_explicit(&R->go, memory_order_acquire)) == 0)
        lat__pipe_nap_us(50);
    return g > 0;
}

/* A hot thread's first read in its loop.  The run starts at start_cycles
 * whether or not the thread is there: when it reaches its loop later (its
 * set-up was preempted), the stretch it missed is a gap like any other, so
 * the samples due meanwhile are not taken for the pipeline's own. */
static uint64_t first_read(const run *R, lat_gaps *g) {
    uint64_t now = lat_cycles();
    if (now > R->start_cycles) lat_gaps_note(g, R->start_cycles, now);
    return now;
}

static void spin_for(uint64_t cycles) {
    uint64_t end = lat_cycles() + cycles;
    while (lat_cycles() < end)
        lat_cpu_relax();
}

/* The same, noting the platform's gaps inside the spin in g: an injected busy
 * stall is the program's time, and only what the platform took within it is
 * a gap. */
static void spin_noting(lat_gaps *g, uint64_t cycles) {
    uint64_t prev = lat_cycles(), end = prev + cycles;
    while (prev < end) {
        lat_cpu_relax();
        uint64_t now = lat_cycles();
        lat_gaps_note(g, prev, now);
        prev = now;
    }
}

/* ---- per-thread counters ---------------------------------------------------------------- */

static const char *const perf_events =
    "context-switches,cpu-migrations,page-faults,cycles,instructions,cache-misses";

static double count_value(const lat_perf_count *c) {
    if (c->state == LAT_PERF_UNAVAILABLE || c->state == LAT_PERF_NOT_COUNTED) return NAN;
    return c->scaled;
}

static lat_perf *thread_begin(run *R, int role) {
    lat_pipe_counters *k = &R->r->thr[role];
    k->ran = true;
    if (!R->c.no_pin && R->c.cpus[role] >= 0) {
        R->pin_err[role] = lat_pin_thread(R->c.cpus[role]);
    }
    lat_perf *p = NULL;
    if (R->c.perf && lat_perf_create(&p, perf_events, NULL) != 0) p = NULL;
    return p;
}

static void thread_loop_start(run *R, int role, lat_perf *p) {
    lat_pipe_counters *k = &R->r->thr[role];
    R->r->account[role].have_schedstat = lat_schedstat_read(NULL, &R->ss0[role]) == 0;
    lat_thread_switches(&R->vol0[role], &R->invol0[role]);
    if (R->c.thread_hook) R->c.thread_hook(R->c.hook_ud, role, 1);
    k->cpu_start = lat_current_cpu();
    k->loop_ns = lat_mono_ns();
    if (R->c.alloc_count_begin && R->c.alloc_count_end) R->c.alloc_count_begin();
    if (p) lat_perf_start(p);
}

static void thread_loop_end(run *R, int role, lat_perf *p) {
    lat_pipe_counters *k = &R->r->thr[role];
    if (p) lat_perf_stop(p);
    k->allocs = NAN;
    if (R->c.alloc_count_begin && R->c.alloc_count_end) k->allocs = (double)R->c.alloc_count_end();
    k->loop_ns = lat_mono_ns() - k->loop_ns;
    k->cpu_end = lat_current_cpu();
    if (R->c.thread_hook) R->c.thread_hook(R->c.hook_ud, role, 0);
    lat_pipe_account *pl = &R->r->account[role];
    lat_schedstat ss1;
    if (pl->have_schedstat && lat_schedstat_read(NULL, &ss1) == 0) {
        pl->run_ns = ss1.run_ns - R->ss0[role].run_ns;
        pl->wait_ns = ss1.wait_ns - R->ss0[role].wait_ns;
        pl->slices = ss1.slices - R->ss0[role].slices;
    } else {
        pl->have_schedstat = false;
    }
    uint64_t vol = 0, invol = 0;
    if (lat_thread_switches(&vol, &invol) == 0) {
        pl->vol_switches = vol - R->vol0[role];
        pl->invol_switches = invol - R->invol0[role];
    }

    double *dst[6] = {&k->ctx_switches, &k->migrations,   &k->page_faults,
                      &k->cycles,       &k->instructions, &k->cache_misses};
    for (int i = 0; i < 6; i++)
        *dst[i] = NAN;
    if (p) {
        lat_perf_count cnt[6];
        int n = lat_perf_read(p, cnt, 6);
        for (int i = 0; i < n && i < 6; i++)
            *dst[i] = count_value(&cnt[i]);
        lat_perf_destroy(p);
    }
}

/* ---- hot threads ------------------------------------------------------------------------ */

void *lat__pipe_producer(void *arg) {
    run *R = arg;
    lat_perf *p = thread_begin(R, LAT_PIPE_PRODUCER);
    idler id;
    idle_init(&id, R->c.idle);
    bool compact = R->c.shape == LAT_PIPE_COMPACT;
    _Atomic uint64_t *mine = compact ? &R->slots[R->ia] : NULL;
    uint64_t n = R->c.events, spins = 0;
    /* Sleeping through the gap between sends only when the hot threads must
     * share CPUs (idle strategy other than spin): otherwise busy-wait. */
    bool can_sleep = R->c.idle.kind != LAT_IDLE_SPIN;
    uint64_t sleep_gap = lat_clock_from_ns(R->cal, 50000);
    if (!wait_go(R)) {
        lat_perf_destroy(p);
        return NULL;
    }
    thread_loop_start(R, LAT_PIPE_PRODUCER, p);
    uint64_t start = R->start_cycles;
    double iv = R->interval_cycles;
    lat_gaps *g = R->r->gaps[LAT_PIPE_PRODUCER];
    unsigned nsl = 0;
    uint64_t sleep_at = next_sleep(R, LAT_PIPE_PRODUCER, &nsl);
    uint64_t last = first_read(R, g);
    const lat_pipe_source *src = R->c.source;
    for (uint64_t seq = 0; seq < n; seq++) {
        uint64_t intended = start + (uint64_t)((double)seq * iv), payload = seq * 0x9E3779B9ull;
        if (src)
            intended =
                start + lat_clock_from_ns(R->cal, src->send_offset_ns(src->ud, seq, &payload));
        uint64_t now;
        if (LAT_UNLIKELY(seq == sleep_at)) {
            now = lat_cycles();
            lat_gaps_note(g, last, now);
            last = test_sleep(R);
            lat_gaps_note(g, now, last);
            sleep_at = next_sleep(R, LAT_PIPE_PRODUCER, &nsl);
        }
        while ((now = lat_cycles()) < intended) {
            lat_gaps_note(g, last, now);
            last = now;
            if (can_sleep && intended - now > sleep_gap) {
                uint64_t ns = lat_clock_to_ns(R->cal, intended - now - sleep_gap / 2);
                struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
                nanosleep(&ts, NULL);
                last = lat_cycles(); /* a chosen sleep is not a gap */
            } else {
                lat_cpu_relax();
            }
        }
        lat_gaps_note(g, last, now);
        last = now;
        msg m = {.seq = seq, .payload = payload, .t0 = intended, .tp = intended};
        if (R->c.split_q1) m.tp = lat_cycles_fenced();
        while (!q_push(R->q1, &m)) { /* q1 full: also a spin loop */
            uint64_t t = lat_cycles();
            lat_gaps_note(g, last, t);
            last = t;
            spins++;
            idle_wait(&id);
        }
        idle_reset(&id);
        if (mine) atomic_fetch_add_explicit(mine, 1, memory_order_relaxed);
    }
    thread_loop_end(R, LAT_PIPE_PRODUCER, p);
    R->sent = n;
    R->full_spins = spins;
    return NULL;
}

/* Ship a finished event's stamps to the tracer (a full sink counts a drop
 * there): never blocks, allocates nothing, no lock, no system call. */
LAT_INLINE void ship(run *R, const msg *m, uint64_t t3) {
    lat_trace_stamps b = {{m->t0, m->tp, m->t1, m->t2, t3, m->kind}, m->seq};
    lat_trace_ship(R->sink, &b);
}

void *lat__pipe_worker(void *arg) {
    run *R = arg;
    lat_perf *p = thread_begin(R, LAT_PIPE_WORKER);
    idler id;
    idle_init(&id, R->c.idle);
    bool compact = R->c.shape == LAT_PIPE_COMPACT;
    _Atomic uint64_t *mine = compact ? &R->slots[R->ib] : &R->slots[R->ia];
    uint64_t n = R->c.events, shipped = 0;
    unsigned iters = R->c.work_iters;
    uint64_t stall_seq = R->c.stall_site ? R->c.stall_seq : UINT64_MAX;
    int stall_site = R->c.stall_site;
    uint64_t stall_cycles = lat_clock_from_ns(R->cal, R->c.stall_ns);
    bool alloc = R->c.alloc;
    const lat_pipe_source *src = R->c.source && R->c.source->work ? R->c.source : NULL;
    if (!wait_go(R)) {
        lat_perf_destroy(p);
        return NULL;
    }
    /* The work window [t1, t2) has no spin loop: the kernel says whether it
     * took the CPU there (preempt.h); then the window is a recorded gap.  A
     * long window the kernel did not interrupt is the thread's own time. */
    lat_preempt pre;
    lat_preempt_init(&pre); /* -ENOSYS: never fires */
    thread_loop_start(R, LAT_PIPE_WORKER, p);
    lat_gaps *g = R->r->gaps[LAT_PIPE_WORKER];
    unsigned nsl = 0;
    uint64_t sleep_at = next_sleep(R, LAT_PIPE_WORKER, &nsl);
    bool in_work = R->c.sleep_in_work;
    uint64_t last = first_read(R, g);
    for (uint64_t i = 0; i < n; i++) {
        msg m;
        if (LAT_UNLIKELY(i == sleep_at && !in_work)) {
            uint64_t now = lat_cycles();
            lat_gaps_note(g, last, now);
            last = test_sleep(R);
            lat_gaps_note(g, now, last);
            sleep_at = next_sleep(R, LAT_PIPE_WORKER, &nsl);
        }
        while (!q_pop(R->q1, &m)) {
            uint64_t now = lat_cycles();
            lat_gaps_note(g, last, now);
            last = now;
            idle_wait(&id);
        }
        idle_reset(&id);
        if (LAT_UNLIKELY(m.seq == stall_seq && stall_site == LAT_PIPE_STALL_Q1)) {
            lat_gaps_note(g, last, lat_cycles());
            spin_for(stall_cycles); /* busy: the program's time, not a gap */
            last = lat_cycles();
        }
        lat_preempt_arm(&pre);
        m.t1 = lat_cycles_fenced();
        lat_gaps_note(g, last, m.t1);
        if (LAT_UNLIKELY(i == sleep_at && in_work)) { /* test hook: off-CPU inside work */
            test_sleep(R);
            sleep_at = next_sleep(R, LAT_PIPE_WORKER, &nsl);
        }
        uint64_t acc = m.payload; /* fixed work: an LCG, ~100 ns at 40 rounds */
        if (src)
            m.kind = src->work(src->ud, m.seq, m.payload, m.t0, m.tp, m.t1);
        else
            for (unsigned k = 0; k < iters; k++)
                acc = acc * 6364136223846793005ull + 1;
        if (alloc) { /* experiment (a): one small heap vector per event */
            uint64_t *v = malloc(32 * sizeof *v);
            lat_do_not_optimize(v);
            if (v) {
                for (int k = 0; k < 32; k++)
                    v[k] = acc + (uint64_t)k;
                lat_do_not_optimize(v);
                acc ^= v[31];
                free(v);
            }
        }
        if (LAT_UNLIKELY(m.seq == stall_seq && stall_site == LAT_PIPE_STALL_WORK)) {
            /* gaps inside the stall are noted as they happen; a preemption
             * there must not make the whole window a gap (re-armed after) */
            spin_noting(g, stall_cycles);
            lat_preempt_arm(&pre);
        }
        lat_do_not_optimize(acc);
        m.payload = acc;
        atomic_fetch_add_explicit(mine, 1, memory_order_relaxed);
        m.t2 = lat_cycles_fenced();
        if (LAT_UNLIKELY(lat_preempt_fired(&pre))) lat_gaps_note(g, m.t1, m.t2);
        last = m.t2;
        if (compact) {
            ship(R, &m, m.t2);
            shipped++;
        } else {
            while (!q_push(R->q2, &m)) {
                uint64_t t = lat_cycles();
                lat_gaps_note(g, last, t);
                last = t;
                idle_wait(&id);
            }
            idle_reset(&id);
        }
    }
    lat_preempt_fini(&pre);
    thread_loop_end(R, LAT_PIPE_WORKER, p);
    if (compact) R->shipped = shipped;
    return NULL;
}

void *lat__pipe_consumer(void *arg) {
    run *R = arg;
    lat_perf *p = thread_begin(R, LAT_PIPE_CONSUMER);
    idler id;
    idle_init(&id, R->c.idle);
    _Atomic uint64_t *mine = &R->slots[R->ib];
    uint64_t n = R->c.events, shipped = 0;
    uint64_t stall_seq = R->c.stall_site == LAT_PIPE_STALL_Q2 ? R->c.stall_seq : UINT64_MAX;
    uint64_t stall_cycles = lat_clock_from_ns(R->cal, R->c.stall_ns);
    if (!wait_go(R)) {
        lat_perf_destroy(p);
        return NULL;
    }
    thread_loop_start(R, LAT_PIPE_CONSUMER, p);
    lat_gaps *g = R->r->gaps[LAT_PIPE_CONSUMER];
    uint64_t last = first_read(R, g);
    for (uint64_t i = 0; i < n; i++) {
        msg m;
        while (!q_pop(R->q2, &m)) {
            uint64_t now = lat_cycles();
            lat_gaps_note(g, last, now);
            last = now;
            idle_wait(&id);
        }
        idle_reset(&id);
        if (LAT_UNLIKELY(m.seq == stall_seq)) {
            lat_gaps_note(g, last, lat_cycles());
            spin_for(stall_cycles);
            last = lat_cycles();
        }
        uint64_t t3 = lat_cycles_fenced();
        lat_gaps_note(g, last, t3);
        last = t3;
        atomic_fetch_add_explicit(mine, 1, memory_order_relaxed);
        ship(R, &m, t3);
        shipped++;
    }
    thread_loop_end(R, LAT_PIPE_CONSUMER, p);
    R->shipped = shipped;
    return NULL;
}
