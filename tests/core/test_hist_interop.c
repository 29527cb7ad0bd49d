/* test_hist_interop.c - interop with the real peers, both directions.
 *
 *  - Java reference 2.1.11 (Debian libhdrhistogram-java): HistogramLogProcessor
 *    reads a log latlab wrote and its out and out.hgrm files are byte-identical
 *    to `latlab hist percentiles` (default, --csv, --tag, --scale, --start/--end);
 *    Java's HistogramLogReader reads our log to identical figures; a Java
 *    program compiled here with javac writes a tagged 1.3 log with BaseTime
 *    that our reader turns into identical figures (percentiles, min, max, and
 *    the mean and stddev bit for bit); Java's V2 bytes for the SPEC example
 *    equal ours.
 *  - hdr-histogram-js (npm, pinned in tests/package-lock.json): decodes our
 *    base64 and reads our whole log to identical p50/p99/max/mean.
 * A missing peer makes its test SKIPPED (with the reason), never a pass. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lat_test.h"
#include "latlab/hist.h"
#include "latlab/hlog.h"

#define JAR "/usr/share/java/hdrhistogram.jar"

static const char *src_dir, *build_dir, *tmp;
static char latlab_bin[4096];

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...) {
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int rc = system(cmd);
    if (rc != 0) printf("command failed (%d): %s\n", rc, cmd);
    return rc;
}

static bool have_java(void) {
    struct stat st;
    return stat(JAR, &st) == 0 &&
           system("command -v java >/dev/null 2>&1 && command -v javac >/dev/null 2>&1") == 0;
}

/* The same figures JavaLogWriter prints for a histogram. */
static void figures(char *buf, size_t cap, const char *tag, const lat_hist *h) {
    static const double ps[] = {0, 25, 50, 90, 99, 99.9, 99.99, 99.999, 100};
    int64_t v[9];
    lat_hist_values_at_percentiles(h, ps, v, 9);
    double mean = lat_hist_mean(h), sd = lat_hist_stddev(h);
    int64_t mb, sb;
    memcpy(&mb, &mean, 8);
    memcpy(&sb, &sd, 8);
    int n = snprintf(buf, cap, "%s %" PRId64 " %" PRId64 " %" PRId64, tag && *tag ? tag : "-",
                     lat_hist_total(h), lat_hist_min(h), lat_hist_max(h));
    for (int i = 0; i < 9; i++)
        n += snprintf(buf + n, cap - (size_t)n, " %" PRId64, v[i]);
    snprintf(buf + n, cap - (size_t)n, " %" PRId64 " %" PRId64 "\n", mb, sb);
}

/* Per-tag figures of a log (tags sorted; "" first), concatenated. */
static char *log_figures(const char *path) {
    lat_hlog_reader *r;
    assert_int_equal(lat_hlog_reader_create(path, &r), 0);
    char tags[8][LAT_HLOG_TAG_MAX];
    lat_hist acc[8];
    int n = 0, rc;
    lat_hlog_interval *iv;
    while ((rc = lat_hlog_next(r, &iv)) == 1) {
        int k;
        for (k = 0; k < n; k++)
            if (!strcmp(tags[k], iv->tag)) break;
        if (k == n) {
            assert_true(n < 8);
            strcpy(tags[n], iv->tag);
            assert_int_equal(lat_hist_copy(&acc[n], &iv->hist), 0);
            n++;
        } else {
            assert_int_equal(lat_hist_add_resize(&acc[k], &iv->hist), 0);
        }
    }
    if (rc < 0) printf("%s:%d: %s\n", path, lat_hlog_reader_line(r), lat_hlog_reader_reason(r));
    assert_int_equal(rc, 0);
    lat_hlog_reader_destroy(r);
    /* sort by tag */
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (strcmp(tags[b], tags[a]) < 0) {
                char t[LAT_HLOG_TAG_MAX];
                strcpy(t, tags[a]);
                strcpy(tags[a], tags[b]);
                strcpy(tags[b], t);
                lat_hist x = acc[a];
                acc[a] = acc[b];
                acc[b] = x;
            }
    char *out = calloc(1, 8 * 512);
    size_t len = 0;
    for (int k = 0; k < n; k++) {
        figures(out + len, 512, tags[k], &acc[k]);
        len += strlen(out + len);
        lat_hist_fini(&acc[k]);
    }
    return out;
}

