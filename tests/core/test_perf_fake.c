/* test_perf_fake.c - the counter paths no VM here can reach, driven through
 * perf.c's kernel seam (lat__perf_set_sys) by a scripted PMU: counts scaled
 * by enabled/running under multiplexing (and their deltas), "not counted"
 * when running is 0, a pinned hardware group whose leader cannot be
 * scheduled (read returns 0 bytes), EACCES retried with exclude_kernel (and
 * the kernel-only events refused or taken from getrusage), EINTR on open and
 * read retried, ENOENT reasons with and without a CPU PMU in sysfs, and an
 * event that cannot join its group (EINVAL) opened alone.  Every answer is
 * known from the script, so each branch can fail. */
#include "lat_test.h"

#include "latlab/perf.h"
#include "perf_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- the scripted PMU --------------------------------------------------------------- */

#define FAKE_FDS 64
#define FD_BASE 1000

typedef struct fake_event {
    bool open;
    int leader; /* fd of its group leader (itself for a leader) */
    uint32_t type;
    uint64_t config;
    uint64_t value; /* cumulative count */
} fake_event;

static struct {
    fake_event ev[FAKE_FDS];
    int nfd;
    /* script */
    bool eacces_unless_user; /* hardware: EACCES unless exclude_kernel */
    bool eacces_sw_unless_user;
    int enoent_config;         /* hardware config answering ENOENT (-1: none) */
    int einval_join_config;    /* hardware config that cannot join a group (-1: none) */
    int eintr_opens;           /* next opens interrupted */
    int eintr_reads;           /* next reads interrupted */
    bool dead_hw_group;        /* hardware leader reads 0 bytes */
    uint64_t enabled, running; /* cumulative group times */
    int opens, reads, closes, ioctls;
} pmu;

static void pmu_reset(void) {
    memset(&pmu, 0, sizeof pmu);
    pmu.enoent_config = -1;
    pmu.einval_join_config = -1;
}

static bool is_hw(uint32_t type) {
    return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_RAW || type == PERF_TYPE_HW_CACHE;
}

static long fake_open(struct perf_event_attr *a, pid_t pid, int cpu, int group_fd,
                      unsigned long flags) {
    (void)pid, (void)cpu, (void)flags;
    pmu.opens++;
    if (pmu.eintr_opens > 0) {
        pmu.eintr_opens--;
        errno = EINTR;
        return -1;
    }
    bool hw = is_hw(a->type);
    if (hw && (int)a->config == pmu.enoent_config) {
        errno = ENOENT;
        return -1;
    }
    if (((hw && pmu.eacces_unless_user) || (!hw && pmu.eacces_sw_unless_user)) &&
        !a->exclude_kernel) {
        errno = EACCES;
        return -1;
    }
    if (group_fd >= 0 && hw && (int)a->config == pmu.einval_join_config) {
        errno = EINVAL;
        return -1;
    }
    assert_true(pmu.nfd < FAKE_FDS);
    int fd = FD_BASE + pmu.nfd++;
    fake_event *e = &pmu.ev[fd - FD_BASE];
    memset(e, 0, sizeof *e);
    e->open = true;
    e->leader = group_fd >= 0 ? group_fd : fd;
    e->type = a->type;
    e->config = a->config;
    return fd;
}

static fake_event *lookup(int fd) {
    assert_true(fd >= FD_BASE && fd < FD_BASE + pmu.nfd);
    fake_event *e = &pmu.ev[fd - FD_BASE];
    assert_true(e->open);
    return e;
}

/* PERF_FORMAT_GROUP | ID | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING:
 * nr, enabled, running, then (value, id) per member in open order. */
static ssize_t fake_read(int fd, void *buf, size_t len) {
    pmu.reads++;
    if (pmu.eintr_reads > 0) {
        pmu.eintr_reads--;
        errno = EINTR;
        return -1;
    }
    fake_event *l = lookup(fd);
    if (pmu.dead_hw_group && is_hw(l->type)) return 0;
    uint64_t *w = buf;
    size_t n = 0;
    w[1] = pmu.enabled;
    w[2] = pmu.running;
    for (int i = 0; i < pmu.nfd; i++) {
        fake_event *e = &pmu.ev[i];
        if (!e->open || e->leader != fd) continue;
        assert_true((3 + 2 * (n + 1)) * 8 <= len);
        w[3 + 2 * n] = e->value;
        w[4 + 2 * n] = (uint64_t)(FD_BASE + i); /* the id is the fd */
        n++;
    }
    w[0] = n;
    return (ssize_t)((3 + 2 * n) * 8);
}

static int fake_ioctl(int fd, unsigned long request, uintptr_t arg) {
    pmu.ioctls++;
    lookup(fd);
    if (request == PERF_EVENT_IOC_ID) *(uint64_t *)arg = (uint64_t)fd;
    return 0;
}

static int fake_close(int fd) {
    pmu.closes++;
    lookup(fd)->open = false;
    return 0;
}

