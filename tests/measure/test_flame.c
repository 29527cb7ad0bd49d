/* test_flame.c - the flame component: folding recorded `perf script` fixtures
 * (kernel and user frames, [unknown], inlined, comm names with spaces, samples
 * without call chains), any chunking of the input, very deep stacks, a 50 MB
 * stream whose memory stays bounded by its distinct stacks, frame shares with
 * recursion, the SVG (widths sum to the samples, tooltips, themes), the diff
 * and its verdict, the narration's decision, malformed input with line
 * numbers, and allocation failure at every step. */
#include "lat_test.h"

#include "latlab/alloc.h"
#include "latlab/error.h"
#include "latlab/flame.h"
#include "latlab/profile.h"
#include "latlab/report.h"

#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---------------------------------------------------------------------- */

static char *read_text(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    char tmp[4096];
    size_t k;
    while ((k = fread(tmp, 1, sizeof tmp, f)) > 0)
        fwrite(tmp, 1, k, m);
    fclose(f);
    fclose(m);
    if (len) *len = n;
    return buf;
}

static char *slurp(const char *rel, size_t *len) {
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/profile/%s", getenv("LAT_SRC_DIR"), rel);
    return read_text(path, len);
}

/* The text lat_flame_write_top (b == NULL) or lat_flame_write_diff writes. */
static char *text_of(const lat_flame *a, const lat_flame *b, size_t limit) {
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_non_null(m);
    if (b)
        assert_int_equal(lat_flame_write_diff(a, b, "A", "B", limit, m), 0);
    else
        assert_int_equal(lat_flame_write_top(a, limit, m), 0);
    fclose(m);
    return buf;
}

static lat_flame *parse(lat_flame_format fmt, const char *text, size_t len, size_t chunk) {
    lat_flame *f;
    assert_int_equal(lat_flame_create(fmt, &f), 0);
    for (size_t i = 0; i < len; i += chunk)
        assert_int_equal(lat_flame_feed(f, text + i, len - i < chunk ? len - i : chunk), 0);
    assert_int_equal(lat_flame_finish(f), 0);
    return f;
}

static char *folded(const lat_flame *f, bool threads) {
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    assert_int_equal(lat_flame_write_folded(f, threads, m), 0);
    fclose(m);
    return buf;
}

static char *svg_of(const lat_flame *f, lat_theme theme) {
    lat_flame_svg_opts o = {.title = "t <&> \"q\"", .note = "note", .theme = theme};
    char *s;
    size_t n;
    assert_int_equal(lat_flame_render_svg(f, &o, &s, &n), 0);
    assert_int_equal(strlen(s), n);
    return s;
}

static void assert_xml(const char *svg) {
    assert_int_not_equal(lat_test_xml_check(svg), 0); /* -1: xmllint missing */
}

static const lat_flame_share *find(const lat_flame_share *s, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(s[i].name, name)) return &s[i];
    return NULL;
}

/* ---- fixtures ------------------------------------------------------------------------ */

static void fixture_folds_to(const char *script, const char *expected) {
    size_t len, elen;
    char *text = slurp(script, &len);
    char *want = slurp(expected, &elen);
    /* whole, then in odd chunks (lines split anywhere), then byte by byte */
    const size_t chunks[] = {len ? len : 1, 7, 1};
    for (size_t c = 0; c < 3; c++) {
        lat_flame *f = parse(LAT_FLAME_PERF_SCRIPT, text, len, chunks[c]);
        char *got = folded(f, true);
        assert_string_equal(got, want);
        free(got);
        /* the folded text reads back to the same folded text */
        lat_flame *g = parse(LAT_FLAME_FOLDED, want, elen, 5);
        char *again = folded(g, true);
        assert_string_equal(again, want);
        assert_int_equal(lat_flame_samples(g), lat_flame_samples(f));
        free(again);
        lat_flame_destroy(g);
        lat_flame_destroy(f);
    }
    free(text);
    free(want);
}

static void test_fixtures(void **state) {
    (void)state;
    fixture_folds_to("kernel_user.txt", "kernel_user.folded");
    fixture_folds_to("unknown.txt", "unknown.folded");
    fixture_folds_to("inlined.txt", "inlined.folded");
}

