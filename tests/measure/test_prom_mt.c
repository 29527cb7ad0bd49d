/* test_prom_mt.c - the Prometheus conversion (measure/prom.c) and the small HTTP
 * pieces (measure/http.c): the fixed le list and its text, cumulative counts
 * against a direct count per slot, native bucket index math against
 * ceil(log2(v) * 2^schema), spans and deltas that rebuild the counts, the
 * schema choice (precision, budget), the stated relative error bounds
 * checked by replaying Prometheus' histogram_quantile on the converted
 * buckets, allocation-free export, the request parser, and a live server
 * answering good, malformed and oversized requests (a second thread: also
 * run under TSan). */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lat_test.h"
#include "latlab/error.h"
#include "latlab/hist.h"
#include "latlab/http.h"
#include "latlab/prom.h"

#define NS 1e-9

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static double urand(void) {
    return (double)(rnd() >> 11) / 9007199254740992.0;
}

/* A log-uniform spread of values from lo to hi ns, n of them. */
static void fill_loguniform(lat_hist *h, double lo, double hi, int n) {
    for (int i = 0; i < n; i++) {
        double v = lo * pow(hi / lo, urand());
        assert_true(lat_hist_record(h, (int64_t)v));
    }
}

static void test_le_list(void **st) {
    (void)st;
    for (int i = 0; i < LAT_PROM_NBOUNDS; i++) {
        char buf[64];
        lat_prom_format_float(buf, sizeof buf, lat_prom_le_s[i]);
        assert_string_equal(buf, lat_prom_le_text[i]);
        assert_true(strtod(lat_prom_le_text[i], NULL) == lat_prom_le_s[i]);
        if (i > 0) {
            assert_true(lat_prom_le_s[i] > lat_prom_le_s[i - 1]);
            assert_true(lat_prom_le_s[i] / lat_prom_le_s[i - 1] <=
                        1 + LAT_PROM_CLASSIC_REL_ERROR + 1e-12);
        }
    }
    assert_true(lat_prom_le_s[0] == 1e-8);
    assert_true(lat_prom_le_s[LAT_PROM_NBOUNDS - 1] == 100);
    /* Go's strconv 'g' -1 plus OpenMetrics' ".0" */
    char b[64];
    lat_prom_format_float(b, sizeof b, 1e6);
    assert_string_equal(b, "1e+06");
    lat_prom_format_float(b, sizeof b, 123456);
    assert_string_equal(b, "123456.0");
    lat_prom_format_float(b, sizeof b, 0.1 + 0.2);
    assert_string_equal(b, "0.30000000000000004");
    lat_prom_format_float(b, sizeof b, 0);
    assert_string_equal(b, "0.0");
    lat_prom_format_float(b, sizeof b, INFINITY);
    assert_string_equal(b, "+Inf");
    assert_int_equal(lat_prom_classic_bucket(1e-8), 0);
    assert_int_equal(lat_prom_classic_bucket(1.0000001e-8), 1);
    assert_int_equal(lat_prom_classic_bucket(101), LAT_PROM_NBOUNDS);
}

static void test_classic_counts(void **st) {
    (void)st;
    lat_hist h;
    assert_int_equal(lat_hist_init(&h, 1, 100000000000ll, 3), 0);
    /* Exact bounds land in their own bucket (le is inclusive). */
    lat_hist_record(&h, 10); /* 1e-08 */
    lat_hist_record(&h, 12); /* <= 1.25e-08 */
    lat_hist_record(&h, 13); /* <= 1.5e-08 */
    lat_hist_record(&h, 20); /* == 2e-08 */
    lat_hist_record(&h, 0);  /* first bucket */
    fill_loguniform(&h, 25, 5e9, 20000);
    lat_prom_classic c;
    assert_int_equal(lat_prom_classic_fill(&h, NS, &c), 0);
    assert_true(c.count == (uint64_t)lat_hist_total(&h));
    assert_true(c.cumulative[LAT_PROM_NBOUNDS] == c.count);
    /* Direct: for each bound, count the slots whose top is <= it. */
    for (int b = 0; b < LAT_PROM_NBOUNDS; b++) {
        uint64_t want = 0;
        for (int32_t i = 0; i < h.counts_len; i++) {
            if (!h.counts[i]) continue;
            int64_t top = lat_hist_highest_equivalent(&h, lat_hist_value_from_index(&h, i));
            if ((double)top * NS <= lat_prom_le_s[b] * (1 + 1e-12)) want += (uint64_t)h.counts[i];
        }
        assert_true(c.cumulative[b] == want);
        if (b) assert_true(c.cumulative[b] >= c.cumulative[b - 1]);
    }
    assert_true(c.cumulative[0] == 2); /* 0 and 10 */
    assert_true(c.cumulative[1] == 3); /* + 12 */
    double mean = lat_hist_mean(&h) * NS * (double)c.count;
    assert_true(fabs(c.sum_s - mean) <= 1e-9 * mean);
    lat_hist_fini(&h);
}

