/* test_error.c - the error convention (core/error.c): every LAT_E* code has
 * its own sentence, distinct from the others and from "unknown error"; a
 * negative errno gives the C library's sentence; a resolver error gives the
 * resolver's; anything else is "unknown error", never NULL. */
#include "lat_test.h"

#include "latlab/error.h"

#include <errno.h>
#include <netdb.h>
#include <string.h>

static void test_latlab_codes(void **s) {
    (void)s;
    static const int codes[] = {LAT_EFORMAT,   LAT_ETRUNCATED,   LAT_ECOOKIE,       LAT_ECOMPRESS,
                                LAT_EGEOMETRY, LAT_ETOOFEW_CPUS, LAT_EINCOMPATIBLE, LAT_ENOTCOUNTED,
                                LAT_ENOPMU,    LAT_EHTTP};
    const size_t n = sizeof codes / sizeof codes[0];
    for (size_t i = 0; i < n; i++) {
        const char *m = lat_strerror(codes[i]);
        assert_non_null(m);
        assert_true(strlen(m) > 5);
        assert_string_not_equal(m, "unknown error");
        for (size_t k = 0; k < i; k++)
            assert_string_not_equal(m, lat_strerror(codes[k]));
        if (i > 0) assert_true(codes[i] < codes[i - 1]); /* each lower than the last */
    }
    assert_string_equal(lat_strerror(LAT_EFORMAT), "malformed input");
    assert_string_equal(lat_strerror(LAT_ETRUNCATED), "input is truncated");
    assert_string_equal(lat_strerror(0), "success");
}

static void test_errno_and_resolver(void **s) {
    (void)s;
    assert_string_equal(lat_strerror(-ENOENT), strerror(ENOENT));
    assert_string_equal(lat_strerror(-EINVAL), strerror(EINVAL));
    assert_string_equal(lat_strerror(LAT_EADDRINFO_ERR(EAI_NONAME)), gai_strerror(EAI_NONAME));
    assert_string_equal(lat_strerror(LAT_EADDRINFO_ERR(EAI_AGAIN)), gai_strerror(EAI_AGAIN));
    assert_true(LAT_EADDRINFO_ERR(EAI_NONAME) < LAT_EHTTP);
    assert_string_equal(lat_strerror(1), "unknown error");
    assert_string_equal(lat_strerror(-5000), "unknown error");
    assert_string_equal(lat_strerror(-20000), "unknown error");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_latlab_codes),
        cmocka_unit_test(test_errno_and_resolver),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
