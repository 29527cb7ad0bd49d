/* ring.h - lock-free single-producer / single-consumer rings and idle strategies. */

/* Two rings with one API, both carrying items of a fixed size (set at init)
 * that are copied in and out, with a power-of-two capacity: */

/*   lat_ring     cached-index ring (rigtorp SPSCQueue / rtrb design): the
 *                producer's index and the consumer's index live on separate
 *                128-byte lines, each side keeps a private copy of the other
 *                side's index and rereads the shared one only when its copy says
 *                full (producer) or empty (consumer).  Items are contiguous.
 *   lat_seqring  per-slot sequence ring: each slot starts with a sequence word
 *                that the producer stores after the item, so the consumer polls
 *                the slot itself and a hop moves one cache line (item + word)
 *                instead of two (index line, then item line).  The producer
 *                still uses a cached copy of the consumer's index for space. */

/* Both hold `capacity` items (64-bit positions, no wasted slot), have 128 bytes
 * of padding before and after the slots, and offer: try_push / try_pop (never
 * wait; a full ring hands the item back by returning false, nothing is dropped),
 * push_wait / pop_wait (wait with an idle strategy), peek, len, capacity, batch
 * reserve/commit on both sides (zero-copy, up to two spans across the wrap) and
 * close. */

/* WHICH RING TO USE.  `latlab bakeoff ring` (the bake-off) picked the default
 * for the pipeline lab: the per-slot sequence ring (LAT_RING_DEFAULT_SEQ = 1).
 * Pipeline code should use the lat_spsc_* names at the end of this file (and
 * the *_t typed forms on hot paths): they map to the winner, and their
 * signatures are the same for both rings. */

/* Why: a hop of the sequence ring moves one cache line (the slot, whose
 * sequence word says it is full), while the cached-index ring moves the index
 * line and then the item line.  So the sequence ring wins on cross-core
 * latency, which is what the pipeline needs; both stream at similar rates.
 * The figures behind this choice are printed
 * by `latlab bakeoff ring` (next to ck_ring and the cache-line ping-pong floor,
 * measured in the same run) and quoted in the README; they are not kept here
 * because they go stale. */

/* THREADS.  Every function on a ring says which side may call it:
 *   [producer]  only the one producer thread;
 *   [consumer]  only the one consumer thread;
 *   [any]       any thread, any time after init;
 *   [setup]     no other thread may use the ring concurrently.
 * Debug builds (not NDEBUG and not optimized, or -DLAT_RING_OWNER_CHECKS=1)
 * record the calling thread on each side's first use and abort with a message
 * when another thread calls that side; release builds compile the check out.
 * lat_ring_reset_owners() hands the sides to new threads. */

/* HOT PATH.  try_push, try_pop, peek, len and the batch calls are static inline,
 * allocate nothing, take no lock and make no system call (tests/core/test_ring.c
 * checks the allocation part with a counting allocator).  The only exception is
 * a ring made with LAT_RING_WAKEABLE: its push/pop make one futex_wake system
 * call when, and only when, the other side is asleep in a blocking wait. */

/* MEMORY ORDER.  The producer writes the item, then publishes with a release
 * store (head index, or the slot's sequence word); the consumer's acquire load
 * of the same word pairs with it, so the item is visible before it is read.
 * Symmetrically the consumer's release store of its tail index pairs with the
 * producer's acquire load before it reuses a slot.  Wakeable rings use seq_cst
 * for the publish and the sleeper check (a Dekker pair, see ring.c). */
#ifndef LATLAB_RING_H
#define LATLAB_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "latlab/compiler.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- idle strategies ------------------------------------------------------ */

/* How a waiting thread spends its time.  A small value type: build one with
 * the lat_idle_*() constructors (or lat_idle_parse) and pass it to waits. */
typedef enum lat_idle_kind {
    LAT_IDLE_SPIN = 0,    /* busy-spin with the CPU pause hint; lowest latency, burns the CPU */
    LAT_IDLE_YIELD = 1,   /* `spins` pauses, then sched_yield() each round */
    LAT_IDLE_BACKOFF = 2, /* `spins` pauses, `yields` yields, then sleeps doubling
                             from min_sleep_ns up to max_sleep_ns (Aeron's backoff) */
    LAT_IDLE_BLOCK = 3,   /* `spins` pauses, then futex wait: costs nothing while asleep
                             and wakes on the other side's first push/pop (needs a
                             LAT_RING_WAKEABLE ring; otherwise the futex wait times out
                             after max_sleep_ns and rechecks) */
} lat_idle_kind;

typedef struct lat_idle {
    lat_idle_kind kind;
    uint32_t spins;        /* pause rounds before yielding/sleeping (not SPIN) */
    uint32_t yields;       /* BACKOFF: sched_yield rounds before sleeping */
    uint32_t min_sleep_ns; /* BACKOFF: first sleep */
    uint32_t max_sleep_ns; /* BACKOFF: sleep cap; BLOCK: futex timeout on a
                              non-wakeable ring (0 = 1 ms) */
} lat_idle;

/* Progress through one wait; zero it (or lat_idle_reset) before each wait. */
typedef struct lat_idle_state {
    uint32_t rounds;   /* idle steps taken so far */
    uint32_t sleep_ns; /* current backoff sleep */
} lat_idle_state;

static inline lat_idle lat_idle_spin(void) {
    lat_idle i = {LAT_IDLE_SPIN, 0, 0, 0, 0};
    return i;
}
/* spins: pause rounds before the first yield (Disruptor uses 100). */
static inline lat_idle lat_idle_yield(uint32_t spins) {
    lat_idle i = {LAT_IDLE_YIELD, spins, 0, 0, 0};
    return i;
}
/* Aeron's defaults are (10, 20, 1000, 1000000). */
static inline lat_idle lat_idle_backoff(uint32_t spins, uint32_t yields, uint32_t min_sleep_ns,
                                        uint32_t max_sleep_ns) {
    lat_idle i = {LAT_IDLE_BACKOFF, spins, yields, min_sleep_ns ? min_sleep_ns : 1,
                  max_sleep_ns > min_sleep_ns ? max_sleep_ns : (min_sleep_ns ? min_sleep_ns : 1)};
    return i;
}
/* spins: pause rounds before sleeping in the futex. */
static inline lat_idle lat_idle_block(uint32_t spins) {
    lat_idle i = {LAT_IDLE_BLOCK, spins, 0, 0, 1000000};
    return i;
}
static inline void lat_idle_reset(lat_idle_state *st) {
    st->rounds = 0;
    st->sleep_ns = 0;
}

