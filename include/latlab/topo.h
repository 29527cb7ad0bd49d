/* topo.h - CPU topology, thread pinning, hot-thread placement and the run
 * conditions a latency figure must be reported with.
 *
 * Topology is read from sysfs/procfs under a root directory (NULL or "" means
 * the real "/"), so tests can feed fake trees.  Everything here is setup-time:
 * it reads files and allocates; nothing is meant for a hot path.  A missing
 * file is never an error: it reads as "unknown" (strings) or 0 / empty. */

/* Placement: a pipeline has k "hot" threads (spinning, one CPU each) and m
 * "cold" ones (aggregators, loggers: unpinned).  lat_topo_plan() picks one CPU
 * per hot thread, preferring isolated CPUs, performance cores (only on hybrid
 * machines), CPUs other than 0, and never an SMT sibling of another hot
 * thread's CPU when it can avoid one; or it refuses with a reason. */
#ifndef LATLAB_TOPO_H
#define LATLAB_TOPO_H

#include "latlab/compiler.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- CPU sets ------------------------------------------------------------------ */

#define LAT_MAX_CPUS 1024

/* A fixed-size set of CPU numbers 0..LAT_MAX_CPUS-1.  Plain value; copy freely. */
typedef struct lat_cpuset {
    uint64_t bits[LAT_MAX_CPUS / 64];
} lat_cpuset;

static inline void lat_cpuset_zero(lat_cpuset *s) {
    for (unsigned i = 0; i < LAT_MAX_CPUS / 64; i++)
        s->bits[i] = 0;
}
/* cpu outside 0..LAT_MAX_CPUS-1 is ignored (add) / absent (has). */
static inline void lat_cpuset_add(lat_cpuset *s, int cpu) {
    if (cpu >= 0 && cpu < LAT_MAX_CPUS) s->bits[cpu / 64] |= 1ull << (cpu % 64);
}
static inline void lat_cpuset_del(lat_cpuset *s, int cpu) {
    if (cpu >= 0 && cpu < LAT_MAX_CPUS) s->bits[cpu / 64] &= ~(1ull << (cpu % 64));
}
static inline bool lat_cpuset_has(const lat_cpuset *s, int cpu) {
    return cpu >= 0 && cpu < LAT_MAX_CPUS && ((s->bits[cpu / 64] >> (cpu % 64)) & 1u);
}
static inline int lat_cpuset_count(const lat_cpuset *s) {
    int n = 0;
    for (unsigned i = 0; i < LAT_MAX_CPUS / 64; i++)
        n += __builtin_popcountll(s->bits[i]);
    return n;
}
/* Lowest member >= from, or -1. */
LAT_API int lat_cpuset_next(const lat_cpuset *s, int from);
/* out = a & b (out may alias either). */
LAT_API void lat_cpuset_and(lat_cpuset *out, const lat_cpuset *a, const lat_cpuset *b);

/* Parse a kernel CPU list ("0-3,8,10-11", "" = empty; a trailing newline is
 * fine).  Returns 0, or -EINVAL (syntax, or a CPU >= LAT_MAX_CPUS). */
LAT_API int lat_cpuset_parse(const char *list, lat_cpuset *out);
/* Write s as a CPU list ("0-3,8"; "" when empty) into buf (always terminated).
 * Returns the length it needed (like snprintf); >= len means truncated. */
LAT_API size_t lat_cpuset_format(const lat_cpuset *s, char *buf, size_t len);

/* ---- topology ------------------------------------------------------------------- */

typedef struct lat_topo lat_topo; /* opaque; read-only after load, share freely */

/* One CPU's facts.  Unknown numbers are -1 (ids) or 0 (capacity, frequency). */
typedef struct lat_topo_cpu {
    int cpu;
    int core_id, package_id;
    lat_cpuset siblings;   /* SMT siblings including cpu itself (thread_siblings_list) */
    unsigned capacity;     /* cpu_capacity (1024 = the biggest core), 0 = unknown */
    uint64_t max_freq_khz; /* cpufreq/cpuinfo_max_freq, 0 = unknown */
    bool perf_core;        /* a performance core (see lat_topo_hybrid) */
    bool isolated;         /* in the isolated set (isolcpus) */
} lat_topo_cpu;

