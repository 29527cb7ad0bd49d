/* loadtls.c - TLS for `latlab load` (OpenSSL): the run's context, each
 * connection's nonblocking handshake, reads and writes.  See loadtls.h.
 *
 * Why a BIO of its own: OpenSSL's socket BIO writes with write(), and a write
 * to a connection the server reset raises SIGPIPE, which would end the whole
 * tool; this one sends with MSG_NOSIGNAL, as the engine's plain sends do.
 * Resumption keeps the newest session the server issued (a TLS 1.2 session or
 * a TLS 1.3 ticket, both through the new-session callback) and offers it to
 * the next connection made.  Built without OpenSSL, the same names are
 * stubs and lat_loadtls_available() says so. */
#include "latlab/loadtls.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#ifdef LAT_HAVE_OPENSSL
#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "latlab/clock.h"
#include "latlab/hist.h"

struct lat_loadtls {
    SSL_CTX *ctx;
    BIO_METHOD *bio;
    char *host;
    bool ip, resume, in_latency, h2;
    pthread_mutex_t mu; /* what follows */
    SSL_SESSION *sess;  /* the newest session issued, for resumption */
    lat_hist hs;        /* handshake times, ns */
    uint64_t handshakes, resumed, failed;
    char why[256]; /* the first failure */
};

struct lat_loadtls_conn {
    lat_loadtls *t;
    SSL *ssl;
    uint64_t start_ns; /* lat_mono_ns when the handshake began */
};

bool lat_loadtls_available(void) {
    return true;
}

/* ---- the socket BIO: recv and send(MSG_NOSIGNAL) ------------------------------------------ */

static int bio_write(BIO *b, const char *buf, int n) {
    ssize_t k = send((int)(intptr_t)BIO_get_data(b), buf, (size_t)n, MSG_NOSIGNAL);
    BIO_clear_retry_flags(b);
    if (k < 0 && (errno == EAGAIN || errno == EINTR)) BIO_set_retry_write(b);
    return (int)k;
}

static int bio_read(BIO *b, char *buf, int n) {
    ssize_t k = recv((int)(intptr_t)BIO_get_data(b), buf, (size_t)n, 0);
    BIO_clear_retry_flags(b);
    if (k < 0 && (errno == EAGAIN || errno == EINTR)) BIO_set_retry_read(b);
    return (int)k;
}

static long bio_ctrl(BIO *b, int cmd, long num, void *ptr) {
    (void)b, (void)num, (void)ptr;
    return cmd == BIO_CTRL_FLUSH ? 1 : 0;
}

static int bio_create(BIO *b) {
    BIO_set_init(b, 1);
    return 1;
}

/* ---- the context ------------------------------------------------------------------------ */

static void set_why(lat_loadtls *t, const char *fmt, const char *a, const char *b) {
    pthread_mutex_lock(&t->mu);
    if (!t->why[0]) snprintf(t->why, sizeof t->why, fmt, a, b);
    pthread_mutex_unlock(&t->mu);
}

/* The server issued a session (after the handshake, or a TLS 1.3 ticket
 * later): keep the newest. */
static int new_session(SSL *ssl, SSL_SESSION *s) {
    lat_loadtls *t = SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));
    pthread_mutex_lock(&t->mu);
    SSL_SESSION *old = t->sess;
    t->sess = s;
    pthread_mutex_unlock(&t->mu);
    SSL_SESSION_free(old);
    return 1; /* the reference is ours */
}