/* "spin", "yield", "backoff" or "block" with the defaults above (yield: 100
 * spins; backoff: 10, 20, 1 us, 1 ms; block: 100 spins).  Returns 0 or -EINVAL
 * (unknown name or NULL).  Thread-safe. */
LAT_API int lat_idle_parse(const char *name, lat_idle *out);
/* The kind's name ("spin", ...); "unknown" for a bad value; never NULL. */
LAT_API const char *lat_idle_name(lat_idle_kind kind);
/* One idle step for a wait that has no futex to sleep on (BLOCK behaves like
 * BACKOFF capped at max_sleep_ns).  May call sched_yield or nanosleep: not for
 * hot paths, only for idle ones.  Thread-safe (state is the caller's). */
LAT_API void lat_idle_step(const lat_idle *idle, lat_idle_state *st);

/* ---- shared pieces --------------------------------------------------------- */

/* Flags for init/create. */
#define LAT_RING_WAKEABLE                                                                          \
    1u /* push/pop wake a side sleeping in a LAT_IDLE_BLOCK wait.                                  \
          Costs a seq_cst store per push/pop (xchg on x86), and for                                \
          lat_seqring an out-of-line call per push/pop. */

/* Up to two contiguous runs of items from a batch reserve (the second one
 * starts at the ring's first slot after a wrap).  Item i of run k is at
 * ptr[k] + i * stride. */
typedef struct lat_ring_span {
    unsigned char *ptr[2];
    size_t n[2];   /* items in each run; n[1] == 0 when the batch does not wrap */
    size_t stride; /* bytes between consecutive items of one run */
} lat_ring_span;

/* The i-th item (0 <= i < n[0] + n[1]) of a span. */
static inline void *lat_ring_span_at(const lat_ring_span *s, size_t i) {
    return i < s->n[0] ? s->ptr[0] + i * s->stride : s->ptr[1] + (i - s->n[0]) * s->stride;
}

/* Cold control block shared by both sides: written only when a side goes to
 * sleep, wakes one, or closes the ring, so it stays in both caches. */
typedef struct lat__ring_ctl {
    _Atomic uint32_t cons_sleep; /* 1 while the consumer sleeps (futex word) */
    _Atomic uint32_t prod_sleep; /* 1 while the producer sleeps (futex word) */
    _Atomic uint32_t closed;     /* 1 after lat_*_close() */
    uint32_t flags;              /* read-only after init */
    uint64_t capacity;           /* read-only after init */
    uint32_t item_size;          /* read-only after init */
    uint32_t stride;             /* read-only after init: bytes per slot */
    void *owned;                 /* storage allocated by init, freed by fini */
    void *self;                  /* the ring itself when create allocated it */
} lat__ring_ctl;

#ifndef LAT_RING_OWNER_CHECKS
#if !defined(NDEBUG) && !defined(__OPTIMIZE__)
#define LAT_RING_OWNER_CHECKS 1
#else
#define LAT_RING_OWNER_CHECKS 0
#endif
#endif

/* The out-of-line halves of the inline calls below (ring.c).  Code compiled
 * from this header calls them, so they belong to the ABI (lat_ring_impl_*,
 * lat_seqring_impl_*: exported, kept within a major version) but are not API:
 * call the inline functions instead. */
LAT_API extern _Thread_local char lat_ring_impl_thread_tag;
LAT_API void lat_ring_impl_owner_fail(const char *ring, const char *side, uintptr_t owner,
                                      uintptr_t me) __attribute__((noreturn));
LAT_API void lat_ring_impl_contract_fail(const char *what) __attribute__((noreturn));
void lat__ring_wake(_Atomic uint32_t *sleep_word);
/* Wakeable rings: seq_cst store of idx, then wake the peer if it sleeps. */
LAT_API void lat_ring_impl_publish_wake(_Atomic uint64_t *idx, uint64_t v,
                                        _Atomic uint32_t *peer_sleep);

/* Debug ownership check: the thread is identified by the address of a
 * thread-local byte (no system call). */
LAT_INLINE void lat__ring_check_owner(_Atomic uintptr_t *owner, const char *ring,
                                      const char *side) {
#if LAT_RING_OWNER_CHECKS
    uintptr_t me = (uintptr_t)&lat_ring_impl_thread_tag;
    uintptr_t cur = atomic_load_explicit(owner, memory_order_relaxed);
    if (LAT_LIKELY(cur == me)) return;
    if (cur == 0 && atomic_compare_exchange_strong_explicit(owner, &cur, me, memory_order_relaxed,
                                                            memory_order_relaxed))
        return;
    lat_ring_impl_owner_fail(ring, side, cur, me);
#else
    (void)owner;
    (void)ring;
    (void)side;
#endif
}

/* Typed calls pass sizeof(*item); debug builds check it is the ring's size. */
LAT_INLINE void lat__ring_check_size(uint32_t ring_size, size_t n) {
#if LAT_RING_OWNER_CHECKS
    if (n != ring_size) lat_ring_impl_contract_fail("typed call with an item of the wrong size");
#else
    (void)ring_size;
    (void)n;
#endif
}

/* Copy one item in 8-byte words when its size is a multiple of 8 (up to 64
 * bytes), else with memcpy.  Slots start 128-byte aligned, so a word never
 * straddles two cache lines; the vector moves a compiler would pick for, say,
 * a 40-byte item do (at offsets 56, 120, ...).  A split access to a line the
 * other core is writing costs about two orders of magnitude in streaming
 * throughput on the Xeon this was tuned on (25 vs 120+ Mops/s). */
