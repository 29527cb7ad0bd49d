/* book.c - the matching engine of book.h: paged price levels bound on first
 * use, three-level occupancy bitmaps, intrusive FIFOs, an order slab and an
 * id hash.
 *
 * Workload assumption: one writer; orders concentrate near the touch, so the
 * level array and the bitmaps stay in cache; every operation is O(1) except
 * matching (O(fills)), mass cancel and snapshots (O(orders / levels touched)).
 * Nothing here allocates after book_create() while the orders and price
 * pages in use fit the reserve (see book.h). */
#include "book.h"

#include "alloc_internal.h"
#include "latlab/compiler.h"

#include <errno.h>
#include <string.h>
#include <zlib.h>

#define NIL UINT32_MAX

typedef struct order {
    uint64_t id;
    uint32_t qty; /* open quantity */
    uint32_t owner;
    uint32_t next, prev; /* FIFO links within the level (NIL at the ends); next = free list */
    uint32_t level;      /* level index */
    uint8_t side;
    uint8_t used; /* 1 while resting (the slab is walked when the id table grows) */
} order;

/* An empty level is all zero (count 0); head and tail are only read when
 * count > 0, so a page is ready for use once zeroed. */
typedef struct level {
    uint32_t head, tail, count, pad;
    uint64_t qty;
} level;

/* Levels are stored in pages of LPAGE consecutive levels, bound to the
 * side's page directory on first use.  Each page carries the lowest bitmap
 * level (one bit per level) for its own levels. */
#define LPAGE_SHIFT 8
#define LPAGE (1u << LPAGE_SHIFT)
#define LPAGE_WORDS (LPAGE / 64)
typedef struct lpage {
    uint64_t bits[LPAGE_WORDS];
    level lv[LPAGE];
} lpage;

/* Pages come from chunks allocated at creation (the reserve) and, when a
 * price region is touched for the first time after the reserve is used up,
 * from a new chunk (at least as large as everything before it). */
#define MAX_CHUNKS 64

/* 8 bytes: the id's 32-bit hash (its high bits are the home slot, so the
 * table can be reorganised without touching orders) and the slab index.  A
 * hash match is confirmed against the order's id. */
typedef struct slot {
    uint32_t tag;
    uint32_t idx; /* NIL = empty */
} slot;

typedef struct side_state {
    lpage **dir;  /* npages entries; NULL = never touched */
    uint64_t *l1; /* bit per 64-level word */
    uint64_t *l2; /* bit per l1 word */
    uint32_t nl1, nl2;
    uint32_t best; /* NIL = empty */
    uint32_t nlevels_used;
} side_state;

struct book {
    book_config cfg;
    uint32_t nlevels, nl0, npages;
    side_state s[2];
    lpage *chunk[MAX_CHUNKS];
    uint32_t chunk_pages[MAX_CHUNKS], chunk_used[MAX_CHUNKS];
    uint32_t nchunks;
    uint64_t pages_total; /* pages allocated in all chunks */
    order *ord;
    uint32_t ord_cap; /* slots allocated (grows up to cfg.max_orders) */
    uint32_t hwm;     /* slots [hwm, ord_cap) have never been used since the last reset */
    uint32_t free_head, live;
    slot *tab;
    uint32_t tab_mask;
    unsigned tab_shift;
    uint64_t seq;
};

/* ---- level pages ------------------------------------------------------------- */

static inline level *lvl(const book *b, int side, uint32_t li) {
    return &b->s[side].dir[li >> LPAGE_SHIFT]->lv[li & (LPAGE - 1)];
}

/* The 64 occupancy bits of level word w (levels 64w .. 64w+63); 0 when its
 * page was never bound. */
static inline uint64_t l0_word(const side_state *s, uint32_t w) {
    const lpage *p = s->dir[w / LPAGE_WORDS];
    return p ? p->bits[w % LPAGE_WORDS] : 0;
}

/* Allocate a chunk of at least `want` pages (never more than the band can use). */
static int chunk_add(book *b, uint64_t want) {
    if (b->nchunks == MAX_CHUNKS) return BOOK_ENOMEM;
    uint64_t left = 2ull * b->npages - b->pages_total;
    uint64_t n = want > b->pages_total ? want : b->pages_total;
    if (n > left) n = left;
    if (n == 0) return BOOK_ENOMEM;
    /* not zeroed here: a page is zeroed when it is bound, so pages never
     * bound cost address space, not memory */
    lpage *c = lat__alloc_aligned(n * sizeof(lpage), LAT_CACHELINE);
    if (!c) return BOOK_ENOMEM;
    b->chunk[b->nchunks] = c;
    b->chunk_pages[b->nchunks] = (uint32_t)n;
    b->chunk_used[b->nchunks] = 0;
    b->nchunks++;
    b->pages_total += n;
    return 0;
}

/* Bind a zeroed page for level li of `side` if it has none.  0 or BOOK_ENOMEM. */
static int page_bind(book *b, int side, uint32_t li) {
    lpage **slotp = &b->s[side].dir[li >> LPAGE_SHIFT];
    if (LAT_LIKELY(*slotp != NULL)) return 0;
    uint32_t c = b->nchunks - 1;
    if (b->nchunks == 0 || b->chunk_used[c] == b->chunk_pages[c]) {
        int err = chunk_add(b, 16);
        if (err) return err;
        c = b->nchunks - 1;
    }
    lpage *p = &b->chunk[c][b->chunk_used[c]++];
    memset(p, 0, sizeof *p);
    *slotp = p;
    return 0;
}

/* ---- bitmap ------------------------------------------------------------- */

