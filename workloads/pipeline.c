/* pipeline.c - the lab's stamped pipeline (see pipeline.h).
 *
 * Threads: producer (hot), worker/transformer (hot), consumer (hot, full shape
 * only), and the stage tracer's aggregator (trace.h: cold, backoff idle).  Hot
 * threads only read the cycle counter, move fixed-size messages through SPSC
 * rings (ring.h) and bump one relaxed counter each; the last one ships the
 * stamps into its tracer sink.  The tracer converts and records the stages,
 * writes the interval logs (atomically: hlog_atomic) and feeds the flight
 * recorder; what is the lab's own (per-event checks, per-source-kind work,
 * per-interval figures by intended send time, the slowest samples for
 * attribution, the publisher) runs in the tracer's callbacks.  Counters
 * per hot thread come from perf.h, placement from topo.h.  Platform
 * accounting: the producer's spin-to-send loop and the workers' empty-queue
 * poll loops already read the counter, so each read is checked against the
 * previous one and gaps go into a preallocated recorder (gaps.h); schedstat
 * and context switches are read around each hot loop, /proc/stat around the
 * run (platform.h); the worker's work window, which has no spin loop, asks
 * the rseq probe (preempt.h) whether the kernel took the CPU there.  After the
 * run the slowest samples of each stage are matched against those gaps (tail
 * attribution), and every buffered sample is censored (pipecensor.h). */
#include "latlab/pipeline.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "alloc_internal.h"
#include "latlab/error.h"
#include "latlab/json.h"
#include "latlab/perf.h"
#include "latlab/platform.h"
#include "latlab/preempt.h"
#include "latlab/stats.h"
#include "latlab/topo.h"
#include "latlab/trace.h"
#include "pipecensor.h"

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

/* One event's raw stamps as the lab's accounting reads them, from the block
 * the last hot stage ships to the tracer (id = seq, points below). */
typedef struct sample {
    uint64_t seq, t0, tp, t1, t2, t3, kind;
} sample;

/* Stamp points of the tracer's block; PT_KIND is no stage's point, so the
 * tracer passes it through to on_block untouched. */
enum { PT_T0 = 0, PT_TP = 1, PT_T1 = 2, PT_T2 = 3, PT_T3 = 4, PT_KIND = 5 };

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

/* ---- run state ------------------------------------------------------------------------ */

#define NSLOTS 32
#define HIST_HIGHEST_NS 100000000000ll /* 100 s */

typedef struct run {
    lat_pipe_config c;
    const lat_clock_cal *cal;
    lat_pipe_result *r;
    qring *q1, *q2;
    lat_trace *tr;                /* the stage tracer: aggregation, logs, flight recorder */
    lat_trace_sink *sink;         /* the last hot stage's */
    int tstage[LAT_PIPE_NSTAGES]; /* tracer stage of each LAT_PIPE_* stage, -1 absent */
    _Atomic uint64_t *slots;      /* 32 counters, 256 bytes, 128-byte aligned */
    unsigned ia, ib;              /* the two stage counters' slots */
    /* Start gate: each thread bumps `ready` once set up (pinned, counters
     * open) and waits for `go`; the main thread waits for all, writes
     * start_cycles, then stores go = 1 (release), which pairs with each
     * thread's acquire load so start_cycles is visible.  go = -1 aborts a
     * run whose threads could not all be created. */
    _Atomic int ready;
    _Atomic int go;
    uint64_t start_cycles; /* first intended send; written before go */
    double interval_cycles;
    uint64_t shipped; /* last hot stage's; read after join */
    uint64_t sent;
    uint64_t full_spins;
    int pin_err[LAT_PIPE_NHOT]; /* per hot thread: pinning failure (read after join) */
    uint64_t ivc;               /* interval length in cycles (0 = no intervals) */
    size_t iv_cap;
    struct slow_heap *slow; /* per stage: the slowest samples (tracer thread) */
    sample flight_raw;      /* the flight trigger's stamps */
    bool flight_raw_set;
    /* Written on the tracer's thread (its callbacks), read after lat_trace_stop. */
    struct iv_state *fv;     /* per-interval figures, NULL = off */
    uint64_t last_t;         /* latest completion stamp seen */
    uint64_t trace_iv_ns;    /* the tracer's interval */
    uint64_t pub_ns, pub_at; /* publish interval, last publish (lat_mono_ns) */
    lat_schedstat ss0[LAT_PIPE_NHOT];
    uint64_t vol0[LAT_PIPE_NHOT], invol0[LAT_PIPE_NHOT];
    lat__pipe_cbuf cb; /* each sample's stamps for censoring (the tracer thread) */
} run;

/* ---- the slowest samples of a stage: a bounded min-heap (the tracer thread only) ----- */

typedef struct slow {
    uint64_t ns, from, to; /* latency, and the hop's [from, to] in cycles */
} slow;

typedef struct slow_heap {
    slow *v;
    size_t n, cap;
} slow_heap;

static void slow_sift_down(slow_heap *h, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < h->n && h->v[l].ns < h->v[m].ns) m = l;
        if (l + 1 < h->n && h->v[l + 1].ns < h->v[m].ns) m = l + 1;
        if (m == i) return;
        slow t = h->v[i];
        h->v[i] = h->v[m];
        h->v[m] = t;
        i = m;
    }
}