LAT_INLINE void lat__ring_copy(void *restrict dst, const void *restrict src, size_t n) {
    /* The empty asm keeps each word in a general register, so the loop is
     * neither vectorized nor turned into `rep movs`.  For a size only known
     * at run time it also hides the pointers' provenance, so that inlined next
     * to a small object the loop does not trip -Warray-bounds. */
    if (!__builtin_constant_p(n)) __asm__("" : "+r"(dst), "+r"(src));
    if (LAT_LIKELY(n == 8)) {
        memcpy(dst, src, 8);
        return;
    }
    if ((n & 7) == 0 && n <= 64) {
        unsigned char *d = dst;
        const unsigned char *s = src;
        for (size_t i = 0; i < n; i += 8) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            __asm__("" : "+r"(w));
            memcpy(d + i, &w, 8);
        }
        return;
    }
    memcpy(dst, src, n);
}

/* Publish an index: release (the pairing acquire is in the other side's
 * refresh), or in a wakeable ring seq_cst followed by a seq_cst check of the
 * other side's sleep flag (see the sleeper's half in ring.c). */
LAT_INLINE void lat__ring_publish(_Atomic uint64_t *idx, uint64_t v, uint32_t flags,
                                  _Atomic uint32_t *peer_sleep) {
    if (LAT_UNLIKELY(flags & LAT_RING_WAKEABLE))
        lat_ring_impl_publish_wake(idx, v, peer_sleep); /* out of line: keeps this path lean */
    else
        atomic_store_explicit(idx, v, memory_order_release);
}

/* ---- lat_ring: the cached-index ring ---------------------------------------- */

typedef struct lat_ring {
    /* Producer's private line: only the producer reads or writes it. */
    LAT_CACHE_ALIGNED uint64_t p_head; /* producer-private: items ever pushed (== head) */
    uint64_t p_tail;                   /* producer-private copy of tail */
    unsigned char *p_slots;            /* read-only after init (producer's copy) */
    uint64_t p_mask;                   /* read-only after init: capacity - 1 */
    uint32_t p_size;                   /* read-only after init: item size */
    uint32_t p_flags;                  /* read-only after init */
    uint64_t p_resv;                   /* producer-private: items reserved by write_reserve */
    _Atomic uintptr_t p_owner;         /* debug: producer thread tag (0 = unused) */
    /* Producer's published line: written only by the producer (store only),
     * read by the consumer.  Kept apart from the private line: a read by the
     * other core takes the line away, and the owner's next load of a field
     * beside it would miss (measured: 4x less streaming throughput). */
    LAT_CACHE_ALIGNED _Atomic uint64_t head; /* producer-owned: release-published p_head */
    /* Consumer's private line. */
    LAT_CACHE_ALIGNED uint64_t c_tail; /* consumer-private: items ever popped (== tail) */
    uint64_t c_head;                   /* consumer-private copy of head */
    unsigned char *c_slots;            /* read-only after init (consumer's copy) */
    uint64_t c_mask;                   /* read-only after init */
    uint32_t c_size;                   /* read-only after init */
    uint32_t c_flags;                  /* read-only after init */
    uint64_t c_resv;                   /* consumer-private: items reserved by read_reserve */
    _Atomic uintptr_t c_owner;         /* debug: consumer thread tag */
    /* Consumer's published line. */
    LAT_CACHE_ALIGNED _Atomic uint64_t tail; /* consumer-owned: release-published c_tail */
    /* Cold, shared. */
    LAT_CACHE_ALIGNED lat__ring_ctl ctl;
} lat_ring;

/* Bytes of storage a ring needs for capacity items of item_size (capacity is
 * rounded up to a power of two; 256 bytes of padding included); 0 when the
 * arguments are invalid (item_size 0 or > 1 MiB, capacity 0 or > 2^31, or the
 * size overflows).  [any] */
LAT_API size_t lat_ring_storage_size(size_t item_size, size_t capacity);
/* Initialise r.  capacity (>= 1) is rounded up to a power of two.  storage:
 * NULL to allocate (freed by lat_ring_fini), or the caller's memory of at least
 * lat_ring_storage_size() bytes aligned to 64, which must outlive the ring.
 * flags: 0 or LAT_RING_WAKEABLE.  Returns 0, -EINVAL (bad argument, storage
 * too small or misaligned) or -ENOMEM.  [setup] */
LAT_API int lat_ring_init(lat_ring *r, size_t item_size, size_t capacity, unsigned flags,
                          void *storage, size_t storage_bytes);
/* Release storage allocated by init; r may be NULL.  [setup] */
LAT_API void lat_ring_fini(lat_ring *r);
/* Allocate and initialise a ring (storage included).  *out is set on success.
 * Returns as lat_ring_init.  [any] */
LAT_API int lat_ring_create(size_t item_size, size_t capacity, unsigned flags, lat_ring **out);
/* Free a ring made by lat_ring_create; NULL is fine.  [setup] */
LAT_API void lat_ring_destroy(lat_ring *r);
/* Forget which threads own the two sides (debug builds check ownership).  [setup] */
LAT_API void lat_ring_reset_owners(lat_ring *r);
/* Mark the ring closed and wake both sides: pop_wait returns -EPIPE once the
 * ring is empty, push_wait returns -EPIPE at once.  try_push/try_pop still
 * work.  [any], idempotent. */
LAT_API void lat_ring_close(lat_ring *r);
/* 1 once lat_ring_close() was called.  [any] */
static inline bool lat_ring_closed(const lat_ring *r) {
    return atomic_load_explicit(&((lat_ring *)r)->ctl.closed, memory_order_acquire) != 0;
}

/* Capacity in items (a power of two).  [any] */
static inline size_t lat_ring_capacity(const lat_ring *r) {
    return (size_t)r->ctl.capacity;
}
/* Item size in bytes.  [any] */
static inline size_t lat_ring_item_size(const lat_ring *r) {
    return r->ctl.item_size;
}

/* Items in the ring: exact from either side when the other side is idle, a
 * snapshot otherwise (0..capacity).  [any] */
static inline size_t lat_ring_len(const lat_ring *r) {
    lat_ring *m = (lat_ring *)r;
    uint64_t t = atomic_load_explicit(&m->tail, memory_order_acquire);
    uint64_t h = atomic_load_explicit(&m->head, memory_order_acquire);
    uint64_t n = h - t; /* tail read first, so h >= t; clamp the snapshot */
    return (size_t)(n > m->ctl.capacity ? m->ctl.capacity : n);
}