/* One cache as seen from the first online CPU. */
typedef struct lat_cache {
    int level;              /* 1, 2, 3 */
    char type[16];          /* "Data", "Instruction", "Unified" */
    uint64_t size_bytes;    /* 0 = unknown */
    unsigned line_bytes;    /* coherency_line_size, 0 = unknown */
    lat_cpuset shared_cpus; /* CPUs sharing this cache */
} lat_cache;

#define LAT_TOPO_MAX_CACHES 8

/* Read the topology under root (NULL or "" = the real system).  The affinity
 * mask is the calling thread's sched_getaffinity() for the real system and
 * "every online CPU" for a fake root (change it with lat_topo_set_affinity).
 * An absent "online" file counts CPUs from the cpuN directories.  Returns 0
 * and *out, -ENOMEM, or -ENOENT when no CPU can be found at all. */
LAT_API int lat_topo_load(const char *root, lat_topo **out);
/* NULL is fine. */
LAT_API void lat_topo_destroy(lat_topo *t);

/* Sets: online, the affinity mask, isolated (/sys/.../cpu/isolated), nohz_full,
 * and the performance cores (every online CPU on a non-hybrid machine).
 * The pointers stay valid until lat_topo_destroy. */
LAT_API const lat_cpuset *lat_topo_online(const lat_topo *t);
LAT_API const lat_cpuset *lat_topo_affinity(const lat_topo *t);
LAT_API const lat_cpuset *lat_topo_isolated(const lat_topo *t);
LAT_API const lat_cpuset *lat_topo_nohz_full(const lat_topo *t);
LAT_API const lat_cpuset *lat_topo_perf_cores(const lat_topo *t);
/* Online CPU count. */
LAT_API int lat_topo_ncpus(const lat_topo *t);
/* Replace the affinity mask the planner works within (a fake tree's, or to
 * plan inside a subset).  Not thread-safe against readers of t. */
LAT_API void lat_topo_set_affinity(lat_topo *t, const lat_cpuset *mask);

/* True when the cores differ: the smallest cpu_capacity (or, with capacities
 * all equal or absent, the smallest max frequency) is below 90% of the
 * largest.  Then performance cores are those at >= 90% of the largest.
 * /sys/devices/cpu_core/cpus (Intel hybrid) names them directly when present. */
LAT_API bool lat_topo_hybrid(const lat_topo *t);

/* Facts about one CPU.  Returns 0, or -EINVAL (NULL, or cpu not online). */
LAT_API int lat_topo_cpu_info(const lat_topo *t, int cpu, lat_topo_cpu *out);

/* The caches of the first online CPU, sorted by level; returns the count
 * (0..LAT_TOPO_MAX_CACHES) and *out (valid until lat_topo_destroy). */
LAT_API int lat_topo_caches(const lat_topo *t, const lat_cache **out);

/* ---- pinning --------------------------------------------------------------------- */

/* Pin the calling thread to one CPU.  Returns 0 or a negative errno (-EINVAL
 * for a CPU outside the affinity mask or offline).  The thread may still run
 * elsewhere until the kernel next schedules it; lat_current_cpu() tells. */
LAT_API int lat_pin_thread(int cpu);
/* Let the calling thread run on any CPU of mask (NULL = the mask the process
 * had when liblatlab was loaded, captured before main()).  0 or negative errno. */
LAT_API int lat_unpin_thread(const lat_cpuset *mask);
/* The CPU the calling thread is on right now (sched_getcpu), or negative errno. */
LAT_API int lat_current_cpu(void);
/* The calling thread's affinity mask.  0 or negative errno. */
LAT_API int lat_thread_affinity(lat_cpuset *out);

/* ---- placement --------------------------------------------------------------------- */

#define LAT_PLAN_MAX_HOT 64

enum {
    LAT_PLAN_SHARE = 1u << 0, /* too few CPUs: share them round-robin instead of refusing */
};

/* A placement: hot[i] is the CPU for hot thread i; cold threads run unpinned
 * inside `cold` (the usable CPUs not taken by hot threads, or all usable CPUs
 * when none are left).  note explains any compromise, or why it refused. */
typedef struct lat_plan {
    int nhot, ncold;
    int hot[LAT_PLAN_MAX_HOT];
    lat_cpuset cold;
    bool oversubscribed; /* some hot threads share a CPU (LAT_PLAN_SHARE) */
    bool smt_shared;     /* two hot threads are SMT siblings on one core */
    bool uses_cpu0;      /* a hot thread is on CPU 0 (housekeeping, interrupts) */
    bool cold_shares;    /* cold threads share CPUs with hot ones */
    char note[256];      /* "" when nothing to say */
} lat_plan;