static inline void bm_set(side_state *s, uint32_t i) {
    s->dir[i >> LPAGE_SHIFT]->bits[(i >> 6) % LPAGE_WORDS] |= 1ull << (i & 63);
    s->l1[i >> 12] |= 1ull << ((i >> 6) & 63);
    s->l2[i >> 18] |= 1ull << ((i >> 12) & 63);
}

static inline void bm_clear(side_state *s, uint32_t i) {
    uint64_t w = s->dir[i >> LPAGE_SHIFT]->bits[(i >> 6) % LPAGE_WORDS] &= ~(1ull << (i & 63));
    if (w) return;
    uint64_t u = s->l1[i >> 12] &= ~(1ull << ((i >> 6) & 63));
    if (!u) s->l2[i >> 18] &= ~(1ull << ((i >> 12) & 63));
}

static inline uint32_t low_bit(uint64_t m) {
    return (uint32_t)__builtin_ctzll(m);
}
static inline uint32_t high_bit(uint64_t m) {
    return 63u - (uint32_t)__builtin_clzll(m);
}

/* Lowest set bit >= i, or NIL.  Three levels: the level word, then the l1
 * word holding it, then a scan of l2 (1 bit per 2^12 levels). */
static uint32_t bm_next(const side_state *s, uint32_t nl0, uint32_t i) {
    uint32_t w = i >> 6;
    if (w >= nl0) return NIL;
    uint64_t m = l0_word(s, w) & (~0ull << (i & 63));
    if (m) return (w << 6) | low_bit(m);
    uint32_t j = w + 1; /* next level word */
    uint32_t k = j >> 6;
    if (k >= s->nl1) return NIL;
    m = s->l1[k] & (~0ull << (j & 63));
    if (!m) {
        uint32_t q = k + 1; /* next l1 word */
        for (uint32_t r = q >> 6;; r++) {
            if (r >= s->nl2) return NIL;
            uint64_t mm = s->l2[r];
            if (r == (q >> 6)) mm &= ~0ull << (q & 63);
            if (mm) {
                k = (r << 6) | low_bit(mm);
                m = s->l1[k];
                break;
            }
        }
    }
    uint32_t ww = (k << 6) | low_bit(m);
    return (ww << 6) | low_bit(l0_word(s, ww));
}

/* Highest set bit <= i, or NIL (i == NIL means none). */
static uint32_t bm_prev(const side_state *s, uint32_t i) {
    if (i == NIL) return NIL;
    uint32_t w = i >> 6;
    uint64_t m = l0_word(s, w) & (~0ull >> (63 - (i & 63)));
    if (m) return (w << 6) | high_bit(m);
    if (w == 0) return NIL;
    uint32_t j = w - 1;
    uint32_t k = j >> 6;
    m = s->l1[k] & (~0ull >> (63 - (j & 63)));
    if (!m) {
        if (k == 0) return NIL;
        uint32_t q = k - 1;
        for (int64_t r = q >> 6;; r--) {
            if (r < 0) return NIL;
            uint64_t mm = s->l2[r];
            if ((uint32_t)r == (q >> 6)) mm &= ~0ull >> (63 - (q & 63));
            if (mm) {
                k = ((uint32_t)r << 6) | high_bit(mm);
                m = s->l1[k];
                break;
            }
        }
    }
    uint32_t ww = (k << 6) | high_bit(m);
    return (ww << 6) | high_bit(l0_word(s, ww));
}

/* Next level after i going away from the touch (bids: lower, asks: higher). */
static inline uint32_t worse_level(const book *b, int side, uint32_t i) {
    if (side == BOOK_BUY) return i == 0 ? NIL : bm_prev(&b->s[0], i - 1);
    return bm_next(&b->s[1], b->nl0, i + 1);
}

/* ---- id hash --------------------------------------------------------------- */

static inline uint32_t hash_tag(uint64_t id) {
    return (uint32_t)((id * 0x9E3779B97F4A7C15ull) >> 32);
}
static inline uint32_t tag_home(const book *b, uint32_t tag) {
    return tag >> b->tab_shift;
}

static inline uint32_t hash_find(const book *b, uint64_t id) {
    uint32_t tag = hash_tag(id);
    for (uint32_t h = tag_home(b, tag);; h = (h + 1) & b->tab_mask) {
        const slot *s = &b->tab[h];
        if (s->idx == NIL) return NIL;
        if (s->tag == tag && b->ord[s->idx].id == id) return s->idx;
    }
}

static inline void hash_insert(book *b, uint64_t id, uint32_t idx) {
    uint32_t tag = hash_tag(id);
    uint32_t h = tag_home(b, tag);
    while (b->tab[h].idx != NIL)
        h = (h + 1) & b->tab_mask;
    b->tab[h].tag = tag;
    b->tab[h].idx = idx;
}

/* Remove the entry of order oi (id its id).  Backward-shift deletion keeps
 * every probe chain unbroken without tombstones. */
static inline void hash_remove(book *b, uint64_t id, uint32_t oi) {
    uint32_t h = tag_home(b, hash_tag(id));
    while (b->tab[h].idx != oi)
        h = (h + 1) & b->tab_mask;
    uint32_t hole = h;
    uint32_t j = hole;
    for (;;) {
        j = (j + 1) & b->tab_mask;
        if (b->tab[j].idx == NIL) break;
        uint32_t home = tag_home(b, b->tab[j].tag);
        /* Move j into the hole unless its home lies cyclically in (hole, j]. */
        int stays = (hole <= j) ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!stays) {
            b->tab[hole] = b->tab[j];
            hole = j;
        }
    }
    b->tab[hole].idx = NIL;
}