/* Copy item_size bytes from item into the ring.  Returns true, or false when
 * the ring is full (the item stays with the caller).  [producer] */
LAT_INLINE bool lat__ring_push_n(lat_ring *r, const void *item, size_t n) {
    lat__ring_check_owner(&r->p_owner, "lat_ring", "producer");
    lat__ring_check_size(r->p_size, n);
    uint64_t h = r->p_head; /* own index, private copy */
    if (LAT_UNLIKELY(h - r->p_tail > r->p_mask)) {
        /* acquire pairs with the consumer's release of tail: its reads of the
         * slot we are about to overwrite are done. */
        r->p_tail = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (h - r->p_tail > r->p_mask) return false;
    }
    lat__ring_copy(r->p_slots + (h & r->p_mask) * n, item, n);
    r->p_head = h + 1;
    lat__ring_publish(&r->head, h + 1, r->p_flags, &r->ctl.cons_sleep);
    return true;
}
LAT_INLINE bool lat_ring_try_push(lat_ring *r, const void *item) {
    return lat__ring_push_n(r, item, r->p_size);
}

/* Copy the oldest item into item and remove it.  Returns true, or false when
 * the ring is empty.  [consumer] */
LAT_INLINE bool lat__ring_pop_n(lat_ring *r, void *item, size_t n) {
    lat__ring_check_owner(&r->c_owner, "lat_ring", "consumer");
    lat__ring_check_size(r->c_size, n);
    uint64_t t = r->c_tail; /* own index, private copy */
    if (LAT_UNLIKELY(t == r->c_head)) {
        /* acquire pairs with the producer's release of head: the item is written. */
        r->c_head = atomic_load_explicit(&r->head, memory_order_acquire);
        if (t == r->c_head) return false;
    }
    lat__ring_copy(item, r->c_slots + (t & r->c_mask) * n, n);
    r->c_tail = t + 1;
    lat__ring_publish(&r->tail, t + 1, r->c_flags, &r->ctl.prod_sleep);
    return true;
}
LAT_INLINE bool lat_ring_try_pop(lat_ring *r, void *item) {
    return lat__ring_pop_n(r, item, r->c_size);
}

/* The oldest item in place (valid until the next pop/read_commit), or NULL
 * when empty.  [consumer] */
static inline void *lat_ring_peek(lat_ring *r) {
    lat__ring_check_owner(&r->c_owner, "lat_ring", "consumer");
    uint64_t t = r->c_tail;
    if (t == r->c_head) {
        r->c_head = atomic_load_explicit(&r->head, memory_order_acquire);
        if (t == r->c_head) return NULL;
    }
    return r->c_slots + (t & r->c_mask) * r->c_size;
}

/* Reserve up to want free slots for writing in place.  Returns how many (0 when
 * full) and fills *sp; write the items, then lat_ring_write_commit().  A new
 * reserve replaces an uncommitted one.  [producer] */
static inline size_t lat_ring_write_reserve(lat_ring *r, size_t want, lat_ring_span *sp) {
    lat__ring_check_owner(&r->p_owner, "lat_ring", "producer");
    uint64_t h = r->p_head;
    uint64_t cap = r->p_mask + 1;
    uint64_t free_n = cap - (h - r->p_tail);
    if (free_n < want) {
        r->p_tail = atomic_load_explicit(&r->tail, memory_order_acquire); /* pairs as in push */
        free_n = cap - (h - r->p_tail);
    }
    uint64_t n = want < free_n ? want : free_n;
    uint64_t idx = h & r->p_mask;
    uint64_t first = cap - idx < n ? cap - idx : n;
    sp->ptr[0] = r->p_slots + idx * r->p_size;
    sp->n[0] = (size_t)first;
    sp->ptr[1] = r->p_slots;
    sp->n[1] = (size_t)(n - first);
    sp->stride = r->p_size;
    r->p_resv = n;
    return (size_t)n;
}
/* Publish the first n (<= reserved) items of the last write_reserve.  [producer] */
static inline void lat_ring_write_commit(lat_ring *r, size_t n) {
    lat__ring_check_owner(&r->p_owner, "lat_ring", "producer");
#if LAT_RING_OWNER_CHECKS
    if (n > r->p_resv) lat_ring_impl_contract_fail("lat_ring_write_commit beyond the reservation");
#endif
    r->p_resv = 0;
    if (n == 0) return;
    uint64_t h = r->p_head;
    r->p_head = h + n;
    lat__ring_publish(&r->head, h + n, r->p_flags, &r->ctl.cons_sleep);
}

/* Reserve up to want items for reading in place.  Returns how many (0 when
 * empty) and fills *sp; read them, then lat_ring_read_commit().  [consumer] */
static inline size_t lat_ring_read_reserve(lat_ring *r, size_t want, lat_ring_span *sp) {
    lat__ring_check_owner(&r->c_owner, "lat_ring", "consumer");
    uint64_t t = r->c_tail;
    uint64_t avail = r->c_head - t;
    if (avail < want) {
        r->c_head = atomic_load_explicit(&r->head, memory_order_acquire); /* pairs as in pop */
        avail = r->c_head - t;
    }
    uint64_t cap = r->c_mask + 1;
    uint64_t n = want < avail ? want : avail;
    uint64_t idx = t & r->c_mask;
    uint64_t first = cap - idx < n ? cap - idx : n;
    sp->ptr[0] = r->c_slots + idx * r->c_size;
    sp->n[0] = (size_t)first;
    sp->ptr[1] = r->c_slots;
    sp->n[1] = (size_t)(n - first);
    sp->stride = r->c_size;
    r->c_resv = n;
    return (size_t)n;
}
/* Release the first n (<= reserved) items of the last read_reserve.  [consumer] */
static inline void lat_ring_read_commit(lat_ring *r, size_t n) {
    lat__ring_check_owner(&r->c_owner, "lat_ring", "consumer");
#if LAT_RING_OWNER_CHECKS
    if (n > r->c_resv) lat_ring_impl_contract_fail("lat_ring_read_commit beyond the reservation");
#endif
    r->c_resv = 0;
    if (n == 0) return;
    uint64_t t = r->c_tail;
    r->c_tail = t + n;
    lat__ring_publish(&r->tail, t + n, r->c_flags, &r->ctl.prod_sleep);
}