static void test_kinds_and_shares(void **state) {
    (void)state;
    size_t len;
    char *text = slurp("kernel_user.txt", &len);
    lat_flame *f = parse(LAT_FLAME_PERF_SCRIPT, text, len, len);
    free(text);
    assert_int_equal(lat_flame_samples(f), 6);
    assert_int_equal(lat_flame_stacks(f), 5);
    assert_string_equal(lat_flame_event(f), "cpu-clock");
    lat_flame_share *s;
    size_t n;
    assert_int_equal(lat_flame_shares(f, &s, &n), 0);
    const lat_flame_share *k = find(s, n, "try_to_wake_up_[k]");
    assert_non_null(k);
    assert_int_equal(k->kind, LAT_FLAME_KERNEL);
    const lat_flame_share *st = find(s, n, "start_thread");
    assert_int_equal(st->total, 5);
    assert_int_equal(st->self, 0);
    assert_true(fabs(st->total_pct - 500.0 / 6) < 1e-9);
    const lat_flame_share *lw = find(s, n, "lcg_work");
    assert_int_equal(lw->self, 2);
    /* sorted by total share: the largest first */
    for (size_t i = 1; i < n; i++)
        assert_true(s[i - 1].total >= s[i].total);
    lat_flame_shares_destroy(s);
    assert_true(fabs(lat_flame_total_pct(f, "worker", LAT_FLAME_THREAD) - 50.0) < 1e-9);
    assert_true(fabs(lat_flame_total_pct(f, "worker", LAT_FLAME_USER) - 50.0) < 1e-9);
    assert_true(isnan(lat_flame_total_pct(f, "nosuch", LAT_FLAME_USER)));

    text = slurp("inlined.txt", &len);
    lat_flame *g = parse(LAT_FLAME_PERF_SCRIPT, text, len, len);
    free(text);
    assert_int_equal(lat_flame_shares(g, &s, &n), 0);
    assert_int_equal(find(s, n, "lcg_step_[i]")->kind, LAT_FLAME_INLINED);
    assert_int_equal(find(s, n, "lcg_step_[i]")->self, 2);
    lat_flame_shares_destroy(s);
    text = slurp("unknown.txt", &len);
    lat_flame *u = parse(LAT_FLAME_PERF_SCRIPT, text, len, len);
    free(text);
    assert_int_equal(lat_flame_shares(u, &s, &n), 0);
    assert_int_equal(find(s, n, "[dash]")->kind, LAT_FLAME_UNKNOWN);
    assert_int_equal(find(s, n, "Web Content")->kind, LAT_FLAME_THREAD);
    lat_flame_shares_destroy(s);

    /* top.txt lists threads and both rankings */
    char *buf = text_of(f, NULL, 5);
    assert_non_null(strstr(buf, "samples: 6 (event cpu-clock)"));
    assert_non_null(strstr(buf, " 50.00%         3  worker\n"));
    assert_non_null(strstr(buf, "by self share"));
    free(buf);
    lat_flame_destroy(f);
    lat_flame_destroy(g);
    lat_flame_destroy(u);
}

static void test_recursion_counts_once(void **state) {
    (void)state;
    const char text[] = "t;a;b;a 1\nt;a 1\nt;c;a;a 2\n";
    lat_flame *f = parse(LAT_FLAME_FOLDED, text, sizeof text - 1, 3);
    lat_flame_share *s;
    size_t n;
    assert_int_equal(lat_flame_shares(f, &s, &n), 0);
    const lat_flame_share *a = find(s, n, "a");
    assert_int_equal(a->total, 4); /* every sample holds a, each counted once */
    assert_int_equal(a->self, 4);
    assert_int_equal(find(s, n, "b")->total, 1);
    assert_int_equal(find(s, n, "c")->total, 2);
    lat_flame_shares_destroy(s);
    lat_flame_destroy(f);
}

