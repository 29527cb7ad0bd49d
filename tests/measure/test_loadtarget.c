/* test_loadtarget.c - `latlab load`'s TARGET split: HOST:PORT, [IPV6]:PORT,
 * http:// and https:// URLs (default ports 80 and 443, the path kept, the
 * scheme's TLS said), and every malformed form refused with its reason.
 * The --targets file: good files built into their requests (headers, a body
 * file), every fault named with its line, the pick by weight (round robin
 * exactly, random in proportion) and the same picks from N shards as from
 * one generator; the counts and latency recorded per target. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lat_test.h"
#include "latlab/loadsched.h"
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

/* ---- the targets file ------------------------------------------------------------------ */

static const lat_loadtarget_origin origin = {"127.0.0.1", "8080", false, NULL, 0};
static char err[512];

static int parse(const char *text, lat_loadtarget_pick_kind pick, lat_loadtargets **ts) {
    return lat_loadtarget_parse(text, "t.txt", NULL, &origin, pick, ts, err, sizeof err);
}

static bool req_has(const lat_loadtargets *ts, unsigned i, const char *what) {
    const lat_loadproto *p = lat_loadtarget_proto(ts, i);
    char buf[LAT_LOADPROTO_REQ_MAX + 1];
    memcpy(buf, p->req, p->req_len);
    buf[p->req_len] = 0;
    return strstr(buf, what) != NULL;
}

static void test_file_good(void **state) {
    (void)state;
    char dir[] = "/tmp/lat_tgt_XXXXXX", path[600], body[600];
    assert_non_null(mkdtemp(dir));
    snprintf(body, sizeof body, "%s/b.json", dir);
    snprintf(path, sizeof path, "%s/t.txt", dir);
    FILE *f = fopen(body, "w");
    assert_non_null(f);
    fputs("{\"a\":1}", f);
    fclose(f);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("# a comment\n\n\nGET http://127.0.0.1:8080/items?x=1 name=items weight=3\r\n"
          "Accept: text/plain\r\n"
          "  # a comment inside a block\n"
          "X-Two: 2\n"
          "\n"
          "POST /cart\n"
          "Content-Type: application/json\n"
          "@b.json\n"
          "\t \n"
          "DELETE http://127.0.0.1:8080\n",
          f);
    fclose(f);
    lat_loadtargets *ts;
    assert_int_equal(
        lat_loadtarget_read_file(path, &origin, LAT_LOADTARGET_ROUND_ROBIN, &ts, err, sizeof err),
        0);
    assert_int_equal(lat_loadtarget_count(ts), 3);
    assert_string_equal(lat_loadtarget_name(ts, 0), "items");
    assert_string_equal(lat_loadtarget_name(ts, 1), "/cart"); /* the path */
    assert_string_equal(lat_loadtarget_name(ts, 2), "/");
    assert_string_equal(lat_loadtarget_tag(ts, 0), "latency.items");
    assert_int_equal(lat_loadtarget_weight(ts, 0), 3);
    assert_int_equal(lat_loadtarget_weight(ts, 1), 1);
    assert_true(req_has(ts, 0, "GET /items?x=1 HTTP/1.1\r\n"));
    assert_true(req_has(ts, 0, "Accept: text/plain\r\nX-Two: 2\r\n"));
    assert_true(req_has(ts, 0, "Host: 127.0.0.1\r\n"));
    assert_false(req_has(ts, 0, "comment"));
    assert_true(req_has(ts, 1, "POST /cart HTTP/1.1\r\n"));
    assert_true(req_has(ts, 1, "Content-Length: 7\r\n"));
    assert_true(req_has(ts, 1, "\r\n\r\n{\"a\":1}"));
    assert_true(req_has(ts, 2, "DELETE / HTTP/1.1\r\n"));
    assert_int_equal(lat_loadtarget_req_max(ts), lat_loadtarget_proto(ts, 1)->req_len);
    lat_loadtarget_destroy(ts);
    /* a body over the cap, named with its line */
    f = fopen(body, "w");
    for (int i = 0; i <= LAT_LOADTARGET_BODY_MAX; i++)
        fputc('x', f);
    fclose(f);
    assert_int_equal(
        lat_loadtarget_read_file(path, &origin, LAT_LOADTARGET_ROUND_ROBIN, &ts, err, sizeof err),
        -EINVAL);
    assert_non_null(strstr(err, "t.txt line 11: body file"));
    assert_non_null(strstr(err, "over 61440 bytes"));
    unlink(body);
    assert_int_equal(
        lat_loadtarget_read_file(path, &origin, LAT_LOADTARGET_ROUND_ROBIN, &ts, err, sizeof err),
        -EINVAL);
    assert_non_null(strstr(err, "t.txt line 11: body file"));
    unlink(path);
    assert_int_equal(
        lat_loadtarget_read_file(path, &origin, LAT_LOADTARGET_ROUND_ROBIN, &ts, err, sizeof err),
        -ENOENT);
    assert_non_null(strstr(err, "t.txt: "));
    rmdir(dir);
}