/* ---- events ------------------------------------------------------------------ */

static inline void emit_simple(book *b, book_event_type t, book_side side, uint64_t id,
                               uint32_t owner, int32_t reason, int64_t price, uint64_t qty) {
    if (!b->cfg.on_event) return;
    book_event ev = {0};
    ev.type = t;
    ev.side = side;
    ev.id = id;
    ev.owner = owner;
    ev.reason = reason;
    ev.price = price;
    ev.qty = qty;
    ev.seq = b->seq;
    b->cfg.on_event(&ev, b->cfg.ud);
}

static inline int64_t level_price(const book *b, uint32_t i) {
    return (int64_t)((uint64_t)b->cfg.price_lo + (uint64_t)i * (uint64_t)b->cfg.tick);
}

static inline void emit_level(book *b, int side, uint32_t li) {
    b->seq++;
    if (!b->cfg.on_event) return;
    const level *l = lvl(b, side, li);
    book_event ev = {0};
    ev.type = BOOK_EV_LEVEL;
    ev.side = (book_side)side;
    ev.price = level_price(b, li);
    ev.qty = l->qty;
    ev.count = l->count;
    ev.seq = b->seq;
    b->cfg.on_event(&ev, b->cfg.ud);
}

static int reject(book *b, int err, uint64_t id, uint32_t owner, book_side side) {
    emit_simple(b, BOOK_EV_REJECTED, side, id, owner, err, 0, 0);
    return err;
}

/* ---- levels and orders ------------------------------------------------------ */

static inline void level_append(book *b, int side, uint32_t li, uint32_t oi) {
    side_state *s = &b->s[side];
    level *l = lvl(b, side, li);
    order *o = &b->ord[oi];
    o->level = li;
    o->next = NIL;
    if (l->count) {
        o->prev = l->tail;
        b->ord[l->tail].next = oi;
    } else {
        o->prev = NIL;
        l->head = oi;
    }
    l->tail = oi;
    if (l->count++ == 0) {
        bm_set(s, li);
        s->nlevels_used++;
        if (s->best == NIL || (side == BOOK_BUY ? li > s->best : li < s->best)) s->best = li;
    }
    l->qty += o->qty;
}

/* Unlink order oi (its qty already taken off the level by the caller). */
static inline void level_unlink(book *b, int side, uint32_t oi) {
    side_state *s = &b->s[side];
    order *o = &b->ord[oi];
    level *l = lvl(b, side, o->level);
    if (o->prev != NIL)
        b->ord[o->prev].next = o->next;
    else
        l->head = o->next;
    if (o->next != NIL)
        b->ord[o->next].prev = o->prev;
    else
        l->tail = o->prev;
    if (--l->count == 0) {
        bm_clear(s, o->level);
        s->nlevels_used--;
        if (s->best == o->level) s->best = worse_level(b, side, o->level);
    }
}

static inline void order_free(book *b, uint32_t oi) {
    b->ord[oi].used = 0;
    b->ord[oi].next = b->free_head;
    b->free_head = oi;
    b->live--;
}

/* Remove a resting order entirely, emitting CANCELLED then LEVEL. */
static void remove_order(book *b, uint32_t oi, int32_t reason) {
    order *o = &b->ord[oi];
    int side = o->side;
    uint32_t li = o->level;
    lvl(b, side, li)->qty -= o->qty;
    level_unlink(b, side, oi);
    hash_remove(b, o->id, oi);
    emit_simple(b, BOOK_EV_CANCELLED, (book_side)side, o->id, o->owner, reason, level_price(b, li),
                o->qty);
    order_free(b, oi);
    emit_level(b, side, li);
}

/* ---- construction -------------------------------------------------------------- */

/* Size the id table for `cap` slab slots (load <= 1/2) and enter every
 * resting order.  0 or BOOK_ENOMEM (the old table is then kept). */
static int table_build(book *b, uint64_t cap) {
    uint64_t n = 16;
    while (n < 2 * cap)
        n <<= 1;
    slot *t = lat__alloc_aligned(n * sizeof(slot), LAT_CACHELINE);
    if (!t) return BOOK_ENOMEM;
    memset(t, 0xff, n * sizeof(slot)); /* idx = NIL */
    lat__free(b->tab);
    b->tab = t;
    b->tab_mask = (uint32_t)(n - 1);
    b->tab_shift = 32u - (unsigned)__builtin_ctzll(n);
    for (uint32_t i = 0; i < b->hwm; i++)
        if (b->ord[i].used) hash_insert(b, b->ord[i].id, i);
    return 0;
}

/* Grow the slab (and the table when it would be more than half full) up to
 * cfg.max_orders.  Called only when every slot is taken. */
static int orders_grow(book *b) {
    uint64_t n = 2ull * b->ord_cap;
    if (n > b->cfg.max_orders) n = b->cfg.max_orders;
    order *o = lat__alloc_aligned(n * sizeof(order), LAT_CACHELINE);
    if (!o) return BOOK_ENOMEM;
    memcpy(o, b->ord, (size_t)b->hwm * sizeof(order));
    /* touch the new slots now rather than one page fault at a time later */
    memset(o + b->hwm, 0, (size_t)(n - b->hwm) * sizeof(order));
    order *old = b->ord;
    b->ord = o;
    if ((uint64_t)b->tab_mask + 1 < 2 * n && table_build(b, n)) {
        b->ord = old;
        lat__free(o);
        return BOOK_ENOMEM;
    }
    lat__free(old);
    b->ord_cap = (uint32_t)n;
    return 0;
}

