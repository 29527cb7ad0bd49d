/* ring.c - setup, teardown and the slow (waiting) paths of the SPSC rings.
 *
 * The hot paths are static inline in include/latlab/ring.h.  This file holds
 * what may allocate or make system calls: init/create/free, the idle
 * strategies (sched_yield, nanosleep) and the futex sleep/wake of the blocking
 * strategy.
 *
 * Blocking without lost wake-ups (a Dekker pair, all four accesses seq_cst so
 * they sit in one total order):
 *   sleeper:   store sleep_word = 1;  load the other side's index -> still not
 *              ready?  futex_wait(sleep_word, 1)
 *   publisher: store own index;       load sleep_word -> 1?  store 0, futex_wake
 * Either the publisher sees the 1 (and wakes), or the sleeper's load comes
 * after the publisher's store in the total order and sees the new index (and
 * does not sleep).  futex_wait itself re-checks the word in the kernel, so a
 * wake between the sleeper's check and its wait is not lost either.  Only
 * rings made with LAT_RING_WAKEABLE publish with seq_cst; for the others the
 * sleeper waits with a timeout (idle->max_sleep_ns) and rechecks. */
#include "latlab/ring.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "alloc_internal.h"

_Thread_local char lat_ring_impl_thread_tag;

#define RING_PAD LAT_DESTRUCTIVE /* bytes of padding before and after the slots */
#define MAX_ITEM ((size_t)1 << 20)
#define MAX_CAP ((size_t)1 << 31)
#define DEFAULT_BLOCK_TIMEOUT_NS 1000000u

void lat_ring_impl_owner_fail(const char *ring, const char *side, uintptr_t owner, uintptr_t me) {
    /* Debug builds only: a broken SPSC contract corrupts data silently, so stop
     * here, like assert() would.  What was checked: each side records the first
     * thread that uses it (the address of a thread-local byte); a call from
     * another thread without reset_owners() in between is the violation. */
    fprintf(stderr,
            "latlab: %s: a second %s thread used a single-%s ring (the %s side belongs to the "
            "first thread that used it, tag %#lx; this call came from thread tag %#lx; "
            "%s_reset_owners() hands the sides to new threads)\n",
            ring, side, side, side, (unsigned long)owner, (unsigned long)me, ring);
    abort();
}

void lat_ring_impl_contract_fail(const char *what) {
    fprintf(stderr, "latlab: ring contract violated: %s\n", what);
    abort();
}

static long futex(_Atomic uint32_t *word, int op, uint32_t val, const struct timespec *ts) {
    return syscall(SYS_futex, (uint32_t *)word, op, val, ts, NULL, 0);
}

