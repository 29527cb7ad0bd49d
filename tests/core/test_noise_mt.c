/* test_noise_mt.c - injected platform noise as root: a thread spins on one
 * CPU recording its gaps (latlab/gaps.h) while the injector takes 10% of that
 * CPU in 50 us bursts at 2 kHz.  The spinner runs SCHED_FIFO one level below
 * the injector, so the other tasks of a shared machine do not add gaps; the
 * host still adds its own (up to ~1,200/s of 13-500 us here), so bursts are
 * matched to gaps by time, from the injector's log.  The gap accounting must
 * recover the injected bursts: count within 5% of the bursts done; a gap
 * starts between its burst's due time and the injector's first read, within
 * two counter ticks or 2 us (the larger) (90%: the rest are host gaps the
 * burst ran into), and ends after the burst's last read by one switch back,
 * under 25 us (95%); sanitized builds 10 us, 50 us, 85% and 90%.  The length
 * beside the burst plus the median switch costs is reported (the switch
 * costs are the host's); the report agrees with the log.  Also: the same seed gives the same
 * schedule, another seed another; stop ends the threads at once, mid-stall;
 * bursts another injector lengthens still keep within the 50% cap by the
 * injector's own account.  Not root: SKIPPED. */
#include "lat_test.h"

#include "latlab/clock.h"
#include "latlab/gaps.h"
#include "latlab/noise.h"
#include "latlab/topo.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct spinner {
    int cpu;
    lat_gaps *g;
    _Atomic int state; /* 0 starting, 1 spinning, 2 told to stop */
    int err;
} spinner;

