/* topo.c - CPU topology from sysfs/procfs, pinning, the hot-thread placement
 * planner and the run-conditions report (see topo.h).
 *
 * All paths are built as root + "/sys/..." so a test can hand in a fake tree.
 * A file that is missing or unreadable is "unknown", never an error: VMs and
 * containers hide half of sysfs, and a report must still come out. */
#include "latlab/topo.h"

#include "alloc_internal.h"
#include "error_internal.h"
#include "latlab/clock.h"
#include "latlab/error.h"

#include <ctype.h>
#include <errno.h>
#include <gnu/libc-version.h>
#include <pthread.h>
#include <stdarg.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Truncating long sysfs values into fixed report fields is intended. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#ifndef LAT_COMPILER_ID
#define LAT_COMPILER_ID "unknown"
#endif
#ifndef LAT_COMPILER_FLAGS
#define LAT_COMPILER_FLAGS "unknown"
#endif

#define SYSCPU "/sys/devices/system/cpu"

/* ---- small file helpers --------------------------------------------------------- */

static const char *norm_root(const char *root) {
    return (root && *root) ? root : "";
}

/* Read root+path into buf (NUL-terminated, trailing whitespace removed).
 * Returns 0 or negative errno. */
static int read_text(const char *root, const char *path, char *buf, size_t len) {
    char full[1024];
    if (len == 0) return -EINVAL;
    buf[0] = '\0';
    int n = snprintf(full, sizeof full, "%s%s", norm_root(root), path);
    if (n < 0 || (size_t)n >= sizeof full) return -ENAMETOOLONG;
    FILE *f = fopen(full, "re");
    if (!f) return -errno;
    size_t got = fread(buf, 1, len - 1, f);
    int err = ferror(f) ? -EIO : 0;
    fclose(f);
    if (err) return err;
    buf[got] = '\0';
    while (got > 0 && isspace((unsigned char)buf[got - 1]))
        buf[--got] = '\0';
    return 0;
}

static int read_cpu_text(const char *root, int cpu, const char *rel, char *buf, size_t len) {
    char path[256];
    snprintf(path, sizeof path, SYSCPU "/cpu%d/%s", cpu, rel);
    return read_text(root, path, buf, len);
}

static long long read_cpu_ll(const char *root, int cpu, const char *rel, long long dflt) {
    char buf[64], *end;
    if (read_cpu_text(root, cpu, rel, buf, sizeof buf) || !buf[0]) return dflt;
    errno = 0;
    long long v = strtoll(buf, &end, 10);
    return (errno || *end) ? dflt : v;
}

static void copy_str(char *dst, size_t len, const char *src) {
    snprintf(dst, len, "%s", src ? src : "");
}

/* ---- CPU sets ----------------------------------------------------------------------- */

int lat_cpuset_next(const lat_cpuset *s, int from) {
    if (from < 0) from = 0;
    for (int c = from; c < LAT_MAX_CPUS; c++) {
        uint64_t w = s->bits[c / 64] >> (c % 64);
        if (!w) {
            c = (c / 64) * 64 + 63; /* skip the rest of this word */
            continue;
        }
        return c + __builtin_ctzll(w);
    }
    return -1;
}

void lat_cpuset_and(lat_cpuset *out, const lat_cpuset *a, const lat_cpuset *b) {
    for (unsigned i = 0; i < LAT_MAX_CPUS / 64; i++)
        out->bits[i] = a->bits[i] & b->bits[i];
}

static int parse_cpu_num(const char **p) {
    if (!isdigit((unsigned char)**p)) return -1;
    long v = 0;
    while (isdigit((unsigned char)**p)) {
        v = v * 10 + (**p - '0');
        if (v >= LAT_MAX_CPUS) return -1;
        (*p)++;
    }
    return (int)v;
}

int lat_cpuset_parse(const char *list, lat_cpuset *out) {
    if (!list || !out) return -EINVAL;
    lat_cpuset s;
    lat_cpuset_zero(&s);
    const char *p = list;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '\0' || *p == '\n') {
        *out = s;
        return 0;
    }
    for (;;) {
        int a = parse_cpu_num(&p);
        if (a < 0) return -EINVAL;
        int b = a;
        if (*p == '-') {
            p++;
            b = parse_cpu_num(&p);
            if (b < a) return -EINVAL;
        }
        for (int c = a; c <= b; c++)
            lat_cpuset_add(&s, c);
        if (*p == ',') {
            p++;
            continue;
        }
        while (*p == '\n' || *p == ' ' || *p == '\t')
            p++;
        if (*p) return -EINVAL;
        break;
    }
    *out = s;
    return 0;
}

size_t lat_cpuset_format(const lat_cpuset *s, char *buf, size_t len) {
    size_t need = 0;
    char tmp[32];
    if (buf && len) buf[0] = '\0';
    for (int c = lat_cpuset_next(s, 0); c >= 0;) {
        int e = c;
        while (e + 1 < LAT_MAX_CPUS && lat_cpuset_has(s, e + 1))
            e++;
        int n = e > c ? snprintf(tmp, sizeof tmp, "%s%d-%d", need ? "," : "", c, e)
                      : snprintf(tmp, sizeof tmp, "%s%d", need ? "," : "", c);
        if (buf && need + (size_t)n < len)
            memcpy(buf + need, tmp, (size_t)n + 1);
        else if (buf && len && need < len)
            buf[need] = '\0'; /* keep what fitted, cut at a whole entry */
        need += (size_t)n;
        c = lat_cpuset_next(s, e + 1);
    }
    return need;
}

