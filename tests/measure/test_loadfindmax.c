/* test_loadsched_findmax.c - `latlab load --find-max`'s search (measure/loadsched_findmax.c),
 * fed synthetic runs whose answer is known: an objective broken at step k,
 * an invalid verdict at step k, every step held, the first failing; the
 * bisection's rates one by one; too few samples for an objective's
 * interval; who is named for a failure, from the verdict's checks; the
 * objectives' grammar and the search's limits; the report, the JSON and the
 * plot.  Also the schedule lines that moved out of the CLI (the plan, the
 * shard, --start-at). */
#include "lat_test.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "latlab/load.h"
#include "latlab/loadsched.h"
#include "latlab/loadverdict.h"

#define MS 1000000ll

/* A latency histogram of n requests, every one lat_ns. */
static lat_hist *hist_of(int64_t lat_ns, int64_t n) {
    static lat_hist h;
    lat_hist_fini(&h);
    assert_int_equal(lat_load_hist_init(&h), 0);
    assert_true(lat_hist_record_n(&h, lat_ns, n));
    return &h;
}

static lat_loadsched_findmax *search(const char *rate, const char *slo, unsigned bisect) {
    lat_loadsched_plan p;
    const char *why;
    assert_int_equal(lat_loadsched_parse(rate, &p, &why), 0);
    lat_loadsched_findmax *f = NULL;
    const char *slos[] = {slo};
    int rc = lat_loadsched_findmax_create(&p, 1000000000, slos, 1, bisect, &f, &why);
    if (rc) fail_msg("create %s %s: %s", rate, slo, why);
    return f;
}

static const lat_load_verdict valid = {.valid = true};

/* Run the search as a caller would: held iff rate <= cap (2 ms, else 6 ms). */
static void run_to_end(lat_loadsched_findmax *f, double cap, double *seen, unsigned *n) {
    *n = 0;
    for (double hz; (hz = lat_loadsched_findmax_next(f)) > 0;) {
        assert_true(*n < LAT_LOADSCHED_MAX_TRIES);
        seen[(*n)++] = hz;
        assert_int_equal(
            lat_loadsched_findmax_add(f, hz, &valid, hist_of(hz <= cap ? 2 * MS : 6 * MS, 1000)),
            0);
    }
}

static void test_slo_broken_at_step(void **state) {
    (void)state;
    lat_loadsched_findmax *f = search("100:500:100/1s", "p99=5ms", 0);
    double seen[LAT_LOADSCHED_MAX_TRIES];
    unsigned n;
    run_to_end(f, 300, seen, &n);
    /* 100, 200, 300 held; 400 broke it; 500 never run */
    assert_int_equal(n, 4);
    assert_float_equal(seen[3], 400, 0);
    assert_int_equal(lat_loadsched_findmax_best(f), 2);
    assert_int_equal(lat_loadsched_findmax_failed(f), 3);
    const lat_loadsched_try *t = lat_loadsched_findmax_get(f, 3);
    assert_false(t->held);
    assert_true(t->valid);
    assert_int_equal(t->why, LAT_LOADSCHED_BY_SLO);
    assert_int_equal(t->slo[0].value / 100000, 60); /* 6.0 ms within the histogram's 0.1% */
    assert_null(lat_loadsched_findmax_get(f, 4));
    assert_int_equal(lat_loadsched_findmax_n(f), 4);

    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    lat_loadsched_findmax_write(out, f);
    fclose(out);
    if (!strstr(buf, "highest rate holding p99 <= 5.0 ms: 300 req/s (p99 2.0 ms [2.0, 2.0] <= "
                     "5.0 ms)\n") ||
        !strstr(buf, "next rate 400 req/s failed: the service: p99 6.0 ms [6.0, 6.0] > 5.0 ms by "
                     "1.0 ms\n"))
        fail_msg("report:\n%s", buf);
    free(buf);

    json_t *j = lat_loadsched_findmax_json(f);
    assert_float_equal(json_real_value(json_object_get(j, "max_rate_hz")), 300, 0);
    json_t *x = json_object_get(j, "next_failed");
    assert_float_equal(json_real_value(json_object_get(x, "rate_hz")), 400, 0);
    assert_string_equal(json_string_value(json_array_get(json_object_get(x, "failed_by"), 0)),
                        "slo");
    assert_int_equal(json_array_size(json_object_get(j, "tries")), 4);
    json_t *s = json_array_get(json_object_get(json_object_get(j, "max"), "slos"), 0);
    assert_int_equal(json_integer_value(json_object_get(s, "limit_ns")), 5 * MS);
    assert_true(json_is_true(json_object_get(s, "held")));
    json_decref(j);

    char path[] = "/tmp/test_loadfindmax_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(lat_loadsched_findmax_save_svg(f, path), 0);
    FILE *sf = fopen(path, "r");
    char svg[65536];
    size_t k = fread(svg, 1, sizeof svg - 1, sf);
    svg[k] = 0;
    fclose(sf);
    unlink(path);
    assert_non_null(strstr(svg, "<svg"));
    assert_non_null(strstr(svg, "offered rate (requests/s)"));
    assert_non_null(strstr(svg, "held up to 300/s"));
    /* the p99 line: one point per rate run, in order of rate */
    const char *line = strstr(svg, "data-label=\"p99\" data-points=\"4\"");
    assert_non_null(line);
    assert_non_null(strstr(svg, "p99 &lt;= 5.0 ms"));
    lat_loadsched_findmax_destroy(f);
}