static void slow_add(slow_heap *h, uint64_t ns, uint64_t from, uint64_t to) {
    if (h->n < h->cap) {
        size_t i = h->n++;
        h->v[i] = (slow){ns, from, to};
        while (i > 0 && h->v[(i - 1) / 2].ns > h->v[i].ns) {
            slow t = h->v[i];
            h->v[i] = h->v[(i - 1) / 2];
            h->v[(i - 1) / 2] = t;
            i = (i - 1) / 2;
        }
    } else if (h->cap && ns > h->v[0].ns) {
        h->v[0] = (slow){ns, from, to};
        slow_sift_down(h, 0);
    }
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

static void nap_us(long us) {
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

/* Returns false when the run was aborted. */
static bool wait_go(run *R) {
    atomic_fetch_add_explicit(&R->ready, 1, memory_order_relaxed);
    int g;
    while ((g = atomic_load_explicit(&R->go, memory_order_acquire)) == 0)
        nap_us(50);
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
    R->r->plat[role].have_schedstat = lat_schedstat_read(NULL, &R->ss0[role]) == 0;
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
    lat_pipe_platform *pl = &R->r->plat[role];
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

static void *producer(void *arg) {
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

static void *worker(void *arg) {
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

static void *consumer(void *arg) {
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

/* ---- aggregation: the stage tracer, and the lab's per-event accounting ------------------- */

/* Per-interval figures by intended send time: the interval being filled. */
typedef struct iv_state {
    lat_hist h[LAT_PIPE_NSTAGES];
    lat_hist steady;    /* work of the events that met no queue */
    uint64_t steady_q1; /* ns: q1+wake below this met no queue */
    bool on;
    uint64_t cur;       /* index of the interval being filled */
    uint64_t count;     /* samples in it */
    uint64_t last_done; /* latest completion stamp so far (cycles) */
    uint64_t prev_done; /* the previous interval's */
} iv_state;

/* Before the run; start_cycles is taken at the first sample (iv_add). */
static bool iv_init(run *R, iv_state *v) {
    memset(v, 0, sizeof *v);
    if (!R->ivc || !R->r->iv) return false;
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++)
        if (R->r->h[s] && lat_hist_init(&v->h[s], 1, HIST_HIGHEST_NS, 3) != 0) return false;
    if (lat_hist_init(&v->steady, 1, HIST_HIGHEST_NS, 3) != 0) return false;
    v->steady_q1 = R->c.steady_q1_ns ? R->c.steady_q1_ns : LAT_PIPE_STEADY_Q1_NS;
    v->on = true;
    return true;
}

/* Mean of the recorded values at or below upto (NAN when none). */
static double body_mean(const lat_hist *h, int64_t upto) {
    lat_hist_iter it;
    lat_hist_iter_recorded(&it, h);
    double sum = 0, n = 0;
    while (lat_hist_iter_next(&it) && it.value <= upto) {
        sum += (double)lat_hist_median_equivalent(h, it.value) * (double)it.count_at_value;
        n += (double)it.count_at_value;
    }
    return n > 0 ? sum / n : NAN;
}

/* An interval histogram's p50 / p99 / p99.9 (x) and body mean. */
static double iv_figs(const lat_hist *h, int64_t x[3]) {
    static const double ps[] = {50, 99, 99.9};
    lat_hist_values_at_percentiles(h, ps, x, 3);
    return body_mean(h, x[1]);
}

static void iv_close(run *R, iv_state *v) {
    lat_pipe_result *r = R->r;
    if (!v->count || v->cur >= R->iv_cap) return;
    lat_pipe_interval *o = &r->iv[v->cur];
    o->count = v->count;
    int64_t x[3];
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        o->p50[s] = o->p99[s] = o->p999[s] = o->max[s] = -1;
        o->body_mean[s] = NAN;
        if (!r->h[s]) continue;
        o->body_mean[s] = iv_figs(&v->h[s], x);
        o->p50[s] = x[0], o->p99[s] = x[1], o->p999[s] = x[2];
        o->max[s] = lat_hist_max(&v->h[s]);
        lat_hist_reset(&v->h[s]);
    }
    o->steady_count = (uint64_t)lat_hist_total(&v->steady);
    o->steady_p50 = o->steady_p99 = o->steady_p999 = -1;
    o->steady_mean = NAN;
    if (o->steady_count) {
        o->steady_mean = iv_figs(&v->steady, x);
        o->steady_p50 = x[0], o->steady_p99 = x[1], o->steady_p999 = x[2];
        if (r->steady) lat_hist_add(r->steady, &v->steady);
    }
    lat_hist_reset(&v->steady);
    uint64_t span = lat_clock_to_ns(R->cal, v->last_done - v->prev_done);
    o->tput_hz = span ? (double)v->count * 1e9 / (double)span : 0;
    if (v->cur + 1 > r->niv) r->niv = (size_t)v->cur + 1;
    v->prev_done = v->last_done;
    v->count = 0;
}

static void iv_add(run *R, iv_state *v, const sample *s, uint64_t t3, const uint64_t *ns) {
    if (!v->prev_done) v->prev_done = v->last_done = R->start_cycles;
    uint64_t k = s->t0 > R->start_cycles ? (s->t0 - R->start_cycles) / R->ivc : 0;
    if (k > v->cur) {
        iv_close(R, v);
        v->cur = k;
    }
    for (int st = 0; st < LAT_PIPE_NSTAGES; st++)
        if (R->r->h[st]) lat_hist_record(&v->h[st], (int64_t)ns[st]);
    if (ns[LAT_PIPE_Q1] < v->steady_q1) lat_hist_record(&v->steady, (int64_t)ns[LAT_PIPE_WORK]);
    v->count++;
    if (t3 > v->last_done) v->last_done = t3;
}

static void iv_fini(iv_state *v) {
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++)
        lat_hist_fini(&v->h[s]);
    lat_hist_fini(&v->steady);
}

/* Keep the slowest samples of each stage with their hop's bounds. */
static void note_slow(run *R, const sample *s, uint64_t t3, const uint64_t *ns) {
    const uint64_t from[LAT_PIPE_NSTAGES] = {s->t0, s->tp, s->t1, s->t2, s->t0};
    const uint64_t to[LAT_PIPE_NSTAGES] = {s->tp, s->t1, s->t2, t3, t3};
    for (int k = 0; k < LAT_PIPE_NSTAGES; k++)
        if (R->r->h[k]) slow_add(&R->slow[k], ns[k], from[k], to[k]);
}

/* The tracer's per-block callback (on its aggregator thread): the lab's checks
 * and the figures the stage histograms cannot keep.  Blocks are shipped after
 * `go`, so start_cycles is visible here (go's release/acquire, then the ring's). */
static void on_block(void *ud, const lat_trace_stamps *b, const int64_t *tns) {
    run *R = ud;
    lat_pipe_result *r = R->r;
    bool full = R->c.shape == LAT_PIPE_FULL;
    sample s = {b->id,       b->t[PT_T0], b->t[PT_TP],  b->t[PT_T1],
                b->t[PT_T2], b->t[PT_T3], b->t[PT_KIND]};
    uint64_t t3 = full ? s.t3 : s.t2;
    if (s.tp < s.t0 || s.t1 < s.tp || s.t2 < s.t1 || t3 < s.t2) r->nonmonotonic++;
    uint64_t ns[LAT_PIPE_NSTAGES] = {0}; /* clamped by the tracer: never negative here */
    for (int k = 0; k < LAT_PIPE_NSTAGES; k++)
        if (R->tstage[k] >= 0 && tns[R->tstage[k]] > 0) ns[k] = (uint64_t)tns[R->tstage[k]];
    for (int k = 0; k < LAT_PIPE_NSTAGES; k++)
        if (r->h[k] && ns[k] > ns[LAT_PIPE_E2E]) r->e2e_below_part++;
    if (s.kind < LAT_PIPE_MAXKINDS && r->h_kind[s.kind])
        lat_hist_record(r->h_kind[s.kind], (int64_t)ns[LAT_PIPE_WORK]);
    if (!R->flight_raw_set) {
        /* The tracer records a block into the flight recorder before this
         * call: the first block that finds it triggered is the trigger. */
        const lat_flight *f = lat_trace_flight(R->tr);
        if (f && lat_flight_triggered(f)) {
            r->flight_fired = 1;
            R->flight_raw = s;
            R->flight_raw_set = true;
        }
    }
    if (R->fv) iv_add(R, R->fv, &s, t3, ns);
    if (R->slow) note_slow(R, &s, t3, ns);
    lat__pipe_cbuf_add(&R->cb, s.t0, s.tp, s.t1, s.t2, t3);
    if (t3 > R->last_t) R->last_t = t3;
}

/* The tracer's per-interval callback: the publisher gets the cumulative
 * histograms (h[stage], NULL for absent stages) at the first interval close
 * a publish interval after the last one, and at the last, partial one. */
static void on_interval(void *ud, const lat_trace_interval *iv) {
    run *R = ud;
    if (!R->c.publish) return;
    uint64_t now = lat_mono_ns();
    if (R->pub_at && now - R->pub_at + R->trace_iv_ns / 2 < R->pub_ns) return;
    const lat_hist *h[LAT_PIPE_NSTAGES] = {0};
    for (int k = 0; k < LAT_PIPE_NSTAGES; k++)
        if (R->tstage[k] >= 0) h[k] = iv->cumulative[R->tstage[k]];
    R->c.publish(R->c.publish_ud, h);
    R->pub_at = now;
}

/* The tracer for this run: the stages present, in the flight recorder's slot
 * order (q1+wake, work, q2+wake, send), then e2e, its trigger.  Its interval
 * is the interval logs' (else the publisher's; the tracer's floor is 1 ms). */
static int trace_create(run *R, const lat_pipe_config *cfg) {
    static const int order[] = {LAT_PIPE_Q1, LAT_PIPE_WORK, LAT_PIPE_Q2, LAT_PIPE_SEND,
                                LAT_PIPE_E2E};
    bool full = cfg->shape == LAT_PIPE_FULL;
    const unsigned from[LAT_PIPE_NSTAGES] = {PT_T0, PT_TP, PT_T1, PT_T2, PT_T0};
    const unsigned to[LAT_PIPE_NSTAGES] = {PT_TP, PT_T1, PT_T2, PT_T3, full ? PT_T3 : PT_T2};
    lat_trace_stage st[LAT_PIPE_NSTAGES];
    unsigned n = 0;
    for (int i = 0; i < LAT_PIPE_NSTAGES; i++) {
        int k = order[i];
        R->tstage[k] = -1;
        if (!lat_pipe_stage_present(k, cfg->shape, cfg->split_q1)) continue;
        st[n] = (lat_trace_stage){lat_pipe_stages[k].name, from[k], to[k]};
        R->tstage[k] = (int)n++;
    }
    R->pub_ns = cfg->publish_interval_ns ? cfg->publish_interval_ns : 1000000000ull;
    uint64_t iv = cfg->hlog_interval_ns ? cfg->hlog_interval_ns : 1000000000ull;
    if (!cfg->hlog_prefix && cfg->publish) iv = R->pub_ns;
    R->trace_iv_ns = iv < 1000000ull ? 1000000ull : iv;
    lat_trace_config tc;
    lat_trace_config_default(&tc);
    tc.stages = st;
    tc.nstages = n;
    tc.highest_ns = HIST_HIGHEST_NS;
    tc.interval_ns = R->trace_iv_ns;
    tc.sink_capacity = cfg->sample_cap;
    tc.cal = R->cal;
    tc.hlog_prefix = cfg->hlog_prefix;
    tc.hlog_atomic = true; /* an old log is replaced only by a complete one */
    tc.error_path = R->r->log_error_path;
    tc.error_path_cap = sizeof R->r->log_error_path;
    tc.on_block = on_block;
    tc.on_interval = on_interval;
    tc.ud = R;
    tc.flight_threshold_ns = cfg->flight_threshold_ns;
    tc.flight_post = cfg->flight_post;
    /* a backlog behind the outlier is kept until it drains (below half the
     * threshold), not cut after flight_post events */
    if (cfg->flight_threshold_ns != LAT_FLIGHT_NONE)
        tc.flight_drain_ns = cfg->flight_threshold_ns / 2;
    tc.flight_stage = R->tstage[LAT_PIPE_E2E];
    int rc = lat_trace_create(&tc, &R->tr);
    if (rc && R->r->log_error_path[0]) R->r->log_error = rc; /* a log could not be opened */
    if (rc == 0) rc = lat_trace_sink_create(R->tr, 0, &R->sink);
    return rc;
}

/* After the hot threads joined: drain, stop, and take the stages' histograms,
 * the counts and the flight recorder into the result.  A log's write error is
 * the result's log_error (the run stands); anything else fails the run. */
static int trace_finish(run *R, lat_pipe_result *r) {
    int e = lat_trace_stop(R->tr);
    if (e) r->log_error = e; /* error_path named it */
    int rc = 0;
    for (int k = 0; k < LAT_PIPE_NSTAGES && rc == 0; k++) {
        if (!r->h[k] || R->tstage[k] < 0) continue;
        lat_hist h;
        rc = lat_trace_hist_copy(R->tr, (unsigned)R->tstage[k], LAT_TRACE_CUMULATIVE, &h);
        if (rc == 0) {
            lat_hist_add(r->h[k], &h); /* the same geometry: nothing falls outside */
            lat_hist_fini(&h);
        }
    }
    lat_trace_counts n;
    lat_trace_counts_get(R->tr, &n);
    r->recorded = n.recorded;
    r->dropped = n.dropped;
    r->out_of_range = n.out_of_range;
    r->flight = lat_trace_flight_take(R->tr);
    if (R->fv) iv_close(R, R->fv);
    r->wall_ns =
        R->last_t > R->start_cycles ? lat_clock_to_ns(R->cal, R->last_t - R->start_cycles) : 0;
    return rc;
}

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

#define P_ (1u << LAT_PIPE_PRODUCER)
#define W_ (1u << LAT_PIPE_WORKER)
#define C_ (1u << LAT_PIPE_CONSUMER)
const lat_pipe_stage_desc lat_pipe_stages[LAT_PIPE_NSTAGES] = {
    [LAT_PIPE_SEND] = {"send", "send", 3, P_},
    [LAT_PIPE_Q1] = {"q1+wake", "q1-wake", 0, P_ | W_},
    [LAT_PIPE_WORK] = {"work", "work", 1, W_},
    [LAT_PIPE_Q2] = {"q2+wake", "q2-wake", 2, W_ | C_},
    [LAT_PIPE_E2E] = {"e2e", "e2e", -1, P_ | W_ | C_},
};

const char *lat_pipe_stage_name(int stage) {
    return stage >= 0 && stage < LAT_PIPE_NSTAGES ? lat_pipe_stages[stage].name : "?";
}

unsigned lat_pipe_stage_threads(int stage) {
    return stage >= 0 && stage < LAT_PIPE_NSTAGES ? lat_pipe_stages[stage].threads : 0;
}

bool lat_pipe_stage_present(int stage, int shape, bool split_q1) {
    if (stage == LAT_PIPE_SEND) return split_q1;
    if (stage == LAT_PIPE_Q2) return shape == LAT_PIPE_FULL;
    return stage >= 0 && stage < LAT_PIPE_NSTAGES;
}

int lat_pipe_flight_slot(int stage, int shape, bool split_q1) {
    if (!lat_pipe_stage_present(stage, shape, split_q1) || lat_pipe_stages[stage].flight_rank < 0)
        return -1;
    int slot = 0;
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++)
        if (lat_pipe_stage_present(s, shape, split_q1) && lat_pipe_stages[s].flight_rank >= 0 &&
            lat_pipe_stages[s].flight_rank < lat_pipe_stages[stage].flight_rank)
            slot++;
    return slot;
}

const char *lat_pipe_role_name(int shape, int role) {
    switch (role) {
    case LAT_PIPE_PRODUCER:
        return "producer";
    case LAT_PIPE_WORKER:
        return shape == LAT_PIPE_FULL ? "transformer" : "worker";
    case LAT_PIPE_CONSUMER:
        return "consumer";
    }
    return "?";
}

const char *lat_pipe_shape_name(int shape) {
    return shape == LAT_PIPE_FULL ? "full" : shape == LAT_PIPE_COMPACT ? "compact" : "auto";
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
    lat_hist_destroy(r->steady);
    lat__pipe_censor_fini(r);
    memset(r, 0, sizeof *r);
}

/* ---- platform accounting and attribution (cold: before and after the run) ------------- */

/* Gap list entries per thread: the config's, else room for 10,000 gaps per
 * second of run (eight times the busiest host measured), at least the
 * recorder's default: censoring needs every gap (16 bytes each). */
static size_t gap_capacity(const lat_pipe_config *cfg) {
    if (cfg->gap_capacity) return cfg->gap_capacity;
    double n = (double)cfg->events / (double)cfg->rate_hz * 10000;
    if (n > (double)(1u << 22)) return 1u << 22;
    return n > LAT_GAPS_DEFAULT_CAP ? (size_t)n : LAT_GAPS_DEFAULT_CAP;
}

static int accounting_create(run *R, const lat_pipe_config *cfg, lat_pipe_result *r) {
    bool full = cfg->shape == LAT_PIPE_FULL;
    uint64_t thr_ns = cfg->gap_threshold_ns ? cfg->gap_threshold_ns : LAT_GAPS_DEFAULT_NS;
    uint64_t thr = lat_clock_from_ns(R->cal, thr_ns);
    for (int k = 0; k < LAT_PIPE_NHOT; k++) {
        if (k == LAT_PIPE_CONSUMER && !full) continue;
        int rc = lat_gaps_create(gap_capacity(cfg), thr ? thr : 1, &r->gaps[k]);
        if (rc) return rc;
    }
    size_t ccap = cfg->censor_cap ? cfg->censor_cap : LAT_PIPE_CENSOR_CAP;
    if (ccap > cfg->events) ccap = (size_t)cfg->events;
    int crc = lat__pipe_cbuf_init(&R->cb, ccap);
    if (crc) return crc;
    if (cfg->interval_ns) {
        R->ivc = lat_clock_from_ns(R->cal, cfg->interval_ns);
        if (!R->ivc) R->ivc = 1;
        double run_ns = (double)cfg->events * 1e9 / (double)cfg->rate_hz;
        double n = run_ns / (double)cfg->interval_ns + 2;
        R->iv_cap = n > 1e6 ? 1000000 : (size_t)n;
        r->iv = lat__calloc(R->iv_cap, sizeof *r->iv);
        if (!r->iv) return -ENOMEM;
        int rc = lat_hist_create(1, HIST_HIGHEST_NS, 3, &r->steady);
        if (rc) return rc;
    }
    /* the slowest 1% (+2) of each stage, enough for everything above p99 */
    uint64_t cap = cfg->events / 100 + 2;
    if (cap > 65536) cap = 65536;
    R->slow = lat__calloc(LAT_PIPE_NSTAGES, sizeof *R->slow);
    if (!R->slow) return -ENOMEM;
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        R->slow[s].v = lat__calloc(cap, sizeof(slow));
        if (!R->slow[s].v) return -ENOMEM;
        R->slow[s].cap = cap;
    }
    return 0;
}

static void accounting_free(run *R) {
    lat__pipe_cbuf_fini(&R->cb);
    if (!R->slow) return;
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++)
        lat__free(R->slow[s].v);
    lat__free(R->slow);
}

