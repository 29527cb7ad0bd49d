/* test_hist_bounds.c - `latlab hist` and `plot` stay bounded on small but
 * hostile logs, measured as the peak RSS of the child (wait4's ru_maxrss):
 *  - 200 tags, one interval each, declaring a 5-figure 1..2^62 geometry (a
 *    48 MB histogram each; about 20 KB of file): summary, tags and merge
 *    (main needed ~5.8 GB and hit ENOMEM);
 *  - 3,600 one-second intervals (about 1.5 MB): merge streams them
 *    (main held every decoded interval: ~1.5 GB);
 *  - /dev/zero as the input of every reader: exit 1 at once, small RSS;
 *  - three intervals of 2^62 counts: a total past INT64_MAX is refused with
 *    a clear error, never a negative total (and lat_hist_add_resize says
 *    -EOVERFLOW). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lat_test.h"
#include "latlab/hist.h"
#include "latlab/hlog.h"

#if defined(__SANITIZE_ADDRESS__)
#define RSS_SLACK_KB (600 * 1024) /* shadow memory and the quarantine */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RSS_SLACK_KB (600 * 1024)
#endif
#endif
#ifndef RSS_SLACK_KB
#define RSS_SLACK_KB 0
#endif

static const char *tmp;
static char latlab_bin[4096];

/* Run latlab with argv (NULL-terminated, without the program), stdout and
 * stderr to files under tmp; returns the exit status, *rss_kb the peak RSS. */
static int run_latlab(const char *const *args, long *rss_kb) {
    char out[4200], err[4200];
    snprintf(out, sizeof out, "%s/out.txt", tmp);
    snprintf(err, sizeof err, "%s/err.txt", tmp);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        const char *av[32];
        int n = 0;
        av[n++] = latlab_bin;
        for (int i = 0; args[i] && n < 31; i++)
            av[n++] = args[i];
        av[n] = NULL;
        int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || e < 0) _exit(126);
        dup2(o, 1);
        dup2(e, 2);
        /* a hang guard, not a speed limit: under ASan with both CPUs busy one
         * summary of the 200-tag log took over 60 s */
        alarm(600);
        execv(latlab_bin, (char *const *)av);
        _exit(127);
    }
    int st;
    struct rusage ru;
    assert_int_equal(wait4(pid, &st, 0, &ru), pid);
    *rss_kb = ru.ru_maxrss;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static char *slurp(const char *name) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void expect_bounded(const char *const *args, int want_rc, long max_kb, const char *what) {
    long kb = 0;
    int rc = run_latlab(args, &kb);
    printf("%-44s exit %d, peak RSS %ld KB (bound %ld KB)\n", what, rc, kb, max_kb + RSS_SLACK_KB);
    if (rc != want_rc) printf("stderr: %s\n", slurp("err.txt"));
    assert_int_equal(rc, want_rc);
    assert_true(kb < max_kb + RSS_SLACK_KB);
}

static void write_log(const char *path, int intervals, int ntags, int64_t highest, int sig,
                      int64_t per_interval_count) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    lat_hlog_writer w;
    assert_int_equal(lat_hlog_writer_init(&w, f, 1700000000.0, 1700000000.0, 0), 0);
    lat_hist h;
    assert_int_equal(lat_hist_init(&h, 1, highest, sig), 0);
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < intervals; i++) {
        lat_hist_reset(&h);
        if (per_interval_count) {
            lat_hist_record_n(&h, 1000 + i, per_interval_count);
        } else {
            for (int k = 0; k < (ntags > 1 ? 3 : 600); k++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                lat_hist_record(&h, 200 + (int64_t)(x % 5000) +
                                        (int64_t)((x >> 40) % 3 == 0) * (int64_t)(x % 2000000));
            }
        }
        char tag[32];
        snprintf(tag, sizeof tag, "t%03d", i % ntags);
        assert_int_equal(lat_hlog_write_interval(&w, &h, ntags > 1 ? tag : NULL,
                                                 1700000000.0 + (ntags > 1 ? 0 : i), 1.0),
                         0);
    }
    lat_hist_fini(&h);
    assert_int_equal(fclose(f), 0);
}

static void test_two_hundred_tags_five_figures(void **state) {
    (void)state;
    char log[4200], out[4200];
    snprintf(log, sizeof log, "%s/tags200.hlog", tmp);
    snprintf(out, sizeof out, "%s/tags200_merged.hlog", tmp);
    write_log(log, 200, 200, INT64_C(1) << 62, 5, 0);
    FILE *f = fopen(log, "rb");
    fseek(f, 0, SEEK_END);
    printf("200-tag log: %ld bytes\n", ftell(f));
    fclose(f);
    expect_bounded((const char *[]){"hist", "summary", log, NULL}, 0, 200 * 1024,
                   "hist summary (200 tags, 5 figures, 2^62)");
    assert_non_null(strstr(slurp("out.txt"), "t199"));
    expect_bounded((const char *[]){"hist", "percentiles", log, "--tag", "t007", NULL}, 0,
                   200 * 1024, "hist percentiles --tag");
    expect_bounded((const char *[]){"hist", "tags", log, NULL}, 0, 200 * 1024, "hist tags");
    expect_bounded((const char *[]){"hist", "merge", log, "-o", out, NULL}, 0, 200 * 1024,
                   "hist merge");
    expect_bounded((const char *[]){"hist", "summary", out, NULL}, 0, 200 * 1024,
                   "hist summary of the merged log");
    assert_non_null(strstr(slurp("out.txt"), "t199"));
}

