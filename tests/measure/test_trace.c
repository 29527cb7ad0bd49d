/* test_trace.c - the stage tracer on one thread (drain mode and latlab's
 * thread): known stamps give known histograms, exactly-once accounting over 3
 * and 5 stages including drops on a tiny ring, unset and backwards stamps,
 * merged == sum of the per-sink histograms, drain mode == thread mode,
 * stamp/ship allocate nothing, interval logs and the socket stream read back,
 * atomic interval logs (committed whole or not at all, failures named), the
 * flight recorder fires on the outlier. */
#include "lat_test.h"

#include "latlab/hlog.h"
#include "latlab/trace.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static lat_clock_cal cal1; /* 1 cycle == 1 ns: stamps are ns */

static const lat_trace_stage st3[] = {{"q1+wake", 0, 1}, {"work", 1, 2}, {"e2e", 0, 2}};
static const lat_trace_stage st5[] = {
    {"a", 0, 1}, {"b", 1, 2}, {"c", 2, 3}, {"d", 3, 4}, {"e", 4, 5}};

static lat_trace *make(const lat_trace_stage *st, unsigned n, lat_trace_config *over) {
    lat_trace_config c;
    if (over)
        c = *over;
    else
        lat_trace_config_default(&c);
    c.stages = st;
    c.nstages = n;
    c.cal = &cal1;
    c.interval_ns = 1000000000ull * 3600; /* intervals only at stop, unless a test says */
    lat_trace *t = NULL;
    assert_int_equal(lat_trace_create(&c, &t), 0);
    return t;
}

static void config_with_logs(lat_trace_config *c, const lat_trace_stage *st, unsigned n,
                             const char *prefix) {
    lat_trace_config_default(c);
    c->stages = st;
    c->nstages = n;
    c->cal = &cal1;
    c->hlog_prefix = prefix;
}

/* Event i: point p at 1000000 + i * 10000 + p * (10 + p + i % 7). */
static lat_trace_stamps block(uint64_t i, unsigned points) {
    lat_trace_stamps b = {{0}, i};
    uint64_t at = 1000000 + i * 10000;
    b.t[0] = at;
    for (unsigned p = 1; p < points; p++) {
        at += 10 + p + i % 7;
        b.t[p] = at;
    }
    return b;
}

static void test_config_checks(void **state) {
    (void)state;
    lat_trace_config c;
    lat_trace_config_default(&c);
    lat_trace *t = NULL;
    assert_int_equal(lat_trace_create(&c, &t), -EINVAL); /* no stages */
    lat_trace_stage bad[] = {{"x y", 0, 1}};
    c.stages = bad;
    c.nstages = 1;
    assert_int_equal(lat_trace_create(&c, &t), -EINVAL); /* space in a name */
    bad[0].name = "x";
    bad[0].to = 0;
    assert_int_equal(lat_trace_create(&c, &t), -EINVAL); /* from == to */
    bad[0].to = LAT_TRACE_POINTS;
    assert_int_equal(lat_trace_create(&c, &t), -EINVAL); /* no such point */
    lat_trace_stage dup[] = {{"x", 0, 1}, {"x", 1, 2}};
    c.stages = dup;
    c.nstages = 2;
    assert_int_equal(lat_trace_create(&c, &t), -EINVAL); /* duplicate name */
    assert_null(t);
    lat_trace_destroy(NULL);
    assert_int_equal(sizeof(lat_trace_stamps), 56); /* one 64-byte ring slot with its word */
}

/* Ship n events through one sink in drain mode, draining every `every`. */
static void ship_drain(lat_trace *t, lat_trace_sink *k, uint64_t n, unsigned points, uint64_t every,
                       uint64_t *dropped) {
    for (uint64_t i = 0; i < n; i++) {
        lat_trace_stamps b = block(i, points);
        if (!lat_trace_ship(k, &b)) (*dropped)++;
        if (every && i % every == every - 1) assert_true(lat_trace_drain(t) >= 0);
    }
}