/* /proc/stat over the hot CPUs (all CPUs when unpinned). */
static void cpustat_sum(const lat_pipe_config *c, lat_cpustat *out) {
    memset(out, 0, sizeof *out);
    bool any = false;
    for (int k = 0; k < LAT_PIPE_NHOT && !c->no_pin; k++) {
        lat_cpustat one;
        if (c->cpus[k] < 0 || lat_cpustat_read(NULL, c->cpus[k], &one) != 0) continue;
        any = true;
        out->user += one.user, out->nice += one.nice, out->system += one.system;
        out->idle += one.idle, out->iowait += one.iowait, out->irq += one.irq;
        out->softirq += one.softirq, out->steal += one.steal;
    }
    if (!any) lat_cpustat_read(NULL, -1, out);
}

static void cpustat_delta(const lat_cpustat *a, const lat_cpustat *b, lat_pipe_cpustat *o) {
    uint64_t ta = lat_cpustat_total(a), tb = lat_cpustat_total(b);
    if (tb <= ta) {
        o->steal_pct = o->irq_pct = o->softirq_pct = NAN;
        return;
    }
    double d = (double)(tb - ta);
    o->steal_pct = 100.0 * (double)(b->steal - a->steal) / d;
    o->irq_pct = 100.0 * (double)(b->irq - a->irq) / d;
    o->softirq_pct = 100.0 * (double)(b->softirq - a->softirq) / d;
}

