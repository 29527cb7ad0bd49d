/* test_perf_threads.c - latlab/perf_threads.h on this process: a second
 * thread (named) is found by a poll with its name, a thread is opened once
 * however often it is polled, a gone process is -ENOENT.  (The JSON of a
 * set's counts is measure/json.c's: tests/measure/test_json.c.) */
#include "lat_test.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "latlab/perf_threads.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int stop;

static void *idle(void *arg) {
    (void)arg;
    pthread_mutex_lock(&mu);
    while (!stop)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    return NULL;
}

static void test_threads_of_self(void **state) {
    (void)state;
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, idle, NULL), 0);
    pthread_setname_np(th, "lat-second");
    lat_perf_threads t;
    assert_int_equal(lat_perf_threads_init(&t, getpid(), "task-clock"), 0);
    int n = lat_perf_threads_poll(&t, false);
    if (n == 0) {
        lat_perf_threads_fini(&t);
        pthread_mutex_lock(&mu);
        stop = 1;
        pthread_cond_signal(&cv);
        pthread_mutex_unlock(&mu);
        pthread_join(th, NULL);
        LAT_SKIP("perf_event_open refused for threads of this process");
    }
    assert_int_equal(n, 2);
    assert_int_equal(lat_perf_threads_poll(&t, false), 2); /* not opened twice */
    bool named = false;
    for (int k = 0; k < t.n; k++) {
        assert_true(t.v[k].tid > 0);
        assert_non_null(t.v[k].p);
        named |= !strcmp(t.v[k].comm, "lat-second");
    }
    assert_true(named);
    assert_int_equal(lat_perf_nevents(t.v[0].p), 1);

    lat_perf_threads_fini(&t);
    assert_int_equal(t.n, 0);
    pthread_mutex_lock(&mu);
    stop = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
    pthread_join(th, NULL);
}

static void test_gone(void **state) {
    (void)state;
    lat_perf_threads t;
    assert_int_equal(lat_perf_threads_init(&t, 0x3ffffff0, NULL), 0); /* above pid_max */
    assert_int_equal(lat_perf_threads_poll(&t, false), -ENOENT);
    lat_perf_threads_fini(&t);
    lat_perf_threads_fini(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_of_self),
        cmocka_unit_test(test_gone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