void lat__ring_wake(_Atomic uint32_t *sleep_word) {
    atomic_store_explicit(sleep_word, 0, memory_order_seq_cst);
    futex(sleep_word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
}

void lat_ring_impl_publish_wake(_Atomic uint64_t *idx, uint64_t v, _Atomic uint32_t *peer_sleep) {
    /* the publisher's half of the Dekker pair described at the top */
    atomic_store_explicit(idx, v, memory_order_seq_cst);
    if (atomic_load_explicit(peer_sleep, memory_order_seq_cst)) lat__ring_wake(peer_sleep);
}

/* ---- idle strategies ------------------------------------------------------------ */

int lat_idle_parse(const char *name, lat_idle *out) {
    if (!name || !out) return -EINVAL;
    if (!strcmp(name, "spin"))
        *out = lat_idle_spin();
    else if (!strcmp(name, "yield"))
        *out = lat_idle_yield(100);
    else if (!strcmp(name, "backoff"))
        *out = lat_idle_backoff(10, 20, 1000, 1000000);
    else if (!strcmp(name, "block"))
        *out = lat_idle_block(100);
    else
        return -EINVAL;
    return 0;
}

const char *lat_idle_name(lat_idle_kind kind) {
    switch (kind) {
    case LAT_IDLE_SPIN:
        return "spin";
    case LAT_IDLE_YIELD:
        return "yield";
    case LAT_IDLE_BACKOFF:
        return "backoff";
    case LAT_IDLE_BLOCK:
        return "block";
    }
    return "unknown";
}

static void sleep_ns(uint64_t ns) {
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    nanosleep(&ts, NULL);
}

void lat_idle_step(const lat_idle *idle, lat_idle_state *st) {
    uint32_t round = st->rounds;
    if (round != UINT32_MAX) st->rounds++;
    if (!idle || idle->kind == LAT_IDLE_SPIN) {
        lat_cpu_relax();
        return;
    }
    if (round < idle->spins) {
        lat_cpu_relax();
        return;
    }
    if (idle->kind == LAT_IDLE_YIELD) {
        sched_yield();
        return;
    }
    uint32_t yields = idle->kind == LAT_IDLE_BACKOFF ? idle->yields : 0;
    if (round - idle->spins < yields) {
        sched_yield();
        return;
    }
    uint32_t lo = idle->kind == LAT_IDLE_BACKOFF ? idle->min_sleep_ns : 1000;
    uint32_t hi = idle->max_sleep_ns ? idle->max_sleep_ns : DEFAULT_BLOCK_TIMEOUT_NS;
    if (lo == 0) lo = 1;
    if (hi < lo) hi = lo;
    if (st->sleep_ns < lo) st->sleep_ns = lo;
    sleep_ns(st->sleep_ns);
    st->sleep_ns = st->sleep_ns > hi / 2 ? hi : st->sleep_ns * 2;
}

/* ---- the shared wait loop ------------------------------------------------------------- */

typedef bool (*try_fn)(void *ring, void *item);

typedef struct side {
    lat__ring_ctl *ctl;
    _Atomic uint32_t *sleep; /* this side's futex word */
    _Atomic uint64_t *head, *tail;
    bool producer;
} side;

/* Ready to make progress, with seq_cst loads (the sleeper's half of the pair). */
static bool ready_sc(const side *s) {
    if (s->producer) {
        uint64_t h = atomic_load_explicit(s->head, memory_order_relaxed); /* own */
        return h - atomic_load_explicit(s->tail, memory_order_seq_cst) < s->ctl->capacity;
    }
    uint64_t t = atomic_load_explicit(s->tail, memory_order_relaxed); /* own */
    return atomic_load_explicit(s->head, memory_order_seq_cst) != t;
}

static void block(const side *s, const lat_idle *idle) {
    atomic_store_explicit(s->sleep, 1, memory_order_seq_cst);
    if (!ready_sc(s) && !atomic_load_explicit(&s->ctl->closed, memory_order_seq_cst)) {
        struct timespec ts, *tp = NULL;
        if (!(s->ctl->flags & LAT_RING_WAKEABLE)) {
            uint64_t ns = idle->max_sleep_ns ? idle->max_sleep_ns : DEFAULT_BLOCK_TIMEOUT_NS;
            ts.tv_sec = (time_t)(ns / 1000000000u);
            ts.tv_nsec = (long)(ns % 1000000000u);
            tp = &ts;
        }
        futex(s->sleep, FUTEX_WAIT_PRIVATE, 1, tp); /* EAGAIN/EINTR/ETIMEDOUT: recheck */
    }
    atomic_store_explicit(s->sleep, 0, memory_order_relaxed);
}

static int wait_loop(void *ring, void *item, const lat_idle *idle, try_fn fn, const side *s) {
    lat_idle spin = lat_idle_spin();
    lat_idle_state st = {0, 0};
    if (!idle) idle = &spin;
    for (;;) {
        if (fn(ring, item)) return 0;
        if (atomic_load_explicit(&s->ctl->closed, memory_order_acquire)) {
            /* A producer may push its last items and then close: the acquire
             * above makes them visible, so drain before reporting the end. */
            if (!s->producer && fn(ring, item)) return 0;
            return -EPIPE;
        }
        if (idle->kind == LAT_IDLE_BLOCK && st.rounds >= idle->spins)
            block(s, idle);
        else
            lat_idle_step(idle, &st);
    }
}

/* ---- setup common to both rings ---------------------------------------------------------- */

static uint64_t pow2_at_least(uint64_t v) {
    uint64_t p = 1;
    while (p < v)
        p <<= 1;
    return p;
}

static size_t storage_bytes(size_t stride, size_t capacity) {
    if (capacity == 0 || capacity > MAX_CAP || stride == 0) return 0;
    uint64_t cap = pow2_at_least(capacity);
    if (cap > SIZE_MAX / stride) return 0;
    size_t body = (size_t)cap * stride;
    if (body > SIZE_MAX - 2 * RING_PAD) return 0;
    return body + 2 * RING_PAD;
}

static size_t seq_stride(size_t item_size) {
    return (size_t)pow2_at_least(LAT_SEQRING_SLOT_HDR + item_size);
}

static unsigned log2u(uint64_t p) {
    unsigned s = 0;
    while (((uint64_t)1 << s) < p)
        s++;
    return s;
}

/* Fill ctl and return the first slot, or NULL with *err set. */
static unsigned char *setup(lat__ring_ctl *ctl, size_t item_size, size_t capacity, unsigned flags,
                            size_t stride, void *storage, size_t bytes, int *err) {
    size_t need = storage_bytes(stride, capacity);
    *err = -EINVAL;
    if (item_size == 0 || item_size > MAX_ITEM || need == 0 || (flags & ~LAT_RING_WAKEABLE))
        return NULL;
    unsigned char *base;
    if (storage) {
        if (bytes < need || ((uintptr_t)storage & (LAT_CACHELINE - 1))) return NULL;
        base = storage;
        ctl->owned = NULL;
    } else {
        base = lat__alloc_aligned(need, LAT_DESTRUCTIVE);
        *err = -ENOMEM;
        if (!base) return NULL;
        ctl->owned = base;
    }
    memset(base, 0, need); /* sequence words start at 0 = "empty in lap 0" */
    ctl->flags = flags;
    ctl->capacity = pow2_at_least(capacity);
    ctl->item_size = (uint32_t)item_size;
    ctl->stride = (uint32_t)stride;
    *err = 0;
    return base + RING_PAD;
}

static void wake_all(lat__ring_ctl *ctl) {
    atomic_store_explicit(&ctl->closed, 1, memory_order_seq_cst);
    lat__ring_wake(&ctl->cons_sleep);
    lat__ring_wake(&ctl->prod_sleep);
}

/* ---- lat_ring ----------------------------------------------------------------------------- */

size_t lat_ring_storage_size(size_t item_size, size_t capacity) {
    if (item_size == 0 || item_size > MAX_ITEM) return 0;
    return storage_bytes(item_size, capacity);
}

int lat_ring_init(lat_ring *r, size_t item_size, size_t capacity, unsigned flags, void *storage,
                  size_t storage_bytes_) {
    if (!r) return -EINVAL;
    memset(r, 0, sizeof *r);
    int err;
    unsigned char *slots =
        setup(&r->ctl, item_size, capacity, flags, item_size, storage, storage_bytes_, &err);
    if (!slots) return err;
    r->p_slots = r->c_slots = slots;
    r->p_mask = r->c_mask = r->ctl.capacity - 1;
    r->p_size = r->c_size = (uint32_t)item_size;
    r->p_flags = r->c_flags = flags;
    return 0;
}

void lat_ring_fini(lat_ring *r) {
    if (!r) return;
    lat__free(r->ctl.owned);
    r->ctl.owned = NULL;
}

/* The lifecycle both rings share: create = aligned allocation + init, free =
 * fini + release of the object, owner reset, close (wake every sleeper). */
#define RING_LIFECYCLE(T)                                                                          \
    int T##_create(size_t item_size, size_t capacity, unsigned flags, T **out) {                   \
        if (!out) return -EINVAL;                                                                  \
        *out = NULL;                                                                               \
        T *r = lat__alloc_aligned(sizeof *r, LAT_DESTRUCTIVE);                                     \
        if (!r) return -ENOMEM;                                                                    \
        int err = T##_init(r, item_size, capacity, flags, NULL, 0);                                \
        if (err) {                                                                                 \
            lat__free(r);                                                                          \
            return err;                                                                            \
        }                                                                                          \
        r->ctl.self = r;                                                                           \
        *out = r;                                                                                  \
        return 0;                                                                                  \
    }                                                                                              \
    void T##_destroy(T *r) {                                                                       \
        if (!r) return;                                                                            \
        void *self = r->ctl.self;                                                                  \
        T##_fini(r);                                                                               \
        lat__free(self);                                                                           \
    }                                                                                              \
    void T##_reset_owners(T *r) {                                                                  \
        if (!r) return;                                                                            \
        atomic_store_explicit(&r->p_owner, 0, memory_order_relaxed);                               \
        atomic_store_explicit(&r->c_owner, 0, memory_order_relaxed);                               \
    }                                                                                              \
    void T##_close(T *r) {                                                                         \
        if (r) wake_all(&r->ctl);                                                                  \
    }