/* Our log: 5 untagged intervals and 3 tagged B, latency-like, plus a few
 * outliers, 3 significant figures, ns values. */
static void write_our_log(const char *path) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    lat_hlog_writer w;
    assert_int_equal(lat_hlog_writer_init(&w, f, 1700000000.0, 1700000000.0, 0), 0);
    assert_int_equal(lat_hlog_write_comment(&w, "[written by latlab's interop test]"), 0);
    lat_hist h;
    assert_int_equal(lat_hist_init(&h, 1, INT64_C(3600000000000), 3), 0);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 8; i++) {
        lat_hist_reset(&h);
        int n = 30000 + 5000 * i;
        for (int k = 0; k < n; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            int64_t v =
                180 + (int64_t)(x % 600) + (int64_t)((x >> 20) % 64) * (int64_t)((x >> 30) % 64);
            if ((x >> 40) % 4000 == 0) v += 1000000 + (int64_t)((x >> 8) % 40000000);
            if (i >= 5) v *= 3;
            lat_hist_record(&h, v);
        }
        const char *tag = i >= 5 ? "B" : NULL;
        double start = 1700000000.0 + (i >= 5 ? i - 5 : i);
        assert_int_equal(lat_hlog_write_interval(&w, &h, tag, start, 1.0), 0);
    }
    lat_hist_fini(&h);
    fclose(f);
}

static void compare_files(const char *a, const char *b) {
    char *x = slurp(a), *y = slurp(b);
    assert_non_null(x);
    assert_non_null(y);
    if (strcmp(x, y) != 0) sh("diff %s %s | head -20", a, b);
    assert_string_equal(x, y);
    free(x);
    free(y);
}

/* HistogramLogProcessor's out and out.hgrm for log (with java's options)
 * equal `latlab hist percentiles` (with ours), which warns about nothing. */
static void processor_vs_ours(const char *log, const char *java, const char *ours, int i) {
    assert_int_equal(sh("cd %s && TZ=UTC java -cp " JAR
                        " org.HdrHistogram.HistogramLogProcessor -i %s -o j%d %s >/dev/null",
                        tmp, log, i, java),
                     0);
    assert_int_equal(sh("%s hist percentiles %s %s -o %s/l%d.hgrm 2>%s/l%d.err", latlab_bin, log,
                        ours, tmp, i, tmp, i),
                     0);
    assert_int_equal(
        sh("%s hist percentiles %s %s --intervals -o %s/l%d", latlab_bin, log, ours, tmp, i), 0);
    char a[4200], b[4200];
    snprintf(a, sizeof a, "%s/j%d.hgrm", tmp, i);
    snprintf(b, sizeof b, "%s/l%d.hgrm", tmp, i);
    compare_files(a, b);
    snprintf(a, sizeof a, "%s/j%d", tmp, i);
    snprintf(b, sizeof b, "%s/l%d", tmp, i);
    compare_files(a, b);
    snprintf(b, sizeof b, "%s/l%d.err", tmp, i);
    char *err = slurp(b);
    assert_string_equal(err, "");
    free(err);
}

