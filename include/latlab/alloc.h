/* alloc.h - the one place liblatlab allocates through.
 *
 * Every allocation in the library goes through one internal allocator (not
 * installed: core/alloc_internal.h), so a test can install hooks that count
 * allocations or fail the Nth one.  Hot paths
 * never call these (they are only used at setup).  The hooks are process-wide
 * and must be installed while no other thread uses the library. */
#ifndef LATLAB_ALLOC_H
#define LATLAB_ALLOC_H

#include "latlab/compiler.h"

#include <stddef.h>

typedef struct lat_alloc_hooks {
    /* Return size bytes aligned to align (a power of two >= sizeof(void *)), or NULL. */
    void *(*alloc)(size_t size, size_t align, void *ud);
    void (*free)(void *ptr, void *ud);
    void *ud;
} lat_alloc_hooks;

/* Install hooks (copied); NULL restores the C library's allocator. */
LAT_API void lat_set_alloc_hooks(const lat_alloc_hooks *hooks);

#endif /* LATLAB_ALLOC_H */
