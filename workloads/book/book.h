/* book.h - latlab's order-book matching engine: the workload the `latlab book`
 * scenarios measure.
 *
 * One book per instrument, one writer thread, no locks.  book_create()
 * allocates the reserve (cfg.reserve_orders order slots, cfg.reserve_levels
 * price levels per side); no operation allocates, locks or makes a system
 * call while the book stays within it (tests/workloads/test_book.c proves it with a
 * counting allocator).  Beyond the reserve the book grows on demand, inside
 * the operation that needs it: a limit/add that rests in a price region
 * (page of 256 levels) never touched before binds a new page, taking a chunk
 * from the allocator when the reserved pages are used up, and the order slab
 * and id table double (a rehash: one slow operation) up to cfg.max_orders.
 * A failed growth rejects the order with BOOK_ENOMEM, book unchanged.  So
 * pre-size from a hint (or call book_reserve() for a price range) before a
 * measured window; memory is proportional to the levels and orders actually
 * used, not to the band: a 2^28-level band costs ~20 MB of directory and
 * bitmaps plus 6 KB per 256-level page touched.
 *
 * Layout (why: a price-indexed array and an arena beat trees and skip lists by
 * several times per operation):
 *   - price levels: indexed by (price - price_lo) / tick inside a configured
 *     band, stored in pages of 256 levels reached through a per-side page
 *     directory (one extra load; pages bound on first use); a three-level
 *     occupancy bitmap per side (a bit per level, kept in its page; a bit per
 *     64 levels; a bit per 4,096 levels) finds the next non-empty level with
 *     count-trailing/leading-zeros; best bid and ask are cached;
 *   - per level an intrusive doubly linked FIFO of 32-bit order indices (O(1)
 *     cancel from anywhere) with a running order count and quantity;
 *   - orders live in a slab with a free list; ids map to slab indices
 *     through an open-addressing hash (linear probing, backward-shift
 *     deletion, no tombstones).
 *
 * Semantics (the reference book in the tests implements the same rules):
 *   - price-time priority; a trade prints at the maker's price;
 *   - every accepted order first gets ACCEPTED, then its TRADEs; a taker that
 *     fills completely gets DONE; an IOC or market remainder is CANCELLED; a GTC
 *     remainder rests; an FOK that cannot fill completely is CANCELLED without
 *     trading (self-trade prevention is taken into account);
 *   - each change of a level's open quantity emits LEVEL (side, price, new qty,
 *     new order count) with the incremented sequence number; a maker that fills
 *     completely gets DONE before its LEVEL event;
 *   - a rejected input emits REJECTED (with the error code) and returns the
 *     error; the book is unchanged.  Checks run in this order: argument (side,
 *     tif, flags) -> zero quantity -> band -> tick -> duplicate id -> book full
 *     (GTC only: a slot must be free even if the order would fill) -> memory
 *     for its slot and level page (GTC only) -> post-only would cross;
 *   - ids are unique among resting orders; an id can be reused once its order
 *     is gone.
 *
 * Units: prices are integers in the caller's unit (ticks for the text replay,
 * 1/10000 dollars for ITCH); quantities are counts.  Fees are carried in
 * "e4" units: price * qty * bps, i.e. ten-thousandths of one price-unit x qty,
 * so they are exact integers (negative bps = rebate). */
#ifndef LATLAB_BOOK_H
#define LATLAB_BOOK_H

#include <stddef.h>
#include <stdint.h>

/* Error codes: each bad input has its own (all below any errno and LAT_E*). */
enum {
    BOOK_EARG = -11001,     /* bad side, time in force, flags or a NULL argument */
    BOOK_EQTY = -11002,     /* zero quantity */
    BOOK_EBAND = -11003,    /* price outside the configured band */
    BOOK_ETICK = -11004,    /* price not on a tick */
    BOOK_EDUP = -11005,     /* id already used by a resting order */
    BOOK_EUNKNOWN = -11006, /* no resting order has this id */
    BOOK_EFULL = -11007,    /* the order slab is full */
    BOOK_ECROSS = -11008,   /* post-only order would cross */
    BOOK_EEMPTY = -11009,   /* that side of the book is empty (queries) */
    BOOK_ENOMEM = -11010,   /* growing beyond the reserve failed (see above) */
    BOOK_EEXCESS = -11011,  /* execution of more than the open quantity */
};