/* Did a gap on a thread carrying the hop overlap [from, to]?  Returns the
 * role, or -1. */
static int hop_gap_role(const lat_pipe_result *r, int stage, uint64_t from, uint64_t to) {
    unsigned th = lat_pipe_stage_threads(stage);
    int best = -1;
    uint64_t most = 0;
    for (int k = 0; k < LAT_PIPE_NHOT; k++) {
        if (!(th & (1u << k)) || !r->gaps[k]) continue;
        uint64_t o = lat_gaps_overlap(r->gaps[k], from, to + 1);
        if (o > most) most = o, best = k;
    }
    return best;
}

static void attribute_tails(run *R, lat_pipe_result *r) {
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        lat_pipe_tail *t = &r->tail[s];
        t->thread999 = -1;
        if (!r->h[s]) continue;
        t->p99_ns = lat_hist_value_at_percentile(r->h[s], 99);
        t->p999_ns = lat_hist_value_at_percentile(r->h[s], 99.9);
        uint64_t by_role[LAT_PIPE_NHOT] = {0};
        const slow_heap *h = &R->slow[s];
        for (size_t i = 0; i < h->n; i++) {
            const slow *x = &h->v[i];
            if ((int64_t)x->ns <= t->p99_ns) continue;
            int role = hop_gap_role(r, s, x->from, x->to);
            t->above99++;
            if (role >= 0) t->above99_gap++;
            if ((int64_t)x->ns <= t->p999_ns) continue;
            t->above999++;
            if (role >= 0) t->above999_gap++, by_role[role]++;
        }
        for (int k = 0; k < LAT_PIPE_NHOT; k++)
            if (by_role[k] && (t->thread999 < 0 || by_role[k] > by_role[t->thread999]))
                t->thread999 = k;
    }
}