/* Out-of-line waits (ring.c): try, then idle per the strategy, retry. */
LAT_API int lat_ring_impl_push_wait(lat_ring *r, const void *item, const lat_idle *idle);
LAT_API int lat_ring_impl_pop_wait(lat_ring *r, void *item, const lat_idle *idle);

/* Push, waiting while the ring is full.  idle NULL = spin.  Returns 0, or
 * -EPIPE when it would have to wait on a closed ring (the item was not
 * pushed).  [producer] */
LAT_INLINE int lat_ring_push_wait(lat_ring *r, const void *item, const lat_idle *idle) {
    if (LAT_LIKELY(lat_ring_try_push(r, item))) return 0;
    return lat_ring_impl_push_wait(r, item, idle);
}
/* Pop, waiting while the ring is empty.  idle NULL = spin.  Returns 0, or
 * -EPIPE when the ring is closed and empty.  [consumer] */
LAT_INLINE int lat_ring_pop_wait(lat_ring *r, void *item, const lat_idle *idle) {
    if (LAT_LIKELY(lat_ring_try_pop(r, item))) return 0;
    return lat_ring_impl_pop_wait(r, item, idle);
}

/* ---- lat_seqring: the per-slot sequence ring ------------------------------- */

/* A slot is an 8-byte sequence word followed by the item, padded to a power of
 * two up to 64 bytes (so a slot never straddles two lines) or to a multiple of
 * 64 beyond.  Slot k of lap L holds an item when its word is L*capacity + k + 1. */
#define LAT_SEQRING_SLOT_HDR 8
/* log2 of the slot stride for an item of n bytes: folded to a constant when n
 * is one (typed calls), else the ring's stored value. */
#define LAT__SEQ_SHIFT(n, stored)                                                                  \
    (__builtin_constant_p(n)                                                                       \
         ? (uint32_t)(64 - __builtin_clzll((uint64_t)(LAT_SEQRING_SLOT_HDR + (n)) - 1))            \
         : (stored))

typedef struct lat_seqring {
    /* Producer's private line (see lat_ring for why private and published
     * fields live on separate lines). */
    LAT_CACHE_ALIGNED _Atomic uint64_t p_head; /* producer-owned: items ever pushed; relaxed (len()
                                                  reads it from other threads) */
    uint64_t p_limit;                          /* producer-private: p_tail + capacity, the
                                                  first position the fast path may not fill;
                                                  0 in a wakeable ring (every push takes the
                                                  out-of-line path, which wakes the consumer) */
    uint64_t p_tail;                           /* producer-private copy of tail */
    unsigned char *p_slots;                    /* read-only after init */
    uint64_t p_mask;                           /* read-only after init */
    uint32_t p_shift;                          /* read-only after init: log2 of the slot stride */
    uint32_t p_size;                           /* read-only after init: item size */
    uint32_t p_flags;                          /* read-only after init */
    uint64_t p_resv;                           /* producer-private */
    _Atomic uintptr_t p_owner;                 /* debug */
    /* Producer's published line: head, written only by wakeable rings (the
     * consumer polls slots, so nothing else needs it). */
    LAT_CACHE_ALIGNED _Atomic uint64_t head; /* producer-owned: seq_cst copy of p_head */
    /* Consumer's private line. */
    LAT_CACHE_ALIGNED unsigned char *c_slots; /* read-only after init */
    uint64_t c_mask;                          /* read-only after init */
    unsigned char *c_poll;                    /* read-only after init: the slots try_pop
                                                 polls: c_slots, or in a wakeable ring
                                                 &c_zero (see lat__seqring_pop_n) */
    uint64_t c_poll_mask;                     /* read-only after init: c_mask, or 0 */
    _Atomic uint64_t c_zero;                  /* read-only after init: always 0 */
    uint32_t c_shift;                         /* read-only after init */
    uint32_t c_size;                          /* read-only after init */
    uint32_t c_flags;                         /* read-only after init */
    uint64_t c_resv;                          /* consumer-private */
    _Atomic uintptr_t c_owner;                /* debug */
    /* Consumer's published line. */
    LAT_CACHE_ALIGNED _Atomic uint64_t tail; /* consumer-owned: items ever popped (release-
                                                published); the consumer reads its own
                                                stores back from the store buffer */
    /* Cold, shared. */
    LAT_CACHE_ALIGNED lat__ring_ctl ctl;
} lat_seqring;

/* As the lat_ring_* functions of the same names (same arguments, returns and
 * thread rules).  Slot stride: see LAT_SEQRING_SLOT_HDR. */
LAT_API size_t lat_seqring_storage_size(size_t item_size, size_t capacity);
LAT_API int lat_seqring_init(lat_seqring *r, size_t item_size, size_t capacity, unsigned flags,
                             void *storage, size_t storage_bytes);
LAT_API void lat_seqring_fini(lat_seqring *r);
LAT_API int lat_seqring_create(size_t item_size, size_t capacity, unsigned flags,
                               lat_seqring **out);
LAT_API void lat_seqring_destroy(lat_seqring *r);
LAT_API void lat_seqring_reset_owners(lat_seqring *r);
LAT_API void lat_seqring_close(lat_seqring *r);
static inline bool lat_seqring_closed(const lat_seqring *r) {
    return atomic_load_explicit(&((lat_seqring *)r)->ctl.closed, memory_order_acquire) != 0;
}
static inline size_t lat_seqring_capacity(const lat_seqring *r) {
    return (size_t)r->ctl.capacity;
}
static inline size_t lat_seqring_item_size(const lat_seqring *r) {
    return r->ctl.item_size;
}

/* [any] */
static inline size_t lat_seqring_len(const lat_seqring *r) {
    lat_seqring *m = (lat_seqring *)r;
    uint64_t t = atomic_load_explicit(&m->tail, memory_order_acquire);
    uint64_t h = atomic_load_explicit(&m->p_head, memory_order_relaxed);
    uint64_t n = h >= t ? h - t : 0; /* relaxed head may lag the tail: clamp */
    return (size_t)(n > m->ctl.capacity ? m->ctl.capacity : n);
}

