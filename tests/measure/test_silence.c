/* test_silence.c - the silence check's parsers and renderer (latlab/silence.h)
 * fed from fixture text (tests/data/silence/), runnable as any user: per-CPU
 * counts, the time each intruder held the CPU, the workload and its forked
 * descendants left out, the interrupt sources, overruns from the stats file,
 * the table limit, and the printed and JSON reports. */
#include "lat_test.h"

#include "latlab/silence.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static lat_silence_report R; /* large: off the stack */

static char *fixture(const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/silence/%s", getenv("LAT_SRC_DIR"), name);
    FILE *f = fopen(path, "r");
    if (!f) fail_msg("cannot open %s", path);
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static const lat_silence_task *task(const lat_silence_report *r, int pid) {
    for (int i = 0; i < r->ntasks; i++)
        if (r->tasks[i].pid == pid) return &r->tasks[i];
    return NULL;
}

static uint64_t irq(const lat_silence_report *r, const char *name) {
    for (int i = 0; i < r->nirqs; i++)
        if (!strcmp(r->irqs[i].name, name)) return r->irqs[i].count;
    return 0;
}

static lat_silence_report *fresh(int cpu) {
    lat_silence_report_fini(&R);
    assert_int_equal(lat_silence_report_init(&R, &cpu, 1), 0);
    return &R;
}

static void test_counts(void **st) {
    (void)st;
    lat_silence_report *r = fresh(1);
    lat_silence_parse_trace(r, 1, fixture("cpu1.trace"));
    const lat_silence_cpu *c = &r->cs[1];
    assert_int_equal(c->sw, 4);
    assert_int_equal(c->wake, 1);
    assert_int_equal(c->irq, 1);
    assert_int_equal(c->softirq, 3);
    assert_int_equal(c->vec, 3);
    assert_int_equal(c->entries, 12); /* comments and the unknown line are not entries */
    assert_true(fabs(c->intruded_us - 600.0) < 0.01);
    assert_int_equal(r->ntasks, 2); /* idle is never an intruder */
    const lat_silence_task *k = task(r, 42), *s = task(r, 15);
    assert_non_null(k);
    assert_non_null(s);
    assert_string_equal(k->comm, "kworker/1:1");
    assert_int_equal(k->count, 1);
    assert_int_equal(k->wakeups, 1);
    assert_true(fabs(k->held_us - 500.0) < 0.01);
    assert_true(fabs(s->held_us - 100.0) < 0.01);
    assert_int_equal(irq(r, "local_timer"), 3);
    assert_int_equal(irq(r, "softirq TIMER"), 2);
    assert_int_equal(irq(r, "softirq RCU"), 1);
    assert_int_equal(irq(r, "irq 36 (virtio1-req.0)"), 1);
    lat_silence_report_sort(r);
    assert_int_equal(r->tasks[0].pid, 42);
    assert_string_equal(r->irqs[0].name, "local_timer");
}

/* The workload (pid 100) and what it forked (101, 102 through 101) are not
 * intruders; the kworker that took the CPU from it is, for 250 us. */
static void test_workload(void **st) {
    (void)st;
    lat_silence_report *r = fresh(1);
    const char *text = fixture("workload.trace");
    r->child = 100;
    lat_silence_parse_forks(r, text);
    assert_int_equal(r->nforks, 2);
    lat_silence_build_workload(r);
    assert_int_equal(r->nwl, 3);
    lat_silence_parse_trace(r, 1, text);
    assert_int_equal(r->cs[1].sw, 3);
    assert_int_equal(r->ntasks, 1);
    assert_int_equal(r->tasks[0].pid, 77);
    assert_int_equal(r->tasks[0].count, 1);
    assert_true(fabs(r->tasks[0].held_us - 250.0) < 0.01);
    assert_true(fabs(r->cs[1].intruded_us - 250.0) < 0.01);

    /* without the workload named, its tasks are intruders */
    r = fresh(1);
    lat_silence_parse_trace(r, 1, text);
    assert_non_null(task(r, 102));
    assert_non_null(task(r, 101)); /* woken */
    assert_true(r->cs[1].intruded_us > 250.0);
}

static void test_stats_and_limits(void **st) {
    (void)st;
    lat_silence_report *r = fresh(1);
    lat_silence_parse_stats(r, 1, "entries: 12\noverrun: 7\ncommit overrun: 0\nbytes: 100\n");
    assert_int_equal(r->cs[1].overrun, 7);
    /* more distinct tasks than the table holds: the rest counted as dropped */
    char line[256];
    for (int i = 1; i <= LAT_SILENCE_MAXTASK + 88; i++) {
        snprintf(line, sizeof line,
                 "  <idle>-0 [001] d..2. 1.%06d: sched_switch: prev_comm=swapper/1 prev_pid=0 "
                 "prev_prio=120 prev_state=R ==> next_comm=t next_pid=%d next_prio=120",
                 i, 1000 + i);
        lat_silence_trace_line(r, 1, line);
    }
    assert_int_equal(r->ntasks, LAT_SILENCE_MAXTASK);
    assert_int_equal(r->dropped_tasks, 88);
    /* out-of-range CPUs and junk are ignored */
    lat_silence_trace_line(r, -1, "x: sched_switch: prev_pid=1");
    lat_silence_trace_line(r, LAT_SILENCE_MAXCPU, "x: sched_switch: prev_pid=1");
    lat_silence_parse_trace(r, 1, "\n\n: sched_switch: \n_entry: vector=\n");
    int bad = 5000;
    lat_silence_report_fini(&R); /* init starts from nothing: it would drop R's tables */
    assert_int_equal(lat_silence_report_init(&R, &bad, 1), -EINVAL);
}

static void test_print(void **st) {
    (void)st;
    lat_silence_report *r = fresh(1);
    lat_silence_parse_trace(r, 1, fixture("cpu1.trace"));
    lat_silence_parse_stats(r, 1, "overrun: 3\n");
    r->traced_ns = 250000000;
    r->reader_cpu = 0;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(lat_silence_report_print(r, f, 1), 0);
    fclose(f);
    assert_non_null(strstr(buf, "silence check: CPU 1 traced for 0.250 s (reader on CPU 0)\n"));
    assert_non_null(strstr(buf, "     1            4            1        1        3        3 "
                                "       600.0         3\n"));
    assert_non_null(strstr(buf, "       1        1        1        500.0  kworker/1:1-42\n"));
    assert_null(strstr(buf, "ksoftirqd")); /* --top 1 */
    assert_non_null(strstr(buf, "       1        3  local_timer\n"));
    assert_non_null(strstr(buf, "warning: 3 events were lost (ring overrun)"));
    free(buf);

    char path[] = "/tmp/test_silence_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(lat_silence_report_write_json(r, path), 0);
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    unlink(path);
    assert_non_null(j);
    json_t *cpu = json_array_get(json_object_get(j, "cpus"), 0);
    assert_int_equal(json_integer_value(json_object_get(cpu, "sched_switch")), 4);
    assert_int_equal(json_integer_value(json_object_get(cpu, "overrun")), 3);
    assert_int_equal(json_array_size(json_object_get(j, "intruders")), 2);
    assert_int_equal(json_array_size(json_object_get(j, "interrupts")), 4);
    json_decref(j);
    lat_silence_report_fini(&R);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_workload),
        cmocka_unit_test(test_stats_and_limits),
        cmocka_unit_test(test_print),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
