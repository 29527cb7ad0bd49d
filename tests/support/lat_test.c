/* lat_test.c - test helpers: counting allocator, CPU count, temporary dirs. */
#include "lat_test.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LAT_NO_ALLOC_COUNT 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define LAT_NO_ALLOC_COUNT 1
#endif
#endif

static __thread int counting;
static __thread uint64_t count;

#ifndef LAT_NO_ALLOC_COUNT
/* glibc exports its allocator under these names; defining malloc & co. in the
 * executable interposes them for the whole process (the library too). */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

void *malloc(size_t n) {
    if (counting) count++;
    return __libc_malloc(n);
}
void *calloc(size_t a, size_t b) {
    if (counting) count++;
    return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n) {
    if (counting) count++;
    return __libc_realloc(p, n);
}
int posix_memalign(void **out, size_t align, size_t n) {
    if (counting) count++;
    void *p = __libc_memalign(align, n);
    if (!p) return 12; /* ENOMEM */
    *out = p;
    return 0;
}
void *aligned_alloc(size_t align, size_t n) {
    if (counting) count++;
    return __libc_memalign(align, n);
}
void *memalign(size_t align, size_t n) {
    if (counting) count++;
    return __libc_memalign(align, n);
}
void free(void *p) { __libc_free(p); }
int lat_alloc_count_available(void) { return 1; }
#else
int lat_alloc_count_available(void) { return 0; }
#endif

void lat_alloc_count_begin(void) {
    count = 0;
    counting = 1;
}

uint64_t lat_alloc_count_end(void) {
    counting = 0;
    return count;
}

int lat_test_cpus(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
    return CPU_COUNT(&set);
}

int lat_test_is_root(void) { return geteuid() == 0; }

static char tmpdir[256];

static void rm_tmpdir(void) {
    if (tmpdir[0]) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0) {
        }
    }
}

const char *lat_test_tmpdir(void) {
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/lattest.XXXXXX");
        if (!mkdtemp(tmpdir)) abort();
        atexit(rm_tmpdir);
    }
    return tmpdir;
}
