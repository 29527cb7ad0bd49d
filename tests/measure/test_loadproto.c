/* test_loadproto.c - `latlab load`'s wire protocols: the requests built for
 * each protocol (byte for byte, key digits rewritten per request), and each
 * response parser on replies with known answers, fed whole, one byte at a
 * time and in every two-piece split (the answer must not depend on how the
 * bytes arrive), back to back (pipelined), and on malformed and oversized
 * replies (refused, never accepted). */
#include <errno.h>
#include <string.h>

#include "lat_test.h"
#include "latlab/loadproto.h"

static lat_loadproto proto;

static void init(lat_loadproto_opts o) {
    assert_int_equal(lat_loadproto_init(&proto, &o), 0);
}

/* Feed text in pieces of `step` bytes (0: whole); returns the number of
 * complete responses, or the first error.  *errs counts error replies. */
static int feed_all(const char *text, size_t step, int *errs) {
    lat_loadproto_state s;
    memset(&s, 0, sizeof s);
    size_t len = strlen(text), off = 0;
    int done = 0;
    *errs = 0;
    while (off < len) {
        size_t n = step ? (len - off < step ? len - off : step) : len - off;
        size_t used = 0;
        int rc = lat_loadproto_feed(&proto, &s, (const uint8_t *)text + off, n, &used);
        if (rc < 0) return rc;
        assert_true(used <= n);
        off += used;
        if (rc == LAT_LOADPROTO_DONE) {
            done++;
            *errs += s.error_reply;
        }
    }
    return done;
}

/* The same count whatever the split: whole, byte by byte, every cut in two. */
static void expect(const char *text, int want, int want_errs) {
    int errs;
    assert_int_equal(feed_all(text, 0, &errs), want);
    assert_int_equal(errs, want_errs);
    assert_int_equal(feed_all(text, 1, &errs), want);
    for (size_t cut = 1; cut < strlen(text); cut++) {
        lat_loadproto_state s;
        memset(&s, 0, sizeof s);
        size_t used, off = 0, len = strlen(text);
        int done = 0;
        const uint8_t *b = (const uint8_t *)text;
        while (off < len) {
            size_t end = off < cut ? cut : len;
            int rc = lat_loadproto_feed(&proto, &s, b + off, end - off, &used);
            assert_true(rc >= 0);
            off += used;
            done += rc == LAT_LOADPROTO_DONE;
        }
        assert_int_equal(done, want);
    }
}

static void expect_err(const char *text, int err) {
    int errs;
    assert_int_equal(feed_all(text, 0, &errs), err);
    assert_int_equal(feed_all(text, 1, &errs), err);
}