LAT_INLINE _Atomic uint64_t *lat__seqring_word(unsigned char *slots, uint64_t pos, uint64_t mask,
                                               uint32_t shift) {
    return (_Atomic uint64_t *)(void *)(slots + ((pos & mask) << shift));
}

/* Publish the producer's position (for len, and the wakeable Dekker pair). */
LAT_INLINE void lat__seqring_publish_head(lat_seqring *r, uint64_t h) {
    /* relaxed: the slot's word carries the item; p_head only feeds len() */
    atomic_store_explicit(&r->p_head, h, memory_order_relaxed);
    if (LAT_UNLIKELY(r->p_flags & LAT_RING_WAKEABLE))
        lat_ring_impl_publish_wake(&r->head, h, &r->ctl.cons_sleep);
}

/* Out of line (ring.c), for a push whose cached limit says stop: refreshes
 * the cached tail (and p_limit).  Returns 0 when the ring is full, 1 when
 * there is room, 2 when there is room and the ring is wakeable (the push must
 * then publish head and wake a sleeping consumer).  It takes no item pointer,
 * so the caller's item need not live in memory.  [producer] */
LAT_API int lat_seqring_impl_room(lat_seqring *r, uint64_t h);

/* lat_seqring's item copies.  A slot of up to 64 bytes never straddles a
 * cache line (it is a power of two and the slots start 128-byte aligned), so
 * 16-byte moves are safe there, unlike in lat_ring's contiguous items.  Sizes
 * that are not a multiple of 8, larger than 56 bytes (the slot would span two
 * lines) or without SSE2 are copied in 8-byte words, not 16-byte moves.  The
 * two directions differ because of what was just stored where. */
#if defined(__SSE2__)
#define LAT__SEQ_VEC(n) ((n) % 8 == 0 && (n) >= 16 && (n) + LAT_SEQRING_SLOT_HDR <= LAT_CACHELINE)
#else
#define LAT__SEQ_VEC(n) 0
#endif

/* In (push): the caller has usually just written the item's fields one by
 * one (a sequence number, stamps).  A 16-byte load of two 8-byte stores still
 * in the store buffer cannot be forwarded: it waits for them to reach the
 * cache (~15 cycles here).  That is what ck_ring's memcpy pays for the
 * pipeline's 56-byte message: 20 cycles per push+pop against 5.  So each 16
 * bytes are read as two 8-byte loads (movq, then movhps or punpcklqdq) and
 * written with one 16-byte store. */
LAT_INLINE void lat__seqring_copy_in(void *restrict dst, const void *restrict src, size_t n) {
#if defined(__SSE2__)
    if (LAT__SEQ_VEC(n)) {
        if (!__builtin_constant_p(n)) __asm__("" : "+r"(dst), "+r"(src)); /* see lat__ring_copy */
        unsigned char *d = dst;
        const unsigned char *s = src;
        size_t i = 0;
#pragma GCC unroll 4
        for (; i + 16 <= n; i += 16) {
            /* 8-byte loads through the intrinsics' may_alias types, so the
             * compiler never assumes the caller's fields and these differ */
            __m128i lo = _mm_loadl_epi64((const __m128i *)(const void *)(s + i));
            __m128i hi = _mm_loadl_epi64((const __m128i *)(const void *)(s + i + 8));
            _mm_storeu_si128((__m128i *)(void *)(d + i), _mm_unpacklo_epi64(lo, hi));
        }
        if (i < n) memcpy(d + i, s + i, 8);
        return;
    }
#endif
    lat__ring_copy(dst, src, n);
}

/* Out (pop): the slot was written by the producer with those 16-byte stores
 * (or long ago by another core), so 16-byte loads and stores. */
LAT_INLINE void lat__seqring_copy_out(void *restrict dst, const void *restrict src, size_t n) {
#if defined(__SSE2__)
    if (LAT__SEQ_VEC(n)) {
        if (!__builtin_constant_p(n)) __asm__("" : "+r"(dst), "+r"(src));
        unsigned char *d = dst;
        const unsigned char *s = src;
        size_t i = 0;
#pragma GCC unroll 4
        for (; i + 16 <= n; i += 16)
            _mm_storeu_si128((__m128i *)(void *)(d + i),
                             _mm_loadu_si128((const __m128i *)(const void *)(s + i)));
        if (i < n) memcpy(d + i, s + i, 8);
        return;
    }
#endif
    lat__ring_copy(dst, src, n);
}

/* Copy the item into slot h and publish it.  [producer] */
LAT_INLINE void lat__seqring_put(lat_seqring *r, uint64_t h, const void *item, size_t n) {
    _Atomic uint64_t *w =
        lat__seqring_word(r->p_slots, h, r->p_mask, LAT__SEQ_SHIFT(n, r->p_shift));
    lat__seqring_copy_in((unsigned char *)w + LAT_SEQRING_SLOT_HDR, item, n);
    /* release pairs with the consumer's acquire of this word: item first. */
    atomic_store_explicit(w, h + 1, memory_order_release);
}

/* [producer] The fast path is one compare against p_limit (no flag test, no
 * subtraction), the copy, the slot's word and p_head: ck_ring's enqueue plus
 * the word.  Positions are 64-bit and start at 0, so `h >= p_limit` never
 * wraps (2^64 pushes). */
LAT_INLINE bool lat__seqring_push_n(lat_seqring *r, const void *item, size_t n) {
    lat__ring_check_owner(&r->p_owner, "lat_seqring", "producer");
    lat__ring_check_size(r->p_size, n);
    uint64_t h = atomic_load_explicit(&r->p_head, memory_order_relaxed); /* own index */
    if (LAT_UNLIKELY(h >= r->p_limit)) {
        int room = lat_seqring_impl_room(r, h);
        if (!room) return false;
        lat__seqring_put(r, h, item, n);
        if (room == 2)
            lat__seqring_publish_head(r, h + 1);
        else
            atomic_store_explicit(&r->p_head, h + 1, memory_order_relaxed);
        return true;
    }
    lat__seqring_put(r, h, item, n);
    /* relaxed: the slot's word carries the item; p_head only feeds len() */
    atomic_store_explicit(&r->p_head, h + 1, memory_order_relaxed);
    return true;
}
LAT_INLINE bool lat_seqring_try_push(lat_seqring *r, const void *item) {
    return lat__seqring_push_n(r, item, r->p_size);
}