/* Can a new order rest?  0, BOOK_EFULL (max_orders reached) or BOOK_ENOMEM. */
static inline int slot_ready(book *b) {
    if (LAT_LIKELY(b->free_head != NIL || b->hwm < b->ord_cap)) return 0;
    if (b->ord_cap >= b->cfg.max_orders) return BOOK_EFULL;
    return orders_grow(b);
}

static inline uint32_t slot_take(book *b) {
    uint32_t oi = b->free_head;
    if (oi != NIL)
        b->free_head = b->ord[oi].next;
    else
        oi = b->hwm++;
    b->ord[oi].used = 1;
    b->live++;
    return oi;
}

int book_create(const book_config *cfg, book **out) {
    if (!cfg || !out || cfg->tick <= 0 || cfg->price_hi < cfg->price_lo || cfg->max_orders == 0 ||
        cfg->max_orders >= (1u << 31) || (unsigned)cfg->stp > BOOK_STP_CANCEL_BOTH)
        return -EINVAL;
    /* unsigned difference: exact for any lo <= hi, no signed overflow */
    uint64_t span = ((uint64_t)cfg->price_hi - (uint64_t)cfg->price_lo) / (uint64_t)cfg->tick;
    if (span >= BOOK_MAX_LEVELS) return -EINVAL;
    span++;
    book *b = lat__calloc(1, sizeof *b);
    if (!b) return -ENOMEM;
    b->cfg = *cfg;
    b->nlevels = (uint32_t)span;
    b->nl0 = (b->nlevels + 63) / 64;
    b->npages = (b->nlevels + LPAGE - 1) / LPAGE;
    for (int k = 0; k < 2; k++) {
        side_state *s = &b->s[k];
        s->nl1 = (b->nl0 + 63) / 64;
        s->nl2 = (s->nl1 + 63) / 64;
        s->dir = lat__calloc_aligned(b->npages, sizeof(lpage *), LAT_CACHELINE);
        s->l1 = lat__calloc_aligned(s->nl1, sizeof(uint64_t), LAT_CACHELINE);
        s->l2 = lat__calloc_aligned(s->nl2, sizeof(uint64_t), LAT_CACHELINE);
        if (!s->dir || !s->l1 || !s->l2) goto fail;
    }
    uint64_t rl = cfg->reserve_levels ? cfg->reserve_levels : BOOK_DEFAULT_RESERVE_LEVELS;
    uint64_t rpages = (rl + LPAGE - 1) / LPAGE;
    if (rpages > b->npages) rpages = b->npages;
    if (chunk_add(b, 2 * rpages)) goto fail;
    /* the reserve is real memory: fault it in now, not inside an operation */
    memset(b->chunk[0], 0, (size_t)b->chunk_pages[0] * sizeof(lpage));
    if (rpages == b->npages) /* the reserve covers the band: bind it all now */
        for (int k = 0; k < 2; k++)
            for (uint32_t pg = 0; pg < b->npages; pg++)
                if (page_bind(b, k, pg << LPAGE_SHIFT)) goto fail;
    uint32_t ro = cfg->reserve_orders && cfg->reserve_orders < cfg->max_orders ? cfg->reserve_orders
                                                                               : cfg->max_orders;
    b->ord = lat__calloc_aligned(ro, sizeof(order), LAT_CACHELINE);
    if (!b->ord || table_build(b, ro)) goto fail;
    b->ord_cap = ro;
    book_reset(b);
    *out = b;
    return 0;
fail:
    book_destroy(b);
    return -ENOMEM;
}

void book_destroy(book *b) {
    if (!b) return;
    for (int k = 0; k < 2; k++) {
        lat__free(b->s[k].dir);
        lat__free(b->s[k].l1);
        lat__free(b->s[k].l2);
    }
    for (uint32_t c = 0; c < b->nchunks; c++)
        lat__free(b->chunk[c]);
    lat__free(b->ord);
    lat__free(b->tab);
    lat__free(b);
}

void book_reset(book *b) {
    /* cost proportional to what was used: bound pages and the slots so far */
    for (uint32_t c = 0; c < b->nchunks; c++)
        memset(b->chunk[c], 0, (size_t)b->chunk_used[c] * sizeof(lpage));
    for (int k = 0; k < 2; k++) {
        side_state *s = &b->s[k];
        memset(s->l1, 0, s->nl1 * sizeof(uint64_t));
        memset(s->l2, 0, s->nl2 * sizeof(uint64_t));
        s->best = NIL;
        s->nlevels_used = 0;
    }
    if (b->live) memset(b->tab, 0xff, ((size_t)b->tab_mask + 1) * sizeof(slot));
    b->free_head = NIL;
    b->hwm = 0;
    b->live = 0;
    b->seq = 0;
}

int book_reserve(book *b, book_side side, int64_t lo, int64_t hi) {
    if (!b || (unsigned)side > 1 || lo > hi) return BOOK_EARG;
    if (hi < b->cfg.price_lo || lo > b->cfg.price_hi) return BOOK_EBAND;
    if (lo < b->cfg.price_lo) lo = b->cfg.price_lo;
    if (hi > b->cfg.price_hi) hi = b->cfg.price_hi;
    uint64_t t = (uint64_t)b->cfg.tick, base = (uint64_t)b->cfg.price_lo;
    uint32_t a = (uint32_t)(((uint64_t)lo - base) / t), z = (uint32_t)(((uint64_t)hi - base) / t);
    for (uint32_t pg = a >> LPAGE_SHIFT; pg <= z >> LPAGE_SHIFT; pg++) {
        int err = page_bind(b, side, pg << LPAGE_SHIFT);
        if (err) return err;
    }
    return 0;
}