static void check_exact(const lat_trace_stage *st, unsigned nst, unsigned points) {
    lat_trace *t = make(st, nst, NULL);
    lat_trace_sink *k;
    assert_int_equal(lat_trace_sink_create(t, 64, &k), 0);
    uint64_t n = 5000, dropped = 0;
    ship_drain(t, k, n, points, 50, &dropped);
    assert_int_equal(dropped, 0);
    assert_int_equal(lat_trace_stop(t), 0);
    lat_trace_counts c;
    lat_trace_counts_get(t, &c);
    assert_int_equal(c.recorded, n);
    assert_int_equal(c.dropped, 0);
    assert_int_equal(c.unset, 0);
    assert_int_equal(c.intervals, 1);
    /* Every stage's histogram holds exactly the deltas shipped. */
    for (unsigned s = 0; s < nst; s++) {
        lat_hist want, got;
        assert_int_equal(lat_hist_init(&want, 1, 60000000000ll, 3), 0);
        for (uint64_t i = 0; i < n; i++) {
            lat_trace_stamps b = block(i, points);
            lat_hist_record(&want, (int64_t)(b.t[st[s].to] - b.t[st[s].from]));
        }
        assert_int_equal(lat_trace_hist_copy(t, s, LAT_TRACE_CUMULATIVE, &got), 0);
        assert_true(lat_test_hist_equal(&want, &got));
        lat_hist_fini(&got);
        assert_int_equal(lat_trace_hist_copy(t, s, LAT_TRACE_INTERVAL, &got), 0);
        assert_true(lat_test_hist_equal(&want, &got)); /* the one interval */
        lat_hist_fini(&got);
        lat_hist_fini(&want);
    }
    lat_trace_destroy(t);
}

static void test_exact_3_stages(void **state) {
    (void)state;
    check_exact(st3, 3, 3);
}

static void test_exact_5_stages(void **state) {
    (void)state;
    check_exact(st5, 5, 6);
}

static void test_tiny_ring_drops(void **state) {
    (void)state;
    lat_trace *t = make(st5, 5, NULL);
    lat_trace_sink *k;
    assert_int_equal(lat_trace_sink_create(t, 4, &k), 0);
    uint64_t dropped = 0;
    ship_drain(t, k, 10, 6, 0, &dropped); /* no drain: 4 fit, 6 drop */
    assert_int_equal(dropped, 6);
    assert_int_equal(lat_trace_drain(t), 4);
    ship_drain(t, k, 1000, 6, 3, &dropped); /* drained every 3: none drop */
    assert_int_equal(dropped, 6);
    assert_int_equal(lat_trace_stop(t), 0);
    lat_trace_counts c, ks;
    lat_trace_counts_get(t, &c);
    lat_trace_sink_counts_get(k, &ks);
    assert_int_equal(c.recorded, 1004);
    assert_int_equal(c.dropped, 6);
    assert_int_equal(ks.recorded + ks.dropped, 1010); /* exactly once */
    lat_trace_figures f;
    for (unsigned s = 0; s < 5; s++) {
        assert_int_equal(lat_trace_figures_get(t, s, LAT_TRACE_CUMULATIVE, &f), 0);
        assert_int_equal(f.count, 1004);
    }
    lat_trace_destroy(t);
}

static int64_t blk_ns[4][3];
static int blk_calls;
static void on_blk(void *ud, const lat_trace_stamps *b, const int64_t *ns) {
    (void)ud;
    assert_true(blk_calls < 4);
    assert_int_equal(b->id, blk_calls + 1);
    memcpy(blk_ns[blk_calls++], ns, 3 * sizeof *ns);
}

static void test_unset_and_backwards(void **state) {
    (void)state;
    lat_trace_config oc;
    lat_trace_config_default(&oc);
    oc.on_block = on_blk;
    lat_trace *t = make(st3, 3, &oc);
    lat_trace_sink *k;
    assert_int_equal(lat_trace_sink_create(t, 16, &k), 0);
    lat_trace_stamps b = block(1, 3);
    b.t[1] = 0; /* q1+wake and work not stamped, e2e fine */
    assert_true(lat_trace_ship(k, &b));
    b = block(2, 3);
    b.t[1] = b.t[0] - 5; /* backwards: q1+wake records 0 */
    assert_true(lat_trace_ship(k, &b));
    assert_int_equal(lat_trace_stop(t), 0);
    lat_trace_counts c;
    lat_trace_counts_get(t, &c);
    assert_int_equal(c.recorded, 2);
    assert_int_equal(c.unset, 2);
    assert_int_equal(c.nonmonotonic, 1);
    lat_trace_figures f;
    assert_int_equal(lat_trace_figures_get(t, 0, LAT_TRACE_CUMULATIVE, &f), 0);
    assert_int_equal(f.count, 1);
    assert_int_equal(f.max, 0);
    assert_int_equal(lat_trace_figures_get(t, 2, LAT_TRACE_CUMULATIVE, &f), 0);
    assert_int_equal(f.count, 2);
    assert_int_equal(lat_trace_figures_get(t, 3, LAT_TRACE_CUMULATIVE, &f), -EINVAL);
    /* The per-block hook saw each block with its stage values (-1 = unset). */
    lat_trace_stamps want = block(2, 3);
    assert_int_equal(blk_calls, 2);
    assert_int_equal(blk_ns[0][0], -1);
    assert_int_equal(blk_ns[0][1], -1);
    assert_int_equal(blk_ns[0][2], (int64_t)(block(1, 3).t[2] - block(1, 3).t[0]));
    assert_int_equal(blk_ns[1][0], 0);
    assert_int_equal(blk_ns[1][2], (int64_t)(want.t[2] - want.t[0]));
    lat_trace_destroy(t);
}

