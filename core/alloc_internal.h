/* alloc_internal.h - the library's one allocator, for latlab's own floors only
 * (core, measure, workloads; never installed).  Every call goes through the
 * hooks of latlab/alloc.h, so tests can count allocations or fail the Nth.
 * Setup-time only: no hot path calls these. */
#ifndef LATLAB_ALLOC_INTERNAL_H
#define LATLAB_ALLOC_INTERNAL_H

#include "latlab/alloc.h"

void *lat__alloc(size_t size);                       /* malloc-aligned */
void *lat__alloc_aligned(size_t size, size_t align); /* align: power of two */
void *lat__calloc(size_t n, size_t size);            /* zeroed, overflow-checked */
void *lat__calloc_aligned(size_t n, size_t size, size_t align);
char *lat__strdup(const char *s);
void lat__free(void *ptr); /* NULL is fine */

#endif /* LATLAB_ALLOC_INTERNAL_H */
