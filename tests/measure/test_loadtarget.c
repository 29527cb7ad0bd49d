/* test_loadtarget.c - `latlab load`'s TARGET split: HOST:PORT, [IPV6]:PORT,
 * http:// and https:// URLs (default ports 80 and 443, the path kept, the
 * scheme's TLS said), and every malformed form refused with its reason. */
#include <errno.h>
#include <string.h>

#include "lat_test.h"
#include "latlab/loadtarget.h"

static char host[64], port[8];
static const char *path, *why;
static bool tls;

static int split(const char *t) {
    tls = true; /* must be set either way */
    return lat_loadtarget_split(t, host, sizeof host, port, &path, &why, &tls);
}

static void test_forms(void **state) {
    (void)state;
    assert_int_equal(split("127.0.0.1:8080"), 0);
    assert_string_equal(host, "127.0.0.1");
    assert_string_equal(port, "8080");
    assert_null(path);
    assert_false(tls);
    assert_int_equal(split("[::1]:6379"), 0);
    assert_string_equal(host, "::1");
    assert_string_equal(port, "6379");
    assert_int_equal(split("http://example.com/a/b"), 0);
    assert_string_equal(host, "example.com");
    assert_string_equal(port, "80");
    assert_string_equal(path, "/a/b");
    assert_false(tls);
    assert_int_equal(split("https://example.com"), 0);
    assert_string_equal(port, "443");
    assert_null(path);
    assert_true(tls);
    assert_int_equal(split("https://127.0.0.1:8443/x"), 0);
    assert_string_equal(host, "127.0.0.1");
    assert_string_equal(port, "8443");
    assert_string_equal(path, "/x");
    assert_true(tls);
    /* NULL tls is fine */
    assert_int_equal(lat_loadtarget_split("https://h", host, sizeof host, port, &path, &why, NULL),
                     0);
}

static void test_refused(void **state) {
    (void)state;
    assert_int_equal(split("127.0.0.1"), -EINVAL);
    assert_string_equal(why, " is not HOST:PORT");
    assert_int_equal(split("https://:443/"), -EINVAL);
    assert_string_equal(why, ": no host");
    assert_int_equal(split("https://h:99999/"), -EINVAL);
    assert_string_equal(why, ": port out of range (1-65535)");
    assert_int_equal(split("h:8x"), -EINVAL);
    assert_string_equal(why, ": bad port");
    assert_int_equal(split("[::1:80"), -EINVAL);
    assert_string_equal(why, ": no ']'");
    char longhost[128];
    memset(longhost, 'a', sizeof longhost - 3);
    strcpy(longhost + sizeof longhost - 3, ":1");
    assert_int_equal(split(longhost), -EINVAL); /* longer than the host buffer */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