static void test_merged_is_sum_of_sinks(void **state) {
    (void)state;
    lat_trace *t = make(st3, 3, NULL);
    lat_trace_sink *k[3];
    for (int i = 0; i < 3; i++)
        assert_int_equal(lat_trace_sink_create(t, 128, &k[i]), 0);
    for (uint64_t i = 0; i < 3000; i++) {
        lat_trace_stamps b = block(i * (1 + i % 3), 3);
        assert_true(lat_trace_ship(k[i % 3], &b));
        if (i % 100 == 99) lat_trace_drain(t);
    }
    assert_int_equal(lat_trace_stop(t), 0);
    for (unsigned s = 0; s < 3; s++) {
        lat_hist sum, h, merged;
        assert_int_equal(lat_hist_init(&sum, 1, 60000000000ll, 3), 0);
        for (int i = 0; i < 3; i++) {
            assert_int_equal(lat_trace_sink_hist_copy(k[i], s, &h), 0);
            assert_int_equal(lat_hist_total(&h), 1000);
            lat_hist_add(&sum, &h);
            lat_hist_fini(&h);
        }
        assert_int_equal(lat_trace_hist_copy(t, s, LAT_TRACE_CUMULATIVE, &merged), 0);
        assert_true(lat_test_hist_equal(&sum, &merged));
        lat_hist_fini(&merged);
        lat_hist_fini(&sum);
    }
    lat_trace_destroy(t);
}

static void test_drain_equals_thread(void **state) {
    (void)state;
    lat_trace *a = make(st5, 5, NULL), *b = make(st5, 5, NULL);
    lat_trace_sink *ka, *kb;
    assert_int_equal(lat_trace_sink_create(a, 1 << 14, &ka), 0);
    assert_int_equal(lat_trace_sink_create(b, 1 << 14, &kb), 0);
    assert_int_equal(lat_trace_start(b), 0);
    assert_int_equal(lat_trace_drain(b), -EBUSY); /* latlab's thread owns it */
    for (uint64_t i = 0; i < 10000; i++) {
        lat_trace_stamps s = block(i, 6);
        assert_true(lat_trace_ship(ka, &s));
        assert_true(lat_trace_ship(kb, &s));
        if (i % 1000 == 999) lat_trace_drain(a);
    }
    assert_int_equal(lat_trace_start(a), -EBUSY); /* drain mode already */
    assert_int_equal(lat_trace_stop(a), 0);
    assert_int_equal(lat_trace_stop(b), 0);
    assert_int_equal(lat_trace_stop(b), 0); /* idempotent */
    for (unsigned s = 0; s < 5; s++) {
        lat_hist ha, hb;
        assert_int_equal(lat_trace_hist_copy(a, s, LAT_TRACE_CUMULATIVE, &ha), 0);
        assert_int_equal(lat_trace_hist_copy(b, s, LAT_TRACE_CUMULATIVE, &hb), 0);
        assert_int_equal(lat_hist_total(&ha), 10000);
        assert_true(lat_test_hist_equal(&ha, &hb));
        lat_hist_fini(&ha);
        lat_hist_fini(&hb);
    }
    lat_trace_destroy(a);
    lat_trace_destroy(b);
}

