/* perf.c - perf_event_open counter sets that degrade gracefully (see perf.h).
 *
 * Setup (lat_perf_create) parses names, probes each event alone, explains every
 * failure, then opens the survivors in groups: hardware under a pinned leader,
 * software in a second group (inherit mode: one group per event, because the
 * kernel sums inherited children per event).  The region calls (start, stop,
 * read) touch only preallocated state: an ioctl or read() per group.
 *
 * Facts this relies on (kernel 6.x): IOC_RESET does not reset time_enabled /
 * time_running, so every reading is a delta from the previous one; a pinned
 * group that cannot be scheduled reads 0 bytes; with exclude_kernel set,
 * context-switches and cpu-migrations read 0, so they are replaced (switches
 * by getrusage) or reported unavailable, never shown as a real 0. */
#include "latlab/perf.h"

#include "alloc_internal.h"
#include "perf_internal.h"
#include "latlab/error.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int lat__perf_pfm_encode(const char *name, uint32_t *type, uint64_t config[3]);

/* ---- event names ------------------------------------------------------------ */

#define HWC(cache, op, res)                                                                        \
    ((PERF_COUNT_HW_CACHE_##cache) | (PERF_COUNT_HW_CACHE_OP_##op << 8) |                          \
     (PERF_COUNT_HW_CACHE_RESULT_##res << 16))

enum { FB_NONE, FB_SWITCHES, FB_MINFLT, FB_MAJFLT, FB_FAULTS };

typedef struct named_event {
    const char *name;
    uint32_t type;
    uint64_t config;
    int fallback; /* what getrusage can stand in with */
} named_event;

static const named_event named[] = {
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, FB_NONE},
    {"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, FB_NONE},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, FB_NONE},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, FB_NONE},
    {"branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, FB_NONE},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, FB_NONE},
    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, FB_NONE},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, FB_NONE},
    {"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, FB_NONE},
    {"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, FB_NONE},
    {"stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, FB_NONE},
    {"stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, FB_NONE},
    {"L1-dcache-loads", PERF_TYPE_HW_CACHE, HWC(L1D, READ, ACCESS), FB_NONE},
    {"L1-dcache-load-misses", PERF_TYPE_HW_CACHE, HWC(L1D, READ, MISS), FB_NONE},
    {"L1-icache-load-misses", PERF_TYPE_HW_CACHE, HWC(L1I, READ, MISS), FB_NONE},
    {"LLC-loads", PERF_TYPE_HW_CACHE, HWC(LL, READ, ACCESS), FB_NONE},
    {"LLC-load-misses", PERF_TYPE_HW_CACHE, HWC(LL, READ, MISS), FB_NONE},
    {"LLC-stores", PERF_TYPE_HW_CACHE, HWC(LL, WRITE, ACCESS), FB_NONE},
    {"LLC-store-misses", PERF_TYPE_HW_CACHE, HWC(LL, WRITE, MISS), FB_NONE},
    {"dTLB-load-misses", PERF_TYPE_HW_CACHE, HWC(DTLB, READ, MISS), FB_NONE},
    {"iTLB-load-misses", PERF_TYPE_HW_CACHE, HWC(ITLB, READ, MISS), FB_NONE},
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, FB_NONE},
    {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, FB_NONE},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, FB_SWITCHES},
    {"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, FB_SWITCHES},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, FB_NONE},
    {"migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, FB_NONE},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, FB_FAULTS},
    {"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, FB_FAULTS},
    {"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, FB_MINFLT},
    {"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, FB_MAJFLT},
    {"alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, FB_NONE},
    {"emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, FB_NONE},
};
#define NNAMED (sizeof named / sizeof named[0])

static void seterr(char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#include <stdarg.h>
static void seterr(char *err, size_t len, const char *fmt, ...) {
    if (!err || !len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

/* Read a small sysfs/proc file into buf (trailing newline removed). */
static int read_small(const char *path, char *buf, size_t len) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    ssize_t n = read(fd, buf, len - 1);
    int e = errno;
    close(fd);
    if (n < 0) return -e;
    buf[n] = 0;
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = 0;
    return 0;
}

int lat_perf_paranoid(void) {
    char buf[32];
    if (read_small("/proc/sys/kernel/perf_event_paranoid", buf, sizeof buf)) return INT_MIN;
    char *end;
    long v = strtol(buf, &end, 10);
    if (end == buf) return INT_MIN;
    return (int)v;
}

static int parse_u64(const char *s, size_t len, uint64_t *out) {
    char tmp[40];
    if (len == 0 || len >= sizeof tmp) return -1;
    memcpy(tmp, s, len);
    tmp[len] = 0;
    if (tmp[0] == '-' || tmp[0] == '+' || isspace((unsigned char)tmp[0])) return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(tmp, &end, 0);
    if (errno || *end) return -1;
    *out = v;
    return 0;
}

/* Put value into the bit ranges of a sysfs format line ("config:0-7,21" or
 * "config1:0-3").  Lowest range takes the lowest bits. */
static int apply_format(const char *fmt, uint64_t value, struct perf_event_attr *attr,
                        const char *term, char *err, size_t errlen) {
    const char *colon = strchr(fmt, ':');
    if (!colon) goto bad;
    __u64 *field;
    size_t flen = (size_t)(colon - fmt);
    if (flen == 6 && !strncmp(fmt, "config", 6))
        field = &attr->config;
    else if (flen == 7 && !strncmp(fmt, "config1", 7))
        field = &attr->config1;
    else if (flen == 7 && !strncmp(fmt, "config2", 7))
        field = &attr->config2;
    else
        goto bad;
    const char *s = colon + 1;
    int used = 0;
    while (*s) {
        char *end;
        long lo = strtol(s, &end, 10), hi;
        if (end == s || lo < 0 || lo > 63) goto bad;
        s = end;
        if (*s == '-') {
            s++;
            hi = strtol(s, &end, 10);
            if (end == s || hi < lo || hi > 63) goto bad;
            s = end;
        } else {
            hi = lo;
        }
        int width = (int)(hi - lo + 1);
        uint64_t mask = width == 64 ? ~0ull : ((1ull << width) - 1);
        uint64_t part = used >= 64 ? 0 : (value >> used) & mask;
        *field = (*field & ~(mask << lo)) | (part << lo);
        used += width;
        if (*s == ',')
            s++;
        else if (*s)
            goto bad;
    }
    if (used < 64 && (value >> used)) {
        seterr(err, errlen, "value 0x%llx of '%s' does not fit in %d bits",
               (unsigned long long)value, term, used);
        return LAT_EFORMAT;
    }
    return 0;
bad:
    seterr(err, errlen, "cannot read the format of '%s' ('%s')", term, fmt);
    return LAT_EFORMAT;
}

static int apply_terms(const char *pmudir, const char *pmu, const char *terms, size_t tlen,
                       struct perf_event_attr *attr, int depth, char *err, size_t errlen);

static int apply_term(const char *pmudir, const char *pmu, const char *t, size_t len,
                      struct perf_event_attr *attr, int depth, char *err, size_t errlen) {
    const char *eq = memchr(t, '=', len);
    size_t klen = eq ? (size_t)(eq - t) : len;
    char key[64];
    if (klen == 0 || klen >= sizeof key) {
        seterr(err, errlen, "bad term '%.*s' for PMU '%s'", (int)len, t, pmu);
        return LAT_EFORMAT;
    }
    memcpy(key, t, klen);
    key[klen] = 0;
    for (size_t i = 0; i < klen; i++)
        if (!isalnum((unsigned char)key[i]) && key[i] != '_' && key[i] != '-' && key[i] != '.') {
            seterr(err, errlen, "bad term '%s' for PMU '%s'", key, pmu);
            return LAT_EFORMAT;
        }
    uint64_t value = 1;
    if (eq && parse_u64(eq + 1, len - klen - 1, &value)) {
        seterr(err, errlen, "bad value '%.*s' for '%s' (PMU '%s')", (int)(len - klen - 1), eq + 1,
               key, pmu);
        return LAT_EFORMAT;
    }
    if (!strcmp(key, "config")) return attr->config = value, 0;
    if (!strcmp(key, "config1")) return attr->config1 = value, 0;
    if (!strcmp(key, "config2")) return attr->config2 = value, 0;
    char path[PATH_MAX], buf[512];
    snprintf(path, sizeof path, "%s/format/%s", pmudir, key);
    if (!read_small(path, buf, sizeof buf)) return apply_format(buf, value, attr, key, err, errlen);
    /* Not a format term: maybe a named event alias of this PMU. */
    snprintf(path, sizeof path, "%s/events/%s", pmudir, key);
    if (!eq && depth == 0 && !read_small(path, buf, sizeof buf))
        return apply_terms(pmudir, pmu, buf, strlen(buf), attr, depth + 1, err, errlen);
    seterr(err, errlen, "PMU '%s' has no term or event '%s'", pmu, key);
    return LAT_EFORMAT;
}

static int apply_terms(const char *pmudir, const char *pmu, const char *terms, size_t tlen,
                       struct perf_event_attr *attr, int depth, char *err, size_t errlen) {
    size_t i = 0;
    while (i < tlen) {
        size_t j = i;
        while (j < tlen && terms[j] != ',')
            j++;
        if (j > i) {
            int rc = apply_term(pmudir, pmu, terms + i, j - i, attr, depth, err, errlen);
            if (rc) return rc;
        }
        i = j + 1;
    }
    return 0;
}

static int parse_pmu(const char *spec, size_t len, const char *root, struct perf_event_attr *attr,
                     char *err, size_t errlen) {
    const char *slash = memchr(spec, '/', len);
    if (!slash || spec[len - 1] != '/' || slash == spec + len - 1) {
        seterr(err, errlen, "'%.*s': expected pmu/term=value,.../", (int)len, spec);
        return LAT_EFORMAT;
    }
    char pmu[128], pmudir[PATH_MAX / 2], buf[64];
    size_t plen = (size_t)(slash - spec);
    if (plen == 0 || plen >= sizeof pmu || memchr(spec, '.', plen)) {
        seterr(err, errlen, "'%.*s': bad PMU name", (int)len, spec);
        return LAT_EFORMAT;
    }
    memcpy(pmu, spec, plen);
    pmu[plen] = 0;
    snprintf(pmudir, sizeof pmudir, "%s/bus/event_source/devices/%s", root, pmu);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/type", pmudir);
    if (read_small(path, buf, sizeof buf)) {
        seterr(err, errlen, "unknown PMU '%s' (no %s)", pmu, pmudir);
        return -ENOENT;
    }
    uint64_t type;
    if (parse_u64(buf, strlen(buf), &type) || type > UINT32_MAX) {
        seterr(err, errlen, "PMU '%s': bad type '%s'", pmu, buf);
        return LAT_EFORMAT;
    }
    attr->type = (uint32_t)type;
    const char *terms = slash + 1;
    size_t tlen = len - plen - 2; /* without the slashes */
    return apply_terms(pmudir, pmu, terms, tlen, attr, 0, err, errlen);
}

static const named_event *find_named(const char *s, size_t len) {
    for (size_t i = 0; i < NNAMED; i++)
        if (strlen(named[i].name) == len && !strncmp(named[i].name, s, len)) return &named[i];
    return NULL;
}

int lat_perf_parse_event(const char *spec, const char *sysfs_root, struct perf_event_attr *attr,
                         char *err, size_t err_len) {
    if (!spec || !attr) return -EINVAL;
    if (!sysfs_root) sysfs_root = "/sys";
    memset(attr, 0, sizeof *attr);
    attr->size = sizeof *attr;
    size_t len = strlen(spec);
    /* Modifier suffix ":u", ":k", ":uk" after the event (and after a pmu's last slash). */
    const char *colon = strrchr(spec, ':');
    const char *lastslash = strrchr(spec, '/');
    int want_user = 0, want_kernel = 0;
    if (colon && (!lastslash || colon > lastslash)) {
        /* only a run of u/k is ours; "pmu::EVENT" and "EVENT:umask" go to libpfm whole */
        bool ours = colon > spec && colon[-1] != ':' && colon[1] != 0;
        for (const char *m = colon + 1; ours && *m; m++)
            ours = *m == 'u' || *m == 'k';
        if (ours) {
            for (const char *m = colon + 1; *m; m++) {
                if (*m == 'u')
                    want_user = 1;
                else
                    want_kernel = 1;
            }
            len = (size_t)(colon - spec);
        }
    }
    if (len == 0) {
        seterr(err, err_len, "empty event name");
        return LAT_EFORMAT;
    }
    int rc = 0;
    const named_event *ne = find_named(spec, len);
    if (ne) {
        attr->type = ne->type;
        attr->config = ne->config;
    } else if (memchr(spec, '/', len)) {
        rc = parse_pmu(spec, len, sysfs_root, attr, err, err_len);
    } else if (spec[0] == 'r' && len > 1) {
        uint64_t v = 0;
        size_t i;
        for (i = 1; i < len && isxdigit((unsigned char)spec[i]); i++) {
            if (i > 16) break;
            int d = isdigit((unsigned char)spec[i]) ? spec[i] - '0'
                                                    : tolower((unsigned char)spec[i]) - 'a' + 10;
            v = v << 4 | (uint64_t)d;
        }
        if (i != len || len > 17) goto pfm;
        attr->type = PERF_TYPE_RAW;
        attr->config = v;
    } else {
    pfm:;
        char name[LAT_PERF_NAME_MAX * 2];
        uint64_t cfg[3];
        uint32_t type;
        if (len >= sizeof name) goto unknown;
        memcpy(name, spec, len);
        name[len] = 0;
        if (lat__perf_pfm_encode(name, &type, cfg)) goto unknown;
        attr->type = type;
        attr->config = cfg[0];
        attr->config1 = cfg[1];
        attr->config2 = cfg[2];
    }
    if (rc) return rc;
    if (want_user && !want_kernel) attr->exclude_kernel = 1, attr->exclude_hv = 1;
    if (want_kernel && !want_user) attr->exclude_user = 1;
    return 0;
unknown:
    seterr(err, err_len, "unknown event '%.*s'", (int)len, spec);
    return LAT_EFORMAT;
}

/* ---- the set ------------------------------------------------------------------ */

typedef struct ev {
    char name[LAT_PERF_NAME_MAX];
    struct perf_event_attr attr;
    int fd;
    int group; /* index into grp[], or -1 */
    uint64_t id;
    uint64_t prev; /* counter value at the previous read */
    int err;       /* 0, or why it is unavailable */
    int fallback;  /* FB_*: getrusage stands in (active when fd < 0) */
    int can_fallback;
    bool hw;
    bool user_only; /* exclude_kernel forced by permissions */
    char reason[LAT_PERF_REASON_MAX];
    lat_perf_count total;
} ev;

typedef struct grp {
    int fd; /* leader */
    int n;
    int idx[LAT_PERF_MAX_EVENTS];
    bool pinned;
    bool dead; /* a pinned group that could not be scheduled (read returns 0 bytes) */
    uint64_t prev_enabled, prev_running;
} grp;

struct lat_perf {
    size_t nev, ngrp;
    pid_t pid;
    int cpu;
    bool inherit, group_format;
    int paranoid;
    ev ev[LAT_PERF_MAX_EVENTS];
    grp grp[LAT_PERF_MAX_EVENTS];
    /* getrusage fallback: the window is gated by start/stop like the counters */
    bool fb_used, fb_running;
    int fb_who;
    struct rusage fb_start;
    uint64_t fb_start_ns;
    uint64_t fb_pend[5]; /* pending deltas by FB_* kind */
    uint64_t fb_pend_ns;
    uint64_t buf[3 + 2 * LAT_PERF_MAX_EVENTS];
    /* indexes for derived metrics, -1 when absent */
    int ix_cycles, ix_instr, ix_br, ix_brmiss, ix_cref, ix_cmiss, ix_llc, ix_pf, ix_minflt,
        ix_majflt, ix_cs, ix_task;
};

/* ---- the kernel interface (a seam: tests put a scripted PMU here) ---------------- */

static long real_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                      unsigned long flags) {
    return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}
static ssize_t real_read(int fd, void *buf, size_t len) {
    return read(fd, buf, len);
}
static int real_ioctl(int fd, unsigned long request, uintptr_t arg) {
    return ioctl(fd, request, arg);
}
static int real_close(int fd) {
    return close(fd);
}
static const lat__perf_sys real_sys = {real_open, real_read, real_ioctl, real_close};
static lat__perf_sys ksys = {real_open, real_read, real_ioctl, real_close};

void lat__perf_set_sys(const lat__perf_sys *sys) {
    ksys = sys ? *sys : real_sys;
}

static long sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                                unsigned long flags) {
    long fd;
    do
        fd = ksys.open(attr, pid, cpu, group_fd, flags);
    while (fd < 0 && errno == EINTR);
    return fd < 0 ? -errno : fd;
}

static bool type_is_hw(uint32_t type) {
    return type != PERF_TYPE_SOFTWARE && type != PERF_TYPE_TRACEPOINT &&
           type != PERF_TYPE_BREAKPOINT;
}

/* Does this machine have a CPU PMU?  ("cpu", hybrid "cpu_core"/"cpu_atom",
 * arm "armv8_*", or any PMU registered as PERF_TYPE_RAW.) */
static bool have_cpu_pmu(const char *root) {
    char path[PATH_MAX], buf[32];
    snprintf(path, sizeof path, "%s/bus/event_source/devices", root);
    DIR *d = opendir(path);
    if (!d) return false;
    bool found = false;
    struct dirent *de;
    while (!found && (de = readdir(d))) {
        const char *n = de->d_name;
        if (n[0] == '.') continue;
        if (!strcmp(n, "cpu") || !strncmp(n, "cpu_", 4) || !strncmp(n, "armv", 4) ||
            !strncmp(n, "arm_", 4) || !strncmp(n, "apple_", 6))
            found = true;
        snprintf(path, sizeof path, "%s/bus/event_source/devices/%s/type", root, n);
        if (!found && !read_small(path, buf, sizeof buf) && atoi(buf) == PERF_TYPE_RAW)
            found = true;
    }
    closedir(d);
    return found;
}

static void explain(int err, bool hw, int paranoid, const char *root, char *reason, size_t len) {
    char par[48];
    if (paranoid == INT_MIN)
        snprintf(par, sizeof par, "perf_event_paranoid unreadable");
    else
        snprintf(par, sizeof par, "perf_event_paranoid=%d", paranoid);
    switch (err) {
    case LAT_ENOPMU:
    case -ENOENT:
    case -EOPNOTSUPP:
    case -ENODEV:
        if (hw && !have_cpu_pmu(root))
            snprintf(reason, len,
                     "not supported on this machine (no hardware PMU; virtual machine?)");
        else if (hw)
            snprintf(reason, len,
                     "not supported on this machine (this CPU's PMU has no such event)");
        else
            snprintf(reason, len, "not supported by this kernel");
        break;
    case -EACCES:
    case -EPERM:
        snprintf(reason, len, "not permitted: %s; run as root or grant CAP_PERFMON", par);
        break;
    case -ENOSYS:
        snprintf(reason, len,
                 "perf_event_open is not available (kernel without perf events, or "
                 "blocked by seccomp)");
        break;
    case -EBUSY:
        snprintf(reason, len, "busy: the PMU is used by someone else (NMI watchdog, a profiler)");
        break;
    case -EMFILE:
    case -ENFILE:
        snprintf(reason, len, "too many open files (raise ulimit -n)");
        break;
    case -ESRCH:
        snprintf(reason, len, "no such process or thread");
        break;
    case -EINVAL:
        snprintf(reason, len, "invalid for this kernel or PMU (EINVAL)");
        break;
    case -E2BIG:
        snprintf(reason, len, "this kernel is too old for the request (E2BIG)");
        break;
    default:
        snprintf(reason, len, "perf_event_open failed: %s", strerror(-err));
        break;
    }
}

/* Open one event; EACCES/EPERM retry with exclude_kernel (noting it).  Returns fd or error. */
static long open_one(lat_perf *p, ev *e, int group_fd, bool leader, bool pinned,
                     bool enable_on_exec) {
    struct perf_event_attr a = e->attr;
    a.disabled = leader;
    a.pinned = pinned;
    a.inherit = p->inherit;
    a.enable_on_exec = leader && enable_on_exec;
    a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    if (p->group_format) a.read_format |= PERF_FORMAT_GROUP | PERF_FORMAT_ID;
    if (e->user_only) a.exclude_kernel = 1, a.exclude_hv = 1;
    long fd = sys_perf_event_open(&a, p->pid, p->cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
    if ((fd == -EACCES || fd == -EPERM) && !a.exclude_kernel) {
        a.exclude_kernel = 1;
        a.exclude_hv = 1;
        long fd2 = sys_perf_event_open(&a, p->pid, p->cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
        if (fd2 >= 0)
            e->user_only = true;
        else if (fd2 != -EACCES && fd2 != -EPERM)
            fd = fd2; /* the real reason */
        if (fd2 >= 0) fd = fd2;
    }
    return fd;
}

static void fb_now(lat_perf *p, struct rusage *ru, uint64_t *ns) {
    getrusage(p->fb_who, ru);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    *ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void fb_accumulate(lat_perf *p) {
    struct rusage ru;
    uint64_t ns;
    fb_now(p, &ru, &ns);
    const struct rusage *s = &p->fb_start;
    uint64_t sw = (uint64_t)(ru.ru_nvcsw + ru.ru_nivcsw) - (uint64_t)(s->ru_nvcsw + s->ru_nivcsw);
    uint64_t mn = (uint64_t)(ru.ru_minflt - s->ru_minflt);
    uint64_t mj = (uint64_t)(ru.ru_majflt - s->ru_majflt);
    p->fb_pend[FB_SWITCHES] += sw;
    p->fb_pend[FB_MINFLT] += mn;
    p->fb_pend[FB_MAJFLT] += mj;
    p->fb_pend[FB_FAULTS] += mn + mj;
    p->fb_pend_ns += ns - p->fb_start_ns;
    p->fb_start = ru;
    p->fb_start_ns = ns;
}

static int index_of(const lat_perf *p, const char *name) {
    const named_event *ne = find_named(name, strlen(name));
    for (size_t i = 0; i < p->nev; i++) {
        if (!strcmp(p->ev[i].name, name)) return (int)i;
        if (ne && p->ev[i].attr.type == ne->type && p->ev[i].attr.config == ne->config &&
            !p->ev[i].attr.exclude_user && p->ev[i].err == 0)
            return (int)i;
    }
    return -1;
}

/* Split the list at commas outside "pmu/.../". */
static int split_events(const char *list, char names[][LAT_PERF_NAME_MAX * 2], size_t *n, char *err,
                        size_t errlen) {
    size_t cnt = 0;
    const char *s = list;
    while (*s) {
        const char *t = s;
        int inside = 0;
        while (*t && (inside || *t != ',')) {
            if (*t == '/') inside = !inside;
            t++;
        }
        size_t len = (size_t)(t - s);
        if (len == 0) {
            seterr(err, errlen, "empty event name in '%s'", list);
            return LAT_EFORMAT;
        }
        if (cnt == LAT_PERF_MAX_EVENTS) {
            seterr(err, errlen, "more than %d events", LAT_PERF_MAX_EVENTS);
            return -E2BIG;
        }
        if (len >= LAT_PERF_NAME_MAX * 2) {
            seterr(err, errlen, "event name too long: '%.40s...'", s);
            return LAT_EFORMAT;
        }
        memcpy(names[cnt], s, len);
        names[cnt][len] = 0;
        cnt++;
        s = *t ? t + 1 : t;
        if (*t == ',' && !*s) {
            seterr(err, errlen, "empty event name in '%s'", list);
            return LAT_EFORMAT;
        }
    }
    if (!cnt) {
        seterr(err, errlen, "no events given");
        return LAT_EFORMAT;
    }
    *n = cnt;
    return 0;
}

/* Probe e alone; on success closes the probe and returns 0, else fills e->reason. */
static int probe(lat_perf *p, ev *e, const char *root) {
    long fd = open_one(p, e, -1, true, false, false);
    if (fd >= 0) {
        ksys.close((int)fd);
        return 0;
    }
    int err = (int)fd;
    if (e->hw && (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV)) err = LAT_ENOPMU;
    explain(err, e->hw, p->paranoid, root, e->reason, sizeof e->reason);
    return err;
}

static void add_to_group(lat_perf *p, size_t i, int g) {
    grp *gr = &p->grp[g];
    gr->idx[gr->n++] = (int)i;
    p->ev[i].group = g;
}

static int new_group(lat_perf *p, size_t i, bool pinned, bool enable_on_exec) {
    ev *e = &p->ev[i];
    long fd = open_one(p, e, -1, true, pinned, enable_on_exec);
    if (fd < 0) return (int)fd;
    int g = (int)p->ngrp++;
    p->grp[g].fd = (int)fd;
    p->grp[g].pinned = pinned;
    e->fd = (int)fd;
    add_to_group(p, i, g);
    return g;
}

/* 1. Probe each event alone. */
static void probe_all(lat_perf *p, const char *root) {
    size_t n = p->nev;
    for (size_t i = 0; i < n; i++) {
        ev *e = &p->ev[i];
        e->err = probe(p, e, root);
        bool kernel_only_event = e->attr.type == PERF_TYPE_SOFTWARE &&
                                 (e->attr.config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
                                  e->attr.config == PERF_COUNT_SW_CPU_MIGRATIONS);
        if (!e->err && e->user_only && kernel_only_event) {
            /* It would open but read 0: switches and migrations happen in the kernel. */
            e->err = -EACCES;
            snprintf(e->reason, sizeof e->reason,
                     "not permitted: %s allows user-space counting only and this event happens "
                     "in the kernel; run as root or grant CAP_PERFMON",
                     p->paranoid == INT_MIN ? "perf_event_paranoid" : "perf_event_paranoid=N");
            if (p->paranoid != INT_MIN)
                snprintf(e->reason, sizeof e->reason,
                         "not permitted: perf_event_paranoid=%d allows user-space counting only "
                         "and this event happens in the kernel; run as root or grant CAP_PERFMON",
                         p->paranoid);
        } else if (!e->err && e->user_only) {
            snprintf(e->reason, sizeof e->reason,
                     "user space only: perf_event_paranoid=%d; run as root or grant CAP_PERFMON "
                     "to count the kernel too",
                     p->paranoid);
        }
    }
}

/* 2. Open the survivors in groups. */
static void open_groups(lat_perf *p, const lat_perf_opts *opts, const char *root) {
    size_t n = p->nev;
    int hwg = -1, swg = -1;
    for (size_t i = 0; i < n; i++) {
        ev *e = &p->ev[i];
        if (e->err) continue;
        if (!p->group_format) {
            int g = new_group(p, i, false, opts->enable_on_exec);
            if (g < 0) e->err = g;
            goto opened;
        }
        int *gp = e->hw ? &hwg : &swg;
        if (*gp < 0) {
            int g = new_group(p, i, e->hw && !opts->no_pin, opts->enable_on_exec);
            if (g < 0)
                e->err = g;
            else
                *gp = g;
        } else {
            long fd = open_one(p, e, p->grp[*gp].fd, false, false, false);
            if (fd == -EINVAL) { /* cannot join (another PMU, too many): alone */
                int g = new_group(p, i, false, opts->enable_on_exec);
                if (g < 0) e->err = g;
            } else if (fd < 0) {
                e->err = (int)fd;
            } else {
                e->fd = (int)fd;
                add_to_group(p, i, *gp);
            }
        }
    opened:
        if (e->err)
            explain(e->err, e->hw, p->paranoid, root, e->reason, sizeof e->reason);
        else if (p->group_format && ksys.ioctl(e->fd, PERF_EVENT_IOC_ID, (uintptr_t)&e->id) < 0)
            e->id = 0;
    }
}

/* 3. getrusage stands in where the kernel will not count. */
static void use_fallbacks(lat_perf *p, const lat_perf_opts *opts) {
    size_t n = p->nev;
    for (size_t i = 0; i < n; i++) {
        ev *e = &p->ev[i];
        if (e->err && e->can_fallback) {
            e->fallback = e->can_fallback;
            char why[LAT_PERF_REASON_MAX];
            memcpy(why, e->reason, sizeof why);
            const char *who = p->inherit ? "RUSAGE_CHILDREN" : "RUSAGE_THREAD";
            if (e->err == -EACCES || e->err == -EPERM)
                snprintf(e->reason, sizeof e->reason,
                         "from getrusage(%s): perf_event_paranoid=%d forbids counting kernel "
                         "events; run as root or grant CAP_PERFMON",
                         who, p->paranoid);
            else
                snprintf(e->reason, sizeof e->reason,
                         "from getrusage(%s): the perf counter is unavailable (%.120s)", who, why);
            e->err = 0;
            p->fb_used = true;
        }
    }
    if (p->fb_used) {
        fb_now(p, &p->fb_start, &p->fb_start_ns);
        p->fb_running = opts->enable_on_exec; /* the counters start by themselves then */
    }
}

/* Where the derived figures' inputs sit (-1: not requested). */
static void index_events(lat_perf *p) {
    p->ix_cycles = index_of(p, "cycles");
    p->ix_instr = index_of(p, "instructions");
    p->ix_br = index_of(p, "branches");
    p->ix_brmiss = index_of(p, "branch-misses");
    p->ix_cref = index_of(p, "cache-references");
    p->ix_cmiss = index_of(p, "cache-misses");
    p->ix_llc = index_of(p, "LLC-load-misses");
    p->ix_pf = index_of(p, "page-faults");
    p->ix_minflt = index_of(p, "minor-faults");
    p->ix_majflt = index_of(p, "major-faults");
    p->ix_cs = index_of(p, "context-switches");
    p->ix_task = index_of(p, "task-clock");
}

int lat_perf_create(lat_perf **out, const char *events, const lat_perf_opts *opts) {
    static const lat_perf_opts defaults = {0};
    char(*names)[LAT_PERF_NAME_MAX * 2] = NULL;
    lat_perf *p = NULL;
    int rc;
    if (!out) return -EINVAL;
    *out = NULL;
    if (!opts) opts = &defaults;
    if (opts->err && opts->err_len) opts->err[0] = 0;
    const char *root = opts->sysfs_root ? opts->sysfs_root : "/sys";
    if (!events) events = LAT_PERF_DEFAULT_EVENTS;
    names = lat__calloc(LAT_PERF_MAX_EVENTS, sizeof *names);
    p = lat__calloc_aligned(1, sizeof *p, 64);
    if (!names || !p) {
        rc = -ENOMEM;
        goto fail;
    }
    p->pid = opts->pid;
    p->cpu = opts->cpu_set ? opts->cpu : -1;
    p->inherit = opts->inherit;
    p->group_format = !opts->inherit;
    p->paranoid = lat_perf_paranoid();
    p->fb_who = opts->inherit ? RUSAGE_CHILDREN : RUSAGE_THREAD;
    for (size_t i = 0; i < LAT_PERF_MAX_EVENTS; i++)
        p->ev[i].fd = -1, p->ev[i].group = -1;
    size_t n;
    rc = split_events(events, names, &n, opts->err, opts->err_len);
    if (rc) goto fail;
    for (size_t i = 0; i < n; i++) {
        ev *e = &p->ev[i];
        rc = lat_perf_parse_event(names[i], root, &e->attr, opts->err, opts->err_len);
        if (rc) goto fail;
        snprintf(e->name, sizeof e->name, "%s", names[i]);
        e->hw = type_is_hw(e->attr.type);
        if (opts->user_only) e->attr.exclude_kernel = 1, e->attr.exclude_hv = 1;
        const named_event *ne = find_named(names[i], strlen(names[i]));
        /* getrusage counts this thread (pid 0) or waited-for children (inherit) only */
        if (ne && ne->fallback && (opts->inherit || opts->pid == 0) && !e->attr.exclude_user &&
            !opts->cpu_set)
            e->can_fallback = ne->fallback;
    }
    p->nev = n;

    probe_all(p, root);
    open_groups(p, opts, root);
    use_fallbacks(p, opts);
    index_events(p);
    lat__free(names);
    *out = p;
    return 0;
fail:
    lat__free(names);
    lat_perf_destroy(p);
    return rc;
}

void lat_perf_destroy(lat_perf *p) {
    if (!p) return;
    for (size_t i = 0; i < p->nev; i++)
        if (p->ev[i].fd >= 0) ksys.close(p->ev[i].fd);
    lat__free(p);
}

int lat_perf_start(lat_perf *p) {
    if (!p) return -EINVAL;
    int rc = 0;
    if (p->fb_used && !p->fb_running) {
        fb_now(p, &p->fb_start, &p->fb_start_ns);
        p->fb_running = true;
    }
    for (size_t g = 0; g < p->ngrp; g++)
        if (ksys.ioctl(p->grp[g].fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0) rc = -errno;
    return rc;
}

int lat_perf_stop(lat_perf *p) {
    if (!p) return -EINVAL;
    int rc = 0;
    for (size_t g = p->ngrp; g-- > 0;)
        if (ksys.ioctl(p->grp[g].fd, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP) < 0) rc = -errno;
    if (p->fb_used && p->fb_running) {
        fb_accumulate(p);
        p->fb_running = false;
    }
    return rc;
}

static void fill(lat_perf_count *c, uint64_t value, uint64_t en, uint64_t run) {
    c->value = value;
    c->enabled_ns = en;
    c->running_ns = run;
    if (run == 0) {
        c->state = LAT_PERF_NOT_COUNTED;
        c->scaled = 0;
        c->coverage = 0;
    } else if (run < en) {
        c->state = LAT_PERF_SCALED;
        c->coverage = (double)run / (double)en;
        c->scaled = (double)value * (double)en / (double)run;
    } else {
        c->state = LAT_PERF_COUNTED;
        c->coverage = 1;
        c->scaled = (double)value;
    }
}

static void add_total(ev *e, const lat_perf_count *c) {
    lat_perf_count *t = &e->total;
    t->value += c->value;
    t->scaled += c->scaled;
    t->enabled_ns += c->enabled_ns;
    t->running_ns += c->running_ns;
    if (c->state == LAT_PERF_UNAVAILABLE || c->state == LAT_PERF_FALLBACK) {
        t->state = c->state;
        t->coverage = c->coverage;
        return;
    }
    if (t->running_ns == 0)
        t->state = LAT_PERF_NOT_COUNTED, t->coverage = 0;
    else if (t->running_ns < t->enabled_ns)
        t->state = LAT_PERF_SCALED, t->coverage = (double)t->running_ns / (double)t->enabled_ns;
    else
        t->state = LAT_PERF_COUNTED, t->coverage = 1;
}

int lat_perf_read(lat_perf *p, lat_perf_count *out, size_t n) {
    if (!p || (!out && n)) return -EINVAL;
    lat_perf_count tmp[1];
    int rc = 0;
    for (size_t g = 0; g < p->ngrp; g++) {
        grp *gr = &p->grp[g];
        ssize_t got;
        do
            got = ksys.read(gr->fd, p->buf, sizeof p->buf);
        while (got < 0 && errno == EINTR);
        if (got < 0) {
            rc = -errno;
            continue;
        }
        uint64_t en, run;
        if (p->group_format) {
            if (got == 0) { /* pinned group in error state: never scheduled again */
                gr->dead = true;
                for (int k = 0; k < gr->n; k++) {
                    size_t i = (size_t)gr->idx[k];
                    lat_perf_count *c = i < n ? &out[i] : tmp;
                    fill(c, 0, 0, 0);
                    add_total(&p->ev[i], c);
                }
                continue;
            }
            uint64_t nr = p->buf[0];
            en = p->buf[1] - gr->prev_enabled;
            run = p->buf[2] - gr->prev_running;
            gr->prev_enabled = p->buf[1];
            gr->prev_running = p->buf[2];
            for (uint64_t k = 0; k < nr && (size_t)got >= (3 + 2 * (k + 1)) * 8; k++) {
                uint64_t v = p->buf[3 + 2 * k], id = p->buf[4 + 2 * k];
                int idx = k < (uint64_t)gr->n ? gr->idx[k] : -1;
                if (idx < 0 || p->ev[idx].id != id) { /* order differs: match by id */
                    idx = -1;
                    for (int m = 0; m < gr->n; m++)
                        if (p->ev[gr->idx[m]].id == id) idx = gr->idx[m];
                    if (idx < 0) continue;
                }
                ev *e = &p->ev[idx];
                lat_perf_count *c = (size_t)idx < n ? &out[idx] : tmp;
                fill(c, v - e->prev, en, run);
                e->prev = v;
                add_total(e, c);
            }
        } else {
            if (got < 24) continue;
            ev *e = &p->ev[gr->idx[0]];
            en = p->buf[1] - gr->prev_enabled;
            run = p->buf[2] - gr->prev_running;
            gr->prev_enabled = p->buf[1];
            gr->prev_running = p->buf[2];
            lat_perf_count *c = (size_t)gr->idx[0] < n ? &out[gr->idx[0]] : tmp;
            fill(c, p->buf[0] - e->prev, en, run);
            e->prev = p->buf[0];
            add_total(e, c);
        }
    }
    if (p->fb_used && p->fb_running) fb_accumulate(p);
    for (size_t i = 0; i < p->nev; i++) {
        ev *e = &p->ev[i];
        if (e->fd >= 0) continue;
        lat_perf_count *c = i < n ? &out[i] : tmp;
        memset(c, 0, sizeof *c);
        if (e->fallback) {
            c->value = p->fb_pend[e->fallback];
            c->scaled = (double)c->value;
            c->enabled_ns = c->running_ns = p->fb_pend_ns;
            c->coverage = 1;
            c->state = LAT_PERF_FALLBACK;
        } else {
            c->state = LAT_PERF_UNAVAILABLE;
        }
        add_total(e, c);
    }
    if (p->fb_used) {
        memset(p->fb_pend, 0, sizeof p->fb_pend);
        p->fb_pend_ns = 0;
    }
    if (rc) return rc;
    return (int)(n < p->nev ? n : p->nev);
}

int lat_perf_total(const lat_perf *p, lat_perf_count *out, size_t n) {
    if (!p || (!out && n)) return -EINVAL;
    size_t m = n < p->nev ? n : p->nev;
    for (size_t i = 0; i < m; i++) {
        out[i] = p->ev[i].total;
        if (p->ev[i].fd < 0 && !p->ev[i].fallback)
            out[i].state = LAT_PERF_UNAVAILABLE;
        else if (p->ev[i].fallback)
            out[i].state = LAT_PERF_FALLBACK, out[i].coverage = 1;
    }
    return (int)m;
}

size_t lat_perf_nevents(const lat_perf *p) {
    return p ? p->nev : 0;
}

const char *lat_perf_name(const lat_perf *p, size_t i) {
    return p && i < p->nev ? p->ev[i].name : NULL;
}

int lat_perf_error(const lat_perf *p, size_t i) {
    if (!p || i >= p->nev) return -EINVAL;
    return p->ev[i].fd >= 0 || p->ev[i].fallback ? 0 : p->ev[i].err;
}

const char *lat_perf_reason(const lat_perf *p, size_t i) {
    if (!p || i >= p->nev) return NULL;
    if (p->ev[i].fd >= 0 && p->grp[p->ev[i].group].dead)
        return "not counted: the pinned hardware group could not be scheduled (more events than "
               "counters, or the counters are taken)";
    return p->ev[i].reason[0] ? p->ev[i].reason : NULL;
}

int lat_perf_find(const lat_perf *p, const char *name) {
    if (!p || !name) return -1;
    return index_of(p, name);
}

bool lat_perf_is_hardware(const lat_perf *p, size_t i) {
    return p && i < p->nev && p->ev[i].hw;
}

size_t lat_perf_ncountable(const lat_perf *p) {
    size_t k = 0;
    for (size_t i = 0; p && i < p->nev; i++)
        k += p->ev[i].fd >= 0 || p->ev[i].fallback;
    return k;
}

int lat_perf_probe(const char *event, const lat_perf_opts *opts, char *reason, size_t reason_len) {
    lat_perf_opts o = opts ? *opts : (lat_perf_opts){0};
    char err[LAT_PERF_REASON_MAX];
    o.err = err;
    o.err_len = sizeof err;
    o.enable_on_exec = false;
    if (reason && reason_len) reason[0] = 0;
    if (!event) return -EINVAL;
    if (strchr(event, ',') && !strchr(event, '/')) {
        seterr(reason, reason_len, "one event only");
        return -EINVAL;
    }
    lat_perf *p;
    int rc = lat_perf_create(&p, event, &o);
    if (rc) {
        seterr(reason, reason_len, "%s", err);
        return rc;
    }
    rc = p->ev[0].fd >= 0 ? 0 : p->ev[0].err;
    if (p->ev[0].reason[0]) seterr(reason, reason_len, "%s", p->ev[0].reason);
    if (p->ev[0].fallback && !rc) rc = 0;
    lat_perf_destroy(p);
    return rc;
}

const char *lat_perf_state_name(int state) {
    switch (state) {
    case LAT_PERF_COUNTED:
        return "counted";
    case LAT_PERF_SCALED:
        return "scaled";
    case LAT_PERF_NOT_COUNTED:
        return "not counted";
    case LAT_PERF_FALLBACK:
        return "fallback";
    case LAT_PERF_UNAVAILABLE:
        return "unavailable";
    default:
        return "unknown";
    }
}

static double val(const lat_perf_count *c, size_t n, int ix) {
    if (ix < 0 || (size_t)ix >= n) return NAN;
    int s = c[ix].state;
    if (s != LAT_PERF_COUNTED && s != LAT_PERF_SCALED && s != LAT_PERF_FALLBACK) return NAN;
    return c[ix].scaled;
}

static double ratio(double a, double b) {
    return isnan(a) || isnan(b) || b == 0 ? NAN : a / b;
}

int lat_perf_derive(const lat_perf *p, const lat_perf_count *c, size_t n, uint64_t ops,
                    lat_perf_derived *d) {
    if (!p || !c || !d) return -EINVAL;
    double o = ops ? (double)ops : NAN;
    d->ipc = ratio(val(c, n, p->ix_instr), val(c, n, p->ix_cycles));
    d->branch_miss_pct = 100.0 * ratio(val(c, n, p->ix_brmiss), val(c, n, p->ix_br));
    d->cache_miss_pct = 100.0 * ratio(val(c, n, p->ix_cmiss), val(c, n, p->ix_cref));
    double cm = val(c, n, p->ix_cmiss);
    if (isnan(cm)) cm = val(c, n, p->ix_llc);
    d->cache_misses_per_op = ratio(cm, o);
    double pf = val(c, n, p->ix_pf);
    if (isnan(pf)) {
        double a = val(c, n, p->ix_minflt), b = val(c, n, p->ix_majflt);
        pf = isnan(a) ? NAN : a + (isnan(b) ? 0 : b);
    }
    d->page_faults_per_op = ratio(pf, o);
    d->ctx_switches_per_op = ratio(val(c, n, p->ix_cs), o);
    d->cpu_utilization = NAN;
    if (p->ix_task >= 0 && (size_t)p->ix_task < n)
        d->cpu_utilization = ratio(val(c, n, p->ix_task), (double)c[p->ix_task].enabled_ns);
    return 0;
}
