/* alloccount.c - the counting allocator (see alloccount.h).  Built as its own
 * static library, not part of liblatlab: it interposes malloc & co. */
#include "latlab/alloccount.h"

#include <errno.h>
#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NO_ALLOC_COUNT 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define NO_ALLOC_COUNT 1
#endif
#endif

static __thread int counting;
static __thread uint64_t calls;

#ifndef NO_ALLOC_COUNT
/* glibc exports its allocator under these names as well. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

void *malloc(size_t n) {
    if (counting) calls++;
    return __libc_malloc(n);
}
void *calloc(size_t a, size_t b) {
    if (counting) calls++;
    return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n) {
    if (counting) calls++;
    return __libc_realloc(p, n);
}
int posix_memalign(void **out, size_t align, size_t n) {
    if (counting) calls++;
    void *p = __libc_memalign(align, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
void *aligned_alloc(size_t align, size_t n) {
    if (counting) calls++;
    return __libc_memalign(align, n);
}
void *memalign(size_t align, size_t n) {
    if (counting) calls++;
    return __libc_memalign(align, n);
}
void free(void *p) {
    __libc_free(p);
}
int lat_alloccount_available(void) {
    return 1;
}
#else
int lat_alloccount_available(void) {
    return 0;
}
#endif

void lat_alloccount_begin(void) {
    calls = 0;
    counting = 1;
}

uint64_t lat_alloccount_end(void) {
    counting = 0;
    return calls;
}