size_t book_memory_bytes(const book *b) {
    size_t n =
        sizeof *b + (size_t)b->ord_cap * sizeof(order) + ((size_t)b->tab_mask + 1) * sizeof(slot);
    for (int k = 0; k < 2; k++)
        n += b->npages * sizeof(lpage *) + (b->s[k].nl1 + b->s[k].nl2) * sizeof(uint64_t);
    for (uint32_t c = 0; c < b->nchunks; c++)
        n += (size_t)b->chunk_used[c] * sizeof(lpage);
    return n;
}

void book_set_stp(book *b, book_stp stp) {
    b->cfg.stp = stp;
}
void book_set_fees(book *b, int32_t maker_bps, int32_t taker_bps) {
    b->cfg.maker_fee_bps = maker_bps;
    b->cfg.taker_fee_bps = taker_bps;
}
void book_set_callback(book *b, book_event_fn fn, void *ud) {
    b->cfg.on_event = fn;
    b->cfg.ud = ud;
}

/* ---- validation ----------------------------------------------------------------- */

static inline int check_price(const book *b, int64_t price, uint32_t *li) {
    if (price < b->cfg.price_lo || price > b->cfg.price_hi) return BOOK_EBAND;
    uint64_t off = (uint64_t)price - (uint64_t)b->cfg.price_lo; /* exact: lo <= price */
    if (off % (uint64_t)b->cfg.tick) return BOOK_ETICK;
    *li = (uint32_t)(off / (uint64_t)b->cfg.tick);
    return 0;
}

/* A slot and a level page for an order that may rest at li (checked before
 * anything changes, so a failure leaves the book as it was). */
static inline int room_to_rest(book *b, int side, uint32_t li) {
    int err = slot_ready(b);
    return err ? err : page_bind(b, side, li);
}

/* ---- matching ---------------------------------------------------------------- */

/* Does the opposite level li cross a taker of `side` limited at index lim? */
static inline int crosses(int side, uint32_t li, uint32_t lim) {
    return side == BOOK_BUY ? li <= lim : li >= lim;
}

/* FOK: can `qty` be filled (taking self-trade prevention into account)? */
static int fok_fillable(const book *b, int side, uint32_t owner, uint32_t lim, uint64_t qty) {
    int opp = side ^ 1;
    uint64_t got = 0;
    book_stp stp = b->cfg.stp;
    for (uint32_t li = b->s[opp].best; li != NIL && crosses(side, li, lim);
         li = worse_level(b, opp, li)) {
        const level *l = lvl(b, opp, li);
        if (stp == BOOK_STP_NONE) {
            got += l->qty;
        } else {
            for (uint32_t oi = l->head; oi != NIL; oi = b->ord[oi].next) {
                const order *o = &b->ord[oi];
                if (o->owner == owner) {
                    if (stp == BOOK_STP_CANCEL_MAKER) continue;
                    return got >= qty; /* matching stops here */
                }
                got += o->qty;
                if (got >= qty) return 1;
            }
        }
        if (got >= qty) return 1;
    }
    return got >= qty;
}

/* Match a taker against the opposite side.  Returns the quantity left, or
 * sets *stp_stop when self-trade prevention cancelled the taker. */
static uint32_t match(book *b, uint64_t id, uint32_t owner, int side, uint32_t lim, uint32_t qty,
                      int *stp_stop) {
    int opp = side ^ 1;
    side_state *s = &b->s[opp];
    *stp_stop = 0;
    while (qty && s->best != NIL && crosses(side, s->best, lim)) {
        uint32_t li = s->best;
        level *l = lvl(b, opp, li);
        int64_t px = level_price(b, li);
        uint32_t oi = l->head;
        while (qty && oi != NIL) {
            order *o = &b->ord[oi];
            uint32_t nx = o->next;
            /* overlap the next maker's and this maker's hash-slot misses with this fill */
            if (nx != NIL) __builtin_prefetch(&b->ord[nx]);
            if (o->qty <= qty) __builtin_prefetch(&b->tab[tag_home(b, hash_tag(o->id))]);
            if (LAT_UNLIKELY(o->owner == owner && b->cfg.stp != BOOK_STP_NONE)) {
                book_stp stp = b->cfg.stp;
                if (stp == BOOK_STP_CANCEL_MAKER || stp == BOOK_STP_CANCEL_BOTH)
                    remove_order(b, oi, BOOK_CXL_STP);
                if (stp != BOOK_STP_CANCEL_MAKER) {
                    *stp_stop = 1;
                    return qty;
                }
                oi = nx;
                continue;
            }
            uint32_t q = o->qty < qty ? o->qty : qty;
            qty -= q;
            o->qty -= q;
            l->qty -= q;
            if (b->cfg.on_event) {
                book_event ev = {0};
                ev.type = BOOK_EV_TRADE;
                ev.side = (book_side)side;
                ev.owner = owner;
                ev.id = id;
                ev.maker_id = o->id;
                ev.price = px;
                ev.qty = q;
                /* unsigned products: defined (wrapping) even for prices near 2^63 */
                uint64_t pq = (uint64_t)px * q;
                ev.maker_fee_e4 = (int64_t)(pq * (uint64_t)(int64_t)b->cfg.maker_fee_bps);
                ev.taker_fee_e4 = (int64_t)(pq * (uint64_t)(int64_t)b->cfg.taker_fee_bps);
                ev.seq = b->seq;
                b->cfg.on_event(&ev, b->cfg.ud);
            }
            if (o->qty == 0) {
                level_unlink(b, opp, oi);
                hash_remove(b, o->id, oi);
                emit_simple(b, BOOK_EV_DONE, (book_side)opp, o->id, o->owner, 0, px, 0);
                order_free(b, oi);
            }
            emit_level(b, opp, li);
            oi = nx;
        }
    }
    return qty;
}