static void test_file_faults(void **state) {
    (void)state;
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"GET\n", "t.txt line 1: not 'METHOD URL"},
        {"# c\nget /x\n", "t.txt line 2: method 'get'"},
        {"HEAD /x\n", "t.txt line 1: HEAD"},
        {"GET x\n", "t.txt line 1: URL 'x': not http(s)"},
        {"GET /a\n\nGET http://127.0.0.1:9/b\n", "t.txt line 3: URL 'http://127.0.0.1:9/b': not on "
                                                 "the run's origin http://127.0.0.1:8080"},
        {"GET http://other:8080/b\n", "t.txt line 1: URL 'http://other:8080/b': not on"},
        {"GET https://127.0.0.1:8080/b\n", "t.txt line 1: URL 'https://127.0.0.1:8080/b': not on"},
        {"GET http://127.0.0.1:0/b\n", "t.txt line 1: URL 'http://127.0.0.1:0/b': port out"},
        {"GET /a weight=0\n", "t.txt line 1: weight '0': not 1..1000"},
        {"GET /a weight=1001\n", "t.txt line 1: weight '1001'"},
        {"GET /a weight=2x\n", "t.txt line 1: weight '2x'"},
        {"GET /a name=a,b\n", "t.txt line 1: name 'a,b'"},
        {"GET /a name=\n", "t.txt line 1: name ''"},
        {"GET /a color=red\n", "t.txt line 1: 'color=red': not name=NAME or weight=N"},
        {"GET /a\nAccept\n", "t.txt line 2: not 'Header: value'"},
        {"GET /a\nBad Name: x\n", "t.txt line 2: not 'Header: value'"},
        {"GET /a\n@/nonexistent/b\n", "t.txt line 2: body file '/nonexistent/b'"},
        {"GET /a\n@\n", "t.txt line 2: '@' without a file"},
        {"GET /a\n@/dev/null\n@/dev/null\n", "t.txt line 3: a second body"},
        {"GET /a\n\nGET /a\n", "t.txt line 3: name '/a': already line 1's"},
        {"GET /a b\n", "t.txt line 1: 'b': not name=NAME"},
        {"# nothing\n\n", "t.txt: no targets in it"},
        {"", "t.txt: no targets in it"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        lat_loadtargets *ts = (lat_loadtargets *)&ts;
        int rc = parse(bad[i].text, LAT_LOADTARGET_ROUND_ROBIN, &ts);
        if (rc != -EINVAL || !strstr(err, bad[i].want))
            fail_msg("case %zu: rc %d, '%s' (want '%s')", i, rc, err, bad[i].want);
        assert_null(ts);
    }
    /* the cap: the first block over it is named */
    char text[LAT_LOADTARGETS_MAX * 16 + 64] = "";
    for (int i = 0; i <= LAT_LOADTARGETS_MAX; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "GET /%d\n\n", i);
    lat_loadtargets *ts;
    assert_int_equal(parse(text, LAT_LOADTARGET_ROUND_ROBIN, &ts), -EINVAL);
    char want[64];
    snprintf(want, sizeof want, "t.txt line %d: more than %d targets", 2 * LAT_LOADTARGETS_MAX + 1,
             LAT_LOADTARGETS_MAX);
    assert_string_equal(err, want);
    text[strlen(text) - 9] = 0; /* 64 targets: fine */
    assert_int_equal(parse(text, LAT_LOADTARGET_ROUND_ROBIN, &ts), 0);
    assert_int_equal(lat_loadtarget_count(ts), LAT_LOADTARGETS_MAX);
    lat_loadtarget_destroy(ts);
}

static void test_pick_round_robin(void **state) {
    (void)state;
    lat_loadtargets *ts;
    assert_int_equal(parse("GET /a weight=3\n\nGET /b\n", LAT_LOADTARGET_ROUND_ROBIN, &ts), 0);
    const unsigned want[] = {0, 0, 1, 0, 0, 0, 1, 0}; /* smooth: a a b a */
    for (uint64_t n = 0; n < 8; n++)
        assert_int_equal(lat_loadtarget_pick(ts, 99, n), want[n]);
    lat_loadtarget_destroy(ts);
    /* weights 5, 2, 1: exact in every period of 8, and spread (never 5 a's in a row) */
    assert_int_equal(
        parse("GET /a weight=5\n\nGET /b weight=2\n\nGET /c\n", LAT_LOADTARGET_ROUND_ROBIN, &ts),
        0);
    unsigned run = 0, last = 9;
    for (uint64_t k = 0; k < 100; k++) {
        unsigned c[3] = {0};
        for (uint64_t n = 8 * k; n < 8 * k + 8; n++) {
            unsigned t = lat_loadtarget_pick(ts, k, n);
            c[t]++;
            run = t == last ? run + 1 : 1;
            last = t;
            assert_true(run <= 2);
        }
        assert_int_equal(c[0], 5);
        assert_int_equal(c[1], 2);
        assert_int_equal(c[2], 1);
    }
    lat_loadtarget_destroy(ts);
}

