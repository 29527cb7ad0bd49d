/* test_loadverdict.c - the validity verdict of `latlab load`, on inputs with
 * known answers: Anderson-Darling does not reject exponential samples (most
 * of 200 seeds at the 1% level) and rejects constant, uniform and bursty ones
 * every time; the schedule's own stream (lat_loadsched) passes for Poisson
 * and fails for constant; a percentile whose lag is not below the fraction of
 * its latency makes the verdict invalid and is named, while a small lag keeps
 * it valid; a wait for a connection at its cap as large is named apart from
 * the lag (the connections, not the generator's pacing, set it), and a lag
 * mostly from the backlogs such waits left says more connections would move
 * it to the service (only then), or, when the service completed under 95% of
 * the offered rate over the run, that the service did not keep up (not with
 * the run's length unknown, nor when it kept up but for a stall, nor for a run
 * stopped early); connections whose slots, each held a mean service time,
 * carry less than the offered rate are named as the limit with the count
 * that carries it (beside a service behind too: one run cannot tell them
 * apart), and not when they carry it or nothing waited; percentiles without enough samples
 * are not printed; failed requests make it invalid, and so do error replies,
 * protocol errors, refused connects, a service behind, a run cut short or
 * ended by its deadline, and too few samples for any percentile; Spearman's rho is 1 / -1 for
 * monotone pairs (ties too), near 0 for independent ones, NAN when a side is constant. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "lat_test.h"
#include "latlab/load.h"
#include "latlab/loadverdict.h"

static uint64_t rng = 88172645463325252ull;
static double unif(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return ((double)(rng >> 11) + 0.5) * 0x1.0p-53;
}

static void test_ad(void **state) {
    (void)state;
    double x[1000];
    int pass = 0;
    for (int seed = 0; seed < 200; seed++) {
        for (int i = 0; i < 1000; i++)
            x[i] = -log(unif()) * 5000;
        pass += lat_load_verdict_ad_exponential(x, 1000) < LAT_AD_EXP_CRIT_1PCT;
    }
    assert_true(pass >= 190); /* ~99% expected */
    for (int i = 0; i < 1000; i++)
        x[i] = 1000;
    assert_true(lat_load_verdict_ad_exponential(x, 1000) > 100);
    for (int i = 0; i < 1000; i++)
        x[i] = unif() * 2000;
    assert_true(lat_load_verdict_ad_exponential(x, 1000) > LAT_AD_EXP_CRIT_1PCT);
    for (int i = 0; i < 1000; i++)
        x[i] = i % 10 ? 10 : -log(unif()) * 50000; /* bursts */
    assert_true(lat_load_verdict_ad_exponential(x, 1000) > LAT_AD_EXP_CRIT_1PCT);
    assert_true(isnan(lat_load_verdict_ad_exponential(x, 3)));
}

static void test_spearman(void **state) {
    (void)state;
    double x[2 * 1000];
    for (int i = 0; i < 1000; i++)
        x[2 * i] = unif(), x[2 * i + 1] = unif();
    double rho = lat_load_verdict_spearman_pairs(x, 1000);
    assert_true(fabs(rho) * sqrt(999) < 4); /* independent: |z| small */
    for (int i = 0; i < 1000; i++)
        x[2 * i + 1] = x[2 * i] * 3 + 1; /* monotone */
    assert_true(fabs(lat_load_verdict_spearman_pairs(x, 1000) - 1) < 1e-12);
    for (int i = 0; i < 1000; i++)
        x[2 * i + 1] = -x[2 * i];
    assert_true(fabs(lat_load_verdict_spearman_pairs(x, 1000) + 1) < 1e-12);
    for (int i = 0; i < 1000; i++)
        x[2 * i] = i % 2, x[2 * i + 1] = i % 2; /* ties */
    assert_true(fabs(lat_load_verdict_spearman_pairs(x, 1000) - 1) < 1e-12);
    for (int i = 0; i < 1000; i++)
        x[2 * i + 1] = 5; /* one side constant */
    assert_true(isnan(lat_load_verdict_spearman_pairs(x, 1000)));
    assert_true(isnan(lat_load_verdict_spearman_pairs(x, 3)));
}