/* ---- topology --------------------------------------------------------------------------- */

struct lat_topo {
    char *root;
    int ncpus;
    lat_cpuset online, possible, affinity, isolated, nohz_full, perf;
    bool hybrid;
    lat_topo_cpu *cpu; /* indexed by CPU number, LAT_MAX_CPUS entries (sparse) */
    int ncaches;
    lat_cache caches[LAT_TOPO_MAX_CACHES];
};

static int read_cpuset_file(const char *root, const char *path, lat_cpuset *out) {
    char buf[4096];
    lat_cpuset_zero(out);
    int rc = read_text(root, path, buf, sizeof buf);
    if (rc) return rc;
    return lat_cpuset_parse(buf, out);
}

/* "48K" / "2048K" / "32M" / "1G" / "512" -> bytes; 0 when unparseable. */
static uint64_t parse_size(const char *s) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s) return 0;
    switch (toupper((unsigned char)*end)) {
    case 'K':
        return v << 10;
    case 'M':
        return v << 20;
    case 'G':
        return v << 30;
    case '\0':
        return v;
    default:
        return 0;
    }
}

static int cache_cmp(const void *a, const void *b) {
    const lat_cache *x = a, *y = b;
    if (x->level != y->level) return x->level - y->level;
    return strcmp(x->type, y->type);
}

static void load_caches(lat_topo *t, int cpu) {
    for (int i = 0; i < 16 && t->ncaches < LAT_TOPO_MAX_CACHES; i++) {
        char rel[96], buf[256];
        lat_cache c;
        memset(&c, 0, sizeof c);
        snprintf(rel, sizeof rel, "cache/index%d/level", i);
        long long lvl = read_cpu_ll(t->root, cpu, rel, -1);
        if (lvl < 0) continue;
        c.level = (int)lvl;
        snprintf(rel, sizeof rel, "cache/index%d/type", i);
        if (read_cpu_text(t->root, cpu, rel, c.type, sizeof c.type))
            copy_str(c.type, sizeof c.type, "unknown");
        snprintf(rel, sizeof rel, "cache/index%d/size", i);
        if (!read_cpu_text(t->root, cpu, rel, buf, sizeof buf)) c.size_bytes = parse_size(buf);
        snprintf(rel, sizeof rel, "cache/index%d/coherency_line_size", i);
        long long line = read_cpu_ll(t->root, cpu, rel, 0);
        c.line_bytes = line > 0 ? (unsigned)line : 0;
        snprintf(rel, sizeof rel, "cache/index%d/shared_cpu_list", i);
        if (read_cpu_text(t->root, cpu, rel, buf, sizeof buf) ||
            lat_cpuset_parse(buf, &c.shared_cpus))
            lat_cpuset_zero(&c.shared_cpus);
        t->caches[t->ncaches++] = c;
    }
    qsort(t->caches, (size_t)t->ncaches, sizeof t->caches[0], cache_cmp);
}

/* Performance cores: >= 90% of the largest capacity (or max frequency), used
 * only when the smallest is below 90% of the largest. */
static void detect_perf(lat_topo *t) {
    lat_cpuset direct;
    t->perf = t->online;
    t->hybrid = false;
    if (read_cpuset_file(t->root, "/sys/devices/cpu_core/cpus", &direct) == 0 &&
        lat_cpuset_count(&direct) > 0) {
        lat_cpuset_and(&direct, &direct, &t->online);
        if (lat_cpuset_count(&direct) > 0 && lat_cpuset_count(&direct) < t->ncpus) {
            t->perf = direct;
            t->hybrid = true;
            goto mark;
        }
    }
    for (int pass = 0; pass < 2; pass++) {
        uint64_t lo = UINT64_MAX, hi = 0;
        int known = 0;
        for (int c = lat_cpuset_next(&t->online, 0); c >= 0;
             c = lat_cpuset_next(&t->online, c + 1)) {
            uint64_t v = pass == 0 ? t->cpu[c].capacity : t->cpu[c].max_freq_khz;
            if (!v) continue;
            known++;
            if (v < lo) lo = v;
            if (v > hi) hi = v;
        }
        if (known < 2 || (double)lo >= 0.9 * (double)hi) continue;
        lat_cpuset_zero(&t->perf);
        for (int c = lat_cpuset_next(&t->online, 0); c >= 0;
             c = lat_cpuset_next(&t->online, c + 1)) {
            uint64_t v = pass == 0 ? t->cpu[c].capacity : t->cpu[c].max_freq_khz;
            if ((double)v >= 0.9 * (double)hi) lat_cpuset_add(&t->perf, c);
        }
        t->hybrid = true;
        break;
    }
mark:
    for (int c = lat_cpuset_next(&t->online, 0); c >= 0; c = lat_cpuset_next(&t->online, c + 1))
        t->cpu[c].perf_core = lat_cpuset_has(&t->perf, c);
}