/* The flight recorder judges neighbours against the run's p50 of each stage
 * (a backlog filling its window would raise the window's own median). */
static void flight_baselines(const lat_pipe_config *c, lat_pipe_result *r) {
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        int slot = lat_pipe_flight_slot(s, c->shape, c->split_q1);
        if (slot >= 0 && r->h[s] && lat_hist_total(r->h[s]) > 0)
            lat_flight_set_baseline(r->flight, (unsigned)slot,
                                    (uint64_t)lat_hist_value_at_percentile(r->h[s], 50));
    }
}

/* The pipeline stage the flight verdict found slow in the trigger (its slot),
 * or e2e when there is no verdict for that sample. */
static int flight_stage(const run *R, const lat_pipe_result *r) {
    lat_flight_verdict v;
    if (!r->flight || lat_flight_analyze(r->flight, &v) != 0 || v.shape == LAT_FLIGHT_NO_TRIGGER ||
        v.trigger_seq != R->flight_raw.seq)
        return LAT_PIPE_E2E;
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++)
        if (lat_pipe_flight_slot(s, R->c.shape, R->c.split_q1) == v.stage) return s;
    return LAT_PIPE_E2E;
}

/* "60.0 ms", "64.0 us", "663 ns". */
static void fmt_span(char *b, size_t n, double ns) {
    double d = ns >= 1e6 ? 1e6 : ns >= 1e3 ? 1e3 : 1;
    snprintf(b, n, "%.*f %s", d > 1 ? 1 : 0, ns / d, d > 1e3 ? "ms" : d > 1 ? "us" : "ns");
}

/* What explains the flight outlier: a gap counts only on a thread carrying
 * the stage that grew and inside that stage's window of the outlier, and only
 * for the time it covers there; the sentence says how much. */
static void flight_gap(const run *R, lat_pipe_result *r) {
    const sample *s = &R->flight_raw;
    uint64_t t3 = R->c.shape == LAT_PIPE_FULL ? s->t3 : s->t2;
    const uint64_t from[LAT_PIPE_NSTAGES] = {s->t0, s->tp, s->t1, s->t2, s->t0};
    const uint64_t to[LAT_PIPE_NSTAGES] = {s->tp, s->t1, s->t2, t3, t3};
    int st = flight_stage(R, r);
    uint64_t a = from[st], b = to[st] > from[st] ? to[st] : from[st];
    unsigned th = lat_pipe_stage_threads(st);
    int best = -1, nthr = 0;
    uint64_t most = 0;
    char who[64] = "", span[32], cov[32], len[32];
    for (int k = 0; k < LAT_PIPE_NHOT; k++) {
        if (!(th & (1u << k)) || !r->gaps[k]) continue;
        size_t w = strlen(who);
        snprintf(who + w, sizeof who - w, "%s%s", nthr++ ? " or the " : "",
                 lat_pipe_role_name(R->c.shape, k));
        uint64_t o = lat_gaps_overlap(r->gaps[k], a, b);
        if (o > most) most = o, best = k;
    }
    double span_ns = (double)lat_clock_to_ns(R->cal, b - a);
    fmt_span(span, sizeof span, span_ns);
    const char *stage = lat_pipe_stage_name(st);
    if (best < 0) {
        snprintf(r->flight_gap, sizeof r->flight_gap,
                 "no platform gap on the %s inside seq %" PRIu64 "'s %s window (%s): that time "
                 "is the pipeline's own",
                 who, s->seq, stage, span);
        return;
    }
    const lat_gaps *g = r->gaps[best];
    size_t kept = lat_gaps_kept(g), ngaps = 0;
    uint64_t longest = 0;
    for (size_t i = lat_gaps_search(g->list, kept, a); i < kept && g->list[i].start < b; i++)
        ngaps++, longest = g->list[i].len > longest ? g->list[i].len : longest;
    double cov_ns = (double)lat_clock_to_ns(R->cal, most);
    fmt_span(cov, sizeof cov, cov_ns);
    fmt_span(len, sizeof len, (double)lat_clock_to_ns(R->cal, longest));
    char gaps[96];
    int w = ngaps > 1 ? snprintf(gaps, sizeof gaps, "%zu gaps (longest %s)", ngaps, len)
                      : snprintf(gaps, sizeof gaps, "a %s gap", len);
    double share = span_ns > 0 ? cov_ns / span_ns : 0;
    char line[512];
    w = snprintf(line, sizeof line,
                 "%s on the %s cover%s %s of seq %" PRIu64 "'s %s in %s (%.0f%%): %s", gaps,
                 lat_pipe_role_name(R->c.shape, best), ngaps > 1 ? "" : "s", cov, s->seq, span,
                 stage, 100 * share,
                 share >= 0.5 ? "mostly the platform's time, not the pipeline's"
                              : "the rest is the pipeline's own");
    (void)w;
    size_t n = strlen(line); /* a cut sentence still says which thread and how much */
    if (n >= sizeof r->flight_gap) n = sizeof r->flight_gap - 1;
    memcpy(r->flight_gap, line, n);
    r->flight_gap[n] = 0;
}

static void accounting_finish(run *R, lat_pipe_result *r) {
    r->run_start_cycles = R->start_cycles;
    for (size_t i = 0; i < r->niv; i++) {
        uint64_t a = R->start_cycles + i * R->ivc;
        for (int k = 0; k < LAT_PIPE_NHOT; k++)
            r->iv[i].lost_ns[k] =
                lat_clock_to_ns(R->cal, lat_gaps_overlap(r->gaps[k], a, a + R->ivc));
    }
    attribute_tails(R, r);
    if (r->flight) flight_baselines(&R->c, r);
    if (R->flight_raw_set) flight_gap(R, r);
}

