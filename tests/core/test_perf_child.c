/* test_perf_child.c - a command run under counters (core/perf_child.c): the
 * exit code of `true`, `false`, a child killed by a signal (128+N) and a
 * command that cannot exec (127, exec's ENOENT); a SIGTERM sent to the
 * caller passed on to the child; the signal mask given back.  Counters may
 * be unavailable here (no PMU, a paranoid kernel): the counts are only
 * checked to be either counted or unavailable with a reason. */
#include "lat_test.h"

#include "latlab/perf_child.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run argv under task-clock; its exit code, *exec_err, and the child in *out. */
static int run(char **argv, int *exec_err, lat_perf_child *out) {
    memset(out, 0, sizeof *out);
    out->cmd = argv;
    out->events = "task-clock";
    assert_int_equal(lat_perf_child_start(out), 0);
    assert_true(out->pid > 0);
    assert_int_equal(lat_perf_child_wait(out), 0);
    return lat_perf_child_exit(out, exec_err);
}

static bool term_blocked(void) {
    sigset_t now;
    sigprocmask(SIG_BLOCK, NULL, &now);
    return sigismember(&now, SIGTERM);
}

static void test_exit_codes(void **state) {
    (void)state;
    char *t[] = {"true", NULL}, *f[] = {"false", NULL};
    char *killed[] = {"sh", "-c", "kill -KILL $$", NULL};
    char *missing[] = {"/nonexistent/latlab-no-such-command", NULL};
    lat_perf_child c;
    int e = -1;
    assert_int_equal(run(t, &e, &c), 0);
    assert_int_equal(e, 0);
    assert_false(term_blocked()); /* the mask is given back */
    assert_int_equal(c.sig, 0);
    lat_perf_child_fini(&c);
    assert_int_equal(run(f, &e, &c), 1);
    lat_perf_child_fini(&c);
    assert_int_equal(run(killed, &e, &c), 128 + SIGKILL);
    assert_int_equal(e, 0);
    lat_perf_child_fini(&c);
    assert_int_equal(run(missing, &e, &c), 127);
    assert_int_equal(e, ENOENT);
    lat_perf_child_fini(&c);
}

static void test_counts_or_reason(void **state) {
    (void)state;
    char *t[] = {"true", NULL};
    lat_perf_child c;
    int e;
    assert_int_equal(run(t, &e, &c), 0);
    int rc = lat_perf_child_read(&c);
    assert_int_equal(c.n, 1);
    assert_string_equal(lat_perf_name(c.p, 0), "task-clock");
    if (c.cnt[0].state == LAT_PERF_UNAVAILABLE) {
        assert_non_null(lat_perf_reason(c.p, 0));
        printf("task-clock unavailable here: %s\n", lat_perf_reason(c.p, 0));
    } else {
        assert_int_equal(rc, 0);
        assert_true(c.cnt[0].state == LAT_PERF_COUNTED || c.cnt[0].state == LAT_PERF_SCALED ||
                    c.cnt[0].state == LAT_PERF_NOT_COUNTED);
    }
    lat_perf_child_fini(&c);
}

static void test_sigterm_passed_on(void **state) {
    (void)state;
    char *sl[] = {"sleep", "30", NULL};
    lat_perf_child c;
    memset(&c, 0, sizeof c);
    c.cmd = sl;
    c.events = "task-clock";
    assert_int_equal(lat_perf_child_start(&c), 0);
    /* SIGTERM is held from start on: sent now, it waits for lat_perf_child_wait */
    assert_int_equal(kill(getpid(), SIGTERM), 0);
    assert_int_equal(lat_perf_child_wait(&c), 0);
    int e;
    assert_int_equal(lat_perf_child_exit(&c, &e), 128 + SIGTERM);
    assert_int_equal(c.sig, SIGTERM);
    assert_false(term_blocked());
    lat_perf_child_fini(&c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_codes),
        cmocka_unit_test(test_counts_or_reason),
        cmocka_unit_test(test_sigterm_passed_on),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