static void *spin(void *arg) {
    spinner *sp = arg;
    /* SCHED_FIFO below the injector: other tasks on a shared machine cannot
     * take the CPU from it, so its gaps are the injector's and the host's */
    struct sched_param prio = {.sched_priority = 1};
    if ((sp->err = lat_pin_thread(sp->cpu)) != 0 ||
        (sp->err = -pthread_setschedparam(pthread_self(), SCHED_FIFO, &prio)) != 0) {
        atomic_store_explicit(&sp->state, 1, memory_order_release);
        return NULL;
    }
    uint64_t prev = lat_cycles();
    atomic_store_explicit(&sp->state, 1, memory_order_release);
    /* relaxed: the join orders the recorder's contents for the reader */
    while (atomic_load_explicit(&sp->state, memory_order_relaxed) != 2) {
        uint64_t now = lat_cycles();
        lat_gaps_note(sp->g, prev, now);
        prev = now;
    }
    return NULL;
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int test_cpu(void) {
    lat_cpuset mine;
    if (lat_thread_affinity(&mine)) return 0;
    int last = -1;
    for (int c = lat_cpuset_next(&mine, 0); c >= 0; c = lat_cpuset_next(&mine, c + 1))
        last = c;
    return last;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* How the gaps recorded in g0 match the injector's log (counter cycles). */
typedef struct matched {
    size_t found, starts, ends, within; /* bursts found as gaps; of those, within each bound */
    int64_t over, p5, p95;              /* gap - burst: median (the switch costs), p5, p95 */
    int64_t tol, switch_max;            /* the bounds */
    double most, starts_most;           /* the shares the test holds them to */
    double host_share;                  /* time in gaps no burst explains / the bursts' span */
} matched;

/* Match each burst [due, end) to the longest gap overlapping it.  The
 * gap is the burst plus what the injector cannot see: the switch to it
 * (before its first read) and the switch back to the spinner after its
 * last read.  Those are the host's costs, not the accounting's: on one
 * 2-vCPU KVM guest (Intel) the switch back was within 2 us of its median
 * in 85-93% of bursts; on another (AMD EPYC) it took two paths, about
 * 2.5 us and 9.5 us (65-87% within 2 us of the median, 99% within 7 us),
 * and the wake-up came 16-26 us after the due time.  So the gap is
 * checked at both ends: it starts between the due time and the first
 * read, and ends after the last read by one switch (not a second
 * burst).  The length's error beside the median switch costs is
 * reported, not held to 2 us: on the second host that is the host's
 * switch paths, not the accounting (test_gaps checks the accounting's
 * lengths exactly). */
static void match_bursts(const lat_noise_burst *log, size_t nb, const lat_gaps *g0,
                         const lat_clock_cal *cal, matched *m) {
    int64_t *err = calloc(nb, sizeof *err), *lead = calloc(nb, sizeof *lead),
            *back = calloc(nb, sizeof *back);
    assert_true(err && lead && back);
    size_t found = 0;
    uint64_t burst_gaps = 0, all_gaps = 0;
    for (size_t i = 0; i < nb; i++) {
        long k = lat_gaps_find(g0, log[i].due, log[i].end);
        if (k < 0) continue;
        const lat_gap *g = &g0->list[k];
        burst_gaps += g->len;
        /* before the due time: how early; after the injector's first read
         * (a late wake: the spinner ran until the switch): how late; 0 between */
        int64_t early = (int64_t)log[i].due - (int64_t)g->start;
        int64_t late = (int64_t)g->start - (int64_t)log[i].start;
        lead[found] = early > 0 ? early : late > 0 ? -late : 0;
        back[found] = (int64_t)(g->start + g->len) - (int64_t)log[i].end;
        err[found++] = (int64_t)g->len - (int64_t)(log[i].end - log[i].due);
    }
    uint64_t tick = lat_clock_granularity_cycles(4000);
#ifdef LAT_SANITIZED
    /* the sanitizer's hooks in the injector's and the spinner's lock and
     * wait paths make the switch costs vary by several us */
    int64_t tol = (int64_t)lat_clock_from_ns(cal, 10000);
    /* ...and the switch back too: median 13 us, p95 32 us under TSan on
     * the AMD guest */
    int64_t switch_max = (int64_t)lat_clock_from_ns(cal, 50000);
    double most = 0.90, starts_most = 0.85; /* ...and so the share within them */
#else
    /* a gap that starts early is a host gap the burst ran into: 1.5-4% of
     * bursts on a quiet AMD guest */
    double most = 0.95, starts_most = 0.90;
    int64_t tol = (int64_t)lat_clock_from_ns(cal, 2000);
    int64_t switch_max = (int64_t)lat_clock_from_ns(cal, 25000);
#endif
    if (2 * (int64_t)tick > tol) tol = 2 * (int64_t)tick;
    qsort(err, found, sizeof *err, cmp_i64);
    int64_t over = found ? err[found / 2] : 0;
    *m = (matched){.found = found, .over = over, .tol = tol, .switch_max = switch_max};
    m->p5 = found ? err[found / 20] : 0, m->p95 = found ? err[found * 19 / 20] : 0;
    /* The host's own gaps over the bursts' span: a burst due while one is
     * open merges with it and its gap starts early, and a vCPU the host held
     * at the due time also wakes the injector late; so the share of early
     * starts allowed grows by three times the time the host took, down to
     * 75% (on one AMD guest 1,500 host gaps a second, with the injector
     * waking 26 us late on average, moved 13% of starts early) */
    uint64_t span_from = nb ? log[0].due : 0, span_to = nb ? log[nb - 1].end : 0;
    size_t kept = g0->count < g0->capacity ? (size_t)g0->count : g0->capacity;
    for (size_t i = 0; i < kept; i++)
        if (g0->list[i].start >= span_from && g0->list[i].start < span_to)
            all_gaps += g0->list[i].len;
    m->host_share = span_to > span_from && all_gaps > burst_gaps
                        ? (double)(all_gaps - burst_gaps) / (double)(span_to - span_from)
                        : 0;
    starts_most = fmax(0.75, starts_most - 3 * m->host_share);
    m->most = most, m->starts_most = starts_most;
    for (size_t i = 0; i < found; i++) {
        if (err[i] - over >= -tol && err[i] - over <= tol) m->within++;
        if (lead[i] >= -tol && lead[i] <= tol) m->starts++;
        if (back[i] >= -tol && back[i] <= switch_max) m->ends++;
    }
    free(back);
    free(lead);
    free(err);
}

static void test_gaps_recover_bursts(void **st) {
    (void)st;
    if (!lat_test_is_root()) LAT_SKIP("not root: SCHED_FIFO bursts need root or CAP_SYS_NICE");
    const lat_clock_cal *cal = lat_clock_default();
    int cpu = test_cpu();
    char text[128], why[256];
    snprintf(text, sizeof text, "cpus=%d,share=10%%,burst=50us,rate=2kHz,seed=7,prio=2", cpu);
    lat_noise_spec s;
    assert_int_equal(lat_noise_parse(text, &s, why, sizeof why), 0);
    lat_noise *n = NULL;
    assert_int_equal(lat_noise_create(&s, 8192, &n), 0);
    spinner sp = {.cpu = cpu};
    /* 5 us: well under a burst, over the loop's own jitter */
    assert_int_equal(lat_gaps_create(1 << 16, lat_clock_from_ns(cal, 5000), &sp.g), 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, spin, &sp), 0);
    while (atomic_load_explicit(&sp.state, memory_order_acquire) == 0)
        sleep_ms(1);
    int rc = lat_noise_start(n);
    if (rc == -EPERM) {
        atomic_store(&sp.state, 2);
        pthread_join(t, NULL);
        lat_noise_destroy(n);
        lat_gaps_destroy(sp.g);
        LAT_SKIP("SCHED_FIFO refused (a container without RT runtime?)");
    }
    assert_int_equal(rc, 0);
    /* 0.8 s: a SCHED_FIFO spinner stays under the RT runtime of any 1 s
     * period (sched_rt_runtime_us, 0.95 s): no throttling gap */
    sleep_ms(800);
    lat_noise_report rep;
    assert_int_equal(lat_noise_stop(n, &rep), 0);
    sleep_ms(5); /* the last burst's gap closes */
    atomic_store_explicit(&sp.state, 2, memory_order_relaxed);
    pthread_join(t, NULL);
    assert_int_equal(sp.err, 0);

    const lat_noise_burst *log;
    size_t nb = lat_noise_log(n, 0, &log);
    assert_int_equal(rep.ncpus, 1);
    assert_int_equal(nb, rep.cpu[0].bursts); /* no stalls, log not full */
    assert_true(nb > 1000);                  /* ~1,600 in 0.8 s */
    /* the report agrees with the log */
    uint64_t cyc = 0;
    for (size_t i = 0; i < nb; i++)
        cyc += log[i].end - log[i].due;
    assert_int_equal(rep.cpu[0].taken_ns, lat_clock_to_ns(cal, cyc));

    matched m;
    match_bursts(log, nb, sp.g, cal, &m);
    size_t found = m.found, starts = m.starts, ends = m.ends, within = m.within;
    int64_t over = m.over, tol = m.tol, switch_max = m.switch_max;
    double most = m.most, starts_most = m.starts_most;
    double ns = 1 / cal->cycles_per_ns, pc = found ? 100.0 / (double)found : 0;
    printf("noise: %zu bursts of 50 us done, %zu recovered as gaps (count error %.2f%%); "
           "tolerance %.0f ns: gap starts between the burst's due time and its wake-up in %.2f%%, "
           "ends one switch (< %.0f us) after its last read in %.2f%%; gap - burst: "
           "median %.0f ns (the switch costs), p5 %.0f ns, p95 %.0f ns, within tolerance of "
           "burst + median in %.2f%%; wake-up %.0f ns mean; took %.2f%%; the spinner saw "
           "%" PRIu64 " gaps in all (the host's included, %.2f%% of the time: starts held to "
           "%.0f%%)\n",
           nb, found, 100.0 * ((double)nb - (double)found) / (double)nb, (double)tol * ns,
           pc * (double)starts, (double)switch_max * ns / 1000, pc * (double)ends,
           (double)over * ns, (double)m.p5 * ns, (double)m.p95 * ns, pc * (double)within,
           (double)rep.cpu[0].late_mean_ns, 100 * rep.share, sp.g->count, 100 * m.host_share,
           100 * starts_most);
    assert_true((double)found >= 0.95 * (double)nb);
    /* the gap begins between the burst's due time and the injector's wake-up
     * (on a loaded host the wake can be late by several us, and the spinner
     * runs until the switch): exact within the tolerance */
    assert_true((double)starts >= starts_most * (double)found);
    /* it ends after the burst's last read, by one switch back: a split gap
     * ends early, a merged one late */
    assert_true((double)ends >= most * (double)found);
    /* the switch is a small cost beside the burst, not a second burst */
    assert_true(over >= 0 && (double)over * ns < 25000);
    lat_noise_destroy(n);
    lat_gaps_destroy(sp.g);
}

/* The same spec runs the same schedule (the due times of its bursts), and
 * another seed another one. */
static int run_schedule(const char *text, uint64_t *due, int ndue) {
    char why[256];
    lat_noise_spec s;
    assert_int_equal(lat_noise_parse(text, &s, why, sizeof why), 0);
    lat_noise *n = NULL;
    assert_int_equal(lat_noise_create(&s, 64, &n), 0);
    int rc = lat_noise_start(n);
    if (rc == 0) {
        sleep_ms(100);
        lat_noise_report rep;
        assert_int_equal(lat_noise_stop(n, &rep), 0);
        const lat_noise_burst *log;
        size_t k = lat_noise_log(n, 0, &log);
        assert_true(k >= (size_t)ndue);
        for (int i = 0; i < ndue; i++)
            due[i] = log[i].due_ns;
        rc = (int)rep.cpu[0].reanchored; /* a late wake shifts the later dues */
    }
    lat_noise_destroy(n);
    return rc;
}

static void test_schedule_reproducible(void **st) {
    (void)st;
    if (!lat_test_is_root()) LAT_SKIP("not root: SCHED_FIFO bursts need root or CAP_SYS_NICE");
    char a[128], b[128];
    snprintf(a, sizeof a, "cpus=%d,share=1%%,burst=10us,rate=1kHz,seed=3", test_cpu());
    snprintf(b, sizeof b, "cpus=%d,share=1%%,burst=10us,rate=1kHz,seed=4", test_cpu());
    uint64_t d1[20], d2[20], d3[20];
    int r1 = run_schedule(a, d1, 20), r2 = run_schedule(a, d2, 20), r3 = run_schedule(b, d3, 20);
    if (r1 == -EPERM) LAT_SKIP("SCHED_FIFO refused");
    if (r1 == 0 && r2 == 0) assert_memory_equal(d1, d2, sizeof d1);
    int same = 0;
    for (int i = 0; i < 20; i++)
        same += d1[i] == d3[i];
    assert_true(r3 < 0 || same < 5);
}

/* A stall of 100 ms is cut short by stop, and start twice is refused. */
static void test_stop_is_prompt(void **st) {
    (void)st;
    if (!lat_test_is_root()) LAT_SKIP("not root: SCHED_FIFO bursts need root or CAP_SYS_NICE");
    char text[128], why[256];
    snprintf(text, sizeof text, "cpus=%d,share=1%%,rate=1Hz,stall=100ms/250ms", test_cpu());
    lat_noise_spec s;
    assert_int_equal(lat_noise_parse(text, &s, why, sizeof why), 0);
    lat_noise *n = NULL;
    assert_int_equal(lat_noise_create(&s, 0, &n), 0);
    int rc = lat_noise_start(n);
    if (rc == -EPERM) {
        lat_noise_destroy(n);
        LAT_SKIP("SCHED_FIFO refused");
    }
    assert_int_equal(rc, 0);
    assert_int_equal(lat_noise_start(n), -EBUSY);
    sleep_ms(300); /* inside or past the first stall (due at 125..250 ms) */
    uint64_t t = lat_mono_ns();
    lat_noise_report rep;
    assert_int_equal(lat_noise_stop(n, &rep), 0);
    /* well under the 1 s to the next burst: stop wakes the thread */
    assert_true(lat_mono_ns() - t < 500000000ull);
    assert_true(rep.stalls >= 1);
    assert_true(rep.cpu[0].stall_ns <= rep.cpu[0].taken_ns);
    lat_noise_report again;
    assert_int_equal(lat_noise_stop(n, &again), 0); /* idempotent */
    assert_int_equal(again.taken_ns, rep.taken_ns);
    lat_noise_destroy(n);
}

/* Injector A asks for the cap (50% in 1 ms bursts); injector B (SCHED_FIFO
 * one level above, 40% in 500 us bursts) takes the CPU from A at the end of
 * A's bursts, which then run past their length by the clock.  By A's own
 * account (taken from each burst's due time, over its run) A stays within
 * the cap: the schedule alone, unaware of that overshoot, took 55%. */
static void test_cap_holds_with_overshoot(void **st) {
    (void)st;
    if (!lat_test_is_root()) LAT_SKIP("not root: SCHED_FIFO bursts need root or CAP_SYS_NICE");
    char a[128], b[128], why[256];
    snprintf(a, sizeof a, "cpus=%d,share=50%%,burst=1ms,seed=5,prio=1", test_cpu());
    snprintf(b, sizeof b, "cpus=%d,share=40%%,burst=500us,seed=6,prio=2", test_cpu());
    lat_noise_spec sa, sb;
    assert_int_equal(lat_noise_parse(a, &sa, why, sizeof why), 0);
    assert_int_equal(lat_noise_parse(b, &sb, why, sizeof why), 0);
    lat_noise *na = NULL, *nb = NULL;
    assert_int_equal(lat_noise_create(&sa, 0, &na), 0);
    assert_int_equal(lat_noise_create(&sb, 0, &nb), 0);
    int rc = lat_noise_start(nb);
    if (rc == -EPERM) {
        lat_noise_destroy(na);
        lat_noise_destroy(nb);
        LAT_SKIP("SCHED_FIFO refused");
    }
    assert_int_equal(rc, 0);
    assert_int_equal(lat_noise_start(na), 0);
    sleep_ms(600);
    lat_noise_report ra, rb;
    assert_int_equal(lat_noise_stop(na, &ra), 0);
    assert_int_equal(lat_noise_stop(nb, &rb), 0);
    printf("A (50%% asked): %" PRIu64 " bursts, %.1f%% taken; B above it: %.1f%% taken\n",
           ra.bursts, 100 * ra.share, 100 * rb.share);
    assert_true(ra.bursts >= 50);
    /* the last burst's overshoot may pass the cap by its own length / the run */
    assert_true(ra.share <= LAT_NOISE_MAX_SHARE + 0.01);
    lat_noise_destroy(na);
    lat_noise_destroy(nb);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gaps_recover_bursts),
        cmocka_unit_test(test_schedule_reproducible),
        cmocka_unit_test(test_stop_is_prompt),
        cmocka_unit_test(test_cap_holds_with_overshoot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
