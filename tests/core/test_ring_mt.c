/* test_ring_mt.c - both SPSC rings across two threads (also run under TSan).
 *
 * Stress: for each ring and each idle strategy a producer pushes N items
 * carrying their sequence number and a check word through a small ring (so it
 * is often full and often empty); the consumer checks every item arrives once
 * and in order and both sides compare checksums.  One more run per ring uses
 * the batch reserve/commit calls on both sides.  Blocking: a consumer asleep
 * in a LAT_IDLE_BLOCK wait on a wakeable ring wakes on the first push (the
 * futex wait has no timeout there, so returning proves the wake-up) and burns
 * next to no CPU while it sleeps.  Typed: the pipeline's 56-byte message through
 * the default ring's typed calls, every word checked. */
#include "lat_test.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "latlab/latlab.h"

#if defined(LAT_SANITIZED)
#define STRESS_N 20000u
#else
#define STRESS_N 200000u
#endif

typedef struct item {
    uint64_t seq;
    uint64_t check;
    uint64_t pad[3]; /* 40 bytes: the pipeline's message size */
} item;

static uint64_t mix(uint64_t x) {
    x ^= x >> 31;
    x *= 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
    return x;
}

typedef struct job {
    void *ring;
    int seqring; /* 0: lat_ring, 1: lat_seqring */
    int batch;   /* use reserve/commit */
    lat_idle idle;
    uint64_t n;
    uint64_t sum_in, sum_out;
    uint64_t errors;
} job;

static void *producer(void *arg) {
    job *j = arg;
    item it = {0, 0, {0, 0, 0}};
    for (uint64_t i = 0; i < j->n;) {
        if (j->batch) {
            lat_ring_span sp;
            size_t want = (size_t)(i % 9) + 1, n;
            lat_idle_state st;
            lat_idle_reset(&st);
            while ((n = j->seqring ? lat_seqring_write_reserve(j->ring, want, &sp)
                                   : lat_ring_write_reserve(j->ring, want, &sp)) == 0)
                lat_idle_step(&j->idle, &st);
            if (n > j->n - i) n = (size_t)(j->n - i);
            for (size_t k = 0; k < n; k++) {
                item *p = lat_ring_span_at(&sp, k);
                p->seq = i + k;
                p->check = mix(i + k);
                p->pad[2] = ~(i + k);
                j->sum_in += p->check;
            }
            if (j->seqring)
                lat_seqring_write_commit(j->ring, n);
            else
                lat_ring_write_commit(j->ring, n);
            i += n;
            continue;
        }
        it.seq = i;
        it.check = mix(i);
        it.pad[2] = ~i;
        int rc = j->seqring ? lat_seqring_push_wait(j->ring, &it, &j->idle)
                            : lat_ring_push_wait(j->ring, &it, &j->idle);
        if (rc != 0) {
            j->errors++;
            break;
        }
        j->sum_in += it.check;
        i++;
    }
    if (j->seqring)
        lat_seqring_close(j->ring);
    else
        lat_ring_close(j->ring);
    return NULL;
}

static void check_item(job *j, const item *p, uint64_t expect) {
    if (p->seq != expect || p->check != mix(expect) || p->pad[2] != ~expect) j->errors++;
    j->sum_out += p->check;
}

static void *consumer(void *arg) {
    job *j = arg;
    uint64_t expect = 0;
    item it;
    for (;;) {
        if (j->batch) {
            lat_ring_span sp;
            size_t n = j->seqring ? lat_seqring_read_reserve(j->ring, 16, &sp)
                                  : lat_ring_read_reserve(j->ring, 16, &sp);
            if (n == 0) {
                if (j->seqring ? lat_seqring_closed(j->ring) : lat_ring_closed(j->ring)) {
                    /* closed: whatever was pushed before the close is visible now */
                    n = j->seqring ? lat_seqring_read_reserve(j->ring, 16, &sp)
                                   : lat_ring_read_reserve(j->ring, 16, &sp);
                    if (n == 0) break;
                } else {
                    sched_yield();
                    continue;
                }
            }
            for (size_t k = 0; k < n; k++)
                check_item(j, lat_ring_span_at(&sp, k), expect++);
            if (j->seqring)
                lat_seqring_read_commit(j->ring, n);
            else
                lat_ring_read_commit(j->ring, n);
            continue;
        }
        int rc = j->seqring ? lat_seqring_pop_wait(j->ring, &it, &j->idle)
                            : lat_ring_pop_wait(j->ring, &it, &j->idle);
        if (rc == -EPIPE) break;
        if (rc != 0) {
            j->errors++;
            break;
        }
        check_item(j, &it, expect++);
    }
    if (expect != j->n) j->errors++;
    return NULL;
}

static void run_job(int seqring, int batch, lat_idle idle, unsigned flags, uint64_t n) {
    job j;
    memset(&j, 0, sizeof j);
    j.seqring = seqring;
    j.batch = batch;
    j.idle = idle;
    j.n = n;
    int rc = seqring ? lat_seqring_create(sizeof(item), 64, flags, (lat_seqring **)&j.ring)
                     : lat_ring_create(sizeof(item), 64, flags, (lat_ring **)&j.ring);
    assert_int_equal(rc, 0);
    pthread_t p, c;
    assert_int_equal(pthread_create(&c, NULL, consumer, &j), 0);
    assert_int_equal(pthread_create(&p, NULL, producer, &j), 0);
    pthread_join(p, NULL);
    pthread_join(c, NULL);
    if (j.errors)
        print_error("%s %s idle=%s: %llu errors\n", seqring ? "seqring" : "ring",
                    batch ? "batch" : "single", lat_idle_name(idle.kind),
                    (unsigned long long)j.errors);
    assert_int_equal(j.errors, 0);
    assert_int_equal(j.sum_in, j.sum_out);
    if (seqring)
        lat_seqring_destroy(j.ring);
    else
        lat_ring_destroy(j.ring);
}