static int rest(book *b, uint64_t id, uint32_t owner, int side, uint32_t li, uint32_t qty) {
    uint32_t oi = slot_take(b);
    order *o = &b->ord[oi];
    o->id = id;
    o->qty = qty;
    o->owner = owner;
    o->side = (uint8_t)side;
    level_append(b, side, li, oi);
    hash_insert(b, id, oi);
    emit_level(b, side, li);
    return 0;
}

/* Shared by limit and market: lim is the limit index (market: the far end). */
static int take(book *b, uint64_t id, uint32_t owner, int side, int64_t price, uint32_t lim,
                uint32_t qty, int tif, int market) {
    emit_simple(b, BOOK_EV_ACCEPTED, (book_side)side, id, owner, 0, market ? 0 : price, qty);
    if (tif == BOOK_FOK && !fok_fillable(b, side, owner, lim, qty)) {
        emit_simple(b, BOOK_EV_CANCELLED, (book_side)side, id, owner, BOOK_CXL_FOK, 0, qty);
        return 0;
    }
    int stp_stop;
    uint32_t left = match(b, id, owner, side, lim, qty, &stp_stop);
    if (left == 0) {
        emit_simple(b, BOOK_EV_DONE, (book_side)side, id, owner, 0, 0, 0);
        return 0;
    }
    if (stp_stop || tif != BOOK_GTC) {
        emit_simple(b, BOOK_EV_CANCELLED, (book_side)side, id, owner,
                    stp_stop ? BOOK_CXL_STP : BOOK_CXL_IOC, 0, left);
        return 0;
    }
    return rest(b, id, owner, side, lim, left);
}

int book_limit(book *b, uint64_t id, uint32_t owner, book_side side, int64_t price, uint32_t qty,
               book_tif tif, unsigned flags) {
    if ((unsigned)side > 1 || (unsigned)tif > BOOK_FOK || (flags & ~BOOK_POST_ONLY) ||
        ((flags & BOOK_POST_ONLY) && tif != BOOK_GTC))
        return reject(b, BOOK_EARG, id, owner, side);
    if (qty == 0) return reject(b, BOOK_EQTY, id, owner, side);
    uint32_t li;
    int err = check_price(b, price, &li);
    if (err) return reject(b, err, id, owner, side);
    if (hash_find(b, id) != NIL) return reject(b, BOOK_EDUP, id, owner, side);
    if (tif == BOOK_GTC && (err = room_to_rest(b, side, li)))
        return reject(b, err, id, owner, side);
    if (flags & BOOK_POST_ONLY) {
        uint32_t ob = b->s[side ^ 1].best;
        if (ob != NIL && crosses(side, ob, li)) return reject(b, BOOK_ECROSS, id, owner, side);
    }
    return take(b, id, owner, side, price, li, qty, tif, 0);
}

int book_market(book *b, uint64_t id, uint32_t owner, book_side side, uint32_t qty) {
    if ((unsigned)side > 1) return reject(b, BOOK_EARG, id, owner, side);
    if (qty == 0) return reject(b, BOOK_EQTY, id, owner, side);
    if (hash_find(b, id) != NIL) return reject(b, BOOK_EDUP, id, owner, side);
    uint32_t lim = side == BOOK_BUY ? b->nlevels - 1 : 0;
    return take(b, id, owner, side, 0, lim, qty, BOOK_IOC, 1);
}

int book_cancel(book *b, uint64_t id) {
    uint32_t oi = hash_find(b, id);
    if (oi == NIL) return reject(b, BOOK_EUNKNOWN, id, 0, BOOK_BUY);
    remove_order(b, oi, BOOK_CXL_USER);
    return 0;
}

int book_modify(book *b, uint64_t id, uint32_t new_qty) {
    uint32_t oi = hash_find(b, id);
    if (oi == NIL) return reject(b, BOOK_EUNKNOWN, id, 0, BOOK_BUY);
    order *o = &b->ord[oi];
    if (new_qty == 0) return reject(b, BOOK_EQTY, id, o->owner, (book_side)o->side);
    if (new_qty == o->qty) return 0;
    int side = o->side;
    uint32_t li = o->level;
    level *l = lvl(b, side, li);
    if (new_qty < o->qty) {
        l->qty -= o->qty - new_qty;
        o->qty = new_qty;
    } else if (l->tail == oi) {
        /* already last: losing priority changes nothing in the queue */
        l->qty += new_qty - o->qty;
        o->qty = new_qty;
    } else {
        /* to the back of the queue (the level cannot empty: others remain) */
        if (o->prev != NIL)
            b->ord[o->prev].next = o->next;
        else
            l->head = o->next;
        b->ord[o->next].prev = o->prev;
        o->prev = l->tail;
        o->next = NIL;
        b->ord[l->tail].next = oi;
        l->tail = oi;
        l->qty += new_qty - o->qty;
        o->qty = new_qty;
    }
    emit_level(b, side, li);
    return 0;
}