/* Most levels a band may have (price_hi - price_lo) / tick + 1. */
#define BOOK_MAX_LEVELS (1u << 28)
/* Levels per side reserved when book_config.reserve_levels is 0; a band of at
 * most this many levels is bound completely at creation (no page is ever
 * bound inside an operation). */
#define BOOK_DEFAULT_RESERVE_LEVELS 65536u

typedef enum book_side { BOOK_BUY = 0, BOOK_SELL = 1 } book_side;
typedef enum book_tif { BOOK_GTC = 0, BOOK_IOC = 1, BOOK_FOK = 2 } book_tif;
#define BOOK_POST_ONLY 1u /* flag for book_limit (GTC only) */

/* Self-trade prevention when taker and maker have the same owner. */
typedef enum book_stp {
    BOOK_STP_NONE = 0,         /* they trade */
    BOOK_STP_CANCEL_TAKER = 1, /* the taker's remainder is cancelled; maker untouched */
    BOOK_STP_CANCEL_MAKER = 2, /* the maker is cancelled; matching continues */
    BOOK_STP_CANCEL_BOTH = 3,  /* the maker and the taker's remainder are cancelled */
} book_stp;

typedef enum book_event_type {
    BOOK_EV_ACCEPTED = 1,
    BOOK_EV_REJECTED = 2,
    BOOK_EV_TRADE = 3,
    BOOK_EV_CANCELLED = 4,
    BOOK_EV_DONE = 5,
    BOOK_EV_LEVEL = 6,
} book_event_type;

/* Why an order was cancelled (book_event.reason for CANCELLED). */
typedef enum book_cancel_reason {
    BOOK_CXL_USER = 1,    /* book_cancel */
    BOOK_CXL_IOC = 2,     /* IOC or market remainder */
    BOOK_CXL_FOK = 3,     /* FOK could not fill completely */
    BOOK_CXL_STP = 4,     /* self-trade prevention */
    BOOK_CXL_MASS = 5,    /* book_mass_cancel */
    BOOK_CXL_REPLACE = 6, /* book_replace (the old order; the new one follows) */
} book_cancel_reason;

/* One event.  Fields not listed for a type are zero. */
typedef struct book_event {
    book_event_type type;
    book_side side;    /* the order's side; LEVEL: the level's side; TRADE: taker's side */
    int32_t reason;    /* REJECTED: BOOK_E* code; CANCELLED: book_cancel_reason */
    uint32_t owner;    /* ACCEPTED/REJECTED/CANCELLED/DONE: the order's; TRADE: taker's */
    uint64_t id;       /* the order; TRADE: the taker */
    uint64_t maker_id; /* TRADE */
    int64_t price;     /* TRADE: maker's price; LEVEL: the level; ACCEPTED: limit (0 = market) */
    uint64_t qty;      /* ACCEPTED: order qty; TRADE: traded; CANCELLED: open qty removed;
                          LEVEL: new open qty at the level */
    uint32_t count;    /* LEVEL: orders now at the level */
    int64_t maker_fee_e4, taker_fee_e4; /* TRADE: price * qty * bps */
    uint64_t seq;                       /* the book's sequence number after the event */
} book_event;

/* Called synchronously from inside the operation; must not call back into the book. */
typedef void (*book_event_fn)(const book_event *ev, void *ud);