static void test_native_index(void **st) {
    (void)st;
    for (int s = LAT_PROM_SCHEMA_MIN; s <= LAT_PROM_SCHEMA_MAX; s++) {
        /* Powers of two are bucket boundaries (upper-inclusive). */
        for (int k = -30; k <= 7; k++) {
            double v = ldexp(1, k);
            int32_t want = s >= 0 ? k * (1 << s) : (int32_t)ceil((double)k / (1 << -s));
            assert_int_equal(lat_prom_native_index(v, s), want);
        }
        for (int i = 0; i < 20000; i++) {
            double v = 1e-9 * pow(1e11, urand());
            double x = log2(v) * ldexp(1, s);
            if (fabs(x - nearbyint(x)) < 1e-6) continue; /* too close to a boundary to judge */
            int32_t k = lat_prom_native_index(v, s);
            assert_int_equal(k, (int32_t)ceil(x));
            assert_true(v <= lat_prom_native_upper(k, s));
            assert_true(v > lat_prom_native_upper(k - 1, s));
        }
        double want = exp2(exp2(-s)) - 1;
        assert_true(fabs(lat_prom_native_rel_error(s) - want) < 1e-12);
    }
    assert_true(fabs(lat_prom_native_rel_error(3) - 0.0905077) < 1e-6);
}

static void test_native_fill(void **st) {
    (void)st;
    lat_hist h;
    assert_int_equal(lat_hist_init(&h, 1, 100000000000ll, 3), 0);
    lat_hist_record_n(&h, 0, 7); /* zero bucket */
    fill_loguniform(&h, 100, 1e6, 30000);
    lat_prom_native n;
    assert_int_equal(lat_prom_native_init(&n, 160), 0);
    int s = lat_prom_native_schema(&h, NS, 160);
    /* 4 decades = 13.3 octaves: schema 3 (107 buckets) fits 160, 4 (213) does not */
    assert_int_equal(s, 3);
    assert_int_equal(lat_prom_native_fill(&h, NS, s, &n), 0);
    assert_true(n.zero_count == 7);
    assert_true(n.count == (uint64_t)lat_hist_total(&h));
    assert_true(n.zero_threshold_s == 0.5e-9);
    /* Rebuild each bucket from spans + deltas and compare with a direct sum. */
    int32_t k = 0;
    int64_t cnt = 0;
    int d = 0;
    uint64_t total = n.zero_count;
    for (int sp = 0; sp < n.nspans; sp++) {
        k += n.span_offset[sp];
        for (uint32_t j = 0; j < n.span_length[sp]; j++, k++) {
            cnt += n.delta[d++];
            assert_true(cnt > 0);
            int64_t want = 0;
            for (int32_t i = 1; i < h.counts_len; i++) {
                if (!h.counts[i]) continue;
                double top =
                    (double)lat_hist_highest_equivalent(&h, lat_hist_value_from_index(&h, i)) * NS;
                if (lat_prom_native_index(top * (1 - 1e-12), s) == k) want += h.counts[i];
            }
            assert_true(cnt == want);
            total += (uint64_t)cnt;
        }
        k--; /* the next offset counts from the bucket after the last one */
        k++;
    }
    assert_int_equal(d, n.ndeltas);
    assert_true(total == n.count);
    /* Budget too small for the range: coarser schemas. */
    assert_true(lat_prom_native_schema(&h, NS, 20) < s);
    assert_true(lat_prom_native_schema(&h, NS, 4) >= LAT_PROM_SCHEMA_MIN);
    /* Fill reports a too-small array. */
    lat_prom_native small;
    assert_int_equal(lat_prom_native_init(&small, 4), 0);
    assert_int_equal(lat_prom_native_fill(&h, NS, 8, &small), -ENOSPC);
    lat_prom_native_fini(&small);
    /* Precision: 3 significant digits allow schema 8, 1 digit only 3. */
    lat_hist narrow;
    assert_int_equal(lat_hist_init(&narrow, 1, 1000000, 3), 0);
    lat_hist_record(&narrow, 1000);
    assert_int_equal(lat_prom_native_schema(&narrow, NS, 160), 8);
    lat_hist_fini(&narrow);
    assert_int_equal(lat_hist_init(&narrow, 1, 1000000, 1), 0);
    lat_hist_record(&narrow, 1000);
    assert_int_equal(lat_prom_native_schema(&narrow, NS, 160), 3);
    lat_hist_fini(&narrow);
    lat_prom_native_fini(&n);
    lat_hist_fini(&h);
}