static void test_stamp_ship_allocate_nothing(void **state) {
    (void)state;
    if (!lat_alloc_count_available()) LAT_SKIP("counting allocator unavailable under sanitizers");
    lat_trace *t = make(st3, 3, NULL);
    lat_trace_sink *k;
    assert_int_equal(lat_trace_sink_create(t, 256, &k), 0);
    lat_trace_stamps b = {{0}, 0};
    lat_trace_stamps_clear(&b);
    lat_alloc_count_begin();
    for (int i = 0; i < 1000; i++) { /* 256 ship, the rest take the drop path */
        lat_trace_stamp(&b, 0);
        lat_trace_stamp(&b, 1);
        lat_trace_stamp_at(&b, 2, b.t[1] + 1);
        lat_trace_ship(k, &b);
    }
    assert_int_equal(lat_alloc_count_end(), 0);
    lat_trace_counts c;
    lat_trace_sink_counts_get(k, &c);
    assert_int_equal(c.dropped, 1000 - 256);
    lat_trace_destroy(t);
}

static int calls;
static uint64_t seen;
static void on_iv(void *ud, const lat_trace_interval *iv) {
    (void)ud;
    calls++;
    assert_int_equal(iv->nstages, 3);
    assert_string_equal(iv->names[2], "e2e");
    seen += (uint64_t)lat_hist_total(iv->interval[2]);
    assert_int_equal(lat_hist_total(iv->cumulative[2]), seen);
}

static void test_logs_callback_flight(void **state) {
    (void)state;
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s/run-", lat_test_tmpdir());
    lat_trace_config c;
    lat_trace_config_default(&c);
    c.hlog_prefix = prefix;
    c.on_interval = on_iv;
    c.flight_threshold_ns = 100000;
    c.flight_post = 8;
    lat_trace *t = make(st3, 3, &c);
    lat_trace_sink *k;
    assert_int_equal(lat_trace_sink_create(t, 64, &k), 0);
    for (uint64_t i = 0; i < 500; i++) {
        lat_trace_stamps b = block(i, 3);
        if (i == 123) b.t[2] += 500000; /* the outlier: slow in work */
        assert_true(lat_trace_ship(k, &b));
        lat_trace_drain(t);
    }
    assert_int_equal(lat_trace_stop(t), 0);
    assert_int_equal(calls, 1);
    assert_int_equal(seen, 500);
    const lat_flight *f = lat_trace_flight(t);
    assert_non_null(f);
    assert_true(lat_flight_triggered(f));
    lat_flight_verdict v;
    assert_int_equal(lat_flight_analyze(f, &v), 0);
    assert_int_equal(v.trigger_seq, 123);
    assert_string_equal(f->names[v.stage], "work");
    lat_flight *own = lat_trace_flight_take(t);
    assert_ptr_equal(own, f);
    assert_null(lat_trace_flight(t));
    lat_trace_destroy(t);
    lat_flight_destroy(own);
    /* The work log ('+' -> '-' only matters for q1+wake) reads back. */
    const char *names[] = {"q1-wake", "work", "e2e"};
    for (int s = 0; s < 3; s++) {
        char path[400];
        snprintf(path, sizeof path, "%s%s.hlog", prefix, names[s]);
        lat_hlog_reader *r;
        assert_int_equal(lat_hlog_reader_create(path, &r), 0);
        lat_hlog_interval *iv;
        assert_int_equal(lat_hlog_next(r, &iv), 1);
        assert_int_equal(lat_hist_total(&iv->hist), 500);
        assert_int_equal(lat_hlog_next(r, &iv), 0);
        lat_hlog_reader_destroy(r);
    }
}

/* A file's whole text (at most 1 MiB), or "" when it cannot be read. */
static const char *slurp(const char *path) {
    static char buf[1 << 20];
    FILE *f = fopen(path, "r");
    size_t n = 0;
    if (f) {
        n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
    }
    buf[n] = 0;
    return buf;
}

/* Temporary files (".tmp.") left in dir. */
static int temporaries(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strstr(e->d_name, ".tmp.") != NULL;
    if (d) closedir(d);
    return n;
}