static void test_invalid_at_step(void **state) {
    (void)state;
    lat_loadsched_findmax *f = search("100:500:100/1s", "p99=5ms", 2);
    assert_float_equal(lat_loadsched_findmax_next(f), 100, 0);
    assert_int_equal(lat_loadsched_findmax_add(f, 100, &valid, hist_of(2 * MS, 1000)), 0);
    /* 200: the latency within the objective, but the generator's lag set p99 */
    lat_load_verdict v = {.valid = false, .npct = 1, .reason = "p99: schedule lag"};
    v.pct[0] = (lat_load_pct){.p = 99, .printed = true, .lag_ok = false, .wait_ok = true};
    assert_float_equal(lat_loadsched_findmax_next(f), 200, 0);
    assert_int_equal(lat_loadsched_findmax_add(f, 200, &v, hist_of(2 * MS, 1000)), 0);
    const lat_loadsched_try *t = lat_loadsched_findmax_get(f, 1);
    assert_false(t->held);
    assert_int_equal(t->why, LAT_LOADSCHED_BY_GENERATOR);
    assert_string_equal(t->reason, "p99: schedule lag");
    /* the steps are over: the bisection between 100 and 200 */
    assert_float_equal(lat_loadsched_findmax_next(f), 150, 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    lat_loadsched_findmax_write(out, f);
    fclose(out);
    if (!strstr(buf, "next rate 200 req/s failed: the generator: p99 2.0 ms [2.0, 2.0] <= 5.0 ms; "
                     "verdict invalid: p99: schedule lag\n"))
        fail_msg("report:\n%s", buf);
    free(buf);
    lat_loadsched_findmax_destroy(f);
}

static void test_all_held_and_first_failed(void **state) {
    (void)state;
    double seen[LAT_LOADSCHED_MAX_TRIES];
    unsigned n;
    lat_loadsched_findmax *f = search("100:500:100/1s", "p99=5ms", 3);
    run_to_end(f, 1e9, seen, &n);
    assert_int_equal(n, 5); /* every step, no bisection: nothing failed */
    assert_int_equal(lat_loadsched_findmax_best(f), 4);
    assert_int_equal(lat_loadsched_findmax_failed(f), -1);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    lat_loadsched_findmax_write(out, f);
    fclose(out);
    assert_non_null(strstr(buf, "every rate run held it; none above 500 req/s was tried\n"));
    free(buf);
    lat_loadsched_findmax_destroy(f);

    f = search("100:500:100/1s", "p99=5ms", 3);
    run_to_end(f, 50, seen, &n);
    assert_int_equal(n, 1); /* the first failed: nothing below it to bisect */
    assert_int_equal(lat_loadsched_findmax_best(f), -1);
    assert_int_equal(lat_loadsched_findmax_failed(f), 0);
    buf = NULL;
    out = open_memstream(&buf, &len);
    lat_loadsched_findmax_write(out, f);
    fclose(out);
    if (!strstr(buf, "no rate holding p99 <= 5.0 ms\nthe first rate, 100 req/s failed: the "
                     "service: p99 6.0 ms"))
        fail_msg("report:\n%s", buf);
    free(buf);
    json_t *j = lat_loadsched_findmax_json(f);
    assert_true(json_is_null(json_object_get(j, "max_rate_hz")));
    assert_true(json_is_null(json_object_get(j, "max")));
    json_decref(j);
    lat_loadsched_findmax_destroy(f);
}

static void test_bisect(void **state) {
    (void)state;
    double seen[LAT_LOADSCHED_MAX_TRIES];
    unsigned n;
    /* held up to 330: steps 100..400, then 350 (fails), 325 (holds), 338 (fails) */
    lat_loadsched_findmax *f = search("100:500:100/1s", "p99=5ms", 3);
    run_to_end(f, 330, seen, &n);
    const double want[] = {100, 200, 300, 400, 350, 325, 338};
    assert_int_equal(n, 7);
    for (unsigned i = 0; i < n; i++)
        assert_float_equal(seen[i], want[i], 0);
    assert_float_equal(
        lat_loadsched_findmax_get(f, (unsigned)lat_loadsched_findmax_best(f))->rate_hz, 325, 0);
    assert_float_equal(
        lat_loadsched_findmax_get(f, (unsigned)lat_loadsched_findmax_failed(f))->rate_hz, 338, 0);
    lat_loadsched_findmax_destroy(f);
    /* the bisection stops when no whole rate is left between */
    f = search("100:102:1/1s", "p99=5ms", 16);
    run_to_end(f, 100.5, seen, &n);
    assert_int_equal(n, 2);
    lat_loadsched_findmax_destroy(f);
    /* a fixed rate R: steps R/10 .. R, each the duration given */
    f = search("1000", "p99=5ms", 0);
    assert_int_equal(lat_loadsched_findmax_hold_ns(f), 1000000000);
    run_to_end(f, 1e9, seen, &n);
    assert_int_equal(n, 10);
    assert_float_equal(seen[0], 100, 1e-9);
    assert_float_equal(seen[9], 1000, 1e-9);
    lat_loadsched_findmax_destroy(f);
}

static void test_causes(void **state) {
    (void)state;
    lat_loadsched_findmax *f = search("100:800:100/1s", "p50=5ms,p99=50ms", 0);
    /* too few samples for p99's interval: not held, the run named */
    assert_int_equal(lat_loadsched_findmax_add(f, 100, &valid, hist_of(2 * MS, 100)), 0);
    const lat_loadsched_try *t = lat_loadsched_findmax_get(f, 0);
    assert_false(t->held);
    assert_int_equal(t->why, LAT_LOADSCHED_BY_RUN);
    assert_false(t->slo[0].max_bound);
    assert_true(t->slo[1].max_bound);
    /* a service behind with every slot full: both named */
    lat_load_verdict v = {.valid = false, .service_behind = true, .conns_limit = true};
    assert_int_equal(lat_loadsched_findmax_add(f, 200, &v, hist_of(2 * MS, 1000)), 0);
    assert_int_equal(lat_loadsched_findmax_get(f, 1)->why,
                     LAT_LOADSCHED_BY_SERVICE | LAT_LOADSCHED_BY_CONNECTIONS);
    /* waits for a connection, the service keeping up: the connections */
    v = (lat_load_verdict){.valid = false, .npct = 1};
    v.pct[0] = (lat_load_pct){.p = 99, .printed = true, .lag_ok = true, .wait_ok = false};
    assert_int_equal(lat_loadsched_findmax_add(f, 300, &v, hist_of(2 * MS, 1000)), 0);
    assert_int_equal(lat_loadsched_findmax_get(f, 2)->why, LAT_LOADSCHED_BY_CONNECTIONS);
    /* the same wait behind a service that did not keep up: its queue */
    v.service_behind = true;
    assert_int_equal(lat_loadsched_findmax_add(f, 400, &v, hist_of(2 * MS, 1000)), 0);
    assert_int_equal(lat_loadsched_findmax_get(f, 3)->why, LAT_LOADSCHED_BY_SERVICE);
    /* invalid for another reason (failed requests): the run */
    v = (lat_load_verdict){.valid = false, .reason = "3 requests failed"};
    assert_int_equal(lat_loadsched_findmax_add(f, 500, &v, hist_of(2 * MS, 1000)), 0);
    assert_int_equal(lat_loadsched_findmax_get(f, 4)->why, LAT_LOADSCHED_BY_RUN);
    /* an objective and the verdict together; nothing completed at all */
    assert_int_equal(lat_loadsched_findmax_add(f, 600, &v, hist_of(9 * MS, 1000)), 0);
    assert_int_equal(lat_loadsched_findmax_get(f, 5)->why,
                     LAT_LOADSCHED_BY_RUN | LAT_LOADSCHED_BY_SLO);
    lat_hist empty;
    assert_int_equal(lat_load_hist_init(&empty), 0);
    assert_int_equal(lat_loadsched_findmax_add(f, 700, &valid, &empty), 0);
    assert_int_equal(lat_loadsched_findmax_get(f, 6)->why, LAT_LOADSCHED_BY_RUN);
    assert_int_equal(lat_loadsched_findmax_add(NULL, 700, &valid, &empty), -EINVAL);
    assert_int_equal(lat_loadsched_findmax_add(f, 0, &valid, &empty), -EINVAL);
    lat_hist_fini(&empty);
    lat_loadsched_findmax_destroy(f);
    lat_loadsched_findmax_destroy(NULL);
}

static void test_grammar(void **state) {
    (void)state;
    lat_loadsched_slo o;
    const char *why;
    assert_int_equal(lat_loadsched_parse_slo("p99=5ms", &o, &why), 0);
    assert_float_equal(o.p, 99, 0);
    assert_int_equal(o.limit_ns, 5 * MS);
    assert_int_equal(lat_loadsched_parse_slo("p99.9=500us", &o, &why), 0);
    assert_float_equal(o.p, 99.9, 0);
    assert_int_equal(o.limit_ns, 500000);
    assert_int_equal(lat_loadsched_parse_slo("p50=1.5s", &o, &why), 0);
    assert_int_equal(o.limit_ns, 1500 * MS);
    assert_int_equal(lat_loadsched_parse_slo("p1=100ns", &o, &why), 0);
    assert_int_equal(o.limit_ns, 100);
    const char *bad[] = {
        "p100=5ms",  "p0=5ms", "99=5ms",   "p99=5",     "p99=", "p99=5m", "p99=-5ms", "p99=0ms",
        "p99=3601s", "px=5ms", "p+99=5ms", "p99=0x5ms", "p99",  "",       "p99=5ms,"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        why = NULL;
        if (lat_loadsched_parse_slo(bad[i], &o, &why) != -EINVAL) fail_msg("'%s' accepted", bad[i]);
        assert_true(why && *why);
    }
    /* the search's limits */
    lat_loadsched_plan p;
    lat_loadsched_findmax *f = NULL;
    const char *one[] = {"p99=5ms"}, *dup[] = {"p99=5ms", "p99=6ms"},
               *nine[] = {"p1=1ms,p2=1ms,p3=1ms,p4=1ms,p5=1ms,p6=1ms,p7=1ms,p8=1ms,p9=1ms"};
    const char *plans[] = {"ramp:100:400/2s", "400:100:100/1s", "0:400:100/1s"};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(lat_loadsched_parse(plans[i], &p, &why), 0);
        assert_int_equal(lat_loadsched_findmax_create(&p, 0, one, 1, 0, &f, &why), -EINVAL);
        assert_non_null(strstr(why, "steps going up"));
    }
    assert_int_equal(lat_loadsched_parse("100:400:100/1s", &p, &why), 0);
    assert_int_equal(lat_loadsched_findmax_create(&p, 0, one, 0, 0, &f, &why), -EINVAL);
    assert_non_null(strstr(why, "needs --slo"));
    assert_int_equal(lat_loadsched_findmax_create(&p, 0, dup, 2, 0, &f, &why), -EINVAL);
    assert_non_null(strstr(why, "two objectives"));
    assert_int_equal(lat_loadsched_findmax_create(&p, 0, nine, 1, 0, &f, &why), -EINVAL);
    assert_int_equal(lat_loadsched_findmax_create(&p, 0, one, 1, 17, &f, &why), -EINVAL);
    assert_int_equal(lat_loadsched_findmax_create(&p, 0, one, 1, 16, &f, &why), 0);
    assert_int_equal(lat_loadsched_findmax_hold_ns(f), 1000000000);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    lat_loadsched_findmax_write(out, f); /* nothing run yet (the target refused) */
    fclose(out);
    assert_non_null(strstr(buf, "then 16 bisections; holding means a valid verdict and p99 <= "
                                "5.0 ms\nno rate was run\n"));
    free(buf);
    lat_loadsched_findmax_destroy(f);
}