static void test_merge_threads(void **state) {
    (void)state;
    const char text[] = "p;main;f 2\nq;main;f 3\nq;main 1\n";
    lat_flame *f = parse(LAT_FLAME_FOLDED, text, sizeof text - 1, 4);
    char *merged = folded(f, false);
    assert_string_equal(merged, "main 1\nmain;f 5\n");
    free(merged);
    lat_flame *m;
    assert_int_equal(lat_flame_merge_threads(f, &m), 0);
    assert_int_equal(lat_flame_samples(m), 6);
    char *again = folded(m, true);
    assert_string_equal(again, "main 1\nmain;f 5\n");
    free(again);
    lat_flame_destroy(m);
    /* a profile without the thread level reads its first frame as a frame */
    lat_flame *nt = parse(LAT_FLAME_FOLDED_NOTHREAD, text, sizeof text - 1, 100);
    assert_true(fabs(lat_flame_total_pct(nt, "q", LAT_FLAME_USER) - 400.0 / 6) < 1e-9);
    lat_flame_destroy(nt);
    lat_flame_destroy(f);
}

/* ---- deep and big ---------------------------------------------------------------------- */

static void test_deep_stack(void **state) {
    (void)state;
    const size_t depth = 3000;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    fprintf(m, "deep 1 1.000001: 1 cpu-clock: \n");
    for (size_t i = depth; i-- > 0;)
        fprintf(m, "\t%zx f%zu+0x1 (/bin/x)\n", 0x1000 + i, i);
    fprintf(m, "\n");
    fclose(m);
    lat_flame *f = parse(LAT_FLAME_PERF_SCRIPT, buf, len, 4096);
    free(buf);
    char *fo = folded(f, true);
    assert_true(!strncmp(fo, "deep;f0;f1;f2;", 14));
    size_t semis = 0;
    for (const char *p = fo; *p; p++)
        semis += *p == ';';
    assert_int_equal(semis, depth);
    free(fo);
    char *svg = svg_of(f, LAT_THEME_AUTO);
    assert_non_null(strstr(svg, "stacks drawn to 64 rows"));
    assert_null(strstr(svg, "data-depth=\"64\""));
    assert_non_null(strstr(svg, "data-depth=\"63\""));
    assert_xml(svg);
    free(svg);
    lat_flame_destroy(f);

    /* beyond the documented cap: a clear format error at the line */
    m = open_memstream(&buf, &len);
    fprintf(m, "deep 1 1.000001: 1 cpu-clock: \n");
    for (size_t i = 0; i < LAT_FLAME_MAX_DEPTH + 1; i++)
        fprintf(m, "\t1 f\n");
    fclose(m);
    assert_int_equal(lat_flame_create(LAT_FLAME_PERF_SCRIPT, &f), 0);
    assert_int_equal(lat_flame_feed(f, buf, len), LAT_EFORMAT);
    assert_int_equal(lat_flame_error_line(f), LAT_FLAME_MAX_DEPTH + 2);
    free(buf);
    lat_flame_destroy(f);
}

/* Live-byte accounting through the library's allocation hooks. */
static size_t live_bytes, peak_bytes;
static long fail_at = -1, alloc_calls;

static void *count_alloc(size_t size, size_t align, void *ud) {
    (void)ud;
    if (fail_at >= 0 && alloc_calls++ >= fail_at) return NULL;
    void *p = NULL;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size ? size : 1))
        return NULL;
    live_bytes += malloc_usable_size(p);
    if (live_bytes > peak_bytes) peak_bytes = live_bytes;
    return p;
}

static void count_free(void *p, void *ud) {
    (void)ud;
    if (!p) return;
    live_bytes -= malloc_usable_size(p);
    free(p);
}

static void test_50mb_stream_bounded(void **state) {
    (void)state;
#ifdef LAT_SANITIZED
    const size_t target = 8u << 20; /* sanitizers are ~10x slower: the bound is the same */
#else
    const size_t target = 50u << 20;
#endif
    size_t tlen;
    char *tmpl = slurp("kernel_user.txt", &tlen); /* 6 samples, 5 distinct stacks */
    lat_alloc_hooks h = {count_alloc, count_free, NULL};
    live_bytes = peak_bytes = 0;
    fail_at = -1;
    lat_set_alloc_hooks(&h);
    lat_flame *f;
    assert_int_equal(lat_flame_create(LAT_FLAME_PERF_SCRIPT, &f), 0);
    size_t fed = 0, reps = 0;
    /* feed in 64 KiB chunks cut at arbitrary points */
    char chunk[65536];
    size_t used = 0;
    while (fed < target) {
        size_t take = tlen;
        if (used + take > sizeof chunk) {
            size_t cut = used / 2 + 3; /* mid-line */
            assert_int_equal(lat_flame_feed(f, chunk, cut), 0);
            assert_int_equal(lat_flame_feed(f, chunk + cut, used - cut), 0);
            fed += used;
            used = 0;
        }
        memcpy(chunk + used, tmpl, take);
        used += take;
        reps++;
    }
    assert_int_equal(lat_flame_feed(f, chunk, used), 0);
    assert_int_equal(lat_flame_finish(f), 0);
    assert_int_equal(lat_flame_samples(f), 6 * reps);
    assert_int_equal(lat_flame_stacks(f), 5);
    size_t peak = peak_bytes;
    lat_flame_destroy(f);
    lat_set_alloc_hooks(NULL);
    printf("fed %zu MB (%zu samples): peak %zu bytes live\n", fed >> 20, 6 * reps, peak);
    assert_true(peak < 256 * 1024); /* the tree of 5 stacks and one line, not the input */
    assert_int_equal(live_bytes, 0);
    free(tmpl);
}