int lat_topo_load(const char *root, lat_topo **out) {
    int rc = -ENOMEM;
    if (!out) return -EINVAL;
    *out = NULL;
    lat_topo *t = lat__calloc(1, sizeof *t);
    if (!t) goto fail;
    t->root = lat__strdup(norm_root(root));
    t->cpu = lat__calloc(LAT_MAX_CPUS, sizeof *t->cpu);
    if (!t->root || !t->cpu) goto fail;

    if (read_cpuset_file(t->root, SYSCPU "/online", &t->online) != 0 ||
        lat_cpuset_count(&t->online) == 0) {
        /* No usable "online" file: every cpuN directory with a topology counts. */
        lat_cpuset_zero(&t->online);
        for (int c = 0; c < LAT_MAX_CPUS; c++) {
            char path[128], full[1200];
            snprintf(path, sizeof path, SYSCPU "/cpu%d", c);
            snprintf(full, sizeof full, "%s%s", t->root, path);
            if (access(full, F_OK) == 0) lat_cpuset_add(&t->online, c);
        }
    }
    t->ncpus = lat_cpuset_count(&t->online);
    if (t->ncpus == 0) {
        rc = -ENOENT;
        goto fail;
    }
    if (read_cpuset_file(t->root, SYSCPU "/possible", &t->possible) != 0 ||
        lat_cpuset_count(&t->possible) == 0)
        t->possible = t->online;
    read_cpuset_file(t->root, SYSCPU "/isolated", &t->isolated);
    read_cpuset_file(t->root, SYSCPU "/nohz_full", &t->nohz_full);
    lat_cpuset_and(&t->isolated, &t->isolated, &t->online);

    if (t->root[0] == '\0' && lat_thread_affinity(&t->affinity) == 0)
        lat_cpuset_and(&t->affinity, &t->affinity, &t->online);
    else
        t->affinity = t->online;

    for (int c = lat_cpuset_next(&t->online, 0); c >= 0; c = lat_cpuset_next(&t->online, c + 1)) {
        lat_topo_cpu *p = &t->cpu[c];
        char buf[4096];
        p->cpu = c;
        p->core_id = (int)read_cpu_ll(t->root, c, "topology/core_id", -1);
        p->package_id = (int)read_cpu_ll(t->root, c, "topology/physical_package_id", -1);
        if ((read_cpu_text(t->root, c, "topology/thread_siblings_list", buf, sizeof buf) &&
             read_cpu_text(t->root, c, "topology/core_cpus_list", buf, sizeof buf)) ||
            lat_cpuset_parse(buf, &p->siblings) || !lat_cpuset_has(&p->siblings, c)) {
            lat_cpuset_zero(&p->siblings);
            lat_cpuset_add(&p->siblings, c);
        }
        long long cap = read_cpu_ll(t->root, c, "cpu_capacity", 0);
        p->capacity = cap > 0 ? (unsigned)cap : 0;
        long long f = read_cpu_ll(t->root, c, "cpufreq/cpuinfo_max_freq", 0);
        p->max_freq_khz = f > 0 ? (uint64_t)f : 0;
        p->isolated = lat_cpuset_has(&t->isolated, c);
    }
    detect_perf(t);
    load_caches(t, lat_cpuset_next(&t->online, 0));
    *out = t;
    return 0;
fail:
    lat_topo_destroy(t);
    return rc;
}

void lat_topo_destroy(lat_topo *t) {
    if (!t) return;
    lat__free(t->root);
    lat__free(t->cpu);
    lat__free(t);
}

const lat_cpuset *lat_topo_online(const lat_topo *t) {
    return &t->online;
}
const lat_cpuset *lat_topo_affinity(const lat_topo *t) {
    return &t->affinity;
}
const lat_cpuset *lat_topo_isolated(const lat_topo *t) {
    return &t->isolated;
}
const lat_cpuset *lat_topo_nohz_full(const lat_topo *t) {
    return &t->nohz_full;
}
const lat_cpuset *lat_topo_perf_cores(const lat_topo *t) {
    return &t->perf;
}
int lat_topo_ncpus(const lat_topo *t) {
    return t->ncpus;
}
bool lat_topo_hybrid(const lat_topo *t) {
    return t->hybrid;
}

void lat_topo_set_affinity(lat_topo *t, const lat_cpuset *mask) {
    if (!t || !mask) return;
    lat_cpuset_and(&t->affinity, mask, &t->online);
}

int lat_topo_cpu_info(const lat_topo *t, int cpu, lat_topo_cpu *out) {
    if (!t || !out || !lat_cpuset_has(&t->online, cpu)) return -EINVAL;
    *out = t->cpu[cpu];
    return 0;
}

int lat_topo_caches(const lat_topo *t, const lat_cache **out) {
    if (!t) return 0;
    if (out) *out = t->caches;
    return t->ncaches;
}

/* ---- pinning ------------------------------------------------------------------------------- */

static int set_affinity(const lat_cpuset *s) {
    cpu_set_t *cs = CPU_ALLOC(LAT_MAX_CPUS);
    if (!cs) return -ENOMEM;
    size_t sz = CPU_ALLOC_SIZE(LAT_MAX_CPUS);
    CPU_ZERO_S(sz, cs);
    for (int c = lat_cpuset_next(s, 0); c >= 0; c = lat_cpuset_next(s, c + 1))
        CPU_SET_S((size_t)c, sz, cs);
    int rc = pthread_setaffinity_np(pthread_self(), sz, cs);
    CPU_FREE(cs);
    return -rc;
}