int lat_loadtls_create(const lat_loadtls_opts *o, lat_loadtls **out) {
    *out = NULL;
    if (!o || !o->host) return -EINVAL;
    lat_loadtls *t = calloc(1, sizeof *t);
    if (!t) return -ENOMEM;
    pthread_mutex_init(&t->mu, NULL);
    t->resume = o->resume;
    t->in_latency = o->handshake_in_latency;
    t->h2 = o->h2;
    unsigned char a[16];
    t->ip = inet_pton(AF_INET, o->host, a) == 1 || inet_pton(AF_INET6, o->host, a) == 1;
    t->host = strdup(o->host);
    t->ctx = SSL_CTX_new(TLS_client_method());
    t->bio = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "latlab-socket");
    if (!t->host || !t->ctx || !t->bio || lat_hist_init(&t->hs, 1, 3600000000000ll, 3)) {
        lat_loadtls_destroy(t);
        return -ENOMEM;
    }
    if (t->h2) SSL_CTX_set_alpn_protos(t->ctx, (const unsigned char *)"\x02h2", 3);
    BIO_meth_set_write(t->bio, bio_write);
    BIO_meth_set_read(t->bio, bio_read);
    BIO_meth_set_ctrl(t->bio, bio_ctrl);
    BIO_meth_set_create(t->bio, bio_create);
    SSL_CTX_set_app_data(t->ctx, t);
    SSL_CTX_set_min_proto_version(t->ctx, TLS1_2_VERSION);
    /* the engine resends the unsent rest of a request from its own copy */
    SSL_CTX_set_mode(t->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    if (t->resume) {
        SSL_CTX_set_session_cache_mode(t->ctx,
                                       SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
        SSL_CTX_sess_set_new_cb(t->ctx, new_session);
    } else {
        SSL_CTX_set_session_cache_mode(t->ctx, SSL_SESS_CACHE_OFF);
    }
    *out = t;
    if (o->insecure) {
        SSL_CTX_set_verify(t->ctx, SSL_VERIFY_NONE, NULL);
        return 0;
    }
    SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER, NULL);
    int ok = o->cafile ? SSL_CTX_load_verify_locations(t->ctx, o->cafile, NULL)
                       : SSL_CTX_set_default_verify_paths(t->ctx);
    if (ok == 1) return 0;
    const char *r = ERR_reason_error_string(ERR_peek_last_error());
    bool unreadable = o->cafile && access(o->cafile, R_OK);
    set_why(t, "%s: %s", o->cafile ? o->cafile : "the system's trust store",
            unreadable ? strerror(errno)
            : r        ? r
                       : "cannot be loaded");
    ERR_clear_error();
    return unreadable ? -ENOENT : -EPROTO;
}