/* Plan nhot pinned hot threads and ncold unpinned ones within the topology's
 * affinity mask (intersected with the online CPUs).  Preference for each hot
 * CPU, in order: not an SMT sibling of another hot CPU; isolated (when any
 * usable CPU is isolated); a performance core (hybrid machines); not CPU 0;
 * the lowest number.  Returns 0 and *out; LAT_ETOOFEW_CPUS when nhot exceeds
 * the usable CPUs and LAT_PLAN_SHARE is not set (out->note says e.g. "needs
 * 3 CPUs for hot threads, this machine has 2"); -EINVAL for NULL, negative
 * counts or nhot > LAT_PLAN_MAX_HOT.  Thread-safe (reads t only). */
LAT_API int lat_topo_plan(const lat_topo *t, int nhot, int ncold, unsigned flags, lat_plan *out);

/* ---- run conditions ------------------------------------------------------------------ */

#define LAT_RC_STR 192
#define LAT_RC_MAX_WARNINGS 12

/* Every fact that changes a latency figure, as text ("unknown" when the file is
 * missing).  A plain value (~5 KiB): put it on the stack or in a struct. */
typedef struct lat_runcond {
    char cpu_model[LAT_RC_STR];
    char arch[32];
    char cpus_online[LAT_RC_STR]; /* CPU list, e.g. "0-1" */
    char cpus_possible[LAT_RC_STR];
    char affinity[LAT_RC_STR]; /* this process's mask */
    char isolated[LAT_RC_STR]; /* /sys/.../isolated ("" read as "none") */
    char nohz_full[LAT_RC_STR];
    int ncpus_online;  /* -1 unknown */
    char governor[64]; /* cpu0's scaling_governor */
    char scaling_driver[64];
    char max_freq_khz[32];
    char turbo[64]; /* "on", "off" (no_turbo/boost), or "unknown" */
    char smt_active[16], smt_control[32];
    char cmdline_isolcpus[LAT_RC_STR]; /* from /proc/cmdline, "none" if absent */
    char cmdline_nohz_full[LAT_RC_STR];
    char cmdline_rcu_nocbs[LAT_RC_STR];
    char thp[32]; /* the selected [mode] */
    char clocksource[32];
    char tsc_flags[LAT_RC_STR]; /* which of constant_tsc nonstop_tsc tsc_known_freq */
    char invariant_tsc[16];     /* CPUID: "yes", "no", "unknown" */
    char virt[64];              /* "yes (hypervisor flag)", "no", "unknown" */
    char caches[LAT_RC_STR];    /* "L1d 48K, L1i 32K, L2 2M, L3 300M" */
    char hybrid[64];            /* "no", or "yes: performance cores 0-7" */
    char kernel[LAT_RC_STR];    /* uname -srv */
    char glibc[32];
    char compiler[LAT_RC_STR]; /* baked in at build time */
    char compiler_flags[LAT_RC_STR];
    char ld_preload[LAT_RC_STR]; /* "none" if unset */
    char perf_event_paranoid[16];
    char nmi_watchdog[16];
    char numa_balancing[16];
    int nwarnings;
    char warnings[LAT_RC_MAX_WARNINGS][160]; /* Google-Benchmark-style cautions */
} lat_runcond;

/* Collect the run conditions from root (NULL or "" = the real system; uname,
 * glibc, compiler, LD_PRELOAD, CPUID and the affinity mask always describe
 * this process).  Never fails on missing files.  Returns 0, -EINVAL (NULL
 * out) or -ENOMEM.  Thread-safe. */
LAT_API int lat_runcond_collect(lat_runcond *out, const char *root);

/* The i-th run-condition field (0 <= i < lat_runcond_nfields()): its value,
 * and its key in *key when key is not NULL; NULL when i is out of range. */
LAT_API const char *lat_runcond_field(const lat_runcond *rc, int i, const char **key);
LAT_API int lat_runcond_nfields(void);
/* "key  value" lines, then "warning: ..." lines.  0 or -EIO. */
LAT_API int lat_runcond_write_text(const lat_runcond *rc, FILE *f);
/* A Markdown table (| condition | value |) then a warnings list.  0 or -EIO. */
LAT_API int lat_runcond_write_markdown(const lat_runcond *rc, FILE *f);

#endif /* LATLAB_TOPO_H */
