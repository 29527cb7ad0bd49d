/* test_http_mt.c - measure/http.c against slow and absent peers, all on
 * 127.0.0.1 and bounded in time: idle connections and a client sending one
 * byte at a time do not delay another client's answer (the server polls every
 * connection), the trickler is cut off by the request's total deadline (408),
 * destroy returns at once with such clients still connected; the client's
 * timeout bounds the whole request against a server that trickles its answer;
 * a failed name lookup says what the resolver said; a name lookup that does
 * not answer is abandoned at the request's deadline (a stub resolver held
 * until the test lets it go), a numeric host never waits on the resolver.
 * Judged by order of events (who got an answer first), not by absolute
 * times. */
#include <arpa/inet.h>
#include <netdb.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lat_test.h"
#include "latlab/error.h"
#include "latlab/http.h"
#include "../../measure/http_internal.h"

static void handler(void *ud, const lat_http_request *req, lat_http_response *resp) {
    (void)ud;
    (void)req;
    resp->status = 200;
    resp->body = "ok\n";
    resp->len = 3;
}

static int dial(int port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    return fd;
}

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Bytes waiting on fd now (0 when none, -1 at EOF or error). */
static ssize_t peek(int fd, char *buf, size_t cap) {
    ssize_t r = recv(fd, buf, cap - 1, MSG_DONTWAIT);
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
    if (r <= 0) return -1;
    buf[r] = 0;
    return r;
}

static void test_slow_clients_do_not_block(void **st) {
    (void)st;
    lat_http_server *s = NULL;
    assert_int_equal(lat_http_server_create("127.0.0.1:0", handler, NULL, &s), 0);
    int port = lat_http_server_port(s);
    int idle[6];
    for (int i = 0; i < 6; i++)
        idle[i] = dial(port);
    int tr = dial(port);
    assert_int_equal(send(tr, "G", 1, MSG_NOSIGNAL), 1);
    /* A scrape now is answered while all of them are still waiting. */
    int status = 0;
    char err[256];
    assert_int_equal(lat_http_request_send("127.0.0.1", port, "GET", "/metrics", NULL, NULL, 0,
                                           5000, &status, err, sizeof err),
                     0);
    assert_int_equal(status, 200);
    char buf[512];
    for (int i = 0; i < 6; i++)
        assert_int_equal(peek(idle[i], buf, sizeof buf), 0); /* not yet cut off */
    /* The trickler keeps sending; the request's total deadline still ends it
     * (a per-read timeout never would): 408 within 40 bytes (8 s). */
    const char *req = "ET /metrics HTTP/1.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaa";
    bool cut = false;
    for (size_t i = 0; i < strlen(req) && !cut; i++) {
        sleep_ms(200);
        ssize_t r = peek(tr, buf, sizeof buf);
        if (r != 0) {
            assert_true(r > 0);
            assert_non_null(strstr(buf, "HTTP/1.1 408"));
            cut = true;
            break;
        }
        if (send(tr, req + i, 1, MSG_NOSIGNAL) != 1) cut = true;
    }
    assert_true(cut);
    close(tr);
    for (int i = 0; i < 6; i++)
        close(idle[i]);
    lat_http_server_destroy(s);
}

static void test_destroy_at_once(void **st) {
    (void)st;
    lat_http_server *s = NULL;
    assert_int_equal(lat_http_server_create("127.0.0.1:0", handler, NULL, &s), 0);
    int port = lat_http_server_port(s);
    int c[4];
    for (int i = 0; i < 4; i++) {
        c[i] = dial(port);
        assert_int_equal(send(c[i], "GET /", 5, MSG_NOSIGNAL), 5);
    }
    sleep_ms(50);
    lat_http_server_destroy(s); /* does not wait for their deadlines */
    char buf[256];
    for (int i = 0; i < 4; i++) {
        ssize_t r;
        while ((r = recv(c[i], buf, sizeof buf - 1, 0)) < 0 && errno == EINTR) {
        }
        if (r > 0) { /* only a deadline would have produced an answer */
            buf[r] = 0;
            assert_null(strstr(buf, "408"));
        }
        close(c[i]);
    }
}

/* A server that accepts one connection and answers one byte every 200 ms,
 * 40 bytes at most, then closes. */
typedef struct trickler {
    int lfd, port;
    atomic_int sent;
} trickler;