/* ---- SVG ----------------------------------------------------------------------------- */

/* Sum data-samples and rect widths of the frames at depth d. */
static void sum_depth(const char *svg, int d, unsigned long long *samples, double *width) {
    char key[32];
    snprintf(key, sizeof key, "data-depth=\"%d\"", d);
    *samples = 0;
    *width = 0;
    for (const char *p = svg; (p = strstr(p, key)); p++) {
        const char *q = strstr(p, "data-samples=\"");
        *samples += strtoull(q + 14, NULL, 10);
        const char *w = strstr(p, " width=\"");
        *width += strtod(w + 8, NULL);
    }
}

static void test_svg(void **state) {
    (void)state;
    size_t len;
    char *text = slurp("kernel_user.txt", &len);
    lat_flame *f = parse(LAT_FLAME_PERF_SCRIPT, text, len, len);
    free(text);
    const lat_theme themes[] = {LAT_THEME_AUTO, LAT_THEME_LIGHT, LAT_THEME_DARK};
    for (int t = 0; t < 3; t++) {
        char *svg = svg_of(f, themes[t]);
        assert_xml(svg);
        assert_true(!strncmp(svg, "<?xml", 5));
        assert_non_null(strstr(svg, "t &lt;&amp;&gt; &quot;q&quot;"));
        unsigned long long s0, s1, s2;
        double w0, w1, w2;
        sum_depth(svg, 0, &s0, &w0);
        sum_depth(svg, 1, &s1, &w1);
        sum_depth(svg, 4, &s2, &w2);
        assert_int_equal(s0, 6);
        assert_int_equal(s1, 6); /* threads: every sample once */
        assert_true(fabs(w0 - 1180) < 0.01 && fabs(w1 - w0) < 0.05);
        assert_true(s2 == 5 && fabs(w2 - w0 * 5 / 6) < 0.05); /* swapper's stack is shorter */
        assert_non_null(strstr(svg, "<title>worker (thread): 50.00% of samples (3 of 6)</title>"));
        assert_non_null(strstr(svg, "<title>lcg_work: 33.33% of samples (2 of 6; 2 here)</title>"));
        assert_non_null(strstr(svg, "lat-fl-k"));
        bool media = strstr(svg, "prefers-color-scheme") != NULL;
        assert_true(media == (themes[t] == LAT_THEME_AUTO));
        free(svg);
    }
    lat_flame_svg_opts bad = {.width_px = 100};
    char *s;
    assert_int_equal(lat_flame_render_svg(f, &bad, &s, NULL), -EINVAL);
    lat_flame_destroy(f);

    /* empty profile: still a document, with a note */
    assert_int_equal(lat_flame_create(LAT_FLAME_PERF_SCRIPT, &f), 0);
    assert_int_equal(lat_flame_finish(f), 0);
    char *svg = svg_of(f, LAT_THEME_LIGHT);
    assert_non_null(strstr(svg, "no samples"));
    assert_xml(svg);
    /* embedding into a report drops the XML declaration */
    lat_report *r;
    assert_int_equal(lat_report_create("r", &r), 0);
    assert_int_equal(lat_report_svg(r, "cap", svg, strlen(svg)), 0);
    assert_int_equal(lat_report_svg(r, NULL, "<p>", 3), -EINVAL);
    char path[512];
    snprintf(path, sizeof path, "%s/r.html", lat_test_tmpdir());
    assert_int_equal(lat_report_write(r, path), 0);
    lat_report_destroy(r);
    char *page = read_text(path, NULL);
    assert_non_null(strstr(page, "<figcaption>cap</figcaption>\n<svg"));
    assert_null(strstr(page, "<?xml"));
    free(page);
    free(svg);
    lat_flame_destroy(f);
}