static void test_pick_random(void **state) {
    (void)state;
    lat_loadtargets *ts;
    assert_int_equal(parse("GET /a\n\nGET /b weight=3\n", LAT_LOADTARGET_RANDOM, &ts), 0);
    unsigned c[2] = {0}, same = 0;
    const unsigned N = 200000;
    for (uint64_t n = 0; n < N; n++) {
        unsigned t = lat_loadtarget_pick(ts, 7, n);
        c[t]++;
        assert_int_equal(t, lat_loadtarget_pick(ts, 7, n)); /* pure */
        same += t == lat_loadtarget_pick(ts, 8, n);
    }
    /* 1:3 within 1% (sd of the share 0.1% at this n) */
    double share = (double)c[1] / N;
    assert_true(share > 0.74 && share < 0.76);
    assert_true(same < N * 0.7); /* another seed, another sequence (same share 5/8 by chance) */
    lat_loadtarget_destroy(ts);
}

/* The engine's key: arrival n of the one schedule (lat_loadsched.n - 1 after it is issued).
 * N shards' (n, pick) together are one generator's. */
static void shards_match(lat_load_arrivals kind, lat_loadtarget_pick_kind pick) {
    lat_loadtargets *ts;
    assert_int_equal(parse("GET /a weight=2\n\nGET /b\n\nGET /c weight=4\n", pick, &ts), 0);
    enum { M = 3000, SH = 4 };
    static unsigned one[M], from[M];
    static bool seen[M];
    lat_loadsched s;
    assert_int_equal(lat_loadsched_init_plan(&s, kind, NULL, 1000, 42, 1, 0), 0);
    for (int k = 0; k < M; k++) {
        lat_loadsched_next(&s);
        assert_int_equal(s.n - 1, k);
        one[k] = lat_loadtarget_pick(ts, 42, s.n - 1);
    }
    memset(seen, 0, sizeof seen);
    uint64_t total = 0;
    for (uint32_t ph = 0; ph < SH; ph++) {
        assert_int_equal(lat_loadsched_init_plan(&s, kind, NULL, 1000, 42, SH, ph), 0);
        for (;;) {
            lat_loadsched_next(&s);
            uint64_t n = s.n - 1;
            if (n >= M) break;
            assert_false(seen[n]);
            seen[n] = true;
            from[n] = lat_loadtarget_pick(ts, 42, n);
            total++;
        }
    }
    assert_int_equal(total, M);
    for (int k = 0; k < M; k++)
        assert_int_equal(from[k], one[k]);
    lat_loadtarget_destroy(ts);
}

static void test_pick_shards(void **state) {
    (void)state;
    shards_match(LAT_LOAD_CONSTANT, LAT_LOADTARGET_ROUND_ROBIN);
    shards_match(LAT_LOAD_CONSTANT, LAT_LOADTARGET_RANDOM);
    shards_match(LAT_LOAD_POISSON, LAT_LOADTARGET_ROUND_ROBIN);
    shards_match(LAT_LOAD_POISSON, LAT_LOADTARGET_RANDOM);
}

static void test_results(void **state) {
    (void)state;
    lat_loadtargets *ts;
    assert_int_equal(parse("GET /a\n\nGET /b\n", LAT_LOADTARGET_ROUND_ROBIN, &ts), 0);
    unsigned i;
    size_t len;
    const uint8_t *req = lat_loadtarget_request(ts, 1, 1, &i, &len);
    assert_int_equal(i, 1);
    assert_memory_equal(req, "GET /b ", 7);
    assert_int_equal(len, lat_loadtarget_proto(ts, 1)->req_len);
    for (int k = 0; k < 10; k++)
        lat_loadtarget_sent(ts, 0);
    lat_loadtarget_sent(ts, 1);
    for (int k = 0; k < 8; k++)
        lat_loadtarget_done(ts, 0, 1000 * (k + 1), k == 7, k < 2);
    lat_loadtarget_counts c;
    lat_loadtarget_counts_get(ts, 0, &c);
    assert_int_equal(c.sent, 10);
    assert_int_equal(c.completed, 8);
    assert_int_equal(c.failed, 2);
    assert_int_equal(c.error_replies, 2);
    assert_int_equal(c.censored, 1);
    lat_loadtarget_counts_get(ts, 1, &c);
    assert_int_equal(c.sent, 1);
    assert_int_equal(c.failed, 1);
    assert_int_equal(lat_loadtarget_tick(ts), 0);
    assert_int_equal(lat_hist_total(lat_loadtarget_hist(ts, 0, false)), 7); /* not the censored */
    assert_int_equal(lat_loadtarget_tick(ts), 0);
    assert_int_equal(lat_hist_total(lat_loadtarget_hist(ts, 0, false)), 0);
    assert_int_equal(lat_hist_total(lat_loadtarget_hist(ts, 0, true)), 7);
    assert_int_equal(lat_loadtarget_worst(ts, 50), 0);
    assert_int_equal(lat_loadtarget_worst(ts, 99), -1); /* too few for an interval */
    lat_loadtarget_destroy(ts);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_file_good),
        cmocka_unit_test(test_file_faults),
        cmocka_unit_test(test_pick_round_robin),
        cmocka_unit_test(test_pick_random),
        cmocka_unit_test(test_pick_shards),
        cmocka_unit_test(test_results),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
