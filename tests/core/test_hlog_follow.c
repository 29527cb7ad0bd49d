/* test_hlog_follow.c - latlab/hlog_follow.h on files in a temporary
 * directory: complete lines only, a missing file waited for, appearing,
 * truncated, replaced, a run's temporary followed, the callback's stop, and
 * a corrupt line reported with its line number. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lat_test.h"
#include "latlab/hlog_follow.h"

typedef struct seen {
    int intervals, events[8], stop_after;
    int64_t last_max;
} seen;

static int on_iv(void *ud, const lat_hlog_interval *iv) {
    seen *s = ud;
    s->intervals++;
    s->last_max = lat_hist_max(&iv->hist);
    return s->stop_after && s->intervals >= s->stop_after ? 7 : 0;
}

static void on_ev(void *ud, lat_hlog_follow_event ev, const char *name, const char *path) {
    (void)name, (void)path;
    ((seen *)ud)->events[ev]++;
}

/* A whole log text with intervals of max values v[0..n). */
static char *log_text(const int64_t *v, int n, double t0) {
    char *buf = NULL;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    lat_hlog_writer w;
    assert_int_equal(lat_hlog_writer_init(&w, f, t0, t0, 0), 0);
    for (int i = 0; i < n; i++) {
        lat_hist h;
        assert_int_equal(lat_hist_init(&h, 1, 1000000, 3), 0);
        lat_hist_record(&h, v[i]);
        assert_int_equal(lat_hlog_write_interval(&w, &h, NULL, t0 + i, 1.0), 0);
        lat_hist_fini(&h);
    }
    fclose(f);
    return buf;
}

static void put(const char *path, const char *mode, const char *text, size_t n) {
    FILE *f = fopen(path, mode);
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, n, f), n);
    fclose(f);
}

static lat_hlog_follow *follower(const char *path, seen *s) {
    lat_hlog_follow_ops ops = {.interval = on_iv, .event = on_ev, .ud = s};
    lat_hlog_follow *f = NULL;
    assert_int_equal(lat_hlog_follow_create(path, false, &ops, &f), 0);
    return f;
}

static void test_grow_and_switch(void **state) {
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/a.hlog", lat_test_tmpdir());
    seen s = {0};
    lat_hlog_follow *f = follower(path, &s);
    assert_int_equal(lat_hlog_follow_open(f), -ENOENT);
    assert_int_equal(lat_hlog_follow_poll(f, false), 0);
    assert_int_equal(s.events[LAT_HLOG_FOLLOW_WAITING], 1);

    int64_t v[] = {11, 22, 33};
    char *t = log_text(v, 3, 1000);
    char *last = strrchr(t, '\n');
    *last = 0;
    char *second = strrchr(t, '\n') + 1; /* the last line, its newline cut */
    size_t head = (size_t)(second - t);
    put(path, "w", t, head + 5); /* up to a piece of the last line */
    assert_int_equal(lat_hlog_follow_poll(f, false), 0);
    assert_int_equal(s.events[LAT_HLOG_FOLLOW_APPEARED], 1);
    assert_int_equal(lat_hlog_follow_poll(f, false), 0);
    assert_int_equal(s.intervals, 2); /* the unterminated line waits */
    assert_int_equal(s.last_max, 22);
    put(path, "a", second + 5, strlen(second + 5));
    put(path, "a", "\n", 1);
    assert_int_equal(lat_hlog_follow_poll(f, false), 0);
    assert_int_equal(s.intervals, 3);
    assert_int_equal(s.last_max, 33);

    /* truncated, then rewritten with one interval */
    int64_t w[] = {44};
    char *t2 = log_text(w, 1, 2000);
    put(path, "w", t2, strlen(t2));
    assert_int_equal(lat_hlog_follow_poll(f, false), 0);
    assert_int_equal(s.events[LAT_HLOG_FOLLOW_TRUNCATED], 1);
    assert_int_equal(s.intervals, 4);
    assert_int_equal(s.last_max, 44);

    /* a run writes a.hlog.tmp.X, then renames it over a.hlog: one file */
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.1", path);
    int64_t x[] = {55, 66};
    char *t3 = log_text(x, 2, 3000);
    put(tmp, "w", t3, strlen(t3));
    /* newer than the name by its mtime (file times may be as coarse as a tick) */
    struct timespec later[2] = {{0, UTIME_OMIT}, {time(NULL) + 10, 0}};
    assert_int_equal(utimensat(AT_FDCWD, tmp, later, 0), 0);
    assert_int_equal(lat_hlog_follow_poll(f, false), 0); /* sees the newer temporary */
    assert_int_equal(s.events[LAT_HLOG_FOLLOW_RUN], 1);
    assert_int_equal(lat_hlog_follow_poll(f, false), 0);
    assert_int_equal(s.intervals, 6);
    assert_int_equal(rename(tmp, path), 0);
    assert_int_equal(lat_hlog_follow_poll(f, false), 0);
    assert_int_equal(s.intervals, 6); /* the same file: nothing read twice */
    assert_int_equal(s.events[LAT_HLOG_FOLLOW_REPLACED], 0);

    /* replaced by another file */
    char other[4200];
    snprintf(other, sizeof other, "%s.new", path);
    put(other, "w", t, head);
    assert_int_equal(rename(other, path), 0);
    assert_int_equal(lat_hlog_follow_poll(f, false), 0);
    assert_int_equal(s.events[LAT_HLOG_FOLLOW_REPLACED], 1);
    assert_int_equal(lat_hlog_follow_poll(f, false), 0);
    assert_int_equal(s.intervals, 8);
    assert_false(lat_hlog_follow_eof(f));
    lat_hlog_follow_destroy(f);
    free(t);
    free(t2);
    free(t3);
}

static void test_at_end_stop_and_error(void **state) {
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/b.hlog", lat_test_tmpdir());
    int64_t v[] = {1, 2, 3};
    char *t = log_text(v, 3, 1000);
    put(path, "w", t, strlen(t) - 1); /* no final newline: at_end takes it */
    seen s = {.stop_after = 2};
    lat_hlog_follow *f = follower(path, &s);
    assert_int_equal(lat_hlog_follow_open(f), 0);
    assert_int_equal(lat_hlog_follow_poll(f, true), 7); /* the callback's value */
    assert_int_equal(s.intervals, 2);
    lat_hlog_follow_destroy(f);

    /* a corrupt data line: its line number in the file */
    char *nl = strrchr(t, '\n');
    *nl = 0;
    char *lastline = strrchr(t, '\n') + 1;
    int lines = 0;
    for (char *p = t; p < lastline; p++)
        lines += *p == '\n';
    strcpy(lastline, "0.000,1.000,0.001,!!!!\n");
    put(path, "w", t, strlen(t));
    seen s2 = {0};
    f = follower(path, &s2);
    assert_int_equal(lat_hlog_follow_open(f), 0);
    int rc = lat_hlog_follow_poll(f, false);
    assert_true(rc < 0);
    assert_int_equal(lat_hlog_follow_line(f), lines + 1);
    assert_int_equal(s2.intervals, 2);
    lat_hlog_follow_destroy(f);
    free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grow_and_switch),
        cmocka_unit_test(test_at_end_stop_and_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