int book_replace(book *b, uint64_t id, int64_t new_price, uint32_t new_qty) {
    uint32_t oi = hash_find(b, id);
    if (oi == NIL) return reject(b, BOOK_EUNKNOWN, id, 0, BOOK_BUY);
    order *o = &b->ord[oi];
    uint32_t owner = o->owner;
    book_side side = (book_side)o->side;
    if (new_qty == 0) return reject(b, BOOK_EQTY, id, owner, side);
    uint32_t li;
    int err = check_price(b, new_price, &li);
    if (err || (err = page_bind(b, side, li))) return reject(b, err, id, owner, side);
    remove_order(b, oi, BOOK_CXL_REPLACE);
    return take(b, id, owner, side, new_price, li, new_qty, BOOK_GTC, 0);
}

int book_add_resting(book *b, uint64_t id, uint32_t owner, book_side side, int64_t price,
                     uint32_t qty) {
    if ((unsigned)side > 1) return reject(b, BOOK_EARG, id, owner, side);
    if (qty == 0) return reject(b, BOOK_EQTY, id, owner, side);
    uint32_t li;
    int err = check_price(b, price, &li);
    if (err) return reject(b, err, id, owner, side);
    if (hash_find(b, id) != NIL) return reject(b, BOOK_EDUP, id, owner, side);
    if ((err = room_to_rest(b, side, li))) return reject(b, err, id, owner, side);
    emit_simple(b, BOOK_EV_ACCEPTED, side, id, owner, 0, price, qty);
    return rest(b, id, owner, side, li, qty);
}

int64_t book_execute(book *b, uint64_t id, uint32_t qty) {
    uint32_t oi = hash_find(b, id);
    if (oi == NIL) return reject(b, BOOK_EUNKNOWN, id, 0, BOOK_BUY);
    order *o = &b->ord[oi];
    if (qty == 0) return reject(b, BOOK_EQTY, id, o->owner, (book_side)o->side);
    if (qty > o->qty) return reject(b, BOOK_EEXCESS, id, o->owner, (book_side)o->side);
    if (b->cfg.on_event) {
        int64_t px = level_price(b, o->level);
        uint64_t pq = (uint64_t)px * qty;
        book_event ev = {0};
        ev.type = BOOK_EV_TRADE;
        ev.side = (book_side)(o->side ^ 1);
        ev.maker_id = id;
        ev.price = px;
        ev.qty = qty;
        ev.maker_fee_e4 = (int64_t)(pq * (uint64_t)(int64_t)b->cfg.maker_fee_bps);
        ev.taker_fee_e4 = (int64_t)(pq * (uint64_t)(int64_t)b->cfg.taker_fee_bps);
        ev.seq = b->seq;
        b->cfg.on_event(&ev, b->cfg.ud);
    }
    return book_reduce(b, id, qty);
}

int64_t book_reduce(book *b, uint64_t id, uint32_t by) {
    uint32_t oi = hash_find(b, id);
    if (oi == NIL) return reject(b, BOOK_EUNKNOWN, id, 0, BOOK_BUY);
    order *o = &b->ord[oi];
    if (by == 0) return reject(b, BOOK_EQTY, id, o->owner, (book_side)o->side);
    if (by >= o->qty) {
        int side = o->side;
        uint32_t li = o->level;
        lvl(b, side, li)->qty -= o->qty;
        level_unlink(b, side, oi);
        hash_remove(b, id, oi);
        emit_simple(b, BOOK_EV_DONE, (book_side)side, id, o->owner, 0, level_price(b, li), 0);
        order_free(b, oi);
        emit_level(b, side, li);
        return 0;
    }
    o->qty -= by;
    lvl(b, o->side, o->level)->qty -= by;
    emit_level(b, o->side, o->level);
    return o->qty;
}

/* ---- mass cancel ---------------------------------------------------------------- */

book_filter book_filter_all(void) {
    book_filter f = {.side = -1};
    return f;
}
book_filter book_filter_side(book_side side) {
    book_filter f = {.side = (int)side};
    return f;
}
book_filter book_filter_owner(uint32_t owner) {
    book_filter f = {.side = -1, .by_owner = 1, .owner = owner};
    return f;
}
book_filter book_filter_range(int64_t lo, int64_t hi) {
    book_filter f = {.side = -1, .by_price = 1, .price_lo = lo, .price_hi = hi};
    return f;
}

int64_t book_mass_cancel(book *b, const book_filter *f, uint64_t *ids, size_t cap) {
    if (!f || f->side < -1 || f->side > 1) return BOOK_EARG;
    int64_t n = 0;
    for (int side = 0; side < 2; side++) {
        if (f->side != -1 && f->side != side) continue;
        uint32_t li = b->s[side].best;
        while (li != NIL) {
            int64_t px = level_price(b, li);
            /* next level computed before this one may empty */
            uint32_t nli = worse_level(b, side, li);
            int in = !f->by_price || (px >= f->price_lo && px <= f->price_hi);
            if (in) {
                uint32_t oi = lvl(b, side, li)->head;
                while (oi != NIL) {
                    uint32_t nx = b->ord[oi].next;
                    if (!f->by_owner || b->ord[oi].owner == f->owner) {
                        if (ids && (size_t)n < cap) ids[n] = b->ord[oi].id;
                        n++;
                        remove_order(b, oi, BOOK_CXL_MASS);
                    }
                    oi = nx;
                }
            }
            li = nli;
        }
    }
    return n;
}

/* ---- snapshots and queries -------------------------------------------------------- */

static size_t side_levels(const book *b, int side, size_t depth, book_level_view *out) {
    size_t n = 0;
    for (uint32_t li = b->s[side].best; li != NIL && (depth == 0 || n < depth);
         li = worse_level(b, side, li)) {
        if (out) {
            out[n].price = level_price(b, li);
            out[n].qty = lvl(b, side, li)->qty;
            out[n].count = lvl(b, side, li)->count;
        }
        n++;
    }
    return n;
}