/* ---- diff and narration ------------------------------------------------------------------- */

static void test_diff(void **state) {
    (void)state;
    const char a[] = "t;x 3\nt;y 1\n", b[] = "t;x 1\nt;y 3\nt;z 4\n";
    lat_flame *fa = parse(LAT_FLAME_FOLDED, a, sizeof a - 1, 100);
    lat_flame *fb = parse(LAT_FLAME_FOLDED, b, sizeof b - 1, 100);
    lat_flame_diff_row *r;
    size_t n;
    double max;
    assert_int_equal(lat_flame_diff(fa, fa, &r, &n, &max), 0);
    assert_true(max == 0);
    for (size_t i = 0; i < n; i++)
        assert_true(r[i].diff_pts == 0);
    lat_flame_diff_destroy(r);
    assert_int_equal(lat_flame_diff(fa, fb, &r, &n, &max), 0);
    assert_int_equal(n, 4); /* t x y z */
    assert_string_equal(r[0].name, "x");
    assert_true(fabs(r[0].diff_pts - (12.5 - 75)) < 1e-9);
    assert_true(fabs(max - 62.5) < 1e-9);
    assert_string_equal(r[1].name, "z");
    assert_true(fabs(r[1].a_pct) < 1e-12 && fabs(r[1].b_pct - 50) < 1e-9);
    assert_true(fabs(r[3].diff_pts) < 1e-9); /* t: 100% in both */
    lat_flame_diff_destroy(r);

    char *buf = text_of(fa, fa, 0);
    assert_non_null(strstr(buf, "profiles differ by at most 0.0 points of share in any frame\n"));
    free(buf);
    buf = text_of(fa, fb, 1);
    assert_non_null(
        strstr(buf, "profiles differ by at most 62.5 points of share in any frame (x)"));
    assert_non_null(strstr(buf, "... 3 more frames"));
    free(buf);

    lat_flame *empty;
    assert_int_equal(lat_flame_create(LAT_FLAME_FOLDED, &empty), 0);
    assert_int_equal(lat_flame_diff(fa, empty, &r, &n, &max), -EINVAL);
    lat_flame_destroy(empty);
    lat_flame_destroy(fa);
    lat_flame_destroy(fb);
}

static void test_narrate(void **state) {
    (void)state;
    /* baseline: worker 70% (spin 50, work 20), producer 30% */
    const char base[] = "worker;spin 50\nworker;work 20\nproducer;pace 30\n";
    const char same[] = "worker;spin 51\nworker;work 20\nproducer;pace 29\n";
    const char moved[] = "worker;spin 20\nworker;work 50\nproducer;pace 30\n";
    lat_flame *b = parse(LAT_FLAME_FOLDED, base, sizeof base - 1, 100);
    lat_flame *s = parse(LAT_FLAME_FOLDED, same, sizeof same - 1, 100);
    lat_flame *mv = parse(LAT_FLAME_FOLDED, moved, sizeof moved - 1, 100);
    char buf[512];
    assert_int_equal(lat_flame_narrate(b, s, "worker", 2.7, buf, sizeof buf),
                     LAT_FLAME_SAME_CODE_SLOWER);
    assert_non_null(strstr(buf, "the worker's frames hold 70% vs 71% of samples"));
    assert_non_null(strstr(buf, "work p50 rose x2.7"));
    assert_non_null(strstr(buf, "points at the same code; the cost moved into memory stalls"));
    assert_int_equal(lat_flame_narrate(b, s, "worker", 1.05, buf, sizeof buf),
                     LAT_FLAME_NO_SLOWDOWN);
    assert_non_null(strstr(buf, "x1.05"));
    assert_int_equal(lat_flame_narrate(b, mv, "worker", 2.0, buf, sizeof buf),
                     LAT_FLAME_PROFILE_MOVED);
    assert_non_null(strstr(buf, "spin moved -30.0 points"));
    assert_int_equal(lat_flame_narrate(b, s, "nobody", 2.0, buf, sizeof buf), -ENOENT);
    assert_int_equal(lat_flame_narrate(b, s, "worker", NAN, buf, sizeof buf), -EINVAL);
    assert_int_equal(lat_flame_narrate(b, s, "worker", 0, buf, sizeof buf), -EINVAL);
    char tiny[8];
    assert_true(lat_flame_narrate(b, s, "worker", 3, tiny, sizeof tiny) >= 0);
    assert_int_equal(strlen(tiny), 7);
    lat_flame_destroy(b);
    lat_flame_destroy(s);
    lat_flame_destroy(mv);
}