int lat_thread_affinity(lat_cpuset *out) {
    if (!out) return -EINVAL;
    cpu_set_t *cs = CPU_ALLOC(LAT_MAX_CPUS);
    if (!cs) return -ENOMEM;
    size_t sz = CPU_ALLOC_SIZE(LAT_MAX_CPUS);
    CPU_ZERO_S(sz, cs);
    int rc = pthread_getaffinity_np(pthread_self(), sz, cs);
    lat_cpuset_zero(out);
    if (rc == 0)
        for (int c = 0; c < LAT_MAX_CPUS; c++)
            if (CPU_ISSET_S((size_t)c, sz, cs)) lat_cpuset_add(out, c);
    CPU_FREE(cs);
    return -rc;
}

int lat_pin_thread(int cpu) {
    if (cpu < 0 || cpu >= LAT_MAX_CPUS) return -EINVAL;
    lat_cpuset s;
    lat_cpuset_zero(&s);
    lat_cpuset_add(&s, cpu);
    return set_affinity(&s);
}

/* The mask the process started with, captured before main() (and so before
 * any thread pinned itself); the fallback is every CPU, which the kernel
 * narrows to the cgroup's cpuset. */
static lat_cpuset initial_mask;

__attribute__((constructor)) static void capture_initial_mask(void) {
    if (lat_thread_affinity(&initial_mask) != 0 || lat_cpuset_count(&initial_mask) == 0)
        for (unsigned i = 0; i < LAT_MAX_CPUS / 64; i++)
            initial_mask.bits[i] = ~0ull;
}

int lat_unpin_thread(const lat_cpuset *mask) {
    if (mask) return set_affinity(mask);
    int rc = set_affinity(&initial_mask);
    if (rc == -EINVAL) { /* CPUs went offline since: fall back to every CPU */
        lat_cpuset all;
        for (unsigned i = 0; i < LAT_MAX_CPUS / 64; i++)
            all.bits[i] = ~0ull;
        rc = set_affinity(&all);
    }
    return rc;
}

int lat_current_cpu(void) {
    int c = sched_getcpu();
    return c < 0 ? -errno : c;
}

/* ---- placement ----------------------------------------------------------------------------------
 */

int lat_topo_plan(const lat_topo *t, int nhot, int ncold, unsigned flags, lat_plan *out) {
    if (!t || !out || nhot < 0 || ncold < 0 || nhot > LAT_PLAN_MAX_HOT) return -EINVAL;
    memset(out, 0, sizeof *out);
    out->nhot = nhot;
    out->ncold = ncold;
    lat_cpuset usable;
    lat_cpuset_and(&usable, &t->affinity, &t->online);
    int nusable = lat_cpuset_count(&usable);
    if (nusable == 0) {
        snprintf(out->note, sizeof out->note,
                 "no usable CPU (affinity mask and online CPUs do not overlap)");
        return LAT_ETOOFEW_CPUS;
    }
    if (nhot > nusable && !(flags & LAT_PLAN_SHARE)) {
        snprintf(out->note, sizeof out->note,
                 "needs %d CPUs for hot threads, this machine has %d%s", nhot, nusable,
                 nusable < t->ncpus ? " usable (affinity mask)" : "");
        return LAT_ETOOFEW_CPUS;
    }
    lat_cpuset iso;
    lat_cpuset_and(&iso, &t->isolated, &usable);
    bool prefer_iso = lat_cpuset_count(&iso) > 0;

    lat_cpuset taken, taken_cores; /* hot CPUs, and every SMT sibling of them */
    lat_cpuset_zero(&taken);
    lat_cpuset_zero(&taken_cores);
    for (int i = 0; i < nhot; i++) {
        int best = -1;
        unsigned best_key = ~0u;
        for (int c = lat_cpuset_next(&usable, 0); c >= 0; c = lat_cpuset_next(&usable, c + 1)) {
            if (lat_cpuset_has(&taken, c)) continue;
            /* Lexicographic penalty: sibling conflict > not isolated > not a
             * performance core > CPU 0; ties go to the lowest number. */
            unsigned key = (lat_cpuset_has(&taken_cores, c) ? 8u : 0u) |
                           (prefer_iso && !lat_cpuset_has(&iso, c) ? 4u : 0u) |
                           (t->hybrid && !t->cpu[c].perf_core ? 2u : 0u) | (c == 0 ? 1u : 0u);
            if (key < best_key) {
                best_key = key;
                best = c;
            }
        }
        if (best < 0) { /* every usable CPU holds a hot thread: share round-robin */
            lat_cpuset hot_only = usable;
            int k = i % nusable, c = lat_cpuset_next(&hot_only, 0);
            while (k-- > 0)
                c = lat_cpuset_next(&hot_only, c + 1);
            best = c;
            out->oversubscribed = true;
        }
        if (lat_cpuset_has(&taken_cores, best))
            out->smt_shared = out->smt_shared || !out->oversubscribed;
        if (best == 0) out->uses_cpu0 = true;
        out->hot[i] = best;
        lat_cpuset_add(&taken, best);
        const lat_cpuset *sib = &t->cpu[best].siblings;
        for (unsigned w = 0; w < LAT_MAX_CPUS / 64; w++)
            taken_cores.bits[w] |= sib->bits[w];
    }
    for (unsigned w = 0; w < LAT_MAX_CPUS / 64; w++)
        out->cold.bits[w] = usable.bits[w] & ~taken.bits[w];
    if (lat_cpuset_count(&out->cold) == 0) {
        out->cold = usable;
        out->cold_shares = ncold > 0;
    }

    size_t n = 0;
#define NOTE(...)                                                                                  \
    do {                                                                                           \
        if (n < sizeof out->note)                                                                  \
            n += (size_t)snprintf(out->note + n, sizeof out->note - n, "%s", n ? "; " : "");       \
        if (n < sizeof out->note)                                                                  \
            n += (size_t)snprintf(out->note + n, sizeof out->note - n, __VA_ARGS__);               \
    } while (0)
    if (out->oversubscribed) NOTE("oversubscribed: %d hot threads share %d CPUs", nhot, nusable);
    if (out->smt_shared) NOTE("hot threads share an SMT core");
    if (out->uses_cpu0) NOTE("a hot thread is on CPU 0");
    if (prefer_iso) {
        int on_iso = 0;
        for (int i = 0; i < nhot; i++)
            on_iso += lat_cpuset_has(&iso, out->hot[i]);
        if (on_iso < nhot) NOTE("%d of %d hot threads on non-isolated CPUs", nhot - on_iso, nhot);
    }
    if (out->cold_shares) NOTE("cold threads share CPUs with hot threads");
#undef NOTE
    return 0;
}

