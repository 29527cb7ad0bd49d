/* alloccount.h - a counting allocator that proves a region allocates nothing.
 *
 * The object behind it (liblatlab_alloccount.a, built from core/alloccount.c)
 * defines malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign and
 * free, forwarding to glibc's __libc_* entry points, so linking it into an
 * EXECUTABLE interposes the allocator for the whole process, libraries
 * included.  Never link it into a shared library.  Counting is per thread and
 * costs one thread-local test per call when off.  Under AddressSanitizer or
 * ThreadSanitizer (which own malloc) the interposer is compiled out and
 * lat_alloccount_available() returns 0: callers must then say "unavailable",
 * never report 0. */
#ifndef LATLAB_ALLOCCOUNT_H
#define LATLAB_ALLOCCOUNT_H

/* Experimental: its API may change in any release (see latlab.h). */
#ifndef LATLAB_EXPERIMENTAL
#error "latlab/alloccount.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stdint.h>

/* 1 when allocations are counted in this build, 0 under sanitizers. */
int lat_alloccount_available(void);
/* Start counting allocation calls (malloc, calloc, realloc, memalign family)
 * made by the calling thread; resets its count. */
void lat_alloccount_begin(void);
/* Stop counting on the calling thread; returns the calls since begin. */
uint64_t lat_alloccount_end(void);

#endif /* LATLAB_ALLOCCOUNT_H */