static void test_hour_of_intervals_merge(void **state) {
    (void)state;
    char log[4200], log2[4200], out[4200];
    snprintf(log, sizeof log, "%s/hour.hlog", tmp);
    snprintf(log2, sizeof log2, "%s/hour2.hlog",
             tmp); /* a second file: one named twice is read once */
    snprintf(out, sizeof out, "%s/hour_merged.hlog", tmp);
    write_log(log, 3600, 1, INT64_C(3600000000000), 3, 0);
    write_log(log2, 3600, 1, INT64_C(3600000000000), 3, 0);
    expect_bounded((const char *[]){"hist", "merge", log, log2, "-o", out, NULL}, 0, 120 * 1024,
                   "hist merge (2 x 3,600 intervals)");
    expect_bounded((const char *[]){"hist", "summary", out, NULL}, 0, 120 * 1024,
                   "hist summary (7,200 intervals)");
    char want[64];
    snprintf(want, sizeof want, " %12d ", 2 * 3600 * 600);
    assert_non_null(strstr(slurp("out.txt"), want));
}

static void test_dev_zero_readers(void **state) {
    (void)state;
    static const char *const forms[][6] = {
        {"hist", "summary", "/dev/zero", NULL},
        {"hist", "tags", "/dev/zero", NULL},
        {"hist", "percentiles", "/dev/zero", NULL},
        {"hist", "merge", "/dev/zero", "-o", "/dev/null", NULL},
        {"plot", "/dev/zero", "-o", "/dev/null", NULL},
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        expect_bounded(forms[i], 1, 64 * 1024, forms[i][1]);
        assert_non_null(strstr(slurp("err.txt"), "/dev/zero"));
    }
}

static void test_total_count_overflow(void **state) {
    (void)state;
    char log[4200];
    snprintf(log, sizeof log, "%s/huge_counts.hlog", tmp);
    write_log(log, 3, 1, INT64_C(3600000000000), 3, INT64_C(1) << 62);
    static const char *const forms[][4] = {
        {"hist", "summary", NULL},
        {"hist", "tags", NULL},
        {"hist", "percentiles", NULL},
        {"plot", NULL},
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        const char *av[6] = {forms[i][0], forms[i][1], log, NULL, NULL, NULL};
        if (!forms[i][1]) {
            av[1] = log;
            av[2] = "-o";
            av[3] = "/dev/null";
        }
        long kb;
        int rc = run_latlab(av, &kb);
        const char *err = slurp("err.txt");
        printf("%s %s: exit %d: %s", forms[i][0], forms[i][1] ? forms[i][1] : "", rc, err);
        assert_int_equal(rc, 1);
        assert_non_null(strstr(err, "2^63-1"));
        assert_non_null(strstr(err, log));
    }
    /* the library call itself */
    lat_hist a, b;
    assert_int_equal(lat_hist_init(&a, 1, 1000, 3), 0);
    assert_int_equal(lat_hist_init(&b, 1, 10000000, 3), 0);
    lat_hist_record_n(&a, 10, INT64_MAX - 5);
    lat_hist_record_n(&b, 20, 6);
    assert_int_equal(lat_hist_add_resize(&a, &b), -EOVERFLOW);
    assert_int_equal(lat_hist_total(&a), INT64_MAX - 5);
    lat_hist_reset(&b);
    lat_hist_record_n(&b, 5000000, 5); /* beyond a's range: a grows */
    assert_int_equal(lat_hist_add_resize(&a, &b), 0);
    assert_int_equal(lat_hist_total(&a), INT64_MAX);
    assert_true(a.highest >= 5000000);
    assert_int_equal(lat_hist_count_at(&a, 5000000), 5);
    assert_int_equal(lat_hist_count_at(&a, 10), INT64_MAX - 5);
    lat_hist_fini(&a);
    lat_hist_fini(&b);
}

int main(void) {
    const char *build_dir = getenv("LAT_BUILD_DIR");
    snprintf(latlab_bin, sizeof latlab_bin, "%s/latlab", build_dir ? build_dir : "build");
    tmp = lat_test_tmpdir();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_hundred_tags_five_figures),
        cmocka_unit_test(test_hour_of_intervals_merge),
        cmocka_unit_test(test_dev_zero_readers),
        cmocka_unit_test(test_total_count_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