static void test_java_processor_reads_ours(void **state) {
    (void)state;
    if (!have_java()) LAT_SKIP("Java reference not installed (java, javac, " JAR ")");
    char log[4096];
    snprintf(log, sizeof log, "%s/ours.hlog", tmp);
    write_our_log(log);
    static const struct {
        const char *java, *ours;
    } runs[] = {
        /* Java's default ratio is 1e6; ours picks the unit from the data unless told */
        {"", "--scale 1000000"},
        {"-csv", "--csv --scale 1000000"},
        {"-tag B", "--tag B --scale 1000000"},
        {"-outputValueUnitRatio 1", "--scale 1"},
        {"-outputValueUnitRatio 1000 -tag B -csv", "--scale 1000 --tag B --csv"},
        {"-start 1 -end 3", "--start 1 --end 3 --scale 1000000"},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        printf("HistogramLogProcessor %s vs latlab hist percentiles %s\n", runs[i].java,
               runs[i].ours);
        processor_vs_ours(log, runs[i].java, runs[i].ours, (int)i);
    }
}

static bool compile_java(void) {
    static int done = -1;
    if (done < 0)
        done = sh("javac -nowarn -d %s -cp " JAR " %s/tests/interop/JavaLogWriter.java", tmp,
                  src_dir) == 0;
    return done;
}

static void test_java_reader_and_writer(void **state) {
    (void)state;
    if (!have_java()) LAT_SKIP("Java reference not installed (java, javac, " JAR ")");
    assert_true(compile_java());
    /* Java writes a tagged 1.3 log; we read it to identical figures. */
    char jlog[4096], jfig[4096], ofig[4096];
    snprintf(jlog, sizeof jlog, "%s/java.hlog", tmp);
    snprintf(jfig, sizeof jfig, "%s/java_figures.txt", tmp);
    assert_int_equal(sh("TZ=UTC java -cp " JAR ":%s JavaLogWriter write %s > %s", tmp, jlog, jfig),
                     0);
    char *want = slurp(jfig), *got = log_figures(jlog);
    printf("Java wrote (tag count min max p0..p100 mean-bits sd-bits):\n%s", want);
    assert_string_equal(got, want);
    free(want);
    free(got);
    /* Java's reader on our log agrees with ours. */
    char log[4096];
    snprintf(log, sizeof log, "%s/ours2.hlog", tmp);
    write_our_log(log);
    snprintf(ofig, sizeof ofig, "%s/java_reads_ours.txt", tmp);
    assert_int_equal(sh("java -cp " JAR ":%s JavaLogWriter read %s > %s", tmp, log, ofig), 0);
    want = slurp(ofig);
    got = log_figures(log);
    assert_string_equal(got, want);
    free(want);
    free(got);
    /* The V2 example's bytes. */
    snprintf(ofig, sizeof ofig, "%s/v2.txt", tmp);
    assert_int_equal(sh("java -cp " JAR ":%s JavaLogWriter v2example > %s", tmp, ofig), 0);
    lat_hist h;
    assert_int_equal(lat_hist_init(&h, 1, INT64_C(3600000000), 3), 0);
    lat_hist_record(&h, 1);
    lat_hist_record(&h, 2);
    lat_hist_record(&h, 2);
    lat_hist_record(&h, 5);
    lat_hist_record_n(&h, 1000, 100);
    lat_hist_record(&h, 100000);
    uint8_t buf[128];
    size_t n;
    assert_int_equal(lat_hist_encode(&h, buf, sizeof buf, &n), 0);
    char hex[300] = "";
    for (size_t i = 0; i < n; i++)
        sprintf(hex + 2 * i, "%02x", buf[i]);
    strcat(hex, "\n");
    want = slurp(ofig);
    assert_string_equal(hex, want);
    free(want);
    lat_hist_fini(&h);
}

/* Java's auto-resizing histograms (new Histogram(3)) declare a different
 * range in every interval; the first one here is the narrowest.  Every
 * command merges all of them as HistogramLogProcessor does: byte-identical
 * .hgrm and interval lines, and the same per-tag figures from our reader,
 * from `hist merge`'s output and in `hist summary`. */