/* ---- errors ---------------------------------------------------------------------------- */

static void expect_error(lat_flame_format fmt, const char *text, size_t line) {
    lat_flame *f;
    assert_int_equal(lat_flame_create(fmt, &f), 0);
    int rc = lat_flame_feed(f, text, strlen(text));
    if (!rc) rc = lat_flame_finish(f);
    assert_int_equal(rc, LAT_EFORMAT);
    assert_int_equal(lat_flame_error_line(f), line);
    assert_true(*lat_flame_error_reason(f));                    /* says why */
    assert_int_equal(lat_flame_feed(f, "x\n", 2), LAT_EFORMAT); /* sticky */
    assert_int_equal(lat_flame_finish(f), LAT_EFORMAT);
    lat_flame_destroy(f);
}

static void test_malformed(void **state) {
    (void)state;
    expect_error(LAT_FLAME_PERF_SCRIPT, "\t1234 f (/x)\n", 1); /* frame before a header */
    expect_error(LAT_FLAME_PERF_SCRIPT, "a 1 1.0: 1 e: \n\t1234 f\n\tnothex f\n", 3);
    expect_error(LAT_FLAME_PERF_SCRIPT, "a 1 1.0: 1 e: \n\t12zz f\n", 2);
    /* text that is not perf script: a header needs TIME: and EVENT: */
    expect_error(LAT_FLAME_PERF_SCRIPT, "root:x:0:0:root:/root:/bin/bash\n", 1);
    expect_error(LAT_FLAME_PERF_SCRIPT, "a 1 1.0: 1 e: \n\t1234 f\n\nhello world\n", 4);
    expect_error(LAT_FLAME_PERF_SCRIPT, "a 1 1.0: 1 nocolon\n", 1);
    expect_error(LAT_FLAME_FOLDED, "t;a 1\nt;b\n", 2);                      /* no count */
    expect_error(LAT_FLAME_FOLDED, "t;a 1\nt;;b 2\n", 2);                   /* empty frame */
    expect_error(LAT_FLAME_FOLDED, "t;a 99999999999999999999\n", 1);        /* overflow */
    expect_error(LAT_FLAME_FOLDED, "t;a 18446744073709551615\nt;b 1\n", 2); /* total overflows */
    expect_error(LAT_FLAME_FOLDED, " 5\n", 1);
    /* a line longer than the cap, fed in pieces */
    lat_flame *f;
    assert_int_equal(lat_flame_create(LAT_FLAME_FOLDED, &f), 0);
    char big[4096];
    memset(big, 'a', sizeof big);
    int rc = 0;
    for (int i = 0; i < 20 && !rc; i++)
        rc = lat_flame_feed(f, big, sizeof big);
    assert_int_equal(rc, LAT_EFORMAT);
    assert_int_equal(lat_flame_error_line(f), 1);
    lat_flame_destroy(f);
    /* odd bytes become '?' so the SVG stays valid XML */
    const char odd[] = "t;bad\xff\x01name 1\n";
    f = parse(LAT_FLAME_FOLDED, odd, sizeof odd - 1, 100);
    char *fo = folded(f, true);
    assert_string_equal(fo, "t;bad??name 1\n");
    free(fo);
    char *svg = svg_of(f, LAT_THEME_AUTO);
    assert_xml(svg);
    free(svg);
    lat_flame_destroy(f);
    /* NULL handling */
    assert_int_equal(lat_flame_create(LAT_FLAME_PERF_SCRIPT, NULL), -EINVAL);
    assert_int_equal(lat_flame_create((lat_flame_format)9, &f), -EINVAL);
    assert_int_equal(lat_flame_feed(NULL, "", 0), -EINVAL);
    assert_int_equal(lat_flame_finish(NULL), -EINVAL);
    assert_int_equal(lat_flame_samples(NULL), 0);
    lat_flame_destroy(NULL);
}