static void test_sched(void **state) {
    (void)state;
    lat_loadsched s;
    double x[2000];
    assert_int_equal(lat_loadsched_init(&s, LAT_LOAD_POISSON, 10000, 42), 0);
    uint64_t prev = lat_loadsched_next(&s);
    double sum = 0;
    for (int i = 0; i < 2000; i++) {
        uint64_t t = lat_loadsched_next(&s);
        assert_true(t >= prev);
        x[i] = (double)(t - prev);
        sum += x[i];
        prev = t;
    }
    assert_true(fabs(sum / 2000 - 100000) < 10000); /* mean 1/rate within 10% */
    assert_true(lat_load_verdict_ad_exponential(x, 2000) < LAT_AD_EXP_CRIT_1PCT);
    assert_int_equal(lat_loadsched_init(&s, LAT_LOAD_CONSTANT, 3, 0), 0);
    assert_int_equal(lat_loadsched_next(&s), 0);
    assert_int_equal(lat_loadsched_next(&s), 333333333);
    assert_int_equal(lat_loadsched_next(&s), 666666666);
    assert_int_equal(lat_loadsched_init(&s, LAT_LOAD_CONSTANT, 0, 0), -EINVAL);
}

typedef struct fixture {
    lat_hist lat, lag, wait;
    lat_load_counts c;
    uint64_t duration_ns;    /* the schedule's length handed to the verdict (0: none) */
    const lat_hist *service; /* with conns: the connections' limit judged */
    unsigned conns, inflight;
    double ia[1000];
} fixture;

/* latency 1 ms everywhere except the top 1% at 100 ms; lag 10 us, with its
 * top 1% at lag_top; no wait for a connection but in the top 1%, wait_top. */
static void fill(fixture *f, int64_t lag_top, int64_t wait_top) {
    lat_load_hist_init(&f->lat);
    lat_load_hist_init(&f->lag);
    lat_load_hist_init(&f->wait);
    for (int i = 0; i < 10000; i++) {
        lat_hist_record(&f->lat, i < 9900 ? 1000000 + i : 100000000 + i);
        lat_hist_record(&f->lag, i < 9900 ? 10000 : lag_top);
        lat_hist_record(&f->wait, i < 9900 ? 0 : wait_top);
    }
    memset(&f->c, 0, sizeof f->c);
    f->c.sent = f->c.completed = f->c.scheduled = 10000;
    f->c.run_ns = 1000000000;
    f->duration_ns = 0;
    f->service = NULL;
    f->conns = f->inflight = 0;
    for (int i = 0; i < 1000; i++)
        f->ia[i] = -log(unif()) * 100000;
}

/* Judge f; wait: its wait series, or NULL for none. */
static void judge_wait(fixture *f, const lat_hist *wait, lat_load_verdict *v) {
    static const double ps[] = {50, 99.5, 99.99};
    lat_load_verdict_in in = {.arrivals = LAT_LOAD_POISSON,
                              .interarrivals = f->ia,
                              .n_interarrivals = 1000,
                              .latency = &f->lat,
                              .lag = &f->lag,
                              .wait = wait,
                              .service = f->service,
                              .connections = f->conns,
                              .max_inflight = f->inflight,
                              .counts = &f->c,
                              .duration_ns = f->duration_ns,
                              .ps = ps,
                              .nps = 3};
    assert_int_equal(lat_load_verdict_judge(&in, v), 0);
}

static void judge(fixture *f, lat_load_verdict *v) {
    judge_wait(f, &f->wait, v);
}

static void fini(fixture *f) {
    lat_hist_fini(&f->lat);
    lat_hist_fini(&f->lag);
    lat_hist_fini(&f->wait);
}

/* The service's tail, the generator's lag, a backlog after waits, and a
 * service that did not keep up. */