/* ---- run conditions
 * ------------------------------------------------------------------------------------ */

/* Value of key=... on the kernel command line, "none" if absent. */
static void cmdline_value(const char *cmdline, const char *key, char *dst, size_t len) {
    size_t kl = strlen(key);
    const char *p = cmdline;
    while (p && *p) {
        while (*p == ' ')
            p++;
        if (!strncmp(p, key, kl) && p[kl] == '=') {
            const char *v = p + kl + 1, *e = strchr(v, ' ');
            size_t vl = e ? (size_t)(e - v) : strlen(v);
            snprintf(dst, len, "%.*s", (int)vl, v);
            return;
        }
        if (!strncmp(p, "--", 2) && (p[2] == ' ' || p[2] == '\0')) break; /* init's arguments */
        p = strchr(p, ' ');
    }
    copy_str(dst, len, "none");
}

/* The first "key : value" line of /proc/cpuinfo, value into dst. */
static bool cpuinfo_field(const char *cpuinfo, const char *key, char *dst, size_t len) {
    size_t kl = strlen(key);
    for (const char *p = cpuinfo; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, key, kl) || (p[kl] != ' ' && p[kl] != '\t' && p[kl] != ':')) continue;
        const char *v = strchr(p, ':');
        const char *e = strchr(p, '\n');
        if (!v || (e && v > e)) continue;
        v++;
        while (*v == ' ' || *v == '\t')
            v++;
        size_t vl = e ? (size_t)(e - v) : strlen(v);
        snprintf(dst, len, "%.*s", (int)vl, v);
        return true;
    }
    return false;
}

static bool has_word(const char *line, const char *w) {
    size_t wl = strlen(w);
    for (const char *p = line; (p = strstr(p, w)); p += wl)
        if ((p == line || p[-1] == ' ') && (p[wl] == ' ' || p[wl] == '\0')) return true;
    return false;
}

static void read_or_unknown(const char *root, const char *path, char *dst, size_t len) {
    if (read_text(root, path, dst, len) || !dst[0]) copy_str(dst, len, "unknown");
}

static void human_size(uint64_t b, char *dst, size_t len) {
    if (b && b % (1ull << 30) == 0)
        snprintf(dst, len, "%lluG", (unsigned long long)(b >> 30));
    else if (b && b % (1ull << 20) == 0)
        snprintf(dst, len, "%lluM", (unsigned long long)(b >> 20));
    else if (b && b % 1024 == 0)
        snprintf(dst, len, "%lluK", (unsigned long long)(b >> 10));
    else
        snprintf(dst, len, "%llu", (unsigned long long)b);
}

static void warn(lat_runcond *rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(lat_runcond *rc, const char *fmt, ...) {
    if (rc->nwarnings >= LAT_RC_MAX_WARNINGS) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rc->warnings[rc->nwarnings++], sizeof rc->warnings[0], fmt, ap);
    va_end(ap);
}

/* ---- run conditions, one section per helper ------------------------------------------- */

static void rc_cpu_and_kernel(lat_runcond *rc, const char *root, const char *cpuinfo) {
    /* CPU model: x86 "model name"; aarch64 has no name, so MIDR (+ "CPU part"). */
    if (!cpuinfo_field(cpuinfo, "model name", rc->cpu_model, sizeof rc->cpu_model)) {
        char midr[64];
        if (read_text(root, SYSCPU "/cpu0/regs/identification/midr_el1", midr, sizeof midr) == 0)
            snprintf(rc->cpu_model, sizeof rc->cpu_model, "MIDR %s", midr);
        else if (!cpuinfo_field(cpuinfo, "CPU part", midr, sizeof midr))
            copy_str(rc->cpu_model, sizeof rc->cpu_model, "unknown");
        else
            snprintf(rc->cpu_model, sizeof rc->cpu_model, "CPU part %s", midr);
    }
    struct utsname u;
    if (uname(&u) == 0) {
        copy_str(rc->arch, sizeof rc->arch, u.machine);
        snprintf(rc->kernel, sizeof rc->kernel, "%s %s %s", u.sysname, u.release, u.version);
    } else {
        copy_str(rc->arch, sizeof rc->arch, "unknown");
        copy_str(rc->kernel, sizeof rc->kernel, "unknown");
    }
}