/* The lines and checks that moved from the CLI into loadsched.c. */
static void test_sched_lines(void **state) {
    (void)state;
    lat_loadsched_plan p;
    const char *why;
    assert_int_equal(lat_loadsched_parse("100:500:100/1s", &p, &why), 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    lat_loadsched_write_plan(out, &p, "100:500:100/1s", 75, 4, 1, 42);
    fclose(out);
    assert_string_equal(buf, "schedule: --rate 100:500:100/1s, 5 steps, mean 300/s (this "
                             "generator's share 75/s)\nshard 1/4 of the one schedule of seed 42\n");
    free(buf);
    assert_int_equal(lat_loadsched_parse("100", &p, &why), 0);
    buf = NULL;
    out = open_memstream(&buf, &len);
    lat_loadsched_write_plan(out, &p, "100", 100, 0, 0, 42);
    fclose(out);
    assert_string_equal(buf, ""); /* a fixed rate, no shard: nothing */
    free(buf);
    uint64_t ns, now = 1748779200000000000ull;
    assert_int_equal(lat_loadsched_parse_start("1748779200.5", now, &ns, &why), 0);
    assert_int_equal(ns, now + 500000000);
    assert_int_equal(lat_loadsched_parse_start("1748779199.95", now, &ns, &why), 0); /* 50 ms */
    assert_int_equal(lat_loadsched_parse_start("1748779199.5", now, &ns, &why), -EINVAL);
    assert_string_equal(why, "1748779199.5 is 0.5 s in the past");
    assert_int_equal(lat_loadsched_parse_start("tomorrow", now, &ns, &why), -EINVAL);
    assert_string_equal(why, "'tomorrow' is not RFC 3339 or Unix seconds");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slo_broken_at_step),
        cmocka_unit_test(test_invalid_at_step),
        cmocka_unit_test(test_all_held_and_first_failed),
        cmocka_unit_test(test_bisect),
        cmocka_unit_test(test_causes),
        cmocka_unit_test(test_grammar),
        cmocka_unit_test(test_sched_lines),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    lat_hist_fini(hist_of(1, 1));
    return rc;
}