static void *trickle_main(void *arg) {
    trickler *t = arg;
    int fd = accept(t->lfd, NULL, NULL);
    if (fd < 0) return NULL;
    char junk[4096];
    (void)!recv(fd, junk, sizeof junk, 0);
    for (int i = 0; i < 40; i++) {
        if (send(fd, "H", 1, MSG_NOSIGNAL) != 1) break;
        atomic_fetch_add(&t->sent, 1);
        sleep_ms(200);
    }
    close(fd);
    return NULL;
}

static void test_client_total_deadline(void **st) {
    (void)st;
    trickler t = {.lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)};
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof a;
    assert_int_equal(bind(t.lfd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(t.lfd, 1), 0);
    getsockname(t.lfd, (struct sockaddr *)&a, &sl);
    t.port = ntohs(a.sin_port);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, trickle_main, &t), 0);
    char err[256];
    int rc = lat_http_request_send("127.0.0.1", t.port, "PUT", "/metrics/job/x", "text/plain", "a",
                                   1, 1000, NULL, err, sizeof err);
    int sent = atomic_load(&t.sent);
    assert_int_equal(rc, -ETIMEDOUT);
    assert_true(sent < 40); /* it gave up while the server still trickled */
    assert_non_null(strstr(err, "127.0.0.1:"));
    pthread_join(th, NULL);
    close(t.lfd);
}

static void test_resolver_error(void **st) {
    (void)st;
    char err[256];
    int rc = lat_http_request_send("nosuchhost.invalid", 80, "GET", "/", NULL, NULL, 0, 2000, NULL,
                                   err, sizeof err);
    assert_true(rc <= LAT_EADDRINFO && rc >= LAT_EADDRINFO - 200);
    assert_string_not_equal(lat_strerror(rc), lat_strerror(-EHOSTUNREACH));
    assert_non_null(strstr(err, lat_strerror(rc)));
    /* An IPv6 address is written in brackets. */
    rc = lat_http_request_send("::1", 1, "GET", "/", NULL, NULL, 0, 500, NULL, err, sizeof err);
    assert_true(rc < 0);
    assert_non_null(strstr(err, "[::1]:1"));
}

/* A resolver that answers only when the test lets it (or never, for the
 * request under test), then says the name does not resolve. */
static atomic_int stub_calls, stub_release, stub_done;
static int stub_resolver(const char *host, const char *port, const struct addrinfo *hints,
                         struct addrinfo **res) {
    (void)host, (void)port, (void)hints, (void)res;
    atomic_fetch_add(&stub_calls, 1);
    while (!atomic_load(&stub_release))
        sleep_ms(1);
    atomic_fetch_add(&stub_done, 1);
    return EAI_NONAME;
}

static void test_lookup_deadline(void **st) {
    (void)st;
    lat__http_set_resolver(stub_resolver);
    char err[256];
    int rc = lat_http_request_send("hangs.example", 9091, "PUT", "/metrics/job/x", "text/plain",
                                   "a", 1, 300, NULL, err, sizeof err);
    assert_int_equal(rc, -ETIMEDOUT);
    assert_int_equal(atomic_load(&stub_calls), 1);
    assert_int_equal(atomic_load(&stub_done), 0); /* given up while the lookup still hung */
    assert_non_null(strstr(err, "hangs.example:9091"));
    /* A numeric host never waits on the resolver, even with no time at all. */
    struct addrinfo *res = NULL;
    assert_int_equal(lat_http_resolve("127.0.0.1", "80", false, 0, &res), 0);
    assert_non_null(res);
    freeaddrinfo(res);
    assert_int_equal(atomic_load(&stub_calls), 1);
    /* Let the abandoned lookup end; it cleans up after itself.  Then one
     * that answers in time gives the resolver's own error. */
    atomic_store(&stub_release, 1);
    while (atomic_load(&stub_done) < 1)
        sleep_ms(1);
    rc = lat_http_resolve("nosuch.example", "80", false, 5000, &res);
    assert_int_equal(rc, LAT_EADDRINFO_ERR(EAI_NONAME));
    assert_string_equal(lat_strerror(rc), gai_strerror(EAI_NONAME));
    lat__http_set_resolver(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slow_clients_do_not_block), cmocka_unit_test(test_destroy_at_once),
        cmocka_unit_test(test_client_total_deadline),     cmocka_unit_test(test_resolver_error),
        cmocka_unit_test(test_lookup_deadline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