static void test_alloc_failure(void **state) {
    (void)state;
    size_t len;
    char *text = slurp("kernel_user.txt", &len);
    lat_alloc_hooks h = {count_alloc, count_free, NULL};
    bool done = false;
    for (long k = 0; !done && k < 10000; k++) {
        live_bytes = 0;
        alloc_calls = 0;
        fail_at = k;
        lat_set_alloc_hooks(&h);
        lat_flame *f = NULL, *m = NULL;
        char *svg = NULL;
        lat_flame_diff_row *rows = NULL;
        size_t n;
        int rc = lat_flame_create(LAT_FLAME_PERF_SCRIPT, &f);
        if (!rc) rc = lat_flame_feed(f, text, len);
        if (!rc) rc = lat_flame_finish(f);
        if (!rc) rc = lat_flame_merge_threads(f, &m);
        if (!rc) rc = lat_flame_render_svg(f, NULL, &svg, NULL);
        if (!rc) rc = lat_flame_diff(f, m, &rows, &n, NULL);
        if (rc) assert_int_equal(rc, -ENOMEM);
        done = rc == 0;
        lat_flame_diff_destroy(rows);
        lat_flame_svg_destroy(svg);
        lat_flame_destroy(m);
        lat_flame_destroy(f);
        lat_set_alloc_hooks(NULL);
        assert_int_equal(live_bytes, 0);
    }
    assert_true(done);
    fail_at = -1;
    free(text);
}

/* One 128-frame [unknown] stack beside a real one (folded input): the run is
 * one frame in every output, the note says how many were folded, and the
 * image stays short; a 100-frame real stack is drawn to the row cap. */
static double svg_height(const char *svg) {
    const char *h = strstr(svg, "height=\"");
    assert_non_null(h);
    return atof(h + 8);
}
static void test_unknown_runs_folded(void **state) {
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    fprintf(m, "main;work;leaf 50\nmain");
    for (int i = 0; i < 128; i++)
        fprintf(m, ";[unknown]");
    fprintf(m, ";tail 5\n");
    fclose(m);
    lat_flame *f = parse(LAT_FLAME_FOLDED_NOTHREAD, buf, len, 4096);
    free(buf);
    char *fo = folded(f, false);
    assert_non_null(strstr(fo, "main;[unknown];tail 5"));
    assert_null(strstr(fo, "[unknown];[unknown]"));
    free(fo);
    char *svg = svg_of(f, LAT_THEME_LIGHT);
    assert_non_null(strstr(svg, "127 repeated [unknown] frames folded"));
    assert_null(strstr(svg, "data-depth=\"4\""));
    assert_true(svg_height(svg) <= 200);
    assert_xml(svg);
    free(svg);
    lat_flame_destroy(f);

    m = open_memstream(&buf, &len);
    fprintf(m, "main");
    for (int i = 0; i < 100; i++)
        fprintf(m, ";f%d", i);
    fprintf(m, " 7\n");
    fclose(m);
    f = parse(LAT_FLAME_FOLDED_NOTHREAD, buf, len, 4096);
    free(buf);
    svg = svg_of(f, LAT_THEME_LIGHT);
    assert_non_null(strstr(svg, "stacks drawn to 64 rows"));
    assert_null(strstr(svg, "repeated [unknown]"));
    assert_true(svg_height(svg) <= 58 + 64 * 17 + 10);
    free(svg);
    lat_flame_destroy(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_runs_folded),
        cmocka_unit_test(test_fixtures),
        cmocka_unit_test(test_kinds_and_shares),
        cmocka_unit_test(test_recursion_counts_once),
        cmocka_unit_test(test_merge_threads),
        cmocka_unit_test(test_deep_stack),
        cmocka_unit_test(test_50mb_stream_bounded),
        cmocka_unit_test(test_svg),
        cmocka_unit_test(test_diff),
        cmocka_unit_test(test_narrate),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_alloc_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