static void rc_cpus(lat_runcond *rc, const char *root, const lat_topo *t) {
    rc->ncpus_online = -1;
    if (t) {
        rc->ncpus_online = t->ncpus;
        lat_cpuset_format(&t->online, rc->cpus_online, sizeof rc->cpus_online);
        lat_cpuset_format(&t->possible, rc->cpus_possible, sizeof rc->cpus_possible);
        lat_cpuset aff;
        if (lat_thread_affinity(&aff) == 0)
            lat_cpuset_format(&aff, rc->affinity, sizeof rc->affinity);
        else
            copy_str(rc->affinity, sizeof rc->affinity, "unknown");
    } else {
        copy_str(rc->cpus_online, sizeof rc->cpus_online, "unknown");
        copy_str(rc->cpus_possible, sizeof rc->cpus_possible, "unknown");
        copy_str(rc->affinity, sizeof rc->affinity, "unknown");
    }
    if (read_text(root, SYSCPU "/isolated", rc->isolated, sizeof rc->isolated))
        copy_str(rc->isolated, sizeof rc->isolated, "unknown");
    else if (!rc->isolated[0])
        copy_str(rc->isolated, sizeof rc->isolated, "none");
    if (read_text(root, SYSCPU "/nohz_full", rc->nohz_full, sizeof rc->nohz_full))
        copy_str(rc->nohz_full, sizeof rc->nohz_full, "unknown");
    else if (!rc->nohz_full[0] || !strcmp(rc->nohz_full, "(null)"))
        copy_str(rc->nohz_full, sizeof rc->nohz_full, "none");
}

static void rc_frequency(lat_runcond *rc, const char *root, const lat_topo *t) {
    int first = t ? lat_cpuset_next(&t->online, 0) : 0;
    if (read_cpu_text(root, first, "cpufreq/scaling_governor", rc->governor, sizeof rc->governor) ||
        !rc->governor[0])
        copy_str(rc->governor, sizeof rc->governor, "unknown");
    if (read_cpu_text(root, first, "cpufreq/scaling_driver", rc->scaling_driver,
                      sizeof rc->scaling_driver) ||
        !rc->scaling_driver[0])
        copy_str(rc->scaling_driver, sizeof rc->scaling_driver, "unknown");
    if (read_cpu_text(root, first, "cpufreq/cpuinfo_max_freq", rc->max_freq_khz,
                      sizeof rc->max_freq_khz) ||
        !rc->max_freq_khz[0])
        copy_str(rc->max_freq_khz, sizeof rc->max_freq_khz, "unknown");

    char v[64];
    if (read_text(root, SYSCPU "/intel_pstate/no_turbo", v, sizeof v) == 0)
        snprintf(rc->turbo, sizeof rc->turbo, "%s (intel_pstate/no_turbo=%s)",
                 !strcmp(v, "0") ? "on" : "off", v);
    else if (read_text(root, SYSCPU "/cpufreq/boost", v, sizeof v) == 0)
        snprintf(rc->turbo, sizeof rc->turbo, "%s (cpufreq/boost=%s)",
                 !strcmp(v, "1") ? "on" : "off", v);
    else
        copy_str(rc->turbo, sizeof rc->turbo, "unknown");

    read_or_unknown(root, SYSCPU "/smt/active", rc->smt_active, sizeof rc->smt_active);
    read_or_unknown(root, SYSCPU "/smt/control", rc->smt_control, sizeof rc->smt_control);
}

static void rc_kernel_settings(lat_runcond *rc, const char *root) {
    char cmdline[4096];
    if (read_text(root, "/proc/cmdline", cmdline, sizeof cmdline) == 0) {
        cmdline_value(cmdline, "isolcpus", rc->cmdline_isolcpus, sizeof rc->cmdline_isolcpus);
        cmdline_value(cmdline, "nohz_full", rc->cmdline_nohz_full, sizeof rc->cmdline_nohz_full);
        cmdline_value(cmdline, "rcu_nocbs", rc->cmdline_rcu_nocbs, sizeof rc->cmdline_rcu_nocbs);
    } else {
        copy_str(rc->cmdline_isolcpus, sizeof rc->cmdline_isolcpus, "unknown");
        copy_str(rc->cmdline_nohz_full, sizeof rc->cmdline_nohz_full, "unknown");
        copy_str(rc->cmdline_rcu_nocbs, sizeof rc->cmdline_rcu_nocbs, "unknown");
    }

    char thp[128];
    if (read_text(root, "/sys/kernel/mm/transparent_hugepage/enabled", thp, sizeof thp) == 0) {
        char *a = strchr(thp, '['), *b = a ? strchr(a, ']') : NULL;
        if (a && b)
            snprintf(rc->thp, sizeof rc->thp, "%.*s", (int)(b - a - 1), a + 1);
        else
            copy_str(rc->thp, sizeof rc->thp, thp);
    } else {
        copy_str(rc->thp, sizeof rc->thp, "unknown");
    }
    read_or_unknown(root, "/sys/devices/system/clocksource/clocksource0/current_clocksource",
                    rc->clocksource, sizeof rc->clocksource);
}