int lat_pipe_run(const lat_pipe_config *cfg, lat_pipe_result *r) {
    if (!r || !valid(cfg)) return -EINVAL;
    memset(r, 0, sizeof *r);
    run *R = lat__calloc(1, sizeof *R);
    if (!R) return -ENOMEM;
    int rc = -ENOMEM, nthreads = 0;
    pthread_t th[3];
    iv_state fv; /* per-interval figures, filled on the tracer's thread */
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
        if ((rc = lat_hist_create(1, HIST_HIGHEST_NS, 3, &r->h[s])) != 0) goto fail;
    }
    for (unsigned k = 0; cfg->source && cfg->source->work && k < cfg->source->nkinds; k++)
        if ((rc = lat_hist_create(1, HIST_HIGHEST_NS, 3, &r->h_kind[k])) != 0) goto fail;
    if ((rc = q_create(&R->q1, cfg->queue_cap, sizeof(msg))) != 0) goto fail;
    if (full && (rc = q_create(&R->q2, cfg->queue_cap, sizeof(msg))) != 0) goto fail;
    if ((rc = accounting_create(R, cfg, r)) != 0) goto fail;
    if (iv_init(R, &fv)) R->fv = &fv;
    if ((rc = trace_create(R, cfg)) != 0) goto fail;
    if ((rc = lat_trace_start(R->tr)) != 0) goto fail;
    lat_cpustat cs0, cs1;
    cpustat_sum(cfg, &cs0);

    r->stamp_cost_ns = lat_pipe_stamp_cost_ns(R->cal, 10001);
    R->interval_cycles = R->cal->cycles_per_ns * 1e9 / (double)cfg->rate_hz;
    int nth = full ? 3 : 2;
    void *(*fns[3])(void *) = {producer, worker, consumer};
    /* Thread names (comm) so profiles and top say which stage a stack is (the
     * tracer names its thread "aggregator"). */
    static const char *const names[3] = {"producer", "worker", "consumer"};
    for (int i = 0; i < 3; i++) {
        if (!full && fns[i] == consumer) continue;
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
        nap_us(100);
    R->start_cycles = lat_cycles() + lat_clock_from_ns(R->cal, 1000000);
    atomic_store_explicit(&R->go, 1, memory_order_release);
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    nthreads = 0;
    if ((rc = trace_finish(R, r)) != 0) goto fail;
    r->sent = R->sent;
    r->transformed = atomic_load_explicit(&R->slots[full ? R->ia : R->ib], memory_order_relaxed);
    r->consumed = full ? atomic_load_explicit(&R->slots[R->ib], memory_order_relaxed) : R->shipped;
    r->q1_full_spins = R->full_spins;
    if (r->flight) lat_flight_freeze(r->flight);
    cpustat_sum(cfg, &cs1);
    cpustat_delta(&cs0, &cs1, &r->cpu);
    accounting_finish(R, r);
    if ((rc = lat__pipe_censor_finish(cfg, R->cal, &R->cb, R->start_cycles, R->ivc, r)) != 0)
        goto fail;
    for (int k = 0; k < LAT_PIPE_NHOT; k++)
        if (R->pin_err[k]) rc = R->pin_err[k];
    /* Keep the logs only when every one of them is complete (the tracer's
     * hlog_atomic: otherwise destroy removes them and the old files stay). */
    if (rc == 0 && !r->log_error && cfg->hlog_prefix) r->log_error = lat_trace_logs_commit(R->tr);
fail:
    lat_trace_destroy(R->tr); /* stops it first when a step above failed */
    iv_fini(&fv);
    q_free(R->q1);
    q_free(R->q2);
    accounting_free(R);
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

/* ---- placement ----------------------------------------------------------------------------- */

int lat_pipe_place(lat_pipe_config *c, int shape, const lat_topo *t, bool oversubscribe,
                   bool *oversubscribed, char *why, size_t why_len) {
    if (!c || !t || !oversubscribed || !why || why_len == 0) return -EINVAL;
    *oversubscribed = false;
    why[0] = 0;
    lat_plan p;
    int rc;
    char auto_note[160] = "";
    if (shape == LAT_PIPE_AUTO) {
        rc = lat_topo_plan(t, 3, 1, 0, &p);
        if (rc == 0 && !p.smt_shared) {
            shape = LAT_PIPE_FULL;
            snprintf(auto_note, sizeof auto_note,
                     "auto chose full: three hot threads can each be pinned to their own CPU");
        } else {
            shape = LAT_PIPE_COMPACT;
            snprintf(auto_note, sizeof auto_note,
                     "auto chose compact: %d usable CPUs cannot pin three hot threads apart, "
                     "so the consumer runs inside the worker",
                     lat_cpuset_count(lat_topo_affinity(t)));
        }
    }
    if (shape != LAT_PIPE_FULL && shape != LAT_PIPE_COMPACT) return -EINVAL;
    int nhot = shape == LAT_PIPE_FULL ? 3 : 2;
    rc = lat_topo_plan(t, nhot, 1, 0, &p);
    if (rc == LAT_ETOOFEW_CPUS) {
        if (!oversubscribe) {
            snprintf(why, why_len, "%s%s%s; use --oversubscribe to run anyway", auto_note,
                     auto_note[0] ? "; " : "",
                     p.note[0] ? p.note : "too few CPUs for the hot threads");
            return LAT_ETOOFEW_CPUS;
        }
        rc = lat_topo_plan(t, nhot, 1, LAT_PLAN_SHARE, &p);
        if (rc) return rc;
        *oversubscribed = true;
        c->idle = lat_idle_backoff(10, 20, 1000, 1000000);
    } else if (rc) {
        return rc;
    }
    if (p.oversubscribed) {
        *oversubscribed = true;
        c->idle = lat_idle_backoff(10, 20, 1000, 1000000);
    }
    c->shape = shape;
    c->cpus[LAT_PIPE_PRODUCER] = p.hot[0];
    c->cpus[LAT_PIPE_WORKER] = p.hot[1];
    c->cpus[LAT_PIPE_CONSUMER] = shape == LAT_PIPE_FULL ? p.hot[2] : -1;
    int len = snprintf(why, why_len, "%s%sshape %s: producer on CPU %d, %s on CPU %d", auto_note,
                       auto_note[0] ? "; " : "", lat_pipe_shape_name(shape), p.hot[0],
                       shape == LAT_PIPE_FULL ? "transformer" : "worker", p.hot[1]);
    if (shape == LAT_PIPE_FULL && len > 0 && (size_t)len < why_len)
        len += snprintf(why + len, why_len - (size_t)len, ", consumer on CPU %d", p.hot[2]);
    if (*oversubscribed && len > 0 && (size_t)len < why_len)
        len +=
            snprintf(why + len, why_len - (size_t)len, "; hot threads share CPUs (backoff idle)");
    if (p.note[0] && len > 0 && (size_t)len < why_len)
        snprintf(why + len, why_len - (size_t)len, "; %s", p.note);
    return 0;
}

/* ---- JSON ---------------------------------------------------------------------------------- */

static const double pcts[] = {50, 90, 99, 99.9, 99.99};
static const char *const pct_keys[] = {"p50", "p90", "p99", "p99.9", "p99.99"};

/* Platform accounting, tail attribution and per-interval figures. */
static json_t *platform_json(const lat_pipe_config *c, const lat_pipe_result *r) {
    const lat_clock_cal *cal = c->cal ? c->cal : lat_clock_default();
    json_t *o = json_object();
    for (int k = 0; k < LAT_PIPE_NHOT; k++) {
        const lat_gaps *g = r->gaps[k];
        if (!g || !r->thr[k].ran) continue;
        const lat_pipe_platform *p = &r->plat[k];
        json_t *t = json_object();
        json_object_set_new(t, "gaps", json_integer((json_int_t)g->count));
        json_object_set_new(t, "gap_lost_ns",
                            json_integer((json_int_t)lat_clock_to_ns(cal, g->total)));
        json_object_set_new(t, "gap_longest_ns",
                            json_integer((json_int_t)lat_clock_to_ns(cal, g->longest)));
        json_object_set_new(t, "gaps_not_listed", json_integer((json_int_t)g->overflow));
        json_t *hist = json_object();
        for (int b = 0; b < LAT_GAPS_BUCKETS; b++) {
            if (!g->hist[b]) continue;
            char key[24];
            snprintf(key, sizeof key, "%.0f", (double)lat_clock_to_ns(cal, 1ull << b));
            json_object_set_new(hist, key, json_integer((json_int_t)g->hist[b]));
        }
        json_object_set_new(t, "gap_hist_from_ns", hist); /* bucket: [key, 2 * key) ns */
        json_object_set_new(t, "runqueue_wait_ns",
                            p->have_schedstat ? json_integer((json_int_t)p->wait_ns) : json_null());
        json_object_set_new(t, "voluntary_switches", json_integer((json_int_t)p->vol_switches));
        json_object_set_new(t, "involuntary_switches", json_integer((json_int_t)p->invol_switches));
        json_object_set_new(o, lat_pipe_role_name(c->shape, k), t);
    }
    json_object_set_new(o, "gap_threshold_ns",
                        json_integer((json_int_t)(c->gap_threshold_ns ? c->gap_threshold_ns
                                                                      : LAT_GAPS_DEFAULT_NS)));
    json_object_set_new(o, "hot_cpu_steal_pct", lat_json_real_or_null(r->cpu.steal_pct));
    json_object_set_new(o, "hot_cpu_irq_pct", lat_json_real_or_null(r->cpu.irq_pct));
    json_object_set_new(o, "hot_cpu_softirq_pct", lat_json_real_or_null(r->cpu.softirq_pct));
    json_t *at = json_object();
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        const lat_pipe_tail *t = &r->tail[s];
        if (!r->h[s]) continue;
        json_t *x = json_object();
        json_object_set_new(x, "above_p99", json_integer((json_int_t)t->above99));
        json_object_set_new(x, "above_p99_in_gap", json_integer((json_int_t)t->above99_gap));
        json_object_set_new(x, "above_p999", json_integer((json_int_t)t->above999));
        json_object_set_new(x, "above_p999_in_gap", json_integer((json_int_t)t->above999_gap));
        json_object_set_new(x, "p999_mostly",
                            t->thread999 >= 0
                                ? json_string(lat_pipe_role_name(c->shape, t->thread999))
                                : json_null());
        json_object_set_new(at, lat_pipe_stages[s].name, x);
    }
    json_object_set_new(o, "tail_attribution", at);
    return o;
}