/* Out of line (ring.c): a wakeable ring's pop.  Returns the item in slot t
 * when it is there (acquire), else NULL.  [consumer] */
LAT_API const unsigned char *lat_seqring_impl_pop_slow(lat_seqring *r, uint64_t t);

/* [consumer] */
LAT_INLINE bool lat__seqring_pop_n(lat_seqring *r, void *item, size_t n) {
    lat__ring_check_owner(&r->c_owner, "lat_seqring", "consumer");
    lat__ring_check_size(r->c_size, n);
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed); /* own index */
    _Atomic uint64_t *w =
        lat__seqring_word(r->c_poll, t, r->c_poll_mask, LAT__SEQ_SHIFT(n, r->c_shift));
    /* acquire pairs with the producer's release of the word.  UNLIKELY lays the
     * successful pop out as the straight-line path (without it gcc makes the
     * empty return the fall-through, and a pop that succeeds takes two extra
     * jumps); a consumer that finds the ring empty is waiting anyway. */
    uint64_t next = t + 1;
    if (LAT_UNLIKELY(atomic_load_explicit(w, memory_order_acquire) != next)) {
        /* Empty, or a wakeable ring: its consumer polls c_zero, which never
         * matches, so every pop comes here and the fast path below needs no
         * flag test. */
        if (LAT_LIKELY(!(r->c_flags & LAT_RING_WAKEABLE))) return false;
        const unsigned char *src = lat_seqring_impl_pop_slow(r, t);
        if (!src) return false;
        lat__seqring_copy_out(item, src, n);
        /* seq_cst publish, then wake a sleeping producer (Dekker pair, ring.c) */
        lat_ring_impl_publish_wake(&r->tail, t + 1, &r->ctl.prod_sleep);
        return true;
    }
    /* The word equals next here, and gcc then stores the loaded word as the new
     * tail, which chains each pop's tail behind the previous pop's slot load
     * (two store-to-load forwards per pop in a same-thread loop, and a slot
     * miss before the tail store across cores).  The empty asm hides that
     * equality so the tail is t + 1, computed from the tail alone. */
    __asm__("" : "+r"(next));
    lat__seqring_copy_out(item, (unsigned char *)w + LAT_SEQRING_SLOT_HDR, n);
    /* release pairs with the producer's acquire of tail before it reuses the slot */
    atomic_store_explicit(&r->tail, next, memory_order_release);
    return true;
}
LAT_INLINE bool lat_seqring_try_pop(lat_seqring *r, void *item) {
    return lat__seqring_pop_n(r, item, r->c_size);
}

/* [consumer] */
static inline void *lat_seqring_peek(lat_seqring *r) {
    lat__ring_check_owner(&r->c_owner, "lat_seqring", "consumer");
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    _Atomic uint64_t *w = lat__seqring_word(r->c_slots, t, r->c_mask, r->c_shift);
    if (atomic_load_explicit(w, memory_order_acquire) != t + 1) return NULL;
    return (unsigned char *)w + LAT_SEQRING_SLOT_HDR;
}

/* [producer] */
static inline size_t lat_seqring_write_reserve(lat_seqring *r, size_t want, lat_ring_span *sp) {
    lat__ring_check_owner(&r->p_owner, "lat_seqring", "producer");
    uint64_t h = atomic_load_explicit(&r->p_head, memory_order_relaxed);
    uint64_t cap = r->p_mask + 1;
    uint64_t free_n = cap - (h - r->p_tail);
    if (free_n < want) {
        /* acquire pairs with the consumer's release of tail. */
        r->p_tail = atomic_load_explicit(&r->tail, memory_order_acquire);
        free_n = cap - (h - r->p_tail);
        if (!(r->p_flags & LAT_RING_WAKEABLE)) r->p_limit = r->p_tail + cap;
    }
    uint64_t n = want < free_n ? want : free_n;
    uint64_t idx = h & r->p_mask;
    uint64_t first = cap - idx < n ? cap - idx : n;
    sp->ptr[0] = r->p_slots + (idx << r->p_shift) + LAT_SEQRING_SLOT_HDR;
    sp->n[0] = (size_t)first;
    sp->ptr[1] = r->p_slots + LAT_SEQRING_SLOT_HDR;
    sp->n[1] = (size_t)(n - first);
    sp->stride = (size_t)1 << r->p_shift;
    r->p_resv = n;
    return (size_t)n;
}
/* [producer] */
static inline void lat_seqring_write_commit(lat_seqring *r, size_t n) {
    lat__ring_check_owner(&r->p_owner, "lat_seqring", "producer");
#if LAT_RING_OWNER_CHECKS
    if (n > r->p_resv)
        lat_ring_impl_contract_fail("lat_seqring_write_commit beyond the reservation");
#endif
    r->p_resv = 0;
    if (n == 0) return;
    uint64_t h = atomic_load_explicit(&r->p_head, memory_order_relaxed);
    for (uint64_t i = 0; i < n; i++) /* release: each item before its word */
        atomic_store_explicit(lat__seqring_word(r->p_slots, h + i, r->p_mask, r->p_shift),
                              h + i + 1, memory_order_release);
    lat__seqring_publish_head(r, h + n);
}