static void test_verdict(void **state) {
    (void)state;
    fixture f;
    lat_load_verdict v;
    fill(&f, 20000, 5000000); /* lag 20 us, wait 5 ms under a 100 ms tail: the service's */
    judge(&f, &v);
    assert_true(v.valid);
    assert_true(v.pct[0].printed && v.pct[1].printed);
    assert_false(v.pct[2].printed); /* 10,000 samples are too few for p99.99 */
    assert_true(v.pct[1].wait_ok);
    fini(&f);
    fill(&f, 50000000, 0); /* lag 50 ms under a 100 ms tail: the generator set it */
    judge(&f, &v);
    assert_false(v.valid);
    assert_true(v.pct[0].lag_ok);
    assert_false(v.pct[1].lag_ok);
    assert_true(v.pct[1].wait_ok);
    assert_non_null(strstr(v.reason, "p99.5: schedule lag"));
    assert_null(strstr(v.reason, "p50"));
    assert_null(strstr(v.reason, "waited"));
    assert_null(strstr(v.reason, "backlog after every connection"));
    /* the same lag, most of the late requests kept sent in the backlogs that
     * waits for a connection left: the reason says more connections would
     * keep that queue at the service; a few of them (or none kept late) do not */
    f.c.late = 500;
    f.c.late_gap = 100;
    f.c.late_wait = 300;
    judge(&f, &v);
    assert_false(v.valid);
    assert_non_null(strstr(v.reason, "300 of the 400 late requests kept went out in the backlog"));
    assert_non_null(strstr(v.reason, "more connections keep a stall's"));
    assert_null(strstr(v.reason, "did not keep up"));
    assert_false(v.service_behind);
    /* and the service completed 10,000 in 1.1 s of the 10,000 offered over
     * 1 s (90.9%): it did not keep up, and the reason says so instead */
    f.duration_ns = 1000000000;
    f.c.run_ns = 1100000000;
    judge(&f, &v);
    assert_false(v.valid);
    assert_true(v.service_behind);
    assert_true(fabs(v.offered_rate - 10000) < 1e-6);
    assert_true(fabs(v.completed_rate - 10000 / 1.1) < 1e-6);
    assert_non_null(strstr(v.reason, "a queue in the generator, behind a service that did not"));
    assert_non_null(strstr(v.reason, "completed 9091 requests/s of the 10000 offered"));
    assert_null(strstr(v.reason, "more connections keep a stall's"));
    /* 1.04 s: 96.2%, it kept up but for a stall */
    f.c.run_ns = 1040000000;
    judge(&f, &v);
    assert_false(v.service_behind);
    assert_non_null(strstr(v.reason, "more connections keep a stall's"));
    /* stopped after 0.5 s with 5,000 offered and completed in 0.5 s: kept up */
    f.c.scheduled = f.c.sent = f.c.completed = 5000;
    f.c.run_ns = 500000000;
    judge(&f, &v);
    assert_false(v.service_behind);
    assert_true(fabs(v.offered_rate - 10000) < 1e-6);
    f.c.scheduled = f.c.sent = f.c.completed = 10000;
    f.c.run_ns = 1100000000;
    f.duration_ns = 0; /* the schedule's length unknown: not judged */
    judge(&f, &v);
    assert_false(v.service_behind);
    assert_null(strstr(v.reason, "did not keep up"));
    f.c.run_ns = 1000000000;
    f.c.late_wait = 150;
    judge(&f, &v);
    assert_false(v.valid);
    assert_null(strstr(v.reason, "backlog after every connection"));
    f.c.late = f.c.late_gap = 100;
    f.c.late_wait = 0;
    judge(&f, &v);
    assert_null(strstr(v.reason, "backlog after every connection"));
    fini(&f);
}

/* Requests that waited for a connection: the connections named, Little's
 * law's count, a service behind beside them. */