RING_LIFECYCLE(lat_ring)

static bool ring_try_push(void *r, void *item) {
    return lat_ring_try_push(r, item);
}
static bool ring_try_pop(void *r, void *item) {
    return lat_ring_try_pop(r, item);
}

int lat_ring_impl_push_wait(lat_ring *r, const void *item, const lat_idle *idle) {
    side s = {&r->ctl, &r->ctl.prod_sleep, &r->head, &r->tail, true};
    return wait_loop(r, (void *)item, idle, ring_try_push, &s);
}

int lat_ring_impl_pop_wait(lat_ring *r, void *item, const lat_idle *idle) {
    side s = {&r->ctl, &r->ctl.cons_sleep, &r->head, &r->tail, false};
    return wait_loop(r, item, idle, ring_try_pop, &s);
}

/* ---- lat_seqring ------------------------------------------------------------------------- */

size_t lat_seqring_storage_size(size_t item_size, size_t capacity) {
    if (item_size == 0 || item_size > MAX_ITEM) return 0;
    return storage_bytes(seq_stride(item_size), capacity);
}

int lat_seqring_init(lat_seqring *r, size_t item_size, size_t capacity, unsigned flags,
                     void *storage, size_t storage_bytes_) {
    if (!r) return -EINVAL;
    memset(r, 0, sizeof *r);
    if (item_size == 0 || item_size > MAX_ITEM) return -EINVAL;
    size_t stride = seq_stride(item_size);
    int err;
    unsigned char *slots =
        setup(&r->ctl, item_size, capacity, flags, stride, storage, storage_bytes_, &err);
    if (!slots) return err;
    r->p_slots = r->c_slots = slots;
    r->p_mask = r->c_mask = r->ctl.capacity - 1;
    /* a wakeable ring's consumer polls c_zero, so every pop takes the
     * out-of-line path that wakes the producer (see lat__seqring_pop_n) */
    r->c_poll = (flags & LAT_RING_WAKEABLE) ? (unsigned char *)&r->c_zero : slots;
    r->c_poll_mask = (flags & LAT_RING_WAKEABLE) ? 0 : r->c_mask;
    r->p_shift = r->c_shift = log2u(stride);
    r->p_size = r->c_size = (uint32_t)item_size;
    r->p_flags = r->c_flags = flags;
    /* a wakeable ring keeps p_limit at 0 so that every push goes through
     * lat__seqring_push_slow, which publishes head and wakes the consumer */
    r->p_limit = (flags & LAT_RING_WAKEABLE) ? 0 : r->ctl.capacity;
    return 0;
}

