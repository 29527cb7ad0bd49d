/* test_loadh2.c - `latlab load --http2`'s sessions (loadh2.c) on a socketpair,
 * the server's side written here as canned frames: the request's header
 * block (from the HTTP/1.1 one), a connection up only once SETTINGS came,
 * responses out of order to their slots (404: an error reply), RST_STREAM
 * and GOAWAY as failures of their streams, the server's stream cap under
 * ours, bytes that are not HTTP/2, and a steady state that allocates
 * nothing.  Skipped in a build without nghttp2. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lat_test.h"
#include "latlab/alloccount.h"
#include "latlab/loadh2.h"

static int fds[2]; /* [0] the client's, [1] the canned server's */
static struct {
    unsigned slot;
    int result;
} ends[64];
static int nends, goaways;

static ssize_t io(void *conn, uint8_t *b, size_t n, bool out) {
    (void)conn;
    return out ? send(fds[0], b, n, MSG_NOSIGNAL | MSG_DONTWAIT) : recv(fds[0], b, n, MSG_DONTWAIT);
}

static void done(void *run, void *conn, unsigned slot, int result) {
    (void)run, (void)conn;
    if (slot == LAT_LOADH2_NO_SLOT) {
        goaways += result == LAT_LOADH2_EV_GOAWAY;
        return;
    }
    ends[nends].slot = slot;
    ends[nends++].result = result;
}

static void frame(uint8_t type, uint8_t flags, uint32_t id, const void *p, size_t n) {
    uint8_t h[9] = {(uint8_t)(n >> 16),  (uint8_t)(n >> 8),   (uint8_t)n,         type,       flags,
                    (uint8_t)(id >> 24), (uint8_t)(id >> 16), (uint8_t)(id >> 8), (uint8_t)id};
    assert_int_equal(send(fds[1], h, 9, 0), 9);
    if (n) assert_int_equal(send(fds[1], p, n, 0), (ssize_t)n);
}

/* What the client wrote so far, discarded (the test reads no request). */
static size_t drain(void) {
    uint8_t b[65536];
    size_t all = 0;
    ssize_t k;
    while ((k = recv(fds[1], b, sizeof b, MSG_DONTWAIT)) > 0)
        all += (size_t)k;
    return all;
}

static uint8_t buf[65536];
static lat_loadproto proto;

/* A context and a connection up (the server's SETTINGS given: max streams 0 = none). */
static void setup_conn(lat_loadh2 **h, lat_loadh2_conn **c, unsigned cap, uint32_t max_streams) {
    lat_loadh2_cb cb = {io, done, NULL};
    nends = goaways = 0;
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    assert_int_equal(lat_loadh2_create(&proto, false, cap, &cb, h), 0);
    assert_int_equal(lat_loadh2_conn_start(*h, NULL, c), 0);
    assert_int_equal(lat_loadh2_pump(*c, buf, sizeof buf, true), LAT_LOADH2_WANT_READ);
    assert_true(drain() >= 24); /* the preface and our SETTINGS */
    assert_int_equal(lat_loadh2_pump(*c, buf, sizeof buf, true), LAT_LOADH2_WANT_READ);
    uint8_t s[6] = {0,
                    3,
                    (uint8_t)(max_streams >> 24),
                    (uint8_t)(max_streams >> 16),
                    (uint8_t)(max_streams >> 8),
                    (uint8_t)max_streams};
    frame(4, 0, 0, s, max_streams ? 6 : 0);
    assert_int_equal(lat_loadh2_pump(*c, buf, sizeof buf, true), 0); /* up */
    drain();
}

static void teardown_conn(lat_loadh2 *h, lat_loadh2_conn *c) {
    lat_loadh2_conn_end(c);
    lat_loadh2_destroy(h);
    close(fds[0]);
    close(fds[1]);
}

static int setup(void **state) {
    (void)state;
    lat_loadproto_opts o = {.kind = LAT_LOADPROTO_HTTP,
                            .path = "/p",
                            .host = "h.example",
                            .headers = "X-Trace: 1\r\nConnection: keep-alive"};
    return lat_loadproto_init(&proto, &o);
}

static void test_refused(void **state) {
    (void)state;
    if (!lat_loadh2_available()) skip();
    lat_loadproto p;
    lat_loadproto_opts o = {.kind = LAT_LOADPROTO_REDIS};
    assert_int_equal(lat_loadproto_init(&p, &o), 0);
    lat_loadh2_cb cb = {io, done, NULL};
    lat_loadh2 *h;
    assert_int_equal(lat_loadh2_create(&p, false, 4, &cb, &h), -EINVAL);
    assert_null(h);
}