void lat_loadtls_destroy(lat_loadtls *t) {
    if (!t) return;
    SSL_SESSION_free(t->sess);
    SSL_CTX_free(t->ctx);
    BIO_meth_free(t->bio);
    lat_hist_fini(&t->hs);
    free(t->host);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

const char *lat_loadtls_error(lat_loadtls *t) {
    return t ? t->why : "";
}

bool lat_loadtls_in_latency(const lat_loadtls *t) {
    return t && t->in_latency;
}

void lat_loadtls_stats_get(lat_loadtls *t, lat_loadtls_stats *s) {
    pthread_mutex_lock(&t->mu);
    *s = (lat_loadtls_stats){t->handshakes,
                             t->resumed,
                             t->failed,
                             (uint64_t)lat_hist_value_at_percentile(&t->hs, 50),
                             (uint64_t)lat_hist_value_at_percentile(&t->hs, 99),
                             t->handshakes ? (uint64_t)lat_hist_max(&t->hs) : 0};
    pthread_mutex_unlock(&t->mu);
}

/* ---- one connection ----------------------------------------------------------------------- */

int lat_loadtls_conn_start(lat_loadtls *t, int fd, lat_loadtls_conn **out) {
    lat_loadtls_conn *c = calloc(1, sizeof *c);
    BIO *b = BIO_new(t->bio);
    if (!c || !b || !(c->ssl = SSL_new(t->ctx))) {
        BIO_free(b);
        free(c);
        ERR_clear_error();
        return -ENOMEM;
    }
    c->t = t;
    BIO_set_data(b, (void *)(intptr_t)fd);
    SSL_set_bio(c->ssl, b, b);
    SSL_set_connect_state(c->ssl);
    X509_VERIFY_PARAM *vp = SSL_get0_param(c->ssl);
    if (t->ip) {
        X509_VERIFY_PARAM_set1_ip_asc(vp, t->host);
    } else {
        SSL_set_tlsext_host_name(c->ssl, t->host);
        X509_VERIFY_PARAM_set_hostflags(vp, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
        X509_VERIFY_PARAM_set1_host(vp, t->host, 0);
    }
    if (t->resume) {
        pthread_mutex_lock(&t->mu);
        if (t->sess) SSL_set_session(c->ssl, t->sess);
        pthread_mutex_unlock(&t->mu);
    }
    c->start_ns = lat_mono_ns();
    *out = c;
    return 0;
}

/* Why the handshake failed, in OpenSSL's words. */
static void handshake_why(lat_loadtls_conn *c, int err) {
    long vr = SSL_get_verify_result(c->ssl);
    unsigned long e = ERR_peek_last_error();
    const char *r = ERR_reason_error_string(e);
    if (vr != X509_V_OK)
        set_why(c->t, "certificate verify failed: %s%s", X509_verify_cert_error_string(vr),
                vr == X509_V_ERR_HOSTNAME_MISMATCH || vr == X509_V_ERR_IP_ADDRESS_MISMATCH
                    ? " (the certificate is for another name)"
                    : "");
    else if (r) /* a server without h2 may refuse the ALPN offer itself */
        set_why(c->t, "%s%s", r,
                c->t->h2 && strstr(r, "application protocol")
                    ? " (the server did not select h2 by ALPN)"
                    : "");
    else if (err == SSL_ERROR_SYSCALL || err == SSL_ERROR_ZERO_RETURN)
        set_why(c->t, "%s%s", "the server closed the connection during the handshake", "");
    else
        set_why(c->t, "%s%s", "the handshake failed", "");
}

int lat_loadtls_handshake(lat_loadtls_conn *c) {
    int k = SSL_do_handshake(c->ssl);
    const unsigned char *alpn = NULL;
    unsigned alen = 0;
    if (k == 1 && c->t->h2) SSL_get0_alpn_selected(c->ssl, &alpn, &alen);
    if (k == 1 && c->t->h2 && (alen != 2 || memcmp(alpn, "h2", 2))) {
        set_why(c->t, "%s%s", "the server did not select h2 by ALPN (HTTP/2 over TLS)", "");
        pthread_mutex_lock(&c->t->mu);
        c->t->failed++;
        pthread_mutex_unlock(&c->t->mu);
        return -EPROTO;
    }
    if (k == 1) {
        uint64_t ns = lat_mono_ns() - c->start_ns;
        lat_loadtls *t = c->t;
        pthread_mutex_lock(&t->mu);
        lat_hist_record(&t->hs, ns ? (int64_t)ns : 1);
        t->handshakes++;
        t->resumed += SSL_session_reused(c->ssl) == 1;
        pthread_mutex_unlock(&t->mu);
        return 0;
    }
    int err = SSL_get_error(c->ssl, k);
    if (err == SSL_ERROR_WANT_READ) return LAT_LOADTLS_WANT_READ;
    if (err == SSL_ERROR_WANT_WRITE) return LAT_LOADTLS_WANT_WRITE;
    handshake_why(c, err);
    pthread_mutex_lock(&c->t->mu);
    c->t->failed++;
    pthread_mutex_unlock(&c->t->mu);
    ERR_clear_error();
    return -EPROTO;
}

/* An I/O call's failure as the engine reads it. */
static ssize_t io_error(lat_loadtls_conn *c, int k) {
    int e = errno, err = SSL_get_error(c->ssl, k);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) return -EAGAIN;
    ERR_clear_error();
    if (err == SSL_ERROR_ZERO_RETURN) return 0; /* close_notify */
    if (err == SSL_ERROR_SYSCALL) return e == ECONNRESET || e == EPIPE ? -e : 0;
    return -EPROTO;
}

ssize_t lat_loadtls_read(lat_loadtls_conn *c, void *buf, size_t n) {
    int k = SSL_read(c->ssl, buf, n > INT32_MAX ? INT32_MAX : (int)n);
    return k > 0 ? k : io_error(c, k);
}

ssize_t lat_loadtls_write(lat_loadtls_conn *c, const void *buf, size_t n) {
    int k = SSL_write(c->ssl, buf, n > INT32_MAX ? INT32_MAX : (int)n);
    if (k > 0) return k;
    ssize_t rc = io_error(c, k);
    return rc ? rc : -EPIPE;
}

void lat_loadtls_conn_end(lat_loadtls_conn *c) {
    if (!c) return;
    SSL_free(c->ssl); /* no close_notify: the engine closes the socket next */
    free(c);
}

#else /* without OpenSSL: every call says so */

struct lat_loadtls {
    int unused;
};

bool lat_loadtls_available(void) {
    return false;
}
int lat_loadtls_create(const lat_loadtls_opts *o, lat_loadtls **out) {
    (void)o;
    *out = NULL;
    return -ENOTSUP;
}
void lat_loadtls_destroy(lat_loadtls *t) {
    (void)t;
}
const char *lat_loadtls_error(lat_loadtls *t) {
    (void)t;
    return "this latlab was built without OpenSSL";
}
bool lat_loadtls_in_latency(const lat_loadtls *t) {
    (void)t;
    return false;
}
void lat_loadtls_stats_get(lat_loadtls *t, lat_loadtls_stats *s) {
    (void)t;
    *s = (lat_loadtls_stats){0};
}
int lat_loadtls_conn_start(lat_loadtls *t, int fd, lat_loadtls_conn **out) {
    (void)t, (void)fd;
    *out = NULL;
    return -ENOTSUP;
}
int lat_loadtls_handshake(lat_loadtls_conn *c) {
    (void)c;
    return -EPROTO;
}
ssize_t lat_loadtls_read(lat_loadtls_conn *c, void *buf, size_t n) {
    (void)c, (void)buf, (void)n;
    return -EPROTO;
}
ssize_t lat_loadtls_write(lat_loadtls_conn *c, const void *buf, size_t n) {
    (void)c, (void)buf, (void)n;
    return -EPROTO;
}
void lat_loadtls_conn_end(lat_loadtls_conn *c) {
    (void)c;
}
#endif

json_t *lat_loadtls_json(lat_loadtls *t) {
    lat_loadtls_stats st, *s = &st;
    lat_loadtls_stats_get(t, s);
    json_t *o = json_object();
    json_object_set_new(o, "handshakes", json_integer((json_int_t)s->handshakes));
    json_object_set_new(o, "resumed", json_integer((json_int_t)s->resumed));
    json_object_set_new(o, "failed", json_integer((json_int_t)s->failed));
    json_object_set_new(o, "handshake_p50_ns", json_integer((json_int_t)s->p50_ns));
    json_object_set_new(o, "handshake_p99_ns", json_integer((json_int_t)s->p99_ns));
    json_object_set_new(o, "handshake_max_ns", json_integer((json_int_t)s->max_ns));
    json_object_set_new(o, "in_latency", json_boolean(lat_loadtls_in_latency(t)));
    return o;
}

const char *lat_loadtls_describe(lat_loadtls *t, char *buf, size_t n) {
    lat_loadtls_stats s;
    lat_loadtls_stats_get(t, &s);
    snprintf(buf, n,
             "%" PRIu64 " handshakes (resumed %" PRIu64 ", failed %" PRIu64
             "): p50 %.1f us  p99 %.1f us  max %.1f us, %s",
             s.handshakes, s.resumed, s.failed, (double)s.p50_ns / 1e3, (double)s.p99_ns / 1e3,
             (double)s.max_ns / 1e3,
             lat_loadtls_in_latency(t) ? "the first ones in the requests' latency"
                                       : "none in the requests' latency");
    return buf;
}