static void rc_cpu_flags(lat_runcond *rc, const char *cpuinfo) {
    /* TSC flags and the hypervisor bit from /proc/cpuinfo "flags". */
    char flags[4096];
    if (cpuinfo_field(cpuinfo, "flags", flags, sizeof flags)) {
        static const char *const tscf[] = {"constant_tsc", "nonstop_tsc", "tsc_known_freq"};
        size_t n = 0;
        for (size_t i = 0; i < sizeof tscf / sizeof tscf[0]; i++)
            if (has_word(flags, tscf[i]) && n < sizeof rc->tsc_flags)
                n += (size_t)snprintf(rc->tsc_flags + n, sizeof rc->tsc_flags - n, "%s%s",
                                      n ? " " : "", tscf[i]);
        if (!n) copy_str(rc->tsc_flags, sizeof rc->tsc_flags, "none");
        copy_str(rc->virt, sizeof rc->virt,
                 has_word(flags, "hypervisor") ? "yes (hypervisor flag)" : "no");
    } else {
        copy_str(rc->tsc_flags, sizeof rc->tsc_flags, "unknown");
        copy_str(rc->virt, sizeof rc->virt, "unknown");
    }
    int inv = lat_clock_invariant();
    copy_str(rc->invariant_tsc, sizeof rc->invariant_tsc,
             inv == 1   ? "yes"
             : inv == 0 ? "no"
                        : "unknown");
}

static void rc_caches_and_build(lat_runcond *rc, const char *root, const lat_topo *t) {
    rc->caches[0] = '\0';
    if (t && t->ncaches) {
        size_t n = 0;
        for (int i = 0; i < t->ncaches && n < sizeof rc->caches; i++) {
            const lat_cache *c = &t->caches[i];
            char sz[32];
            human_size(c->size_bytes, sz, sizeof sz);
            const char *suffix = !strcmp(c->type, "Data")          ? "d"
                                 : !strcmp(c->type, "Instruction") ? "i"
                                                                   : "";
            n += (size_t)snprintf(rc->caches + n, sizeof rc->caches - n, "%sL%d%s %s",
                                  n ? ", " : "", c->level, suffix, sz);
        }
    } else {
        copy_str(rc->caches, sizeof rc->caches, "unknown");
    }
    if (t && t->hybrid) {
        char list[128];
        lat_cpuset_format(&t->perf, list, sizeof list);
        snprintf(rc->hybrid, sizeof rc->hybrid, "yes: performance cores %s", list);
    } else {
        copy_str(rc->hybrid, sizeof rc->hybrid, t ? "no" : "unknown");
    }

    copy_str(rc->glibc, sizeof rc->glibc, gnu_get_libc_version());
    copy_str(rc->compiler, sizeof rc->compiler, LAT_COMPILER_ID);
    const char *cf = LAT_COMPILER_FLAGS;
    while (*cf == ' ')
        cf++;
    copy_str(rc->compiler_flags, sizeof rc->compiler_flags, cf);
    const char *pre = getenv("LD_PRELOAD");
    copy_str(rc->ld_preload, sizeof rc->ld_preload, pre && *pre ? pre : "none");
    read_or_unknown(root, "/proc/sys/kernel/perf_event_paranoid", rc->perf_event_paranoid,
                    sizeof rc->perf_event_paranoid);
    read_or_unknown(root, "/proc/sys/kernel/nmi_watchdog", rc->nmi_watchdog,
                    sizeof rc->nmi_watchdog);
    read_or_unknown(root, "/proc/sys/kernel/numa_balancing", rc->numa_balancing,
                    sizeof rc->numa_balancing);
}

/* Cautions, in the spirit of Google Benchmark's "CPU scaling is enabled". */
static void rc_warnings(lat_runcond *rc) {
    if (strcmp(rc->governor, "unknown") && strcmp(rc->governor, "performance"))
        warn(rc,
             "CPU frequency scaling governor is '%s', not 'performance': figures will vary with "
             "load",
             rc->governor);
    if (!strncmp(rc->turbo, "on", 2))
        warn(rc, "turbo/boost is on: the clock speed depends on temperature and other cores' load");
    if (!strncmp(rc->virt, "yes", 3))
        warn(rc, "running in a virtual machine: the hypervisor can steal time and hides the PMU");
    if (!strcmp(rc->isolated, "none") || !strcmp(rc->isolated, "unknown"))
        warn(rc,
             "no isolated CPUs (isolcpus=): the scheduler and interrupts share the measuring CPUs");
    if (!strcmp(rc->smt_active, "1"))
        warn(rc, "SMT is active: a sibling hyperthread can share a measuring core");
    if (!strcmp(rc->thp, "always"))
        warn(rc,
             "transparent huge pages 'always': khugepaged can stall a run when it collapses pages");
    if (strcmp(rc->clocksource, "unknown") && strcmp(rc->clocksource, "tsc") &&
        strcmp(rc->clocksource, "arch_sys_counter"))
        warn(rc, "clocksource is '%s': clock_gettime is slow (not the cycle counter)",
             rc->clocksource);
    if (!strcmp(rc->invariant_tsc, "no"))
        warn(rc, "the TSC is not invariant: cycle counts drift with frequency changes");
    if (strcmp(rc->ld_preload, "none"))
        warn(rc, "LD_PRELOAD is set (%s): a different allocator is in use", rc->ld_preload);
    if (strstr(LAT_COMPILER_FLAGS, "-fsanitize"))
        warn(rc, "built with sanitizers: timings are not representative");
    else if (strstr(LAT_COMPILER_FLAGS, "-O0") || !strstr(LAT_COMPILER_FLAGS, "-O"))
        warn(rc, "built without optimization: timings are not representative");
}