void book_snapshot(const book *b, size_t depth, book_level_view *bids, size_t *nbids,
                   book_level_view *asks, size_t *nasks) {
    size_t nb = bids ? side_levels(b, 0, depth, bids) : 0;
    size_t na = asks ? side_levels(b, 1, depth, asks) : 0;
    if (nbids) *nbids = nb;
    if (nasks) *nasks = na;
}

/* Little-endian field writers for the canonical encoding. */
static inline unsigned char *put_le(unsigned char *p, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
    return p + bytes;
}

int book_snapshot_package(const book *b, size_t depth, book_package *pkg) {
    if (!b || !pkg || !pkg->bids || !pkg->asks) return BOOK_EARG;
    book_snapshot(b, depth, pkg->bids, &pkg->nbids, pkg->asks, &pkg->nasks);
    pkg->depth = depth;
    pkg->seq = b->seq;
    /* encode into a stack buffer and checksum it in as few crc32() calls as
     * possible: zlib's per-call cost dominates 20-byte updates */
    unsigned char buf[4096], *p = buf;
    uLong crc = crc32(0L, Z_NULL, 0);
    p = put_le(p, depth, 8);
    p = put_le(p, pkg->nbids, 8);
    p = put_le(p, pkg->nasks, 8);
    for (int side = 0; side < 2; side++) {
        const book_level_view *v = side ? pkg->asks : pkg->bids;
        size_t n = side ? pkg->nasks : pkg->nbids;
        for (size_t i = 0; i < n; i++) {
            if ((size_t)(buf + sizeof buf - p) < 20) {
                crc = crc32(crc, buf, (uInt)(p - buf));
                p = buf;
            }
            p = put_le(p, (uint64_t)v[i].price, 8);
            p = put_le(p, v[i].qty, 8);
            p = put_le(p, v[i].count, 4);
        }
    }
    crc = crc32(crc, buf, (uInt)(p - buf));
    pkg->crc32 = (uint32_t)crc;
    return 0;
}

int book_best(const book *b, book_side side, int64_t *price, uint64_t *qty) {
    uint32_t li = b->s[side & 1].best;
    if (li == NIL) return BOOK_EEMPTY;
    if (price) *price = level_price(b, li);
    if (qty) *qty = lvl(b, side & 1, li)->qty;
    return 0;
}

int book_crossed(const book *b) {
    int64_t bid, ask;
    if (!b || book_best(b, BOOK_BUY, &bid, NULL) || book_best(b, BOOK_SELL, &ask, NULL)) return 0;
    return bid > ask ? 2 : bid == ask ? 1 : 0;
}

uint32_t book_order_count(const book *b) {
    return b->live;
}
size_t book_level_count(const book *b, book_side side) {
    return b->s[side & 1].nlevels_used;
}
uint64_t book_seq(const book *b) {
    return b->seq;
}

int book_lookup(const book *b, uint64_t id, uint32_t *owner, book_side *side, int64_t *price,
                uint32_t *qty) {
    uint32_t oi = hash_find(b, id);
    if (oi == NIL) return BOOK_EUNKNOWN;
    const order *o = &b->ord[oi];
    if (owner) *owner = o->owner;
    if (side) *side = (book_side)o->side;
    if (price) *price = level_price(b, o->level);
    if (qty) *qty = o->qty;
    return 0;
}

void book_walk(const book *b, book_side side, book_order_fn fn, void *ud) {
    int s = side & 1;
    for (uint32_t li = b->s[s].best; li != NIL; li = worse_level(b, s, li))
        for (uint32_t oi = lvl(b, s, li)->head; oi != NIL; oi = b->ord[oi].next)
            fn(b->ord[oi].id, b->ord[oi].owner, level_price(b, li), b->ord[oi].qty, ud);
}

const char *book_strerror(int err) {
    switch (err) {
    case 0:
        return "success";
    case BOOK_EARG:
        return "bad argument (side, time in force or flags)";
    case BOOK_EQTY:
        return "quantity is zero";
    case BOOK_EBAND:
        return "price outside the book's band";
    case BOOK_ETICK:
        return "price is not on a tick";
    case BOOK_EDUP:
        return "order id already in use";
    case BOOK_EUNKNOWN:
        return "no resting order has this id";
    case BOOK_EFULL:
        return "order capacity exhausted";
    case BOOK_ECROSS:
        return "post-only order would cross";
    case BOOK_EEMPTY:
        return "that side of the book is empty";
    case BOOK_ENOMEM:
        return "no memory for a new price-level page or order slot";
    case BOOK_EEXCESS:
        return "executed quantity exceeds the open quantity";
    default:
        return "unknown book error";
    }
}

const char *book_reason(int err) {
    switch (err) {
    case BOOK_EARG:
        return "bad_arg";
    case BOOK_EQTY:
        return "zero_qty";
    case BOOK_EBAND:
        return "out_of_band";
    case BOOK_ETICK:
        return "off_tick";
    case BOOK_EDUP:
        return "duplicate_id";
    case BOOK_EUNKNOWN:
        return "unknown_id";
    case BOOK_EFULL:
        return "book_full";
    case BOOK_ECROSS:
        return "would_cross";
    case BOOK_EEMPTY:
        return "empty";
    case BOOK_ENOMEM:
        return "no_memory";
    case BOOK_EEXCESS:
        return "over_execution";
    default:
        return "error";
    }
}