/* Prometheus' histogram_quantile on classic buckets (promql/quantile.go). */
static double promql_classic(const lat_prom_classic *c, double q) {
    double rank = q * (double)c->count;
    int b = 0;
    while (b < LAT_PROM_NBOUNDS && (double)c->cumulative[b] < rank)
        b++;
    if (b == LAT_PROM_NBOUNDS) return lat_prom_le_s[LAT_PROM_NBOUNDS - 1];
    double start = b ? lat_prom_le_s[b - 1] : 0, end = lat_prom_le_s[b];
    double below = b ? (double)c->cumulative[b - 1] : 0;
    double in = (double)c->cumulative[b] - below;
    return start + (end - start) * ((rank - below) / in);
}

/* ... and on native buckets (linear inside the bucket, as in 2.42). */
static double promql_native(const lat_prom_native *n, double q) {
    double rank = q * (double)n->count, count = (double)n->zero_count;
    if (count >= rank) return n->zero_threshold_s * (rank / count);
    int32_t k = 0;
    int64_t c = 0;
    int d = 0;
    double lower = 0, upper = 0, bc = 0;
    for (int sp = 0; sp < n->nspans; sp++) {
        k += n->span_offset[sp];
        for (uint32_t j = 0; j < n->span_length[sp]; j++, k++) {
            c += n->delta[d++];
            bc = (double)c;
            count += bc;
            lower = lat_prom_native_upper(k - 1, n->schema);
            upper = lat_prom_native_upper(k, n->schema);
            if (count >= rank) return lower + (upper - lower) * ((rank - (count - bc)) / bc);
        }
    }
    return upper;
}

static void check_bounds(lat_hist *h) {
    lat_prom_classic c;
    lat_prom_native n;
    assert_int_equal(lat_prom_native_init(&n, 160), 0);
    assert_int_equal(lat_prom_classic_fill(h, NS, &c), 0);
    int s = lat_prom_native_schema(h, NS, 160);
    assert_int_equal(lat_prom_native_fill(h, NS, s, &n), 0);
    double qs[] = {0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 0.9999};
    for (size_t i = 0; i < sizeof qs / sizeof *qs; i++) {
        double truth = (double)lat_hist_value_at_percentile(h, qs[i] * 100) * NS;
        double ec = fabs(promql_classic(&c, qs[i]) - truth) / truth;
        double en = fabs(promql_native(&n, qs[i]) - truth) / truth;
        assert_true(ec <= LAT_PROM_CLASSIC_REL_ERROR);
        assert_true(en <= lat_prom_native_rel_error(s));
    }
    lat_prom_native_fini(&n);
}

