/* preempt.h - did the kernel take the CPU from this thread during a window? */

/* A hot thread's gap detector (gaps.h) compares consecutive counter reads of
 * its spin loop; inside a window of real work (the pipeline's work stage) it
 * does not read the counter, and a long window there can be the thread's own
 * cost (an allocator slow path, a page fault) as well as the platform's.
 * Time cannot tell them apart; the kernel can. */

/* Restartable sequences (rseq,
 * registered for every thread by glibc 2.35+) give each thread a word,
 * rseq_cs, that the kernel clears whenever it returns to that thread after
 * preempting it, migrating it or delivering a signal, when the word points
 * at a descriptor whose code range does not hold the thread's position.  Arm
 * the word with an empty range before the window; if it reads 0 after the
 * window, the kernel took the CPU meanwhile (at least one context switch or
 * signal).  A minor page fault, a system call or a busy loop leave it alone.
 * The hypervisor's steal is invisible to the guest kernel, so not seen here. */

/* Cost: one store before, one load after, on the thread's own line; no
 * system call.  Where rseq is not registered (old glibc, other libc, tunable
 * glibc.pthread.rseq=0) or not built in, init returns -ENOSYS and the probe
 * never fires.  Threading: each thread inits and uses its own probe. */
#ifndef LATLAB_PREEMPT_H
#define LATLAB_PREEMPT_H

/* Experimental: its API may change in any release (see latlab.h). */
#ifndef LATLAB_EXPERIMENTAL
#error "latlab/preempt.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "latlab/compiler.h"

typedef struct lat_preempt {
    volatile uint64_t *slot; /* this thread's rseq_cs word, NULL when unavailable */
    uint64_t desc;           /* address of the empty-range descriptor */
} lat_preempt;

/* Set p up for the calling thread.  Returns 0, or -ENOSYS (no rseq: p is
 * inert, lat_preempt_fired always false).  NULL p: -EINVAL. */
int lat_preempt_init(lat_preempt *p);
/* Disarm (the word back to 0); p stays usable.  NULL is fine. */
void lat_preempt_fini(lat_preempt *p);

/* Arm before the window.  Hot path. */
LAT_INLINE void lat_preempt_arm(lat_preempt *p) {
    if (p->slot) *p->slot = p->desc;
    atomic_signal_fence(memory_order_seq_cst); /* the window's code stays after */
}

/* After the window: true when the kernel took the CPU since the last arm.
 * Hot path. */
LAT_INLINE bool lat_preempt_fired(const lat_preempt *p) {
    atomic_signal_fence(memory_order_seq_cst); /* the window's code stays before */
    return p->slot && *p->slot == 0;
}

#endif /* LATLAB_PREEMPT_H */