static void test_java_autoresize_log(void **state) {
    (void)state;
    if (!have_java()) LAT_SKIP("Java reference not installed (java, javac, " JAR ")");
    assert_true(compile_java());
    char jlog[4096], jfig[4096], path[4200];
    snprintf(jlog, sizeof jlog, "%s/java_auto.hlog", tmp);
    snprintf(jfig, sizeof jfig, "%s/java_auto_figures.txt", tmp);
    assert_int_equal(
        sh("TZ=UTC java -cp " JAR ":%s JavaLogWriter autoresize %s > %s", tmp, jlog, jfig), 0);
    char *want = slurp(jfig), *got = log_figures(jlog);
    printf("Java wrote (auto-resizing):\n%s", want);
    assert_string_equal(got, want);
    free(got);
    processor_vs_ours(jlog, "", "--scale 1000000", 100);
    processor_vs_ours(jlog, "-tag A -csv", "--tag A --csv --scale 1000000", 101);
    /* merge keeps every interval */
    snprintf(path, sizeof path, "%s/merged_auto.hlog", tmp);
    assert_int_equal(sh("%s hist merge %s -o %s", latlab_bin, jlog, path), 0);
    got = log_figures(path);
    assert_string_equal(got, want);
    free(got);
    /* summary counts and maxima are Java's */
    char sum[4200];
    snprintf(sum, sizeof sum, "%s/auto_summary.txt", tmp);
    assert_int_equal(sh("%s hist summary %s > %s", latlab_bin, jlog, sum), 0);
    char *s = slurp(sum);
    printf("%s", s);
    for (const char *line = want; *line; line = strchr(line, '\n') + 1) {
        char tag[64], expect[128];
        int64_t count, min, max;
        assert_int_equal(
            sscanf(line, "%63s %" SCNd64 " %" SCNd64 " %" SCNd64, tag, &count, &min, &max), 4);
        snprintf(expect, sizeof expect, "%-16s %12" PRId64 " %12.3f",
                 strcmp(tag, "-") ? tag : "(untagged)", count, (double)min);
        assert_non_null(strstr(s, expect));
        snprintf(expect, sizeof expect, " %12.3f ", (double)max);
        assert_non_null(strstr(s, expect));
    }
    free(s);
    /* plot merges them too: Java's count and max, and no warning */
    assert_int_equal(sh("%s plot %s -o %s/auto.svg --json %s/auto.json 2>%s/auto.err >/dev/null",
                        latlab_bin, jlog, tmp, tmp, tmp),
                     0);
    snprintf(sum, sizeof sum, "%s/auto.err", tmp);
    s = slurp(sum);
    assert_string_equal(s, "");
    free(s);
    snprintf(sum, sizeof sum, "%s/auto.json", tmp);
    s = slurp(sum);
    int64_t count, min, max;
    char tag[64];
    assert_int_equal(sscanf(want, "%63s %" SCNd64 " %" SCNd64 " %" SCNd64, tag, &count, &min, &max),
                     4);
    char expect[128];
    snprintf(expect, sizeof expect, "\"count\": %" PRId64, count);
    if (!strstr(s, expect)) printf("plot JSON: %s\n", s);
    assert_non_null(strstr(s, expect));
    snprintf(expect, sizeof expect, "\"max_ns\": %" PRId64 ".0", max);
    assert_non_null(strstr(s, expect));
    free(s);
    /* and hist export: the exported count is Java's */
    snprintf(sum, sizeof sum, "%s/auto.prom", tmp);
    assert_int_equal(sh("%s hist export %s --text > %s", latlab_bin, jlog, sum), 0);
    s = slurp(sum);
    snprintf(expect, sizeof expect, "} %" PRId64 "\n", count);
    const char *line = strstr(s, "_count{stage=\"java_auto\"");
    assert_non_null(line);
    assert_non_null(strstr(line, expect));
    assert_true(strstr(line, expect) < strchr(line, '\n') + 1);
    free(s);
    free(want);
}