static void test_http(void **state) {
    (void)state;
    init((lat_loadproto_opts){.kind = LAT_LOADPROTO_HTTP, .path = "/x", .host = "h"});
    assert_memory_equal(proto.req, "GET /x HTTP/1.1\r\nHost: h\r\n\r\n", proto.req_len);
    expect("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 1, 0);
    expect("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"
           "HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\nnah",
           2, 1);
    expect("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
           "3\r\nabc\r\n10;x=y\r\n0123456789abcdef\r\n0\r\nTrailer: t\r\n\r\n"
           "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
           2, 0);
    expect_err("HTTP/1.1 2x0 OK\r\n\r\n", -EBADMSG);
    expect_err("HTTP/1.1 200 OK\r\n\r\n", -EBADMSG); /* no length: not keep-alive */
    expect_err("SSH-2.0-OpenSSH\r\n", -EBADMSG);
    expect_err("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", -EBADMSG);
    expect_err("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nok", -EBADMSG);
    init((lat_loadproto_opts){.kind = LAT_LOADPROTO_HTTP, .max_response = 64});
    expect_err("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"
               "0123456789012345678901234567890123456789012345678901234567890123456789",
               -EMSGSIZE);
    init((lat_loadproto_opts){
        .kind = LAT_LOADPROTO_HTTP, .method = "POST", .body = "abc", .headers = "X-A: 1"});
    const char *want =
        "POST / HTTP/1.1\r\nHost: localhost\r\nX-A: 1\r\nContent-Length: 3\r\n\r\nabc";
    assert_int_equal(proto.req_len, strlen(want));
    assert_memory_equal(proto.req, want, proto.req_len);
    lat_loadproto_opts bad = {.kind = LAT_LOADPROTO_HTTP, .path = "/a b"};
    assert_int_equal(lat_loadproto_init(&proto, &bad), -EINVAL);
}

/* The close flag of one whole response. */
static int closes(const char *text) {
    lat_loadproto_state s;
    memset(&s, 0, sizeof s);
    size_t used;
    int rc = lat_loadproto_feed(&proto, &s, (const uint8_t *)text, strlen(text), &used);
    return rc == LAT_LOADPROTO_DONE ? s.close : rc;
}

/* Headers are matched by their whole name, case-blind; values by word. */
static void test_http_headers(void **state) {
    (void)state;
    init((lat_loadproto_opts){.kind = LAT_LOADPROTO_HTTP});
    assert_int_equal(closes("HTTP/1.1 200 OK\r\nCONNECTION: Close\r\nContent-Length: 0\r\n\r\n"),
                     1);
    assert_int_equal(
        closes("HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n"), 0);
    assert_int_equal(
        closes("HTTP/1.1 200 OK\r\nConnection: Upgrade, close\r\nContent-Length: 0\r\n\r\n"), 1);
    /* A name that only starts like one it knows is another header. */
    assert_int_equal(closes("HTTP/1.1 200 OK\r\nConnectionX: close\r\nContent-Length-X: 9\r\n"
                            "Content-Length: 0\r\n\r\n"),
                     0);
    expect("HTTP/1.1 200 OK\r\ntransfer-encoding: CHUNKED\r\n\r\n2\r\nok\r\n0\r\n\r\n", 1, 0);
    expect("HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: text/plain\r\nCONTENT-LENGTH: "
           "2\r\n\r\nok",
           1, 0);
    /* A header line longer than the line buffer: kept in part, still judged. */
    char big[600];
    snprintf(big, sizeof big, "HTTP/1.1 200 OK\r\nX-Long: %0400d\r\nContent-Length: 1\r\n\r\nk", 7);
    expect(big, 1, 0);
}

static void test_redis(void **state) {
    (void)state;
    init((lat_loadproto_opts){
        .kind = LAT_LOADPROTO_REDIS, .redis_cmd = "GET {key}", .key_space = 1000});
    const char *want = "*2\r\n$3\r\nGET\r\n$14\r\nkey:0000000000\r\n";
    assert_int_equal(proto.req_len, strlen(want));
    uint8_t buf[64];
    memcpy(buf, proto.req, proto.req_len);
    lat_loadproto_request(&proto, 1234, buf);
    assert_memory_equal(buf, "*2\r\n$3\r\nGET\r\n$14\r\nkey:0000000234\r\n", proto.req_len);
    expect("+PONG\r\n:12\r\n$5\r\nhello\r\n$-1\r\n-ERR no\r\n", 5, 1);
    expect("*3\r\n$1\r\na\r\n*2\r\n:1\r\n:2\r\n$0\r\n\r\n*0\r\n*-1\r\n", 3, 0);
    expect("%1\r\n+k\r\n+v\r\n_\r\n", 2, 0);
    /* a RESP3 attribute is not the reply: the reply after it is (nested too) */
    expect("|1\r\n+ttl\r\n:3600\r\n$2\r\nok\r\n+PONG\r\n", 2, 0);
    expect("*2\r\n|1\r\n+a\r\n+b\r\n:1\r\n:2\r\n|0\r\n-ERR x\r\n", 2, 1);
    expect_err("?\r\n", -EBADMSG);
    expect_err("$x\r\n", -EBADMSG);
    expect_err("*-5\r\n", -EBADMSG);
}

static void test_memcached(void **state) {
    (void)state;
    init((lat_loadproto_opts){.kind = LAT_LOADPROTO_MEMCACHED, .key_space = 10});
    assert_memory_equal(proto.req, "get key:0000000000\r\n", proto.req_len);
    expect("END\r\nVALUE key:1 0 3\r\nabc\r\nEND\r\nVALUE k 5 2 77\r\nxy\r\nEND\r\n", 3, 0);
    expect("SERVER_ERROR out of memory\r\n", 1, 1);
    expect_err("STORED\r\n", -EBADMSG);
    expect_err("VALUE k x 3\r\n", -EBADMSG);
    init((lat_loadproto_opts){.kind = LAT_LOADPROTO_MEMCACHED, .mc_set = true, .value_size = 4});
    assert_memory_equal(proto.req, "set key:0000000000 0 0 4\r\nabcd\r\n", proto.req_len);
    expect("STORED\r\nNOT_STORED\r\nERROR\r\n", 3, 1);
    expect_err("END\r\n", -EBADMSG);
}

static void test_echo(void **state) {
    (void)state;
    init((lat_loadproto_opts){.kind = LAT_LOADPROTO_ECHO, .echo_size = 5});
    assert_int_equal(proto.req_len, 5);
    expect("abcdeabcdeab", 2, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_http),  cmocka_unit_test(test_http_headers),
        cmocka_unit_test(test_redis), cmocka_unit_test(test_memcached),
        cmocka_unit_test(test_echo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