static void test_verdict_connections(void **state) {
    (void)state;
    fixture f;
    lat_load_verdict v;
    /* 50 ms of it waiting for a connection at its cap, the lag small: the
     * connections set it, and the reason says so, not "the generator's lag" */
    fill(&f, 20000, 50000000);
    f.c.cap_waits = 77;
    f.c.backlog_max = 12;
    judge(&f, &v);
    assert_false(v.valid);
    assert_true(v.pct[1].lag_ok);
    assert_false(v.pct[1].wait_ok);
    assert_true(v.pct[0].wait_ok);
    assert_non_null(strstr(v.reason, "p99.5: requests waited for a connection"));
    assert_non_null(strstr(v.reason, "77 times"));
    assert_non_null(strstr(v.reason, "backlog up to 12"));
    assert_null(strstr(v.reason, "schedule lag"));
    assert_non_null(strstr(v.reason, "more connections or a higher in-flight cap move it"));
    /* the service completed 10,000 in 2 s of 10,000 offered over 1 s: it did
     * not keep up, and more connections would not cure that */
    f.duration_ns = 1000000000;
    f.c.run_ns = 2000000000;
    judge(&f, &v);
    assert_false(v.valid);
    assert_non_null(strstr(v.reason, "p99.5: requests waited for a connection"));
    assert_non_null(strstr(v.reason, "completed 5000 requests/s of the 10000 offered: it did not"));
    assert_null(strstr(v.reason, "move it to the service"));
    f.duration_ns = 0;
    f.c.run_ns = 1000000000;
    /* Little's law: 8 connections, each request holding one for a mean 1.125 ms,
     * carry 7,112/s; 10,000 offered with requests waiting for one: the
     * connections are named as the limit, with the count that carries it */
    lat_hist svc;
    lat_load_hist_init(&svc);
    for (int i = 0; i < 10000; i++)
        lat_hist_record(&svc, 1125000); /* 1124.864 us, as the histogram holds it */
    f.service = &svc;
    f.conns = 8;
    f.duration_ns = 1000000000;
    judge(&f, &v);
    assert_false(v.valid);
    assert_true(v.conns_limit);
    assert_false(v.service_behind);
    assert_true(fabs(v.conn_capacity - 8e9 / 1124864) < 1e-6);
    assert_int_equal(v.conns_needed, 23); /* 2 x 10,000/s x 1.125 ms = 22.5 */
    assert_non_null(strstr(v.reason, "p99.5: requests waited for a connection"));
    assert_non_null(strstr(v.reason, "the 8 connections were the limit: each request held one of "
                                     "their 8 slots for the mean service time of 1124.9 us, so "
                                     "they carry at most 7112 requests/s; raise --connections to "
                                     "23"));
    assert_null(strstr(v.reason, "did not keep up"));
    assert_null(strstr(v.reason, "move it to the service"));
    /* completed at half the offered rate: the service behind, or the
     * connections: one run cannot tell, and both are named once */
    f.c.run_ns = 2000000000;
    judge(&f, &v);
    assert_true(v.conns_limit && v.service_behind);
    assert_non_null(strstr(v.reason, "of the 10000 offered: it did not keep up with this rate, or "
                                     "the 8 connections were the limit"));
    assert_non_null(strstr(v.reason, "if the service time grows with them, it is the service"));
    assert_null(strstr(v.reason, "only move"));
    assert_null(strstr(strstr(v.reason, "were the limit") + 1, "were the limit"));
    f.c.run_ns = 1000000000;
    /* in-flight cap 2: 16 slots carry 14,224/s, more than offered: not named */
    f.inflight = 2;
    judge(&f, &v);
    assert_false(v.conns_limit);
    assert_true(fabs(v.conn_capacity - 16e9 / 1124864) < 1e-6);
    assert_non_null(strstr(v.reason, "move it to the service"));
    /* no request waited for a slot: not named either */
    f.inflight = 1;
    f.c.cap_waits = 0;
    judge(&f, &v);
    assert_false(v.conns_limit);
    f.c.cap_waits = 77;
    f.service = NULL;
    f.conns = 0;
    f.duration_ns = 0;
    lat_hist_fini(&svc);
    /* without the wait series the same run is judged on its lag alone */
    judge_wait(&f, NULL, &v);
    assert_true(v.valid);
    fini(&f);
}

/* Arrivals that are not the schedule's, and failed requests. */
static void test_verdict_arrivals(void **state) {
    (void)state;
    fixture f;
    lat_load_verdict v;
    fill(&f, 50000000, 0);
    f.c.failed = 3;
    for (int i = 0; i < 1000; i++)
        f.ia[i] = 100000; /* constant arrivals under "poisson" */
    lat_hist_reset(&f.lag);
    judge(&f, &v);
    assert_false(v.valid);
    assert_false(v.arrivals_ok);
    assert_non_null(strstr(v.reason, "not Poisson"));
    assert_non_null(strstr(v.reason, "3 requests failed"));
    fini(&f);
}

/* What went wrong on the wire or in the run's course makes a run that is
 * otherwise valid invalid, each named: error replies, protocol errors with
 * nothing in flight (a server answering twice), refused connects, a service
 * that did not keep up (though no percentile's lag or wait shows it), a run
 * cut short or ended by its deadline (failures by kind); and a run with too
 * few samples for any percentile (one request) is not valid, nor is an
 * unprinted percentile. */
