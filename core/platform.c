/* platform.c - readers for what the platform took from a run (see
 * platform.h): schedstat, per-thread context switches, /proc/stat lines.
 * The parsers are strict about the numbers they need and tolerant of what
 * later kernels append. */
#include "latlab/platform.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "alloc_internal.h"
#include "latlab/error.h"

/* Parse one unsigned decimal at *p (after blanks); advances *p. */
static int next_u64(const char **p, const char *end, uint64_t *out) {
    const char *s = *p;
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    if (s >= end || !isdigit((unsigned char)*s)) return LAT_EFORMAT;
    uint64_t v = 0;
    while (s < end && isdigit((unsigned char)*s)) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) return LAT_EFORMAT;
        v = v * 10 + d;
        s++;
    }
    *p = s;
    *out = v;
    return 0;
}

int lat_schedstat_parse(const char *text, size_t len, lat_schedstat *out) {
    if (!text || !out) return -EINVAL;
    const char *p = text, *end = text + len;
    uint64_t v[3];
    for (int i = 0; i < 3; i++)
        if (next_u64(&p, end, &v[i]) != 0) return LAT_EFORMAT;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p < end && *p != '\n') return LAT_EFORMAT;
    out->run_ns = v[0];
    out->wait_ns = v[1];
    out->slices = v[2];
    return 0;
}

/* Read a small /proc file into buf (NUL-terminated); returns its length or a
 * negative errno. */
static long read_small(const char *path, char *buf, size_t cap) {
    /* open/read, not stdio: no allocation, so a thread can account for
     * itself right next to a counting-allocator bracket */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    size_t n = 0;
    while (n < cap - 1) {
        ssize_t k = read(fd, buf + n, cap - 1 - n);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) {
            int e = -errno;
            close(fd);
            return e;
        }
        if (k == 0) break;
        n += (size_t)k;
    }
    close(fd);
    buf[n] = 0;
    return (long)n;
}

int lat_schedstat_read(const char *path, lat_schedstat *out) {
    char buf[256];
    long n = read_small(path ? path : "/proc/thread-self/schedstat", buf, sizeof buf);
    if (n < 0) return (int)n;
    return lat_schedstat_parse(buf, (size_t)n, out);
}

int lat_thread_switches(uint64_t *voluntary, uint64_t *involuntary) {
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0) return -errno;
    if (voluntary) *voluntary = (uint64_t)ru.ru_nvcsw;
    if (involuntary) *involuntary = (uint64_t)ru.ru_nivcsw;
    return 0;
}

/* Parse the numbers after "cpuN" on one line. */
static int cpu_fields(const char *p, const char *end, lat_cpustat *out) {
    uint64_t *dst[8] = {&out->user,   &out->nice, &out->system,  &out->idle,
                        &out->iowait, &out->irq,  &out->softirq, &out->steal};
    memset(out, 0, sizeof *out);
    for (int i = 0; i < 8; i++) {
        const char *q = p;
        while (q < end && (*q == ' ' || *q == '\t'))
            q++;
        if (q >= end || *q == '\n') return i >= 4 ? 0 : LAT_EFORMAT;
        if (next_u64(&p, end, dst[i]) != 0) return LAT_EFORMAT;
    }
    return 0;
}

int lat_cpustat_parse(const char *text, size_t len, int cpu, lat_cpustat *out) {
    if (!text || !out) return -EINVAL;
    const char *p = text, *end = text + len;
    char want[24];
    int wl =
        cpu < 0 ? snprintf(want, sizeof want, "cpu") : snprintf(want, sizeof want, "cpu%d", cpu);
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        if (eol - p > wl && !memcmp(p, want, (size_t)wl) && (p[wl] == ' ' || p[wl] == '\t'))
            return cpu_fields(p + wl, eol, out);
        if (eol == end) break;
        p = eol + 1;
    }
    return -ENOENT;
}

int lat_cpustat_read(const char *path, int cpu, lat_cpustat *out) {
    /* /proc/stat grows with the interrupt count: 64 KiB holds the cpu lines,
     * which come first; a truncated tail is harmless. */
    size_t cap = 65536;
    char *buf = lat__alloc(cap);
    if (!buf) return -ENOMEM;
    long n = read_small(path ? path : "/proc/stat", buf, cap);
    int rc = n < 0 ? (int)n : lat_cpustat_parse(buf, (size_t)n, cpu, out);
    lat__free(buf);
    return rc;
}

/* Saturating: fields near UINT64_MAX (a corrupt file) must not wrap the sum
 * below one of its parts. */
uint64_t lat_cpustat_total(const lat_cpustat *c) {
    const uint64_t f[8] = {c->user,   c->nice, c->system,  c->idle,
                           c->iowait, c->irq,  c->softirq, c->steal};
    uint64_t t = 0;
    for (int i = 0; i < 8; i++)
        t = f[i] > UINT64_MAX - t ? UINT64_MAX : t + f[i];
    return t;
}

double lat_cpustat_tick_ns(void) {
    long hz = sysconf(_SC_CLK_TCK);
    return hz > 0 ? 1e9 / (double)hz : 1e7;
}
