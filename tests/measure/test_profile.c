/* test_profile.c - running perf from the library: a missing perf binary and
 * bad arguments are told apart from perf failures; attached to this very
 * process, a thread created after the attach (named with pthread_setname_np)
 * is sampled and named in the stacks (root and perf needed, else SKIPPED). */
#include "lat_test.h"

#include "latlab/error.h"
#include "latlab/flame.h"
#include "latlab/profile.h"
#include "latlab/report.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void test_missing_perf_and_bad_args(void **state) {
    (void)state;
    lat_profile_result r;
    char *argv[] = {"true", NULL};
    lat_profile_opts o = {.perf = "/nonexistent/perf"};
    assert_int_equal(lat_profile_run(argv, lat_test_tmpdir(), &o, &r), -ENOENT);
    assert_int_equal(r.failure, LAT_PROFILE_NO_PERF);
    assert_non_null(strstr(r.message, "linux-perf"));
    assert_null(r.flame);
    lat_profile_result_fini(&r);
    lat_profile_session *s;
    assert_int_equal(lat_profile_attach(0, lat_test_tmpdir(), &o, &s, &r), -ENOENT);
    lat_profile_opts bad = {.hz = 100001};
    assert_int_equal(lat_profile_run(argv, lat_test_tmpdir(), &bad, &r), -EINVAL);
    char *empty[] = {NULL};
    assert_int_equal(lat_profile_run(empty, lat_test_tmpdir(), NULL, &r), -EINVAL);
    assert_int_equal(lat_profile_run(argv, "", NULL, &r), -EINVAL);
    assert_int_equal(lat_profile_detach(NULL, &r), -EINVAL);
}

static atomic_int stop;

static void *spinner(void *arg) {
    (void)arg;
    volatile uint64_t x = 1;
    while (!atomic_load_explicit(&stop, memory_order_relaxed))
        x = x * 6364136223846793005ull + 1;
    return NULL;
}

static void test_attach_self(void **state) {
    (void)state;
    if (system("command -v perf >/dev/null 2>&1") != 0) LAT_SKIP("perf not installed (linux-perf)");
    if (!lat_test_is_root()) LAT_SKIP("not root: attaching perf needs root here");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/attach", lat_test_tmpdir());
    lat_profile_result r;
    lat_profile_session *s;
    lat_profile_opts o = {.hz = 499};
    int rc = lat_profile_attach(0, dir, &o, &s, &r);
    if (rc) printf("attach: %s\n", r.message);
    assert_int_equal(rc, 0);
    pthread_t t;
    atomic_store(&stop, 0);
    assert_int_equal(pthread_create(&t, NULL, spinner, NULL), 0);
    pthread_setname_np(t, "spinner");
    struct timespec ts = {0, 400 * 1000 * 1000};
    nanosleep(&ts, NULL);
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    rc = lat_profile_detach(s, &r);
    if (rc) printf("detach: %s\n", r.message);
    assert_int_equal(rc, 0);
    uint64_t n = lat_flame_samples(r.flame);
    double share = lat_flame_total_pct(r.flame, "spinner", LAT_FLAME_THREAD);
    printf("attached: %llu samples, spinner %.1f%%, event %s\n", (unsigned long long)n, share,
           r.event);
    assert_true(n >= 10);
    assert_true(share > 50);
    lat_profile_result_fini(&r);
    assert_null(r.flame);
}

static lat_flame *folded_profile(const char *text) {
    lat_flame *f;
    assert_int_equal(lat_flame_create(LAT_FLAME_FOLDED, &f), 0);
    assert_int_equal(lat_flame_feed(f, text, strlen(text)), 0);
    assert_int_equal(lat_flame_finish(f), 0);
    return f;
}

static void test_compare(void **state) {
    (void)state;
    lat_flame *a = folded_profile("worker;start;spin 50\nworker;start;work 20\nproducer;pace 30\n");
    lat_flame *b = folded_profile("worker;start;spin 52\nworker;start;work 19\nproducer;pace 29\n");
    lat_profile_pair p = {a,   b,   "baseline round 1", "share-line round 1",
                          100, 270, "worker",           "cpu-clock at 999 Hz"};
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_int_equal(lat_profile_compare_text(&p, 2, m), 0);
    fclose(m);
    printf("%s", buf);
    assert_non_null(
        strstr(buf, "baseline round 1: 100 samples; threads worker 70.0% producer 30.0%"));
    assert_non_null(strstr(buf, "top 2 frames by self share: spin 50.0%, pace 30.0%\n"));
    assert_non_null(strstr(buf, "largest share difference: spin +2.0 points (50.0% -> 52.0%)"));
    assert_non_null(strstr(buf, "work p50 in the same rounds: 100 ns -> 270 ns (x2.70)"));
    assert_non_null(strstr(buf, "=> the worker's frames hold 70% vs 71% of samples"));
    assert_non_null(strstr(buf, "points at the same code"));
    free(buf);
    /* unknown ratio: no narration */
    p.work_p50_b_ns = NAN;
    m = open_memstream(&buf, &len);
    assert_int_equal(lat_profile_compare_text(&p, 0, m), 0);
    fclose(m);
    assert_null(strstr(buf, "=>"));
    free(buf);
    p.work_p50_b_ns = 270;
    lat_report *rep;
    assert_int_equal(lat_report_create("step e", &rep), 0);
    assert_int_equal(lat_profile_compare_report(&p, rep), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/cmp.html", lat_test_tmpdir());
    assert_int_equal(lat_report_write(rep, path), 0);
    lat_report_destroy(rep);
    FILE *f = fopen(path, "r");
    char page[200000];
    size_t n = fread(page, 1, sizeof page - 1, f);
    fclose(f);
    page[n] = 0;
    assert_non_null(strstr(page, "class=\"lat-flame\""));
    assert_non_null(
        strstr(page, "profiles differ by at most 2.0 points of share in any frame (spin)"));
    assert_non_null(strstr(page, "points at the same code"));
    lat_profile_pair empty = {a, NULL, NULL, NULL, NAN, NAN, NULL, NULL};
    assert_int_equal(lat_profile_compare_text(&empty, 5, stdout), -EINVAL);
    lat_flame_destroy(a);
    lat_flame_destroy(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_perf_and_bad_args),
        cmocka_unit_test(test_attach_self),
        cmocka_unit_test(test_compare),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
