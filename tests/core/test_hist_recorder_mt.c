/* test_hist_recorder_mt.c - the interval recorder with 2 writers and 1 reader
 * (also run under TSan): the reader takes snapshots while the writers record,
 * and the snapshots add up exactly to what was written - nothing lost,
 * nothing counted twice.  Also several writers on one histogram through
 * lat_hist_record_atomic. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lat_test.h"
#include "latlab/hist.h"

#ifdef LAT_SANITIZED
#define PER_WRITER 200000
#else
#define PER_WRITER 2000000
#endif

static lat_hist_recorder rec;
static lat_hist shared;
static atomic_int writers_done;

static void *writer(void *arg) {
    int64_t id = (int64_t)(intptr_t)arg;
    for (int64_t i = 0; i < PER_WRITER; i++) {
        /* writer 0 records 1..1000, writer 1 records 100000.. with a pattern */
        int64_t v = id == 0 ? 1 + i % 1000 : 100000 + (i % 977) * 13;
        if (!lat_hist_recorder_record(&rec, v)) abort();
    }
    atomic_fetch_add_explicit(&writers_done, 1, memory_order_release);
    return NULL;
}

static void test_recorder_two_writers_one_reader(void **state) {
    (void)state;
    assert_int_equal(lat_hist_recorder_init(&rec, 1, INT64_C(3600000000), 3), 0);
    lat_hist snap, sum;
    assert_int_equal(lat_hist_init(&snap, 1, INT64_C(3600000000), 3), 0);
    assert_int_equal(lat_hist_init(&sum, 1, INT64_C(3600000000), 3), 0);
    atomic_store(&writers_done, 0);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, writer, (void *)(intptr_t)i), 0);
    int snaps = 0;
    while (atomic_load_explicit(&writers_done, memory_order_acquire) < 2) {
        assert_int_equal(lat_hist_recorder_interval(&rec, &snap), 0);
        assert_int_equal(lat_hist_add(&sum, &snap), 0);
        snaps++;
    }
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(lat_hist_recorder_interval(&rec, &snap), 0);
    lat_hist_add(&sum, &snap);
    assert_int_equal(lat_hist_total(&sum), 2 * PER_WRITER);
    /* per-value counts are exact too */
    lat_hist want;
    assert_int_equal(lat_hist_init(&want, 1, INT64_C(3600000000), 3), 0);
    for (int64_t i = 0; i < PER_WRITER; i++) {
        lat_hist_record(&want, 1 + i % 1000);
        lat_hist_record(&want, 100000 + (i % 977) * 13);
    }
    assert_memory_equal(want.counts, sum.counts, (size_t)want.counts_len * sizeof(int64_t));
    assert_int_equal(lat_hist_max(&want), lat_hist_max(&sum));
    assert_int_equal(lat_hist_min(&want), lat_hist_min(&sum));
    printf("reader took %d snapshots while 2 writers recorded %d values each\n", snaps, PER_WRITER);
    lat_hist_fini(&want);
    lat_hist_fini(&snap);
    lat_hist_fini(&sum);
    lat_hist_recorder_fini(&rec);
}

static void *atomic_writer(void *arg) {
    int64_t id = (int64_t)(intptr_t)arg;
    for (int64_t i = 0; i < PER_WRITER; i++)
        lat_hist_record_atomic(&shared, id * 1000 + i % 500);
    return NULL;
}

static void test_atomic_record_two_writers(void **state) {
    (void)state;
    assert_int_equal(lat_hist_init(&shared, 1, 1000000, 3), 0);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, atomic_writer, (void *)(intptr_t)(i + 1)), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(lat_hist_total(&shared), 2 * PER_WRITER);
    assert_int_equal(lat_hist_count_between(&shared, 1000, 1499), PER_WRITER);
    assert_int_equal(lat_hist_count_between(&shared, 2000, 2499), PER_WRITER);
    assert_int_equal(lat_hist_min(&shared), 1000);
    assert_int_equal(lat_hist_max(&shared), lat_hist_highest_equivalent(&shared, 2499));
    lat_hist_fini(&shared);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recorder_two_writers_one_reader),
        cmocka_unit_test(test_atomic_record_two_writers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