/* On 2 shared vCPUs a pure spinner can starve its peer for a whole time slice,
 * so the spin run moves fewer items; the others move the full count. */
static void stress(int seqring) {
    run_job(seqring, 0, lat_idle_spin(), 0, STRESS_N / 10);
    run_job(seqring, 0, lat_idle_yield(50), 0, STRESS_N);
    run_job(seqring, 0, lat_idle_backoff(10, 10, 1000, 100000), 0, STRESS_N / 4);
    run_job(seqring, 0, lat_idle_block(50), LAT_RING_WAKEABLE, STRESS_N / 4);
    run_job(seqring, 0, lat_idle_block(50), 0, STRESS_N / 20); /* timeout fallback */
    run_job(seqring, 1, lat_idle_yield(50), 0, STRESS_N);
}

static void stress_ring(void **state) {
    (void)state;
    stress(0);
}
static void stress_seqring(void **state) {
    (void)state;
    stress(1);
}

/* ---- the pipeline's message, typed calls --------------------------------------- */

/* The pipeline's 56-byte message through the default ring with the typed
 * calls (constant-size 16-byte copies), the producer writing each word just
 * before the push: every word of every item arrives, in order. */
typedef struct msg56 {
    uint64_t w[7];
} msg56;

typedef struct typed_job {
    lat_spsc *ring;
    uint64_t n, errors;
} typed_job;

static void *typed_producer(void *arg) {
    typed_job *j = arg;
    lat_idle idle = lat_idle_yield(50);
    msg56 m;
    for (uint64_t i = 0; i < j->n; i++) {
        for (int k = 0; k < 7; k++)
            m.w[k] = mix(i * 7 + (uint64_t)k);
        if (lat_spsc_push_wait_t(j->ring, &m, &idle) != 0) j->errors++;
    }
    lat_spsc_close(j->ring);
    return NULL;
}

static void typed_pipeline_message(void **state) {
    (void)state;
    typed_job j = {NULL, STRESS_N / 4, 0};
    assert_int_equal(lat_spsc_create(sizeof(msg56), 32, 0, &j.ring), 0);
    pthread_t p;
    assert_int_equal(pthread_create(&p, NULL, typed_producer, &j), 0);
    lat_idle idle = lat_idle_yield(50);
    msg56 m;
    uint64_t got = 0, bad = 0;
    while (lat_spsc_pop_wait_t(j.ring, &m, &idle) == 0) {
        for (int k = 0; k < 7; k++)
            bad += m.w[k] != mix(got * 7 + (uint64_t)k);
        got++;
    }
    pthread_join(p, NULL);
    assert_int_equal(j.errors, 0);
    assert_int_equal(bad, 0);
    assert_int_equal(got, j.n);
    lat_spsc_destroy(j.ring);
}

/* ---- blocking wake-up -------------------------------------------------------- */

typedef struct sleeper {
    void *ring;
    int seqring;
    uint64_t got;
    int rc;
    uint64_t cpu_ns; /* consumer thread CPU time spent inside the wait */
} sleeper;

static uint64_t thread_cpu_ns(void) {
    return lat_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static void *sleeper_main(void *arg) {
    sleeper *s = arg;
    lat_idle idle = lat_idle_block(0); /* straight to the futex */
    uint64_t c0 = thread_cpu_ns();
    s->rc = s->seqring ? lat_seqring_pop_wait(s->ring, &s->got, &idle)
                       : lat_ring_pop_wait(s->ring, &s->got, &idle);
    s->cpu_ns = thread_cpu_ns() - c0;
    return NULL;
}

static void blocking_wakes(int seqring) {
    sleeper s;
    memset(&s, 0, sizeof s);
    s.seqring = seqring;
    _Atomic uint32_t *word;
    if (seqring) {
        lat_seqring *r;
        assert_int_equal(lat_seqring_create(8, 16, LAT_RING_WAKEABLE, &r), 0);
        s.ring = r;
        word = &r->ctl.cons_sleep;
    } else {
        lat_ring *r;
        assert_int_equal(lat_ring_create(8, 16, LAT_RING_WAKEABLE, &r), 0);
        s.ring = r;
        word = &r->ctl.cons_sleep;
    }
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, sleeper_main, &s), 0);
    /* wait until the consumer has announced its sleep, then let it sleep a while */
    while (!atomic_load_explicit(word, memory_order_acquire))
        sched_yield();
    struct timespec ts = {0, 100 * 1000 * 1000};
    nanosleep(&ts, NULL);
    uint64_t v = 0xABCDEF;
    assert_true(seqring ? lat_seqring_try_push(s.ring, &v) : lat_ring_try_push(s.ring, &v));
    pthread_join(th, NULL);
    assert_int_equal(s.rc, 0);
    assert_int_equal(s.got, 0xABCDEF);
    /* asleep ~100 ms; a spinner would have burnt ~100 ms of CPU */
    assert_true(s.cpu_ns < 50ull * 1000 * 1000);
    if (seqring)
        lat_seqring_destroy(s.ring);
    else
        lat_ring_destroy(s.ring);
}

static void block_ring(void **state) {
    (void)state;
    blocking_wakes(0);
}
static void block_seqring(void **state) {
    (void)state;
    blocking_wakes(1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stress_ring),
        cmocka_unit_test(stress_seqring),
        cmocka_unit_test(typed_pipeline_message),
        cmocka_unit_test(block_ring),
        cmocka_unit_test(block_seqring),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