static void test_error_bounds(void **st) {
    (void)st;
    lat_hist h;
    assert_int_equal(lat_hist_init(&h, 1, 100000000000ll, 3), 0);
    fill_loguniform(&h, 15, 3e9, 50000); /* 8 decades: a coarse schema */
    check_bounds(&h);
    lat_hist_reset(&h);
    fill_loguniform(&h, 150, 200, 50000); /* narrow: schema 8 */
    assert_int_equal(lat_prom_native_schema(&h, NS, 160), 8);
    check_bounds(&h);
    lat_hist_reset(&h);
    for (int i = 0; i < 100000; i++) /* bimodal, a long tail */
        lat_hist_record(&h, (int64_t)(i % 100 == 0 ? 2e6 + 1e5 * urand() : 200 + 50 * urand()));
    check_bounds(&h);
    lat_hist_fini(&h);
}

static const char *const stages[] = {"q1+wake", "work", "e2e"};

static lat_prom_exporter *make_exporter(void) {
    lat_prom_exporter_config c = {
        .run = "r1", .host = "h\"x", .nseries = 3, .stages = stages, .unit_s = NS};
    lat_prom_exporter *e = NULL;
    assert_int_equal(lat_prom_exporter_create(&c, &e), 0);
    return e;
}

static void test_exporter(void **st) {
    (void)st;
    lat_prom_exporter_config bad = {
        .run = "r", .host = "h", .nseries = 1, .stages = stages, .metric = "9bad"};
    lat_prom_exporter *e = NULL;
    assert_int_equal(lat_prom_exporter_create(&bad, &e), -EINVAL);
    e = make_exporter();
    lat_hist h[3];
    for (int i = 0; i < 3; i++) {
        assert_int_equal(lat_hist_init(&h[i], 1, 100000000000ll, 3), 0);
        fill_loguniform(&h[i], 100 * (i + 1), 1e5 * (i + 1), 5000);
    }
    size_t cap = lat_prom_exporter_bound(e), len = 0;
    char *buf = malloc(cap);
    /* Set and render allocate nothing. */
    int counting = lat_alloc_count_available();
    if (counting) lat_alloc_count_begin();
    for (int i = 0; i < 3; i++)
        assert_int_equal(lat_prom_exporter_set(e, i, i == 1 ? NULL : &h[i]), 0);
    assert_int_equal(lat_prom_exporter_text(e, LAT_PROM_OPENMETRICS, buf, cap, &len), 0);
    int pbrc = lat_prom_exporter_protobuf(e, (uint8_t *)buf, cap, &len);
    if (counting) assert_int_equal(lat_alloc_count_end(), 0);
    assert_int_equal(pbrc, lat_prom_have_protobuf() ? 0 : -ENOTSUP);
    assert_int_equal(lat_prom_exporter_text(e, LAT_PROM_OPENMETRICS, buf, cap, &len), 0);
    buf[len] = 0;
    assert_non_null(strstr(buf, "# TYPE latlab_stage_latency_seconds histogram\n"));
    assert_non_null(strstr(buf, "latlab_stage_latency_seconds_bucket{stage=\"e2e\",run=\"r1\","
                                "host=\"h\\\"x\",le=\"1e-08\"} 0\n"));
    assert_null(strstr(buf, "stage=\"work\"")); /* unset series are left out */
    assert_true(len > 6 && !strcmp(buf + len - 6, "# EOF\n"));
    int lines = 0;
    for (char *p = buf; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 4 + 2 * (LAT_PROM_NBOUNDS + 3));
    assert_int_equal(lat_prom_exporter_text(e, LAT_PROM_TEXT, buf, 100, &len), -ENOSPC);
    assert_true(lat_prom_exporter_schema(e, 0) >= LAT_PROM_SCHEMA_MIN);
    assert_int_equal(lat_prom_exporter_schema(e, 1), -EINVAL);
    /* The schema never gets finer once a series was coarse. */
    int s0 = lat_prom_exporter_schema(e, 2);
    lat_hist narrow;
    assert_int_equal(lat_hist_init(&narrow, 1, 100000000000ll, 3), 0);
    lat_hist_record(&narrow, 1000);
    assert_int_equal(lat_prom_exporter_set(e, 2, &narrow), 0);
    assert_int_equal(lat_prom_exporter_schema(e, 2), s0);
    lat_hist_fini(&narrow);
    free(buf);
    for (int i = 0; i < 3; i++)
        lat_hist_fini(&h[i]);
    lat_prom_exporter_destroy(e);
}