typedef struct book_config {
    int64_t price_lo, price_hi; /* band, inclusive; price_lo <= price_hi, at most
                                   BOOK_MAX_LEVELS levels */
    int64_t tick;               /* > 0; valid prices are price_lo + k * tick */
    uint32_t max_orders;        /* resting order capacity, >= 1, < 2^31 */
    uint32_t reserve_orders;    /* slots allocated up front; 0 (or >= max_orders):
                                   max_orders, so the slab never grows */
    uint32_t reserve_levels;    /* levels per side allocated up front;
                                   0: BOOK_DEFAULT_RESERVE_LEVELS */
    book_stp stp;
    int32_t maker_fee_bps, taker_fee_bps;
    book_event_fn on_event; /* NULL: no events */
    void *ud;
} book_config;

typedef struct book book;

/* Allocate a book (through lat__alloc).  Returns 0 and *out, -EINVAL for a bad
 * config (band of more than BOOK_MAX_LEVELS levels, zero capacity, ...) or
 * -ENOMEM.  Takes milliseconds for any band (nothing is proportional to the
 * band but the page directory and bitmaps, 1 bit + 4 bytes per 32 levels). */
int book_create(const book_config *cfg, book **out);
/* NULL is fine. */
void book_destroy(book *b);
/* Empty the book (no events), sequence back to 0.  No allocation; bound pages
 * and grown capacity are kept.  Cost proportional to what was used. */
void book_reset(book *b);
/* Bind the level pages covering prices [lo, hi] (clamped to the band) on one
 * side now, so later operations there never allocate.  0, BOOK_EARG,
 * BOOK_EBAND (no overlap with the band) or BOOK_ENOMEM. */
int book_reserve(book *b, book_side side, int64_t lo, int64_t hi);
/* Bytes the book holds (slab, id table, directories, bitmaps, bound pages). */
size_t book_memory_bytes(const book *b);
/* Change self-trade prevention, fees or the callback between operations. */
void book_set_stp(book *b, book_stp stp);
void book_set_fees(book *b, int32_t maker_bps, int32_t taker_bps);
void book_set_callback(book *b, book_event_fn fn, void *ud);

/* Limit order.  tif GTC/IOC/FOK; flags 0 or BOOK_POST_ONLY (GTC only).
 * Returns 0 when accepted (whatever it then did: see the events) or a BOOK_E*
 * code with the book unchanged. */
int book_limit(book *b, uint64_t id, uint32_t owner, book_side side, int64_t price, uint32_t qty,
               book_tif tif, unsigned flags);
/* Market order: matches at any price, remainder cancelled.  0 or BOOK_E*. */
int book_market(book *b, uint64_t id, uint32_t owner, book_side side, uint32_t qty);
/* Cancel a resting order.  0 or BOOK_EUNKNOWN. */
int book_cancel(book *b, uint64_t id);
/* Set a resting order's open quantity: lower keeps its queue place, higher
 * moves it to the back of its level, equal does nothing.  0, BOOK_EQTY (0) or
 * BOOK_EUNKNOWN. */
int book_modify(book *b, uint64_t id, uint32_t new_qty);

/* Replace a resting order's price and quantity: it loses its queue place.
 * Checks (unknown id -> zero qty -> band -> tick) run first and leave the
 * book unchanged; then the order is cancelled (CANCELLED, reason
 * BOOK_CXL_REPLACE) and re-entered as a GTC limit with the same id, owner and
 * side, which may trade if the new price crosses.  0 or BOOK_E*. */
int book_replace(book *b, uint64_t id, int64_t new_price, uint32_t new_qty);

/* Feed-building operations (ITCH replay): the book mirrors another venue's,
 * so nothing matches.  book_add_resting checks like a GTC limit (no post-only
 * check) and rests the order; book_reduce takes `by` off the open quantity
 * keeping its place and removes it when nothing is left.  book_reduce returns
 * the open quantity left (>= 0) or BOOK_EUNKNOWN / BOOK_EQTY (by == 0). */
int book_add_resting(book *b, uint64_t id, uint32_t owner, book_side side, int64_t price,
                     uint32_t qty);