/* [consumer] */
static inline size_t lat_seqring_read_reserve(lat_seqring *r, size_t want, lat_ring_span *sp) {
    lat__ring_check_owner(&r->c_owner, "lat_seqring", "consumer");
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t mask = r->c_mask;
    uint64_t cap = mask + 1;
    uint64_t n = 0;
    if (want > cap) want = (size_t)cap;
    while (n < want && atomic_load_explicit(lat__seqring_word(r->c_slots, t + n, mask, r->c_shift),
                                            memory_order_acquire) == t + n + 1)
        n++;
    uint64_t idx = t & mask;
    uint64_t first = cap - idx < n ? cap - idx : n;
    sp->ptr[0] = r->c_slots + (idx << r->c_shift) + LAT_SEQRING_SLOT_HDR;
    sp->n[0] = (size_t)first;
    sp->ptr[1] = r->c_slots + LAT_SEQRING_SLOT_HDR;
    sp->n[1] = (size_t)(n - first);
    sp->stride = (size_t)1 << r->c_shift;
    r->c_resv = n;
    return (size_t)n;
}
/* [consumer] */
static inline void lat_seqring_read_commit(lat_seqring *r, size_t n) {
    lat__ring_check_owner(&r->c_owner, "lat_seqring", "consumer");
#if LAT_RING_OWNER_CHECKS
    if (n > r->c_resv)
        lat_ring_impl_contract_fail("lat_seqring_read_commit beyond the reservation");
#endif
    r->c_resv = 0;
    if (n == 0) return;
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    lat__ring_publish(&r->tail, t + n, r->c_flags, &r->ctl.prod_sleep);
}

LAT_API int lat_seqring_impl_push_wait(lat_seqring *r, const void *item, const lat_idle *idle);
LAT_API int lat_seqring_impl_pop_wait(lat_seqring *r, void *item, const lat_idle *idle);

/* [producer] */
LAT_INLINE int lat_seqring_push_wait(lat_seqring *r, const void *item, const lat_idle *idle) {
    if (LAT_LIKELY(lat_seqring_try_push(r, item))) return 0;
    return lat_seqring_impl_push_wait(r, item, idle);
}
/* [consumer] */
LAT_INLINE int lat_seqring_pop_wait(lat_seqring *r, void *item, const lat_idle *idle) {
    if (LAT_LIKELY(lat_seqring_try_pop(r, item))) return 0;
    return lat_seqring_impl_pop_wait(r, item, idle);
}

/* ---- typed forms ------------------------------------------------------------- */

/* The same calls with the item size taken from sizeof(*item), a compile-time
 * constant, so the copy and the slot arithmetic fold away (what ck_ring's
 * CK_RING_PROTOTYPE does).  sizeof(*item) must equal the ring's item size
 * (checked in debug builds).  Same thread rules and returns as the untyped
 * calls; use these on hot paths. */
#define lat_ring_try_push_t(r, item) lat__ring_push_n((r), (item), sizeof(*(item)))
#define lat_ring_try_pop_t(r, item) lat__ring_pop_n((r), (item), sizeof(*(item)))
#define lat_ring_push_wait_t(r, item, idle)                                                        \
    (lat__ring_push_n((r), (item), sizeof(*(item)))                                                \
         ? 0                                                                                       \
         : lat_ring_impl_push_wait((r), (item), (idle)))
#define lat_ring_pop_wait_t(r, item, idle)                                                         \
    (lat__ring_pop_n((r), (item), sizeof(*(item))) ? 0                                             \
                                                   : lat_ring_impl_pop_wait((r), (item), (idle)))
#define lat_seqring_try_push_t(r, item) lat__seqring_push_n((r), (item), sizeof(*(item)))
#define lat_seqring_try_pop_t(r, item) lat__seqring_pop_n((r), (item), sizeof(*(item)))
#define lat_seqring_push_wait_t(r, item, idle)                                                     \
    (lat__seqring_push_n((r), (item), sizeof(*(item)))                                             \
         ? 0                                                                                       \
         : lat_seqring_impl_push_wait((r), (item), (idle)))
#define lat_seqring_pop_wait_t(r, item, idle)                                                      \
    (lat__seqring_pop_n((r), (item), sizeof(*(item)))                                              \
         ? 0                                                                                       \
         : lat_seqring_impl_pop_wait((r), (item), (idle)))

/* ---- the pipeline default ---------------------------------------------------- */

/* 1: the per-slot sequence ring is the default (lat_spsc_* -> lat_seqring_*);
 * 0: the cached-index ring is.  Chosen by `latlab bakeoff ring`. */
#ifndef LAT_RING_DEFAULT_SEQ
#define LAT_RING_DEFAULT_SEQ 1
#endif

#if LAT_RING_DEFAULT_SEQ
#define LAT_RING_DEFAULT_NAME "seqring"
typedef lat_seqring lat_spsc;
#define LAT__SPSC(fn) lat_seqring_##fn
#else
#define LAT_RING_DEFAULT_NAME "ring"
typedef lat_ring lat_spsc;
#define LAT__SPSC(fn) lat_ring_##fn
#endif
#define lat_spsc_storage_size LAT__SPSC(storage_size)
#define lat_spsc_init LAT__SPSC(init)
#define lat_spsc_fini LAT__SPSC(fini)
#define lat_spsc_create LAT__SPSC(create)
#define lat_spsc_destroy LAT__SPSC(destroy)
#define lat_spsc_reset_owners LAT__SPSC(reset_owners)
#define lat_spsc_close LAT__SPSC(close)
#define lat_spsc_closed LAT__SPSC(closed)
#define lat_spsc_capacity LAT__SPSC(capacity)
#define lat_spsc_item_size LAT__SPSC(item_size)
#define lat_spsc_len LAT__SPSC(len)
#define lat_spsc_try_push LAT__SPSC(try_push)
#define lat_spsc_try_pop LAT__SPSC(try_pop)
#define lat_spsc_try_push_t LAT__SPSC(try_push_t)
#define lat_spsc_try_pop_t LAT__SPSC(try_pop_t)
#define lat_spsc_push_wait_t LAT__SPSC(push_wait_t)
#define lat_spsc_pop_wait_t LAT__SPSC(pop_wait_t)
#define lat_spsc_peek LAT__SPSC(peek)
#define lat_spsc_push_wait LAT__SPSC(push_wait)
#define lat_spsc_pop_wait LAT__SPSC(pop_wait)
#define lat_spsc_write_reserve LAT__SPSC(write_reserve)
#define lat_spsc_write_commit LAT__SPSC(write_commit)
#define lat_spsc_read_reserve LAT__SPSC(read_reserve)
#define lat_spsc_read_commit LAT__SPSC(read_commit)

#endif /* LATLAB_RING_H */