static void test_request_parser(void **st) {
    (void)st;
    lat_http_request r;
    const char *ok = "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: application/vnd.google.protobuf;"
                     "proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7\r\n\r\nBODY";
    int n = lat_http_parse_request(ok, strlen(ok), &r);
    assert_int_equal(n, (int)strlen(ok) - 4);
    assert_string_equal(r.method, "GET");
    assert_string_equal(r.path, "/metrics");
    assert_non_null(strstr(r.accept, "encoding=delimited"));
    assert_int_equal(r.version_minor, 1);
    assert_int_equal(lat_http_parse_request(ok, 20, &r), 0); /* incomplete */
    const char *lf = "GET / HTTP/1.0\nX: y\n\n";
    assert_int_equal(lat_http_parse_request(lf, strlen(lf), &r), (int)strlen(lf));
    const char *bad[] = {
        "GET\r\n\r\n",
        "GET /x\r\n\r\n",
        "GET /x HTTP/2.0\r\n\r\n",
        " GET /x HTTP/1.1\r\n\r\n",
        "GET /x HTTP/1.1\r\nno colon\r\n\r\n",
        "GET /x HTTP/1.1\r\nA\x01: b\r\n\r\n",
        "GET /x HTTP/1.1 \r\n\r\n",
        "G\x7f /x HTTP/1.1\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(lat_http_parse_request(bad[i], strlen(bad[i]), &r), LAT_EFORMAT);
    /* A control byte is refused before the head is complete. */
    assert_int_equal(lat_http_parse_request("GET \x02", 5, &r), LAT_EFORMAT);
    char host[64], prefix[64];
    int port;
    assert_int_equal(lat_http_split_addr("127.0.0.1:9100", host, sizeof host, &port), 0);
    assert_string_equal(host, "127.0.0.1");
    assert_int_equal(port, 9100);
    assert_int_equal(lat_http_split_addr(":0", host, sizeof host, &port), 0);
    assert_string_equal(host, "");
    assert_int_equal(lat_http_split_addr("[::1]:80", host, sizeof host, &port), 0);
    assert_string_equal(host, "::1");
    assert_int_equal(lat_http_split_addr("::1:80", host, sizeof host, &port), -EINVAL);
    assert_int_equal(lat_http_split_addr("h:70000", host, sizeof host, &port), -EINVAL);
    assert_int_equal(lat_http_split_addr("h", host, sizeof host, &port), -EINVAL);
    assert_int_equal(
        lat_http_parse_url("http://gw:9091/p/", host, sizeof host, &port, prefix, sizeof prefix),
        0);
    assert_string_equal(host, "gw");
    assert_int_equal(port, 9091);
    assert_string_equal(prefix, "/p");
    assert_int_equal(
        lat_http_parse_url("http://gw", host, sizeof host, &port, prefix, sizeof prefix), 0);
    assert_int_equal(port, 80);
    assert_int_equal(
        lat_http_parse_url("https://gw", host, sizeof host, &port, prefix, sizeof prefix), -EINVAL);
    assert_int_equal(
        lat_http_parse_url("http://:80", host, sizeof host, &port, prefix, sizeof prefix), -EINVAL);
}

/* One raw exchange with the server: send req (len bytes), return the status. */
static int exchange(int port, const char *req, size_t len, char *resp, size_t cap) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    size_t off = 0;
    while (off < len) {
        ssize_t w = send(fd, req + off, len - off, MSG_NOSIGNAL);
        if (w <= 0) break; /* the server may close early on an oversized request */
        off += (size_t)w;
    }
    size_t got = 0;
    ssize_t r;
    while (got + 1 < cap && (r = recv(fd, resp + got, cap - 1 - got, 0)) > 0)
        got += (size_t)r;
    resp[got] = 0;
    close(fd);
    int status = 0;
    sscanf(resp, "HTTP/1.1 %d", &status);
    return status;
}