int lat_seqring_impl_room(lat_seqring *r, uint64_t h) {
    uint64_t cap = r->p_mask + 1;
    if (h - r->p_tail >= cap) {
        /* acquire pairs with the consumer's release of tail. */
        r->p_tail = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (h - r->p_tail >= cap) return 0;
    }
    if (r->p_flags & LAT_RING_WAKEABLE) return 2; /* p_limit stays 0 */
    r->p_limit = r->p_tail + cap;
    return 1;
}

const unsigned char *lat_seqring_impl_pop_slow(lat_seqring *r, uint64_t t) {
    _Atomic uint64_t *w = lat__seqring_word(r->c_slots, t, r->c_mask, r->c_shift);
    /* acquire pairs with the producer's release of the word. */
    if (atomic_load_explicit(w, memory_order_acquire) != t + 1) return NULL;
    return (const unsigned char *)w + LAT_SEQRING_SLOT_HDR;
}

void lat_seqring_fini(lat_seqring *r) {
    if (!r) return;
    lat__free(r->ctl.owned);
    r->ctl.owned = NULL;
}

RING_LIFECYCLE(lat_seqring)

static bool seq_try_push(void *r, void *item) {
    return lat_seqring_try_push(r, item);
}
static bool seq_try_pop(void *r, void *item) {
    return lat_seqring_try_pop(r, item);
}

int lat_seqring_impl_push_wait(lat_seqring *r, const void *item, const lat_idle *idle) {
    side s = {&r->ctl, &r->ctl.prod_sleep, &r->p_head, &r->tail, true};
    return wait_loop(r, (void *)item, idle, seq_try_push, &s);
}

int lat_seqring_impl_pop_wait(lat_seqring *r, void *item, const lat_idle *idle) {
    /* the sleeper's seq_cst check needs the seq_cst copy of head, which only
     * wakeable rings keep; others re-check p_head after a timed sleep */
    side s = {&r->ctl, &r->ctl.cons_sleep,
              (r->ctl.flags & LAT_RING_WAKEABLE) ? &r->head : &r->p_head, &r->tail, false};
    return wait_loop(r, item, idle, seq_try_pop, &s);
}