static lat_trace *atomic_run(const char *prefix, char *err, size_t cap, int *stop_rc) {
    lat_trace_config c;
    lat_trace_config_default(&c);
    c.hlog_prefix = prefix;
    c.hlog_atomic = true;
    c.error_path = err;
    c.error_path_cap = cap;
    lat_trace *t = make(st3, 3, &c);
    lat_trace_sink *k;
    assert_int_equal(lat_trace_sink_create(t, 256, &k), 0);
    for (uint64_t i = 0; i < 100; i++) {
        lat_trace_stamps b = block(i, 3);
        assert_true(lat_trace_ship(k, &b));
    }
    assert_int_equal(lat_trace_logs_commit(t), -EBUSY); /* not before stop */
    *stop_rc = lat_trace_stop(t);
    return t;
}

/* hlog_atomic: a log replaces its target only when committed after a clean
 * run; a write error or no commit leaves the old files and no temporaries;
 * the failing path is named. */
static void test_atomic_logs(void **state) {
    (void)state;
    const char *dir = lat_test_tmpdir();
    char prefix[300], e2e[400], q1[400], err[400];
    snprintf(prefix, sizeof prefix, "%s/at-", dir);
    snprintf(e2e, sizeof e2e, "%se2e.hlog", prefix);
    FILE *f = fopen(e2e, "w");
    assert_non_null(f);
    fputs("old\n", f);
    fclose(f);
    int rc;
    lat_trace *t = atomic_run(prefix, err, sizeof err, &rc);
    assert_int_equal(rc, 0);
    assert_string_equal(slurp(e2e), "old\n"); /* stopped, not committed yet */
    assert_int_equal(lat_trace_logs_commit(t), 0);
    lat_trace_destroy(t);
    assert_int_equal(temporaries(dir), 0);
    lat_hlog_reader *r;
    lat_hlog_interval *iv;
    assert_int_equal(lat_hlog_reader_create(e2e, &r), 0);
    assert_int_equal(lat_hlog_next(r, &iv), 1);
    assert_int_equal(lat_hist_total(&iv->hist), 100);
    lat_hlog_reader_destroy(r);
    char *before = strdup(slurp(e2e));
    assert_non_null(before);

    /* No commit: destroy removes the temporaries, the committed log stays. */
    t = atomic_run(prefix, err, sizeof err, &rc);
    assert_int_equal(rc, 0);
    lat_trace_destroy(t);
    assert_string_equal(slurp(e2e), before);
    free(before);
    assert_int_equal(temporaries(dir), 0);

    /* A write error (the e2e log is /dev/full): the run goes on, stop and
     * commit return it with the path, and no log of the run is kept. */
    snprintf(prefix, sizeof prefix, "%s/full-", dir);
    snprintf(e2e, sizeof e2e, "%se2e.hlog", prefix);
    snprintf(q1, sizeof q1, "%sq1-wake.hlog", prefix);
    assert_int_equal(symlink("/dev/full", e2e), 0);
    err[0] = 0;
    t = atomic_run(prefix, err, sizeof err, &rc);
    assert_int_equal(rc, -ENOSPC);
    assert_string_equal(err, e2e);
    assert_int_equal(lat_trace_logs_commit(t), -ENOSPC);
    lat_trace_counts n;
    lat_trace_counts_get(t, &n);
    assert_int_equal(n.recorded, 100); /* the histograms are whole */
    lat_trace_destroy(t);
    assert_int_equal(access(q1, F_OK), -1);
    assert_int_equal(temporaries(dir), 0);

    /* A log that cannot be opened fails create, naming it. */
    snprintf(prefix, sizeof prefix, "%s/no-such-dir/x-", dir);
    lat_trace_config c;
    config_with_logs(&c, st3, 3, prefix);
    c.hlog_atomic = true;
    c.error_path = err;
    c.error_path_cap = sizeof err;
    t = NULL;
    assert_int_equal(lat_trace_create(&c, &t), -ENOENT);
    assert_null(t);
    snprintf(q1, sizeof q1, "%sq1-wake.hlog", prefix);
    assert_string_equal(err, q1);
}