int64_t book_reduce(book *b, uint64_t id, uint32_t by);
/* Execution of a resting order against a counterparty outside the book (a
 * feed's fill, the replay's E op): TRADE (maker_id = id, id 0, owner 0, the
 * order's price, qty), then DONE if nothing is left, then LEVEL; the order
 * keeps its place otherwise.  Returns the open quantity left (>= 0),
 * BOOK_EUNKNOWN, BOOK_EQTY (qty 0) or BOOK_EEXCESS (more than is open; the
 * book is unchanged). */
int64_t book_execute(book *b, uint64_t id, uint32_t qty);

/* Mass cancel.  Orders matching every given criterion are cancelled, bids
 * first then asks, best price first, FIFO within a level.  */
typedef struct book_filter {
    int side;     /* BOOK_BUY, BOOK_SELL, or -1 for both */
    int by_owner; /* 1: only orders of `owner` */
    uint32_t owner;
    int by_price; /* 1: only prices in [price_lo, price_hi] */
    int64_t price_lo, price_hi;
} book_filter;
/* Helpers for the common filters. */
book_filter book_filter_all(void);
book_filter book_filter_side(book_side side);
book_filter book_filter_owner(uint32_t owner);
book_filter book_filter_range(int64_t lo, int64_t hi);
/* Returns the number cancelled (>= 0; the first `cap` ids go to ids, which
 * may be NULL) or BOOK_EARG.  Cost: it walks the selected side(s) level by
 * level and, within the price range, every order (an owner filter has no
 * index of its own), so O(levels + orders visited); no allocation. */
int64_t book_mass_cancel(book *b, const book_filter *f, uint64_t *ids, size_t cap);

/* Aggregated levels, best first. */
typedef struct book_level_view {
    int64_t price;
    uint64_t qty;
    uint32_t count;
} book_level_view;
/* Copy up to depth levels per side (depth 0 = all; the arrays must then hold
 * book_level_count()).  Sets *nbids, *nasks.  Either array may be NULL. */
void book_snapshot(const book *b, size_t depth, book_level_view *bids, size_t *nbids,
                   book_level_view *asks, size_t *nasks);

/* A snapshot with its integrity data.  The caller provides the arrays
 * (bids/asks with room for `depth` entries each, or book_level_count() when
 * depth is 0).  crc32 covers a canonical little-endian encoding of depth
 * (u64), nbids (u64), nasks (u64) and the levels (price i64, qty u64, count
 * u32 for each bid then each ask), not the sequence, so it changes iff the
 * visible levels change. */
typedef struct book_package {
    uint64_t seq;
    uint32_t crc32;
    size_t depth, nbids, nasks;
    book_level_view *bids, *asks;
} book_package;
int book_snapshot_package(const book *b, size_t depth, book_package *pkg);

/* Queries. */
int book_best(const book *b, book_side side, int64_t *price, uint64_t *qty); /* 0 or BOOK_EEMPTY */
/* A book whose resting orders would trade with each other (only resting
 * adds, book_add_resting, can make one): 2 crossed (best bid above best
 * ask), 1 locked (equal), 0 neither or a side empty (NULL too). */
int book_crossed(const book *b);
uint32_t book_order_count(const book *b);               /* resting orders */
size_t book_level_count(const book *b, book_side side); /* non-empty levels */
uint64_t book_seq(const book *b);
/* Looks a resting order up: 0 and the fields, or BOOK_EUNKNOWN. */
int book_lookup(const book *b, uint64_t id, uint32_t *owner, book_side *side, int64_t *price,
                uint32_t *qty);
/* Visit one side's levels from best, calling fn for every order (FIFO order). */
typedef void (*book_order_fn)(uint64_t id, uint32_t owner, int64_t price, uint32_t qty, void *ud);
void book_walk(const book *b, book_side side, book_order_fn fn, void *ud);

/* A sentence for a BOOK_E* code (other codes go to lat_strerror). */
const char *book_strerror(int err);
/* A short token for replay output: "zero_qty", "out_of_band", ... */
const char *book_reason(int err);

#endif /* LATLAB_BOOK_H */
