/* test_alloc.c - the library's one allocator (core/alloc.c) and the counting
 * interposer (core/alloccount.c): every internal allocation goes through the
 * installed hooks with the alignment asked for, calloc zeroes and refuses an
 * overflowing size without allocating, strdup copies, a failing hook is seen
 * as NULL, NULL hooks restore the C library's allocator, and the interposer
 * counts exactly the calls made between begin and end (when available: not
 * under sanitizers). */
#include "lat_test.h"

#include "alloc_internal.h"
#include "latlab/alloc.h"
#include "latlab/alloccount.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct counts {
    int allocs, frees, fail;
    size_t last_size, last_align;
} counts;

static void *counting_alloc(size_t size, size_t align, void *ud) {
    counts *c = ud;
    c->allocs++;
    c->last_size = size;
    c->last_align = align;
    if (c->fail) return NULL;
    void *p = NULL;
    return posix_memalign(&p, align, size ? size : 1) ? NULL : p;
}

static void counting_free(void *p, void *ud) {
    ((counts *)ud)->frees++;
    free(p);
}

static void test_hooks_see_every_call(void **s) {
    (void)s;
    counts c = {0};
    lat_alloc_hooks h = {counting_alloc, counting_free, &c};
    lat_set_alloc_hooks(&h);
    void *a = lat__alloc(100);
    assert_non_null(a);
    assert_int_equal(c.last_size, 100);
    assert_int_equal(c.last_align, 16);
    void *b = lat__alloc_aligned(256, 64);
    assert_int_equal(c.last_align, 64);
    assert_int_equal((uintptr_t)b % 64, 0);
    void *e = lat__alloc_aligned(8, 1);
    assert_non_null(e);
    assert_int_equal(c.last_align, sizeof(void *)); /* raised to a pointer's */
    lat__free(NULL);                                /* not passed on */
    assert_int_equal(c.frees, 0);
    lat__free(a);
    lat__free(b);
    lat__free(e);
    assert_int_equal(c.frees, 3);
    assert_int_equal(c.allocs, 3);
    lat_set_alloc_hooks(NULL);
}

static void test_calloc_strdup_failure(void **s) {
    (void)s;
    counts c = {0};
    lat_alloc_hooks h = {counting_alloc, counting_free, &c};
    lat_set_alloc_hooks(&h);
    unsigned char *z = lat__calloc(10, 7);
    assert_non_null(z);
    assert_int_equal(c.last_size, 70);
    for (int i = 0; i < 70; i++)
        assert_int_equal(z[i], 0);
    lat__free(z);
    int before = c.allocs;
    assert_null(lat__calloc(SIZE_MAX / 2, 3)); /* overflow: refused */
    assert_int_equal(c.allocs, before);        /* without asking the hook */
    char *d = lat__strdup("latency");
    assert_string_equal(d, "latency");
    assert_int_equal(c.last_size, 8);
    lat__free(d);
    assert_null(lat__strdup(NULL));
    c.fail = 1;
    assert_null(lat__alloc(10));
    assert_null(lat__calloc(2, 2));
    assert_null(lat__strdup("x"));
    lat_set_alloc_hooks(NULL); /* the C library's again: the hook sees nothing */
    before = c.allocs;
    void *p = lat__alloc(32);
    assert_non_null(p);
    lat__free(p);
    assert_int_equal(c.allocs, before);
}

static void test_alloccount_counts_calls(void **s) {
    (void)s;
    if (!lat_alloccount_available()) LAT_SKIP("allocation counting is off under sanitizers");
    lat_alloccount_begin();
    assert_int_equal(lat_alloccount_end(), 0);
    lat_alloccount_begin();
    void *volatile a = malloc(24);
    void *volatile b = calloc(3, 8);
    void *volatile c = realloc(a, 4096);
    free(b);
    free(c); /* frees are not allocation calls */
    assert_int_equal(lat_alloccount_end(), 3);
    void *volatile d = malloc(8); /* after end: not counted */
    free(d);
    lat_alloccount_begin();
    assert_int_equal(lat_alloccount_end(), 0); /* begin resets */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hooks_see_every_call),
        cmocka_unit_test(test_calloc_strdup_failure),
        cmocka_unit_test(test_alloccount_counts_calls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