static void test_server(void **st) {
    (void)st;
    lat_prom_exporter *e = make_exporter();
    lat_prom_server *s = NULL;
    assert_int_equal(lat_prom_server_create("127.0.0.1:0", e, &s), 0);
    int port = lat_prom_server_port(s);
    assert_true(port > 0);
    lat_hist h;
    assert_int_equal(lat_hist_init(&h, 1, 100000000000ll, 3), 0);
    lat_hist_record_n(&h, 250, 42);
    const lat_hist *hs[3] = {&h, NULL, &h};
    assert_true(lat_prom_server_try_update(s, hs, 3));
    static char resp[1 << 20];
    const char *get = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
    assert_int_equal(exchange(port, get, strlen(get), resp, sizeof resp), 200);
    assert_non_null(strstr(resp, "text/plain; version=0.0.4"));
    assert_non_null(strstr(resp, "_count{stage=\"e2e\",run=\"r1\",host=\"h\\\"x\"} 42\n"));
    const char *om = "GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text\r\n\r\n";
    assert_int_equal(exchange(port, om, strlen(om), resp, sizeof resp), 200);
    assert_non_null(strstr(resp, "# EOF"));
    const char *pb = "GET /metrics HTTP/1.1\r\nAccept: application/vnd.google.protobuf; "
                     "proto=io.prometheus.client.MetricFamily; encoding=delimited\r\n\r\n";
    assert_int_equal(exchange(port, pb, strlen(pb), resp, sizeof resp), 200);
    if (lat_prom_have_protobuf()) assert_non_null(strstr(resp, "application/vnd.google.protobuf"));
    const char *nf = "GET /other HTTP/1.1\r\n\r\n";
    assert_int_equal(exchange(port, nf, strlen(nf), resp, sizeof resp), 404);
    const char *post = "POST /metrics HTTP/1.1\r\n\r\n";
    assert_int_equal(exchange(port, post, strlen(post), resp, sizeof resp), 405);
    const char *junk = "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03";
    assert_int_equal(exchange(port, junk, strlen(junk), resp, sizeof resp), 400);
    size_t big = 64 * 1024;
    char *huge = malloc(big);
    memcpy(huge, "GET /metrics HTTP/1.1\r\nX: ", 26);
    memset(huge + 26, 'a', big - 26);
    assert_int_equal(exchange(port, huge, big, resp, sizeof resp), 431);
    free(huge);
    /* Still serving, with the latest state. */
    lat_hist_record_n(&h, 250, 8);
    assert_int_equal(lat_prom_server_update(s, hs, 3), 0);
    assert_int_equal(exchange(port, get, strlen(get), resp, sizeof resp), 200);
    assert_non_null(strstr(resp, "_count{stage=\"e2e\",run=\"r1\",host=\"h\\\"x\"} 50\n"));
    uint64_t ok = 0, refused = 0;
    lat_prom_server_counts(s, &ok, &refused);
    assert_true(ok == 4 && refused == 4); /* 3 GETs + 1 after; 404, 405, 400, 431 */
    lat_prom_server_destroy(s);
    lat_hist_fini(&h);
    /* A bad address fails cleanly. */
    e = make_exporter();
    assert_int_equal(lat_prom_server_create("nonsense", e, &s), -EINVAL);
    lat_prom_exporter_destroy(e);
}

static void test_push_unreachable(void **st) {
    (void)st;
    lat_prom_exporter *e = make_exporter();
    /* A port nothing listens on: bind one, close it, push there. */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof a;
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    getsockname(fd, (struct sockaddr *)&a, &sl);
    close(fd);
    char url[64], err[256];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", ntohs(a.sin_port));
    assert_int_equal(lat_prom_push(e, url, "latlab", false, 1000, err, sizeof err), -ECONNREFUSED);
    assert_non_null(strstr(err, "cannot connect"));
    assert_int_equal(lat_prom_push(e, "ftp://x", "latlab", false, 1000, err, sizeof err), -EINVAL);
    lat_prom_exporter_destroy(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_le_list),          cmocka_unit_test(test_classic_counts),
        cmocka_unit_test(test_native_index),     cmocka_unit_test(test_native_fill),
        cmocka_unit_test(test_error_bounds),     cmocka_unit_test(test_exporter),
        cmocka_unit_test(test_request_parser),   cmocka_unit_test(test_server),
        cmocka_unit_test(test_push_unreachable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