static const lat__perf_sys fake = {fake_open, fake_read, fake_ioctl, fake_close};

/* the fake event currently open for config (hardware) */
static fake_event *hw_event(uint64_t config) {
    for (int i = pmu.nfd - 1; i >= 0; i--)
        if (pmu.ev[i].open && is_hw(pmu.ev[i].type) && pmu.ev[i].config == config)
            return &pmu.ev[i];
    fail_msg("no open hardware event with config %llu", (unsigned long long)config);
    return NULL;
}

static char sysfs_none[4096], sysfs_cpu[4096];

static int setup(void **state) {
    (void)state;
    pmu_reset();
    lat__perf_set_sys(&fake);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    lat__perf_set_sys(NULL);
    assert_int_equal(pmu.nfd > 0 ? pmu.closes <= pmu.nfd : 1, 1);
    return 0;
}

static lat_perf *open_set(const char *events, const char *root) {
    lat_perf *p = NULL;
    char err[200] = "";
    lat_perf_opts o = {.sysfs_root = root, .err = err, .err_len = sizeof err};
    int rc = lat_perf_create(&p, events, &o);
    if (rc) printf("lat_perf_create(%s): %d %s\n", events, rc, err);
    assert_int_equal(rc, 0);
    return p;
}

/* ---- the branches ----------------------------------------------------------------- */

static void test_scaled_by_enabled_over_running(void **state) {
    (void)state;
    lat_perf *p = open_set("cycles,instructions", sysfs_cpu);
    assert_int_equal(lat_perf_ncountable(p), 2);
    assert_int_equal(lat_perf_start(p), 0);
    hw_event(PERF_COUNT_HW_CPU_CYCLES)->value = 100;
    hw_event(PERF_COUNT_HW_INSTRUCTIONS)->value = 300;
    pmu.enabled = 1000, pmu.running = 250; /* on the PMU a quarter of the time */
    lat_perf_count c[2];
    assert_int_equal(lat_perf_read(p, c, 2), 2);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(c[i].state, LAT_PERF_SCALED);
        assert_int_equal(c[i].enabled_ns, 1000);
        assert_int_equal(c[i].running_ns, 250);
        assert_true(c[i].coverage == 0.25);
    }
    assert_int_equal(c[0].value, 100);
    assert_true(c[0].scaled == 400.0);
    assert_true(c[1].scaled == 1200.0);
    /* the next reading is a delta: +200 cycles over +1000 enabled, +1000 running */
    hw_event(PERF_COUNT_HW_CPU_CYCLES)->value = 300;
    hw_event(PERF_COUNT_HW_INSTRUCTIONS)->value = 900;
    pmu.enabled = 2000, pmu.running = 1250;
    assert_int_equal(lat_perf_read(p, c, 2), 2);
    assert_int_equal(c[0].state, LAT_PERF_COUNTED);
    assert_int_equal(c[0].value, 200);
    assert_true(c[0].scaled == 200.0);
    assert_true(c[1].scaled == 600.0);
    /* totals add the regions' scaled counts */
    lat_perf_count t[2];
    assert_int_equal(lat_perf_total(p, t, 2), 2);
    assert_true(t[0].scaled == 600.0);
    assert_int_equal(t[0].state, LAT_PERF_SCALED);
    assert_int_equal(lat_perf_stop(p), 0);
    lat_perf_destroy(p);
    assert_int_equal(pmu.closes, pmu.opens); /* probes and the set: every fd closed */
}

static void test_not_counted_when_running_is_zero(void **state) {
    (void)state;
    lat_perf *p = open_set("cycles,task-clock", sysfs_cpu);
    hw_event(PERF_COUNT_HW_CPU_CYCLES)->value = 12345;
    pmu.enabled = 5000, pmu.running = 0;
    lat_perf_count c[2];
    assert_int_equal(lat_perf_read(p, c, 2), 2);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(c[i].state, LAT_PERF_NOT_COUNTED);
        assert_true(c[i].scaled == 0.0);
        assert_true(c[i].coverage == 0.0);
    }
    assert_string_equal(lat_perf_state_name(c[0].state), lat_perf_state_name(LAT_PERF_NOT_COUNTED));
    lat_perf_destroy(p);
}

static void test_pinned_leader_not_schedulable(void **state) {
    (void)state;
    lat_perf *p = open_set("cycles,instructions,task-clock", sysfs_cpu);
    pmu.dead_hw_group = true; /* the pinned hardware group went into error state */
    pmu.enabled = 1000, pmu.running = 1000;
    lat_perf_count c[3];
    assert_int_equal(lat_perf_read(p, c, 3), 3);
    assert_int_equal(c[0].state, LAT_PERF_NOT_COUNTED);
    assert_int_equal(c[1].state, LAT_PERF_NOT_COUNTED);
    assert_int_equal(c[2].state, LAT_PERF_COUNTED); /* the software group still counts */
    /* and it stays so */
    assert_int_equal(lat_perf_read(p, c, 3), 3);
    assert_int_equal(c[0].state, LAT_PERF_NOT_COUNTED);
    lat_perf_destroy(p);
}