static json_t *intervals_json(const lat_pipe_config *c, const lat_pipe_result *r) {
    json_t *a = json_array();
    for (size_t i = 0; i < r->niv; i++) {
        const lat_pipe_interval *v = &r->iv[i];
        json_t *x = json_object();
        json_object_set_new(x, "count", json_integer((json_int_t)v->count));
        for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
            if (!r->h[s]) continue;
            json_t *st = json_object();
            json_object_set_new(st, "p50", json_integer(v->p50[s]));
            json_object_set_new(st, "p99", json_integer(v->p99[s]));
            json_object_set_new(st, "p99.9", json_integer(v->p999[s]));
            json_object_set_new(st, "max", json_integer(v->max[s]));
            if (isfinite(v->body_mean[s]))
                json_object_set_new(st, "body_mean", json_real(v->body_mean[s]));
            json_object_set_new(x, lat_pipe_stages[s].name, st);
        }
        if (v->steady_count)
            json_object_set_new(
                x, "work_steady",
                json_pack("{s:I, s:I, s:I, s:I, s:f}", "count", (json_int_t)v->steady_count, "p50",
                          (json_int_t)v->steady_p50, "p99", (json_int_t)v->steady_p99, "p99.9",
                          (json_int_t)v->steady_p999, "body_mean", v->steady_mean));
        json_object_set_new(x, "tput_hz", json_real(v->tput_hz));
        json_t *l = json_object();
        for (int k = 0; k < LAT_PIPE_NHOT; k++)
            if (r->gaps[k])
                json_object_set_new(l, lat_pipe_role_name(c->shape, k),
                                    json_integer((json_int_t)v->lost_ns[k]));
        json_object_set_new(x, "lost_ns", l);
        json_t *kept = json_object();
        for (int s = 0; s < LAT_PIPE_NSTAGES && r->censor_judged; s++)
            if (r->h[s])
                json_object_set_new(kept, lat_pipe_stages[s].name,
                                    json_integer((json_int_t)v->kept[s]));
        json_object_set_new(x, "kept", kept);
        json_array_append_new(a, x);
    }
    return a;
}