int lat_runcond_collect(lat_runcond *rc, const char *root) {
    if (!rc) return -EINVAL;
    memset(rc, 0, sizeof *rc);
    root = norm_root(root);
    int ret = 0;
    lat_topo *t = NULL;
    const size_t cilen = 1 << 18;
    char *cpuinfo = lat__alloc(cilen);
    if (!cpuinfo) return -ENOMEM;
    if (read_text(root, "/proc/cpuinfo", cpuinfo, cilen)) cpuinfo[0] = '\0';
    rc_cpu_and_kernel(rc, root, cpuinfo);
    int lr = lat_topo_load(root, &t);
    if (lr == -ENOMEM) {
        ret = lr;
        goto fail;
    }
    rc_cpus(rc, root, t);
    rc_frequency(rc, root, t);
    rc_kernel_settings(rc, root);
    rc_cpu_flags(rc, cpuinfo);
    rc_caches_and_build(rc, root, t);
    rc_warnings(rc);
fail:
    lat_topo_destroy(t);
    lat__free(cpuinfo);
    return ret;
}

/* One table drives the text, Markdown and JSON writers, so they never disagree. */
typedef struct rc_field {
    const char *key;
    size_t off;
} rc_field;

#define F(k)                                                                                       \
    { #k, offsetof(lat_runcond, k) }
static const rc_field rc_fields[] = {
    F(cpu_model),
    F(arch),
    F(cpus_online),
    F(cpus_possible),
    F(affinity),
    F(isolated),
    F(nohz_full),
    F(governor),
    F(scaling_driver),
    F(max_freq_khz),
    F(turbo),
    F(smt_active),
    F(smt_control),
    F(cmdline_isolcpus),
    F(cmdline_nohz_full),
    F(cmdline_rcu_nocbs),
    F(thp),
    F(clocksource),
    F(tsc_flags),
    F(invariant_tsc),
    F(virt),
    F(caches),
    F(hybrid),
    F(kernel),
    F(glibc),
    F(compiler),
    F(compiler_flags),
    F(ld_preload),
    F(perf_event_paranoid),
    F(nmi_watchdog),
    F(numa_balancing),
};
#undef F
#define NFIELDS (sizeof rc_fields / sizeof rc_fields[0])

static const char *field(const lat_runcond *rc, size_t i) {
    return (const char *)rc + rc_fields[i].off;
}

const char *lat_runcond_field(const lat_runcond *rc, int i, const char **key) {
    if (!rc || i < 0 || (size_t)i >= NFIELDS) return NULL;
    if (key) *key = rc_fields[i].key;
    return field(rc, (size_t)i);
}

int lat_runcond_nfields(void) {
    return (int)NFIELDS;
}

int lat_runcond_write_text(const lat_runcond *rc, FILE *f) {
    if (!rc || !f) return -EINVAL;
    errno = 0; /* a failed write's cause: lat__write_status */
    for (size_t i = 0; i < NFIELDS; i++) {
        fprintf(f, "%-20s %s\n", rc_fields[i].key, field(rc, i));
        if (!strcmp(rc_fields[i].key, "cpus_possible"))
            fprintf(f, "%-20s %d\n", "ncpus_online", rc->ncpus_online);
    }
    for (int i = 0; i < rc->nwarnings; i++)
        fprintf(f, "warning: %s\n", rc->warnings[i]);
    return lat__write_status(f, 0);
}

/* Markdown cells: a '|' would end the cell. */
static void md_cell(FILE *f, const char *s) {
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", f);
        else
            fputc(*s, f);
    }
}

int lat_runcond_write_markdown(const lat_runcond *rc, FILE *f) {
    if (!rc || !f) return -EINVAL;
    errno = 0;
    fputs("| condition | value |\n|---|---|\n", f);
    for (size_t i = 0; i < NFIELDS; i++) {
        fprintf(f, "| %s | ", rc_fields[i].key);
        md_cell(f, field(rc, i));
        fputs(" |\n", f);
        if (!strcmp(rc_fields[i].key, "cpus_possible"))
            fprintf(f, "| ncpus_online | %d |\n", rc->ncpus_online);
    }
    if (rc->nwarnings) {
        fputs("\nWarnings:\n\n", f);
        for (int i = 0; i < rc->nwarnings; i++) {
            fputs("- ", f);
            md_cell(f, rc->warnings[i]);
            fputc('\n', f);
        }
    }
    return lat__write_status(f, 0);
}