static void test_eacces_retries_with_exclude_kernel(void **state) {
    (void)state;
    pmu.eacces_unless_user = true;
    pmu.eacces_sw_unless_user = true;
    lat_perf *p = open_set("cycles,context-switches,cpu-migrations,task-clock", sysfs_cpu);
    /* cycles: opened user-only, and said so */
    assert_int_equal(lat_perf_error(p, 0), 0);
    assert_non_null(strstr(lat_perf_reason(p, 0), "user space only"));
    /* context switches happen in the kernel: getrusage stands in, with the reason */
    assert_int_equal(lat_perf_error(p, 1), 0);
    assert_non_null(strstr(lat_perf_reason(p, 1), "getrusage"));
    /* migrations: no fallback, refused with the reason */
    assert_int_not_equal(lat_perf_error(p, 2), 0);
    assert_non_null(strstr(lat_perf_reason(p, 2), "in the kernel"));
    pmu.enabled = pmu.running = 100;
    lat_perf_count c[4];
    assert_int_equal(lat_perf_read(p, c, 4), 4);
    assert_int_equal(c[0].state, LAT_PERF_COUNTED);
    assert_int_equal(c[1].state, LAT_PERF_FALLBACK);
    assert_int_equal(c[2].state, LAT_PERF_UNAVAILABLE);
    lat_perf_destroy(p);
}

static void test_eintr_retried(void **state) {
    (void)state;
    pmu.eintr_opens = 2;
    lat_perf *p = open_set("cycles", sysfs_cpu);
    assert_int_equal(lat_perf_ncountable(p), 1);
    hw_event(PERF_COUNT_HW_CPU_CYCLES)->value = 77;
    pmu.enabled = pmu.running = 10;
    pmu.eintr_reads = 1;
    int reads = pmu.reads;
    lat_perf_count c;
    assert_int_equal(lat_perf_read(p, &c, 1), 1);
    assert_int_equal(pmu.reads, reads + 2); /* interrupted once, then read */
    assert_int_equal(c.value, 77);
    assert_int_equal(c.state, LAT_PERF_COUNTED);
    lat_perf_destroy(p);
}

static void test_enoent_reasons(void **state) {
    (void)state;
    pmu.enoent_config = PERF_COUNT_HW_INSTRUCTIONS;
    lat_perf *p = open_set("cycles,instructions", sysfs_none);
    assert_int_equal(lat_perf_error(p, 0), 0);
    assert_int_not_equal(lat_perf_error(p, 1), 0);
    assert_non_null(strstr(lat_perf_reason(p, 1), "no hardware PMU"));
    lat_perf_destroy(p);
    p = open_set("cycles,instructions", sysfs_cpu);
    assert_non_null(strstr(lat_perf_reason(p, 1), "this CPU's PMU has no such event"));
    lat_perf_count c[2];
    pmu.enabled = pmu.running = 10;
    assert_int_equal(lat_perf_read(p, c, 2), 2);
    assert_int_equal(c[1].state, LAT_PERF_UNAVAILABLE);
    lat_perf_destroy(p);
}

static void test_einval_in_group_opens_alone(void **state) {
    (void)state;
    pmu.einval_join_config = PERF_COUNT_HW_INSTRUCTIONS;
    lat_perf *p = open_set("cycles,instructions", sysfs_cpu);
    assert_int_equal(lat_perf_ncountable(p), 2);
    fake_event *cy = hw_event(PERF_COUNT_HW_CPU_CYCLES), *in = hw_event(PERF_COUNT_HW_INSTRUCTIONS);
    assert_true(in->leader != cy->leader); /* its own group */
    cy->value = 5, in->value = 9;
    pmu.enabled = pmu.running = 10;
    lat_perf_count c[2];
    assert_int_equal(lat_perf_read(p, c, 2), 2);
    assert_int_equal(c[0].value, 5);
    assert_int_equal(c[1].value, 9);
    lat_perf_destroy(p);
}

int main(void) {
    const char *tmp = lat_test_tmpdir();
    snprintf(sysfs_none, sizeof sysfs_none, "%s/sys_none", tmp);
    snprintf(sysfs_cpu, sizeof sysfs_cpu, "%s/sys_cpu", tmp);
    char path[9000];
    snprintf(path, sizeof path,
             "mkdir -p %s/bus/event_source/devices %s/bus/event_source/devices/cpu", sysfs_none,
             sysfs_cpu);
    if (system(path) != 0) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_scaled_by_enabled_over_running, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_counted_when_running_is_zero, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pinned_leader_not_schedulable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_eacces_retries_with_exclude_kernel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_eintr_retried, setup, teardown),
        cmocka_unit_test_setup_teardown(test_enoent_reasons, setup, teardown),
        cmocka_unit_test_setup_teardown(test_einval_in_group_opens_alone, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