/* Out of order, to their slots: 404 an error reply, RST_STREAM a failure. */
static void test_streams(void **state) {
    (void)state;
    if (!lat_loadh2_available()) skip();
    lat_loadh2 *h;
    lat_loadh2_conn *c;
    setup_conn(&h, &c, 4, 0);
    assert_int_equal(lat_loadh2_submit(c, 0), 0); /* stream 1 */
    assert_int_equal(lat_loadh2_submit(c, 0), 1); /* stream 3 */
    assert_int_equal(lat_loadh2_submit(c, 0), 2); /* stream 5 */
    assert_true(drain() > 0);
    assert_int_equal(lat_loadh2_oldest(c), 0);
    frame(1, 5, 3, "\x88", 1); /* :status 200, END_STREAM */
    frame(1, 5, 1, "\x8d", 1); /* :status 404 */
    frame(3, 0, 5, "\0\0\0\2", 4);
    assert_int_equal(lat_loadh2_pump(c, buf, sizeof buf, true), 0);
    assert_int_equal(nends, 3);
    assert_int_equal(ends[0].slot, 1);
    assert_int_equal(ends[0].result, LAT_LOADH2_OK);
    assert_int_equal(ends[1].slot, 0);
    assert_int_equal(ends[1].result, LAT_LOADH2_ERROR_REPLY);
    assert_int_equal(ends[2].slot, 2);
    assert_int_equal(ends[2].result, LAT_LOADH2_RST);
    assert_int_equal(lat_loadh2_oldest(c), LAT_LOADH2_NO_SLOT);
    assert_true(lat_loadh2_room(c));
    teardown_conn(h, c);
}

/* The server allows 1 stream, we 4: no room while one is out, said as such. */
static void test_server_cap(void **state) {
    (void)state;
    if (!lat_loadh2_available()) skip();
    lat_loadh2 *h;
    lat_loadh2_conn *c;
    setup_conn(&h, &c, 4, 1);
    assert_false(lat_loadh2_stream_capped(h));
    assert_int_equal(lat_loadh2_submit(c, 0), 0);
    assert_false(lat_loadh2_room(c));
    assert_true(lat_loadh2_stream_capped(h));
    assert_int_equal(lat_loadh2_submit(c, 0), -ENOSPC);
    frame(1, 5, 1, "\x88", 1);
    assert_int_equal(lat_loadh2_pump(c, buf, sizeof buf, true), 0);
    assert_true(lat_loadh2_room(c));
    assert_int_equal(lat_loadh2_submit(c, 0), 0);
    assert_false(lat_loadh2_stream_capped(h));
    teardown_conn(h, c);
}

/* GOAWAY after stream 1: stream 3 refused, no new stream, then -ESHUTDOWN. */
static void test_goaway(void **state) {
    (void)state;
    if (!lat_loadh2_available()) skip();
    lat_loadh2 *h;
    lat_loadh2_conn *c;
    setup_conn(&h, &c, 4, 0);
    assert_int_equal(lat_loadh2_submit(c, 0), 0);
    assert_int_equal(lat_loadh2_submit(c, 0), 1);
    drain();
    frame(7, 0, 0, "\0\0\0\1\0\0\0\0", 8); /* last stream 1, NO_ERROR */
    assert_int_equal(lat_loadh2_pump(c, buf, sizeof buf, true), 0);
    assert_int_equal(goaways, 1);
    assert_int_equal(nends, 1);
    assert_int_equal(ends[0].slot, 1);
    assert_int_equal(ends[0].result, LAT_LOADH2_GOAWAY);
    assert_false(lat_loadh2_room(c));
    frame(1, 5, 1, "\x88", 1);
    assert_int_equal(lat_loadh2_pump(c, buf, sizeof buf, true), -ESHUTDOWN);
    assert_int_equal(ends[1].result, LAT_LOADH2_OK);
    teardown_conn(h, c);
}

/* No SETTINGS: the connection is never up; bytes that are not HTTP/2 fail it. */
static void test_not_h2(void **state) {
    (void)state;
    if (!lat_loadh2_available()) skip();
    lat_loadh2_cb cb = {io, done, NULL};
    lat_loadh2 *h;
    lat_loadh2_conn *c;
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    assert_int_equal(lat_loadh2_create(&proto, true, 2, &cb, &h), 0);
    assert_int_equal(lat_loadh2_conn_start(h, NULL, &c), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(lat_loadh2_pump(c, buf, sizeof buf, true), LAT_LOADH2_WANT_READ);
    const char *h1 = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
    assert_int_equal(send(fds[1], h1, strlen(h1), 0), (ssize_t)strlen(h1));
    assert_int_equal(lat_loadh2_pump(c, buf, sizeof buf, true), -EPROTO);
    teardown_conn(h, c);
}

/* Requests and responses over and over: after the first rounds nothing is
 * taken from malloc (nghttp2's blocks come back from the free lists). */
static void test_steady_state_allocates_nothing(void **state) {
    (void)state;
    if (!lat_loadh2_available()) skip();
    if (!lat_alloccount_available()) skip();
    lat_loadh2 *h;
    lat_loadh2_conn *c;
    setup_conn(&h, &c, 8, 0);
    uint64_t calls = 0;
    for (uint32_t round = 0, id = 1; round < 200; round++) {
        if (round == 100) lat_alloccount_begin();
        for (int k = 0; k < 8; k++)
            assert_true(lat_loadh2_submit(c, 0) >= 0);
        drain();
        for (int k = 0; k < 8; k++, id += 2)
            frame(1, 5, id, "\x88", 1);
        while (nends < 8)
            assert_true(lat_loadh2_pump(c, buf, sizeof buf, true) >= 0);
        nends = 0;
        drain();
    }
    calls = lat_alloccount_end();
    print_message("steady state: %llu allocation calls in 800 requests\n",
                  (unsigned long long)calls);
    assert_int_equal(calls, 0);
    teardown_conn(h, c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refused),    cmocka_unit_test(test_streams),
        cmocka_unit_test(test_server_cap), cmocka_unit_test(test_goaway),
        cmocka_unit_test(test_not_h2),     cmocka_unit_test(test_steady_state_allocates_nothing),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