json_t *lat_pipe_result_json(const lat_pipe_config *c, const lat_pipe_result *r) {
    if (!c || !r) return NULL;
    json_t *o = json_object();
    json_t *cfg = json_object();
    json_object_set_new(cfg, "shape", json_string(lat_pipe_shape_name(c->shape)));
    json_object_set_new(cfg, "events", json_integer((json_int_t)c->events));
    json_object_set_new(cfg, "rate_hz", json_integer((json_int_t)c->rate_hz));
    json_object_set_new(cfg, "queue_cap", json_integer(c->queue_cap));
    json_object_set_new(cfg, "sample_cap", json_integer(c->sample_cap));
    json_object_set_new(cfg, "work_iters", json_integer(c->work_iters));
    json_object_set_new(cfg, "alloc", json_boolean(c->alloc));
    json_object_set_new(cfg, "no_pin", json_boolean(c->no_pin));
    json_object_set_new(cfg, "share_line", json_boolean(c->share_line));
    json_object_set_new(cfg, "split_q1", json_boolean(c->split_q1));
    json_object_set_new(cfg, "idle", json_string(lat_idle_name(c->idle.kind)));
    json_object_set_new(o, "config", cfg);

    json_t *pl = json_object();
    const char *roles[] = {"producer", c->shape == LAT_PIPE_FULL ? "transformer" : "worker",
                           "consumer"};
    for (int k = 0; k < LAT_PIPE_NHOT; k++) {
        const lat_pipe_counters *t = &r->thr[k];
        if (!t->ran) continue;
        json_t *th = json_object();
        json_object_set_new(th, "planned_cpu",
                            c->no_pin || c->cpus[k] < 0 ? json_null() : json_integer(c->cpus[k]));
        json_object_set_new(th, "cpu_start", json_integer(t->cpu_start));
        json_object_set_new(th, "cpu_end", json_integer(t->cpu_end));
        json_object_set_new(th, "context_switches", lat_json_real_or_null(t->ctx_switches));
        json_object_set_new(th, "migrations", lat_json_real_or_null(t->migrations));
        json_object_set_new(th, "page_faults", lat_json_real_or_null(t->page_faults));
        json_object_set_new(th, "cycles", lat_json_real_or_null(t->cycles));
        json_object_set_new(th, "instructions", lat_json_real_or_null(t->instructions));
        json_object_set_new(th, "cache_misses", lat_json_real_or_null(t->cache_misses));
        double ipc = t->cycles > 0 ? t->instructions / t->cycles : NAN;
        json_object_set_new(th, "ipc", lat_json_real_or_null(ipc));
        json_object_set_new(th, "loop_ns", json_integer((json_int_t)t->loop_ns));
        json_object_set_new(pl, roles[k], th);
    }
    json_object_set_new(pl, "aggregator", json_string("unpinned, backoff idle"));
    json_object_set_new(o, "threads", pl);

    json_t *st = json_object();
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        const lat_hist *h = r->h[s];
        if (!h) continue;
        json_t *x = json_object();
        json_object_set_new(x, "count", json_integer(lat_hist_total(h)));
        lat_hist_ci ci[5];
        lat_hist_cis_at_percentiles(h, pcts, LAT_HIST_CI_DEFAULT, ci, 5);
        for (int i = 0; i < 5; i++)
            lat_json_set_ci(x, pct_keys[i], "", &ci[i]);
        json_object_set_new(x, "max", json_integer(lat_hist_max(h)));
        json_object_set_new(x, "mean", json_real(lat_hist_mean(h)));
        json_object_set_new(st, lat_pipe_stages[s].name, x);
    }
    json_object_set_new(o, "stages_ns", st);
    json_object_set_new(o, "percentile_confidence", json_real(LAT_HIST_CI_DEFAULT));

    json_t *cn = json_object();
    json_object_set_new(cn, "events", json_integer((json_int_t)r->events));
    json_object_set_new(cn, "sent", json_integer((json_int_t)r->sent));
    json_object_set_new(cn, "transformed", json_integer((json_int_t)r->transformed));
    json_object_set_new(cn, "consumed", json_integer((json_int_t)r->consumed));
    json_object_set_new(cn, "recorded", json_integer((json_int_t)r->recorded));
    json_object_set_new(cn, "dropped", json_integer((json_int_t)r->dropped));
    json_object_set_new(cn, "nonmonotonic", json_integer((json_int_t)r->nonmonotonic));
    json_object_set_new(cn, "out_of_range", json_integer((json_int_t)r->out_of_range));
    json_object_set_new(cn, "q1_full_retries", json_integer((json_int_t)r->q1_full_spins));
    json_object_set_new(o, "counts", cn);

    json_object_set_new(o, "wall_ns", json_integer((json_int_t)r->wall_ns));
    json_object_set_new(o, "cycles_per_ns", json_real(r->cycles_per_ns));
    json_t *ic = json_object();
    json_object_set_new(ic, "fenced_stamp_ns", json_integer((json_int_t)r->stamp_cost_ns));
    json_object_set_new(ic, "stamps_per_event", json_integer(r->stamps_per_event));
    double p50 =
        r->h[LAT_PIPE_E2E] ? (double)lat_hist_value_at_percentile(r->h[LAT_PIPE_E2E], 50) : 0;
    json_object_set_new(
        ic, "stamp_pct_of_e2e_p50",
        lat_json_real_or_null(p50 > 0 ? 100.0 * (double)r->stamp_cost_ns / p50 : NAN));
    json_object_set_new(o, "instrumentation", ic);
    json_t *ad = json_array();
    for (int i = 0; i < 2; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "0x%" PRIxPTR, r->counter_addr[i]);
        json_array_append_new(ad, json_string(buf));
    }
    json_object_set_new(o, "stage_counter_addrs", ad);
    json_object_set_new(o, "platform", platform_json(c, r));
    json_t *cens = lat__pipe_censor_json(r);
    if (cens) json_object_set_new(o, "censoring", cens);
    if (r->niv) {
        json_object_set_new(o, "interval_ns", json_integer((json_int_t)c->interval_ns));
        json_object_set_new(o, "intervals", intervals_json(c, r));
    }
    json_object_set_new(
        o, "stage_counters_same_line",
        json_boolean(r->counter_addr[0] / LAT_CACHELINE == r->counter_addr[1] / LAT_CACHELINE));
    if (r->flight) {
        lat_flight_verdict v;
        json_t *fl = json_object();
        json_object_set_new(fl, "threshold_ns", json_integer((json_int_t)r->flight->threshold_ns));
        json_object_set_new(fl, "fired", json_boolean(r->flight_fired));
        if (lat_flight_analyze(r->flight, &v) == 0 && v.shape != LAT_FLIGHT_NO_TRIGGER) {
            json_object_set_new(fl, "trigger_seq", json_integer((json_int_t)v.trigger_seq));
            json_object_set_new(fl, "stage", json_string(r->flight->names[v.stage]));
            json_object_set_new(fl, "shape",
                                json_string(v.shape == LAT_FLIGHT_RUN ? "run" : "one-event"));
            json_object_set_new(fl, "run", json_integer((json_int_t)v.run));
            json_object_set_new(fl, "verdict", json_string(v.text));
        }
        json_object_set_new(o, "flight", fl);
    }
    return o;
}