static void test_socket_stream(void **state) {
    (void)state;
    char path[100];
    snprintf(path, sizeof path, "%.80s/trace.sock", lat_test_tmpdir());
    lat_trace_config c;
    lat_trace_config_default(&c);
    c.socket_path = path;
    lat_trace *t = make(st3, 3, &c);
    lat_trace_sink *k;
    assert_int_equal(lat_trace_sink_create(t, 1024, &k), 0);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    memcpy(a.sun_path, path, strlen(path) + 1);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    for (uint64_t i = 0; i < 300; i++) {
        lat_trace_stamps b = block(i, 3);
        assert_true(lat_trace_ship(k, &b));
    }
    assert_int_equal(lat_trace_stop(t), 0); /* the last interval goes out */
    lat_trace_destroy(t);                   /* closes the stream */
    char buf[1 << 16];
    size_t len = 0;
    ssize_t r;
    while ((r = read(fd, buf + len, sizeof buf - len)) > 0)
        len += (size_t)r;
    close(fd);
    lat_hlog_reader *rd;
    assert_int_equal(lat_hlog_reader_open_mem(buf, len, &rd), 0);
    lat_hlog_interval *iv;
    const char *tags[] = {"q1+wake", "work", "e2e"};
    for (int s = 0; s < 3; s++) {
        assert_int_equal(lat_hlog_next(rd, &iv), 1);
        assert_string_equal(iv->tag, tags[s]);
        assert_int_equal(lat_hist_total(&iv->hist), 300);
    }
    assert_int_equal(lat_hlog_next(rd, &iv), 0);
    lat_hlog_reader_destroy(rd);
}

/* Two stage names for one log file, or a name outside the prefix's folder,
 * are refused; the same names without logs are fine. */
static void test_log_name_collisions(void **state) {
    (void)state;
    char prefix[100];
    snprintf(prefix, sizeof prefix, "%.80s/coll-", lat_test_tmpdir());
    const char *bad[][2] = {{"a+b", "a-b"}, {"x-y", "x+y"}, {"a/b", "c"}, {"..", "c"}};
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        lat_trace_stage st[] = {{bad[i][0], 0, 1}, {bad[i][1], 1, 2}};
        lat_trace_config c;
        config_with_logs(&c, st, 2, prefix);
        lat_trace *t = NULL;
        assert_int_equal(lat_trace_create(&c, &t), -EINVAL);
        assert_null(t);
        c.hlog_prefix = NULL;
        assert_int_equal(lat_trace_create(&c, &t), 0);
        lat_trace_destroy(t);
    }
}

static int connect_to(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    memcpy(a.sun_path, path, strlen(path) + 1);
    int rc = connect(fd, (struct sockaddr *)&a, sizeof a);
    close(fd);
    return rc;
}

/* A live socket of another tracer is refused and stays; a stale one is
 * replaced; a tracer removes only the socket file it bound itself. */
static void test_socket_takeover(void **state) {
    (void)state;
    char path[100];
    snprintf(path, sizeof path, "%.80s/take.sock", lat_test_tmpdir());
    unlink(path);
    lat_trace_config c;
    lat_trace_config_default(&c);
    c.socket_path = path;
    lat_trace *first = make(st3, 3, &c);
    lat_trace *second = NULL;
    c.stages = st3;
    c.nstages = 3;
    c.cal = &cal1;
    assert_int_equal(lat_trace_create(&c, &second), -EADDRINUSE);
    assert_null(second);
    assert_int_equal(connect_to(path), 0); /* the first's socket is still there */
    /* Someone replaces the file: the first must not remove the new one. */
    struct stat st;
    assert_int_equal(unlink(path), 0);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    memcpy(a.sun_path, path, strlen(path) + 1);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(fd, 1), 0);
    lat_trace_destroy(first);
    assert_int_equal(lstat(path, &st), 0); /* the other's file stays */
    close(fd);                             /* now stale */
    lat_trace *third = make(st3, 3, &c);   /* a stale file is replaced */
    lat_trace_destroy(third);
    assert_int_equal(lstat(path, &st), -1); /* its own file is removed */
}

int main(void) {
    lat_clock_cal_from_ratio(&cal1, 1000000, 1000000);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_checks),
        cmocka_unit_test(test_exact_3_stages),
        cmocka_unit_test(test_exact_5_stages),
        cmocka_unit_test(test_tiny_ring_drops),
        cmocka_unit_test(test_unset_and_backwards),
        cmocka_unit_test(test_merged_is_sum_of_sinks),
        cmocka_unit_test(test_drain_equals_thread),
        cmocka_unit_test(test_stamp_ship_allocate_nothing),
        cmocka_unit_test(test_logs_callback_flight),
        cmocka_unit_test(test_atomic_logs),
        cmocka_unit_test(test_socket_stream),
        cmocka_unit_test(test_log_name_collisions),
        cmocka_unit_test(test_socket_takeover),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
