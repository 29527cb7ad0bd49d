/* alloc.c - allocation routing with injectable hooks (see alloc.h). */
#include "alloc_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *libc_alloc(size_t size, size_t align, void *ud) {
    (void)ud;
    void *p = NULL;
    if (align <= 16) return malloc(size ? size : 1);
    if (posix_memalign(&p, align, size ? size : 1) != 0) return NULL;
    return p;
}

static void libc_free(void *ptr, void *ud) {
    (void)ud;
    free(ptr);
}

static lat_alloc_hooks hooks = {libc_alloc, libc_free, NULL};

void lat_set_alloc_hooks(const lat_alloc_hooks *h) {
    if (h)
        hooks = *h;
    else
        hooks = (lat_alloc_hooks){libc_alloc, libc_free, NULL};
}

void *lat__alloc(size_t size) {
    return hooks.alloc(size, 16, hooks.ud);
}

void *lat__alloc_aligned(size_t size, size_t align) {
    if (align < sizeof(void *)) align = sizeof(void *);
    return hooks.alloc(size, align, hooks.ud);
}

void *lat__calloc_aligned(size_t n, size_t size, size_t align) {
    if (size && n > SIZE_MAX / size) return NULL;
    void *p = lat__alloc_aligned(n * size, align);
    if (p) memset(p, 0, n * size);
    return p;
}

void *lat__calloc(size_t n, size_t size) {
    return lat__calloc_aligned(n, size, 16);
}

char *lat__strdup(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *p = lat__alloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

void lat__free(void *ptr) {
    if (ptr) hooks.free(ptr, hooks.ud);
}