static void test_verdict_wire(void **state) {
    (void)state;
    fixture f;
    lat_load_verdict v;
    fill(&f, 20000, 0);
    judge(&f, &v);
    assert_true(v.valid); /* the baseline */
    assert_true(v.pct[0].valid && v.pct[1].valid);
    assert_false(v.pct[2].valid); /* not printed: not valid */
    f.c.error_replies = 9000;
    judge(&f, &v);
    assert_false(v.valid);
    assert_non_null(strstr(v.reason, "9000 of the 10000 replies said error"));
    f.c.error_replies = 0;
    f.c.errors[LAT_LOAD_MALFORMED] = 400; /* answered twice: no request in flight */
    f.c.reconnects = 400;
    judge(&f, &v);
    assert_false(v.valid);
    assert_non_null(strstr(v.reason, "400 protocol errors with no request in flight"));
    f.c.errors[LAT_LOAD_MALFORMED] = 0;
    f.c.errors[LAT_LOAD_REFUSED] = 3;
    judge(&f, &v);
    assert_false(v.valid);
    assert_non_null(strstr(v.reason, "3 connects refused"));
    f.c.errors[LAT_LOAD_REFUSED] = 0;
    /* 10,000 offered over 1 s, completed over 2 s: behind, though lag and wait are small */
    f.duration_ns = 1000000000;
    f.c.run_ns = 2000000000;
    judge(&f, &v);
    assert_true(v.service_behind);
    assert_false(v.valid);
    assert_non_null(strstr(v.reason, "it did not keep up with this rate"));
    f.c.run_ns = 1000000000;
    /* stopped during a stall: the due requests never sent fail as unsent */
    f.c.scheduled = 13000;
    f.c.failed = f.c.errors[LAT_LOAD_UNSENT] = 2990;
    f.c.errors[LAT_LOAD_UNANSWERED] = 10;
    f.c.failed += 10;
    f.c.stopped = 1;
    judge(&f, &v);
    assert_false(v.valid);
    assert_non_null(strstr(v.reason, "cut short"));
    assert_non_null(strstr(v.reason, "3000 requests failed (unsent 2990, unanswered 10"));
    f.c.stopped = 0;
    f.c.deadline = 1;
    judge(&f, &v);
    assert_non_null(strstr(v.reason, "reached its deadline"));
    assert_null(strstr(v.reason, "cut short"));
    fini(&f);
    /* one request: no percentile printed, not valid */
    lat_load_hist_init(&f.lat);
    lat_load_hist_init(&f.lag);
    lat_load_hist_init(&f.wait);
    lat_hist_record(&f.lat, 1000000);
    lat_hist_record(&f.lag, 100);
    lat_hist_record(&f.wait, 0);
    memset(&f.c, 0, sizeof f.c);
    f.c.sent = f.c.completed = f.c.scheduled = 1;
    f.c.run_ns = 1000000;
    f.duration_ns = 1000000000;
    static const double ps[] = {50, 99};
    lat_load_verdict_in in = {.arrivals = LAT_LOAD_CONSTANT,
                              .latency = &f.lat,
                              .lag = &f.lag,
                              .wait = &f.wait,
                              .counts = &f.c,
                              .duration_ns = f.duration_ns,
                              .ps = ps,
                              .nps = 2};
    assert_int_equal(lat_load_verdict_judge(&in, &v), 0);
    assert_false(v.pct[0].printed);
    assert_false(v.pct[0].valid);
    assert_false(v.valid);
    assert_non_null(strstr(v.reason, "too few samples (1) for any percentile"));
    /* the one request completed but was censored (sent late after a gap):
     * nothing is left to judge, and that is not valid either */
    lat_hist_reset(&f.lat);
    f.c.late = f.c.late_gap = 1;
    assert_int_equal(lat_load_verdict_judge(&in, &v), 0);
    assert_false(v.valid);
    assert_non_null(strstr(v.reason, "too few samples (0 kept: the completed ones were censored)"));
    fini(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ad),
        cmocka_unit_test(test_spearman),
        cmocka_unit_test(test_sched),
        cmocka_unit_test(test_verdict),
        cmocka_unit_test(test_verdict_connections),
        cmocka_unit_test(test_verdict_arrivals),
        cmocka_unit_test(test_verdict_wire),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