static void test_hdr_histogram_js(void **state) {
    (void)state;
    char mod[4200];
    snprintf(mod, sizeof mod, "%s/tests/node_modules/hdr-histogram-js/package.json", src_dir);
    struct stat st;
    if (system("command -v node >/dev/null 2>&1") != 0) LAT_SKIP("node is not installed");
    if (stat(mod, &st) != 0)
        LAT_SKIP("tests/node_modules missing: run 'make npm' (npm ci in tests/)");
    char log[4096], out[4096];
    snprintf(log, sizeof log, "%s/ours_js.hlog", tmp);
    write_our_log(log);
    /* whole log, merged per tag */
    snprintf(out, sizeof out, "%s/js_log.txt", tmp);
    assert_int_equal(
        sh("cd %s/tests && node interop/hdr_js_check.js log %s > %s", src_dir, log, out), 0);
    char *js = slurp(out);
    printf("hdr-histogram-js read our log:\n%s", js);
    lat_hlog_reader *r;
    assert_int_equal(lat_hlog_reader_create(log, &r), 0);
    lat_hist acc[2];
    bool have[2] = {false, false};
    lat_hlog_interval *iv;
    int rc;
    while ((rc = lat_hlog_next(r, &iv)) == 1) {
        int k = iv->tag[0] ? 1 : 0; /* untagged ("-") first, then B */
        if (!have[k])
            assert_int_equal(lat_hist_copy(&acc[k], &iv->hist), 0);
        else
            lat_hist_add(&acc[k], &iv->hist);
        have[k] = true;
    }
    assert_int_equal(rc, 0);
    lat_hlog_reader_destroy(r);
    char *line = js;
    for (int k = 0; k < 2; k++) {
        assert_true(have[k]);
        char tag[64];
        int64_t count, p50, p99, max;
        char mean_s[64];
        assert_int_equal(sscanf(line, "%63s %" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd64 " %63s",
                                tag, &count, &p50, &p99, &max, mean_s),
                         6);
        assert_string_equal(tag, k == 0 ? "-" : "B");
        assert_int_equal(count, lat_hist_total(&acc[k]));
        assert_int_equal(p50, lat_hist_value_at_percentile(&acc[k], 50));
        assert_int_equal(p99, lat_hist_value_at_percentile(&acc[k], 99));
        assert_int_equal(max, lat_hist_max(&acc[k]));
        assert_true(strtod(mean_s, NULL) == lat_hist_mean(&acc[k]));
        line = strchr(line, '\n') + 1;
    }
    /* one base64 histogram */
    char *b64;
    assert_int_equal(lat_hist_encode_base64(&acc[1], &b64), 0);
    assert_int_equal(
        sh("cd %s/tests && node interop/hdr_js_check.js b64 %s > %s", src_dir, b64, out), 0);
    lat_hist_buf_free(b64);
    char *one = slurp(out);
    char tag[64], mean_s[64];
    int64_t count, p50, p99, max;
    assert_int_equal(sscanf(one, "%63s %" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd64 " %63s", tag,
                            &count, &p50, &p99, &max, mean_s),
                     6);
    assert_int_equal(count, lat_hist_total(&acc[1]));
    assert_int_equal(p50, lat_hist_value_at_percentile(&acc[1], 50));
    assert_int_equal(p99, lat_hist_value_at_percentile(&acc[1], 99));
    assert_int_equal(max, lat_hist_max(&acc[1]));
    assert_true(strtod(mean_s, NULL) == lat_hist_mean(&acc[1]));
    free(one);
    free(js);
    lat_hist_fini(&acc[0]);
    lat_hist_fini(&acc[1]);
}

int main(void) {
    src_dir = getenv("LAT_SRC_DIR");
    build_dir = getenv("LAT_BUILD_DIR");
    if (!src_dir) src_dir = ".";
    if (!build_dir) build_dir = "build";
    snprintf(latlab_bin, sizeof latlab_bin, "%s/latlab", build_dir);
    tmp = lat_test_tmpdir();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_java_processor_reads_ours),
        cmocka_unit_test(test_java_reader_and_writer),
        cmocka_unit_test(test_java_autoresize_log),
        cmocka_unit_test(test_hdr_histogram_js),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
