/* test_book.c - the matching engine against a small, obviously-correct
 * reference book, plus each operation's edge cases and a no-allocation check.
 *
 * The reference keeps each side as one array sorted by (price, arrival stamp)
 * and does everything by linear scans and memmove: no bitmaps, no hash, no
 * links.  Both books receive the same random operations (every op kind,
 * several owners, every self-trade mode, narrow and wide bands, bad inputs);
 * their event streams must be identical op by op, and their snapshots, order
 * queues and checksums identical at checkpoints. */
#include "lat_test.h"

#include "book.h"
#include "latlab/alloc.h"

#include <errno.h>

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ---- event capture -------------------------------------------------------- */

#define EVMAX 8192
typedef struct evbuf {
    book_event ev[EVMAX];
    size_t n;
} evbuf;

static void capture(const book_event *ev, void *ud) {
    evbuf *b = ud;
    if (b->n < EVMAX) b->ev[b->n] = *ev;
    b->n++;
}

static book_event mkev(book_event_type t) {
    book_event e;
    memset(&e, 0, sizeof e);
    e.type = t;
    return e;
}

static int ev_equal(const book_event *a, const book_event *b) {
    return a->type == b->type && a->side == b->side && a->reason == b->reason &&
           a->owner == b->owner && a->id == b->id && a->maker_id == b->maker_id &&
           a->price == b->price && a->qty == b->qty && a->count == b->count &&
           a->maker_fee_e4 == b->maker_fee_e4 && a->taker_fee_e4 == b->taker_fee_e4 &&
           a->seq == b->seq;
}

static void ev_print(const char *who, const book_event *e) {
    printf("  %s: type=%d side=%d reason=%d owner=%u id=%llu maker=%llu px=%lld qty=%llu "
           "count=%u fees=%lld/%lld seq=%llu\n",
           who, e->type, e->side, e->reason, e->owner, (unsigned long long)e->id,
           (unsigned long long)e->maker_id, (long long)e->price, (unsigned long long)e->qty,
           e->count, (long long)e->maker_fee_e4, (long long)e->taker_fee_e4,
           (unsigned long long)e->seq);
}

/* ---- the reference book ---------------------------------------------------------- */

typedef struct rord {
    uint64_t id;
    uint32_t owner, qty;
    int64_t price;
    uint64_t stamp;
} rord;

#define RMAX 4096
typedef struct ref {
    rord side[2][RMAX]; /* [0] bids: price desc, stamp asc; [1] asks: price asc, stamp asc */
    size_t n[2];
    uint64_t stamp, seq;
    int64_t lo, hi, tick;
    uint32_t cap;
    book_stp stp;
    int32_t mbps, tbps;
    evbuf out;
} ref;

static void r_emit(ref *r, book_event e) {
    e.seq = r->seq;
    capture(&e, &r->out);
}

static int r_better(int side, const rord *a, const rord *b) { /* a before b? */
    if (a->price != b->price) return side == 0 ? a->price > b->price : a->price < b->price;
    return a->stamp < b->stamp;
}

static void r_insert(ref *r, int side, rord o) {
    size_t i = 0;
    while (i < r->n[side] && r_better(side, &r->side[side][i], &o))
        i++;
    memmove(&r->side[side][i + 1], &r->side[side][i], (r->n[side] - i) * sizeof(rord));
    r->side[side][i] = o;
    r->n[side]++;
}

static void r_erase(ref *r, int side, size_t i) {
    memmove(&r->side[side][i], &r->side[side][i + 1], (r->n[side] - i - 1) * sizeof(rord));
    r->n[side]--;
}

static int r_find(const ref *r, uint64_t id, int *side, size_t *idx) {
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < r->n[s]; i++)
            if (r->side[s][i].id == id) {
                *side = s;
                *idx = i;
                return 1;
            }
    return 0;
}

static void r_level_event(ref *r, int side, int64_t price) {
    book_event e = mkev(BOOK_EV_LEVEL);
    e.side = (book_side)side;
    e.price = price;
    for (size_t i = 0; i < r->n[side]; i++)
        if (r->side[side][i].price == price) {
            e.qty += r->side[side][i].qty;
            e.count++;
        }
    r->seq++;
    r_emit(r, e);
}

static int r_reject(ref *r, int err, uint64_t id, uint32_t owner, int side) {
    book_event e = mkev(BOOK_EV_REJECTED);
    e.reason = err;
    e.id = id;
    e.owner = owner;
    e.side = (book_side)side;
    r_emit(r, e);
    return err;
}

static size_t r_count(const ref *r) {
    return r->n[0] + r->n[1];
}

static int r_crosses(int side, int64_t opp_price, int64_t limit, int market) {
    if (market) return 1;
    return side == 0 ? opp_price <= limit : opp_price >= limit;
}

static void r_cancel_at(ref *r, int side, size_t i, int reason) {
    rord o = r->side[side][i];
    r_erase(r, side, i);
    book_event e = mkev(BOOK_EV_CANCELLED);
    e.side = (book_side)side;
    e.id = o.id;
    e.owner = o.owner;
    e.reason = reason;
    e.price = o.price;
    e.qty = o.qty;
    r_emit(r, e);
    r_level_event(r, side, o.price);
}

static int r_order(ref *r, uint64_t id, uint32_t owner, int side, int64_t price, uint32_t qty,
                   int tif, unsigned flags, int market) {
    if (side < 0 || side > 1 ||
        (!market && (tif < 0 || tif > 2 || (flags & ~1u) || ((flags & 1u) && tif != BOOK_GTC))))
        return r_reject(r, BOOK_EARG, id, owner, side);
    if (qty == 0) return r_reject(r, BOOK_EQTY, id, owner, side);
    if (!market) {
        if (price < r->lo || price > r->hi) return r_reject(r, BOOK_EBAND, id, owner, side);
        if ((price - r->lo) % r->tick) return r_reject(r, BOOK_ETICK, id, owner, side);
    }
    int s0;
    size_t i0;
    if (r_find(r, id, &s0, &i0)) return r_reject(r, BOOK_EDUP, id, owner, side);
    if (!market && tif == BOOK_GTC && r_count(r) >= r->cap)
        return r_reject(r, BOOK_EFULL, id, owner, side);
    int opp = side ^ 1;
    if (!market && (flags & 1u) && r->n[opp] && r_crosses(side, r->side[opp][0].price, price, 0))
        return r_reject(r, BOOK_ECROSS, id, owner, side);

    book_event a = mkev(BOOK_EV_ACCEPTED);
    a.side = (book_side)side;
    a.id = id;
    a.owner = owner;
    a.price = market ? 0 : price;
    a.qty = qty;
    r_emit(r, a);
    if (market) tif = BOOK_IOC;

    if (tif == BOOK_FOK) {
        uint64_t avail = 0;
        for (size_t i = 0; i < r->n[opp]; i++) {
            rord *o = &r->side[opp][i];
            if (!r_crosses(side, o->price, price, market)) break;
            if (o->owner == owner && r->stp != BOOK_STP_NONE) {
                if (r->stp == BOOK_STP_CANCEL_MAKER) continue;
                break;
            }
            avail += o->qty;
        }
        if (avail < qty) {
            book_event k = mkev(BOOK_EV_CANCELLED);
            k.side = (book_side)side;
            k.id = id;
            k.owner = owner;
            k.reason = BOOK_CXL_FOK;
            k.qty = qty;
            r_emit(r, k);
            return 0;
        }
    }
    int stp_stop = 0;
    while (qty && r->n[opp] && r_crosses(side, r->side[opp][0].price, price, market)) {
        rord *o = &r->side[opp][0];
        if (o->owner == owner && r->stp != BOOK_STP_NONE) {
            if (r->stp != BOOK_STP_CANCEL_TAKER) r_cancel_at(r, opp, 0, BOOK_CXL_STP);
            if (r->stp != BOOK_STP_CANCEL_MAKER) {
                stp_stop = 1;
                break;
            }
            continue;
        }
        uint32_t q = o->qty < qty ? o->qty : qty;
        book_event t = mkev(BOOK_EV_TRADE);
        t.side = (book_side)side;
        t.owner = owner;
        t.id = id;
        t.maker_id = o->id;
        t.price = o->price;
        t.qty = q;
        t.maker_fee_e4 = o->price * (int64_t)q * r->mbps;
        t.taker_fee_e4 = o->price * (int64_t)q * r->tbps;
        r_emit(r, t);
        qty -= q;
        o->qty -= q;
        int64_t px = o->price;
        if (o->qty == 0) {
            book_event d = mkev(BOOK_EV_DONE);
            d.side = (book_side)opp;
            d.id = o->id;
            d.owner = o->owner;
            d.price = px;
            r_erase(r, opp, 0);
            r_emit(r, d);
        }
        r_level_event(r, opp, px);
    }
    if (qty == 0) {
        book_event d = mkev(BOOK_EV_DONE);
        d.side = (book_side)side;
        d.id = id;
        d.owner = owner;
        r_emit(r, d);
    } else if (stp_stop || tif != BOOK_GTC) {
        book_event k = mkev(BOOK_EV_CANCELLED);
        k.side = (book_side)side;
        k.id = id;
        k.owner = owner;
        k.reason = stp_stop ? BOOK_CXL_STP : BOOK_CXL_IOC;
        k.qty = qty;
        r_emit(r, k);
    } else {
        rord o = {id, owner, qty, price, ++r->stamp};
        r_insert(r, side, o);
        r_level_event(r, side, price);
    }
    return 0;
}

static int r_cancel(ref *r, uint64_t id) {
    int s;
    size_t i;
    if (!r_find(r, id, &s, &i)) return r_reject(r, BOOK_EUNKNOWN, id, 0, 0);
    r_cancel_at(r, s, i, BOOK_CXL_USER);
    return 0;
}

static int r_modify(ref *r, uint64_t id, uint32_t q) {
    int s;
    size_t i;
    if (!r_find(r, id, &s, &i)) return r_reject(r, BOOK_EUNKNOWN, id, 0, 0);
    rord o = r->side[s][i];
    if (q == 0) return r_reject(r, BOOK_EQTY, id, o.owner, s);
    if (q == o.qty) return 0;
    if (q < o.qty) {
        r->side[s][i].qty = q;
    } else {
        r_erase(r, s, i);
        o.qty = q;
        o.stamp = ++r->stamp;
        r_insert(r, s, o);
    }
    r_level_event(r, s, o.price);
    return 0;
}

static int r_replace(ref *r, uint64_t id, int64_t price, uint32_t q) {
    int s;
    size_t i;
    if (!r_find(r, id, &s, &i)) return r_reject(r, BOOK_EUNKNOWN, id, 0, 0);
    rord o = r->side[s][i];
    if (q == 0) return r_reject(r, BOOK_EQTY, id, o.owner, s);
    if (price < r->lo || price > r->hi) return r_reject(r, BOOK_EBAND, id, o.owner, s);
    if ((price - r->lo) % r->tick) return r_reject(r, BOOK_ETICK, id, o.owner, s);
    r_cancel_at(r, s, i, BOOK_CXL_REPLACE);
    return r_order(r, id, o.owner, s, price, q, BOOK_GTC, 0, 0);
}

static int64_t r_mass(ref *r, const book_filter *f, uint64_t *ids, size_t cap) {
    int64_t n = 0;
    for (int s = 0; s < 2; s++) {
        if (f->side != -1 && f->side != s) continue;
        size_t i = 0;
        while (i < r->n[s]) {
            rord *o = &r->side[s][i];
            int hit = (!f->by_owner || o->owner == f->owner) &&
                      (!f->by_price || (o->price >= f->price_lo && o->price <= f->price_hi));
            if (hit) {
                if ((size_t)n < cap) ids[n] = o->id;
                n++;
                r_cancel_at(r, s, i, BOOK_CXL_MASS);
            } else {
                i++;
            }
        }
    }
    return n;
}

static size_t r_levels(const ref *r, int s, size_t depth, book_level_view *out) {
    size_t n = 0;
    for (size_t i = 0; i < r->n[s]; i++) {
        if (n && out[n - 1].price == r->side[s][i].price) {
            out[n - 1].qty += r->side[s][i].qty;
            out[n - 1].count++;
            continue;
        }
        if (depth && n == depth) break;
        out[n].price = r->side[s][i].price;
        out[n].qty = r->side[s][i].qty;
        out[n].count = 1;
        n++;
    }
    return n;
}

/* The documented canonical encoding, computed independently of book.c. */
static uint32_t r_crc(size_t depth, const book_level_view *b, size_t nb, const book_level_view *a,
                      size_t na) {
    unsigned char buf[24 + 20 * 2 * RMAX];
    size_t k = 0;
    uint64_t hdr[3] = {depth, nb, na};
    for (int h = 0; h < 3; h++)
        for (int i = 0; i < 8; i++)
            buf[k++] = (unsigned char)(hdr[h] >> (8 * i));
    for (int s = 0; s < 2; s++) {
        const book_level_view *v = s ? a : b;
        size_t n = s ? na : nb;
        for (size_t j = 0; j < n; j++) {
            for (int i = 0; i < 8; i++)
                buf[k++] = (unsigned char)((uint64_t)v[j].price >> (8 * i));
            for (int i = 0; i < 8; i++)
                buf[k++] = (unsigned char)(v[j].qty >> (8 * i));
            for (int i = 0; i < 4; i++)
                buf[k++] = (unsigned char)(v[j].count >> (8 * i));
        }
    }
    return (uint32_t)crc32(crc32(0L, Z_NULL, 0), buf, (uInt)k);
}

/* ---- harness ------------------------------------------------------------------------ */

typedef struct pair {
    book *b;
    evbuf *eb;
    ref *r;
} pair;

/* 0: the book's default reserve (the existing phases); > 0: reserve only this
 * many orders and levels, so pages are bound and the slab and id table grow
 * inside operations (the sparse paths). */
static uint32_t g_reserve;

static void pair_init(pair *p, int64_t lo, int64_t hi, int64_t tick, uint32_t cap) {
    p->eb = calloc(1, sizeof(evbuf));
    p->r = calloc(1, sizeof(ref));
    assert_non_null(p->eb);
    assert_non_null(p->r);
    book_config cfg = {.price_lo = lo,
                       .price_hi = hi,
                       .tick = tick,
                       .max_orders = cap,
                       .reserve_orders = g_reserve,
                       .reserve_levels = g_reserve,
                       .on_event = capture,
                       .ud = p->eb};
    assert_int_equal(book_create(&cfg, &p->b), 0);
    p->r->lo = lo;
    p->r->hi = hi;
    p->r->tick = tick;
    p->r->cap = cap;
}

static void pair_free(pair *p) {
    book_destroy(p->b);
    free(p->eb);
    free(p->r);
}

static void set_stp(pair *p, book_stp m) {
    book_set_stp(p->b, m);
    p->r->stp = m;
}

static void set_fees(pair *p, int32_t m, int32_t t) {
    book_set_fees(p->b, m, t);
    p->r->mbps = m;
    p->r->tbps = t;
}

/* Compare the events of the last op; clear both buffers. */
static uint64_t g_evcount[8], g_resting_sum;

static void check_events(pair *p, uint64_t opno, const char *what) {
    for (size_t i = 0; i < p->eb->n && i < EVMAX; i++)
        g_evcount[p->eb->ev[i].type & 7]++;
    g_resting_sum += r_count(p->r);
    int ok = p->eb->n == p->r->out.n && p->eb->n <= EVMAX;
    for (size_t i = 0; ok && i < p->eb->n; i++)
        ok = ev_equal(&p->eb->ev[i], &p->r->out.ev[i]);
    if (!ok) {
        printf("event mismatch at op %llu (%s): engine %zu events, reference %zu\n",
               (unsigned long long)opno, what, p->eb->n, p->r->out.n);
        for (size_t i = 0; i < p->eb->n && i < EVMAX; i++)
            ev_print("engine", &p->eb->ev[i]);
        for (size_t i = 0; i < p->r->out.n && i < EVMAX; i++)
            ev_print("ref   ", &p->r->out.ev[i]);
        fail();
    }
    p->eb->n = 0;
    p->r->out.n = 0;
}

typedef struct walkbuf {
    rord o[RMAX];
    size_t n;
} walkbuf;
static void walk_cb(uint64_t id, uint32_t owner, int64_t price, uint32_t qty, void *ud) {
    walkbuf *w = ud;
    if (w->n < RMAX) {
        w->o[w->n].id = id;
        w->o[w->n].owner = owner;
        w->o[w->n].price = price;
        w->o[w->n].qty = qty;
    }
    w->n++;
}

static walkbuf g_walk;
static book_level_view g_lv[4][RMAX];

static void check_state(pair *p, uint64_t opno, size_t depth) {
    size_t nb, na;
    book_package pkg = {.bids = g_lv[0], .asks = g_lv[1]};
    assert_int_equal(book_snapshot_package(p->b, depth, &pkg), 0);
    nb = r_levels(p->r, 0, depth, g_lv[2]);
    na = r_levels(p->r, 1, depth, g_lv[3]);
    int ok = pkg.nbids == nb && pkg.nasks == na;
    for (size_t i = 0; ok && i < nb; i++)
        ok = g_lv[0][i].price == g_lv[2][i].price && g_lv[0][i].qty == g_lv[2][i].qty &&
             g_lv[0][i].count == g_lv[2][i].count;
    for (size_t i = 0; ok && i < na; i++)
        ok = g_lv[1][i].price == g_lv[3][i].price && g_lv[1][i].qty == g_lv[3][i].qty &&
             g_lv[1][i].count == g_lv[3][i].count;
    if (!ok) printf("snapshot mismatch at op %llu\n", (unsigned long long)opno);
    assert_true(ok);
    assert_int_equal(pkg.crc32, r_crc(depth, g_lv[2], nb, g_lv[3], na));
    assert_int_equal(pkg.seq, p->r->seq);
    assert_int_equal(book_order_count(p->b), r_count(p->r));
    /* order queues, FIFO within level */
    for (int s = 0; s < 2; s++) {
        g_walk.n = 0;
        book_walk(p->b, (book_side)s, walk_cb, &g_walk);
        assert_int_equal(g_walk.n, p->r->n[s]);
        for (size_t i = 0; i < g_walk.n; i++) {
            assert_int_equal(g_walk.o[i].id, p->r->side[s][i].id);
            assert_int_equal(g_walk.o[i].qty, p->r->side[s][i].qty);
            assert_int_equal(g_walk.o[i].owner, p->r->side[s][i].owner);
            assert_true(g_walk.o[i].price == p->r->side[s][i].price);
        }
        size_t full = r_levels(p->r, s, 0, g_lv[2]);
        assert_int_equal(book_level_count(p->b, (book_side)s), full);
        int64_t bp;
        uint64_t bq;
        if (p->r->n[s]) {
            assert_int_equal(book_best(p->b, (book_side)s, &bp, &bq), 0);
            assert_true(bp == g_lv[2][0].price && bq == g_lv[2][0].qty);
        } else {
            assert_int_equal(book_best(p->b, (book_side)s, &bp, &bq), BOOK_EEMPTY);
        }
    }
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static uint64_t rn(uint64_t n) {
    return rnd() % n;
}

/* A random live id from the reference (0 if empty). */
static uint64_t live_id(const ref *r) {
    size_t n = r_count(r);
    if (!n) return 0;
    size_t k = rn(n);
    return k < r->n[0] ? r->side[0][k].id : r->side[1][k - r->n[0]].id;
}

typedef struct phase {
    const char *name;
    int64_t lo, hi, tick, mid, spread; /* prices drawn in mid +- spread ticks */
    uint32_t cap;
    uint64_t ops;
} phase;

/* One random operation's order fields, drawn in a fixed order (the random
 * stream, hence every phase, is the same on every run). */
typedef struct rand_order {
    uint64_t id;
    uint32_t owner, qty;
    int side;
    int64_t price;
} rand_order;

static rand_order draw_order(const phase *ph, const pair *p, uint64_t *next_id) {
    rand_order o;
    o.owner = 1 + (uint32_t)rn(4);
    o.side = (int)rn(2);
    /* mostly passive (buys below the mid, sells above) so the book has depth;
     * the rest lands anywhere in the window and may cross */
    int64_t off = rn(4) ? 1 + (int64_t)rn((uint64_t)ph->spread)
                        : (int64_t)rn((uint64_t)(2 * ph->spread + 1)) - ph->spread;
    o.price = ph->mid + (o.side == BOOK_BUY ? -off : off) * ph->tick;
    o.qty = 1 + (uint32_t)rn(rn(8) == 0 ? 500 : 50);
    o.id = (*next_id)++;
    if (rn(50) == 0 && r_count(p->r))
        o.id = live_id(p->r); /* duplicate */
    else if (rn(50) == 0)
        o.id = 1 + rn(*next_id); /* maybe reused */
    return o;
}

/* The same limit order to the book and to the reference: same result. */
static void same_limit(pair *p, const rand_order *o, int tif, unsigned flags) {
    int a = book_limit(p->b, o->id, o->owner, (book_side)o->side, o->price, o->qty, (book_tif)tif,
                       flags);
    int c = r_order(p->r, o->id, o->owner, o->side, o->price, o->qty, tif, flags, 0);
    assert_int_equal(a, c);
}

/* k < 660: a new order (GTC, IOC, FOK, post-only or market).  Its name. */
static const char *new_order_op(pair *p, const phase *ph, uint64_t k, rand_order *o) {
    if (k < 420) {
        if (rn(100) == 0) o->price += 1 + (int64_t)rn((uint64_t)ph->tick); /* off tick / band */
        if (rn(200) == 0) o->price = rn(2) ? ph->lo - ph->tick : ph->hi + ph->tick;
        if (rn(200) == 0) o->qty = 0;
        same_limit(p, o, BOOK_GTC, 0);
        return "GTC";
    }
    if (k < 500) {
        same_limit(p, o, BOOK_IOC, 0);
        return "IOC";
    }
    if (k < 560) {
        same_limit(p, o, BOOK_FOK, 0);
        return "FOK";
    }
    if (k < 620) {
        int tif = rn(50) == 0 ? BOOK_IOC : BOOK_GTC; /* post-only IOC is a bad argument */
        same_limit(p, o, tif, BOOK_POST_ONLY);
        return "POST";
    }
    if (rn(100) == 0) o->qty = 0;
    int a = book_market(p->b, o->id, o->owner, (book_side)o->side, o->qty);
    int c = r_order(p->r, o->id, o->owner, o->side, 0, o->qty, BOOK_IOC, 0, 1);
    assert_int_equal(a, c);
    return "market";
}

/* 660 <= k < 990: cancel, replace or modify a live (mostly) order.  Its name. */
static const char *edit_op(pair *p, const phase *ph, uint64_t k, uint64_t next_id, int64_t price) {
    uint64_t id = rn(10) ? live_id(p->r) : 1 + rn(next_id);
    if (k < 820) {
        assert_int_equal(book_cancel(p->b, id), r_cancel(p->r, id));
        return "cancel";
    }
    uint32_t q = (uint32_t)rn(60);
    if (k < 900) {
        if (rn(50) == 0) price += 1 + (int64_t)rn((uint64_t)ph->tick);
        assert_int_equal(book_replace(p->b, id, price, q), r_replace(p->r, id, price, q));
        return "replace";
    }
    assert_int_equal(book_modify(p->b, id, q), r_modify(p->r, id, q));
    return "modify";
}

/* A bad side, then a bad time in force: both refused alike. */
static void bad_arg_op(pair *p, const rand_order *o) {
    int bad = 2 + (int)rn(3);
    int a = book_limit(p->b, o->id, o->owner, (book_side)bad, o->price, o->qty, BOOK_GTC, 0);
    int c = r_order(p->r, o->id, o->owner, bad, o->price, o->qty, BOOK_GTC, 0, 0);
    assert_int_equal(a, c);
    a = book_limit(p->b, o->id, o->owner, (book_side)o->side, o->price, o->qty,
                   (book_tif)(3 + rn(3)), 0);
    c = r_order(p->r, o->id, o->owner, o->side, o->price, o->qty, 3, 0, 0);
    assert_int_equal(a, c);
}

/* A mass cancel with a random filter: the same orders go, in the same order. */
static void mass_op(pair *p, const phase *ph, const rand_order *o) {
    static uint64_t ids_a[RMAX], ids_b[RMAX];
    book_filter f;
    switch (rn(8)) {
    case 0:
        f = book_filter_all();
        break;
    case 1:
    case 2:
        f = book_filter_side((book_side)o->side);
        break;
    case 3:
    case 4:
    case 5:
        f = book_filter_owner(o->owner);
        break;
    default: {
        int64_t a = o->price, b = ph->mid + ((int64_t)rn(9) - 4) * ph->tick;
        f = a <= b ? book_filter_range(a, b) : book_filter_range(b, a);
        if (rn(2)) f.side = o->side;
        if (rn(3) == 0) {
            f.by_owner = 1;
            f.owner = o->owner;
        }
    }
    }
    int64_t a = book_mass_cancel(p->b, &f, ids_a, RMAX);
    int64_t c = r_mass(p->r, &f, ids_b, RMAX);
    assert_int_equal(a, c);
    assert_memory_equal(ids_a, ids_b, (size_t)(a < RMAX ? a : RMAX) * sizeof(uint64_t));
}

static void print_phase(const phase *ph) {
    printf("phase '%s': %llu ops; events: %llu accepted, %llu rejected, %llu trades, %llu "
           "cancelled, %llu done, %llu level; mean resting orders %.1f\n",
           ph->name, (unsigned long long)ph->ops, (unsigned long long)g_evcount[1],
           (unsigned long long)g_evcount[2], (unsigned long long)g_evcount[3],
           (unsigned long long)g_evcount[4], (unsigned long long)g_evcount[5],
           (unsigned long long)g_evcount[6], (double)g_resting_sum / (double)ph->ops);
    memset(g_evcount, 0, sizeof g_evcount);
    g_resting_sum = 0;
}

static uint64_t run_phase(const phase *ph) {
    pair p;
    pair_init(&p, ph->lo, ph->hi, ph->tick, ph->cap);
    uint64_t next_id = 1, checks = 0;
    for (uint64_t op = 0; op < ph->ops; op++) {
        if (rn(5000) == 0) set_stp(&p, (book_stp)rn(4));
        if (rn(20000) == 0) set_fees(&p, (int32_t)rn(11) - 5, (int32_t)rn(21) - 3);
        uint64_t k = rn(1000);
        rand_order o = draw_order(ph, &p, &next_id);
        const char *what;
        if (k < 660) {
            what = new_order_op(&p, ph, k, &o);
        } else if (k < 990) {
            what = edit_op(&p, ph, k, next_id, o.price);
        } else if (k < 993) {
            what = "bad arg";
            bad_arg_op(&p, &o);
        } else {
            what = "mass";
            mass_op(&p, ph, &o);
        }
        check_events(&p, op, what);
        if (op % 997 == 0 || k >= 993) {
            check_state(&p, op, rn(3) ? 0 : 1 + rn(5));
            checks++;
        }
    }
    check_state(&p, ph->ops, 0);
    print_phase(ph);
    pair_free(&p);
    return checks;
}

static void test_differential(void **state) {
    (void)state;
#ifdef LAT_SANITIZED
    const uint64_t total = 200000;
#else
    const uint64_t total = 1000000;
#endif
    const phase phases[] = {
        {"narrow band, tick 1", 100, 130, 1, 115, 8, 3000, total * 3 / 10},
        {"wide band, tick 5", 5, 65535, 5, 32770, 40, 3000, total * 3 / 10},
        {"band edge, tight capacity", 1, 40, 1, 6, 6, 48, total * 2 / 10},
        {"wide spread, tick 1", 1, 65535, 1, 32768, 2000, 3000, total * 2 / 10},
    };
    uint64_t ops = 0, checks = 0;
    for (size_t i = 0; i < sizeof phases / sizeof phases[0]; i++) {
        checks += run_phase(&phases[i]);
        ops += phases[i].ops;
    }
    printf("differential: %llu random ops (N = %llu%s), %llu state checkpoints, all equal\n",
           (unsigned long long)ops, (unsigned long long)total,
#ifdef LAT_SANITIZED
           ", scaled down under sanitizers",
#else
           "",
#endif
           (unsigned long long)checks);
}

static uint32_t crc_now(book *b);

/* The same random flow through the sparse level store: a reserve of one
 * order and one level, so every page is bound on first use, chunks are added
 * and the slab and id table double inside operations; bands up to the 2^28
 * limit with prices far apart (the upper bitmap levels are scanned), a
 * negative band, and a tight band edge. */
static void test_differential_sparse(void **state) {
    (void)state;
#ifdef LAT_SANITIZED
    const uint64_t total = 100000;
#else
    const uint64_t total = 400000;
#endif
    const int64_t big = (int64_t)BOOK_MAX_LEVELS - 1;
    const phase phases[] = {
        {"2^28 band, sparse, tick 1", 1, big + 1, 1, big / 2, 6000, 3000, total * 3 / 10},
        {"2^28 band, tick 100, very wide", 100, 100 * (big + 1), 100, 100 * (big / 2), 900000, 3000,
         total * 3 / 10},
        {"negative band", -(1ll << 40), -(1ll << 40) + 4 * 65536, 4, -(1ll << 40) + 2 * 65536, 700,
         3000, total * 2 / 10},
        {"band edge, tight capacity", 1, 40, 1, 6, 6, 48, total * 2 / 10},
    };
    g_reserve = 1;
    uint64_t checks = 0;
    for (size_t i = 0; i < sizeof phases / sizeof phases[0]; i++)
        checks += run_phase(&phases[i]);
    g_reserve = 0;
    printf("differential (sparse store): %llu state checkpoints, all equal\n",
           (unsigned long long)checks);
}

/* Memory follows the levels used, not the band: a 2^28-level band holds a
 * few MB of directory and bitmaps; two orders 2^27 levels apart add two pages. */
static void test_sparse_memory(void **state) {
    (void)state;
    book_config cfg = {.price_lo = 1,
                       .price_hi = BOOK_MAX_LEVELS,
                       .tick = 1,
                       .max_orders = 1000000,
                       .reserve_orders = 1024,
                       .reserve_levels = 256};
    book *b;
    assert_int_equal(book_create(&cfg, &b), 0);
    size_t m0 = book_memory_bytes(b);
    assert_true(m0 < (24u << 20));
    assert_int_equal(book_limit(b, 1, 1, BOOK_SELL, BOOK_MAX_LEVELS, 5, BOOK_GTC, 0), 0);
    assert_int_equal(book_limit(b, 2, 1, BOOK_BUY, 1, 5, BOOK_GTC, 0), 0);
    assert_int_equal(book_limit(b, 3, 1, BOOK_BUY, BOOK_MAX_LEVELS / 2, 5, BOOK_GTC, 0), 0);
    size_t m1 = book_memory_bytes(b);
    assert_true(m1 - m0 < 3 * 8192);
    int64_t px;
    assert_int_equal(book_best(b, BOOK_BUY, &px, NULL), 0);
    assert_int_equal(px, BOOK_MAX_LEVELS / 2);
    assert_int_equal(book_cancel(b, 3), 0);
    assert_int_equal(book_best(b, BOOK_BUY, &px, NULL), 0);
    assert_int_equal(px, 1); /* found across 2^27 empty levels */
    book_reset(b);
    assert_int_equal(book_memory_bytes(b), m1); /* pages kept */
    book_destroy(b);
    /* one past the limit is refused; the limit itself is fine */
    cfg.price_hi = BOOK_MAX_LEVELS + 1;
    assert_int_equal(book_create(&cfg, &b), -EINVAL);
}

/* Extreme bands: the span is computed without signed overflow (issue 19: a
 * band of INT64_MIN:INT64_MAX crashed); prices at the int64 limits work. */
static void test_band_extremes(void **state) {
    (void)state;
    book *b;
    book_config cfg = {.price_lo = INT64_MIN, .price_hi = INT64_MAX, .tick = 1, .max_orders = 8};
    assert_int_equal(book_create(&cfg, &b), -EINVAL);
    cfg.tick = INT64_MAX; /* 3 levels: MIN, -1, MAX - 1 */
    assert_int_equal(book_create(&cfg, &b), 0);
    assert_int_equal(book_limit(b, 1, 1, BOOK_SELL, INT64_MAX, 1, BOOK_GTC, 0), BOOK_ETICK);
    assert_int_equal(book_limit(b, 1, 1, BOOK_SELL, INT64_MAX - 1, 1, BOOK_GTC, 0), 0);
    assert_int_equal(book_limit(b, 2, 1, BOOK_BUY, INT64_MIN, 1, BOOK_GTC, 0), 0);
    int64_t px;
    assert_int_equal(book_best(b, BOOK_SELL, &px, NULL), 0);
    assert_true(px == INT64_MAX - 1);
    book_destroy(b);
    cfg = (book_config){
        .price_lo = INT64_MAX - 1000, .price_hi = INT64_MAX, .tick = 1, .max_orders = 8};
    assert_int_equal(book_create(&cfg, &b), 0);
    book_set_fees(b, 5, 5); /* fee products wrap instead of overflowing */
    assert_int_equal(book_limit(b, 1, 1, BOOK_SELL, INT64_MAX, 3, BOOK_GTC, 0), 0);
    assert_int_equal(book_market(b, 2, 2, BOOK_BUY, 2), 0);
    assert_int_equal(book_best(b, BOOK_SELL, &px, NULL), 0);
    assert_true(px == INT64_MAX);
    book_destroy(b);
}

/* book_execute: a trade against an outside taker, DONE at zero; over-execution
 * and zero are rejected with the book unchanged. */
static void test_execute(void **state) {
    (void)state;
    pair p;
    pair_init(&p, 1, 1000, 1, 64);
    assert_int_equal(book_limit(p.b, 1, 7, BOOK_SELL, 100, 5, BOOK_GTC, 0), 0);
    p.eb->n = 0;
    assert_int_equal(book_execute(p.b, 1, 2), 3);
    assert_int_equal(p.eb->n, 2);
    assert_int_equal(p.eb->ev[0].type, BOOK_EV_TRADE);
    assert_int_equal(p.eb->ev[0].maker_id, 1);
    assert_int_equal(p.eb->ev[0].id, 0);
    assert_int_equal(p.eb->ev[0].price, 100);
    assert_int_equal(p.eb->ev[0].qty, 2);
    assert_int_equal(p.eb->ev[1].type, BOOK_EV_LEVEL);
    uint32_t c0 = crc_now(p.b);
    assert_int_equal(book_execute(p.b, 1, 4), BOOK_EEXCESS);
    assert_int_equal(book_execute(p.b, 1, 0), BOOK_EQTY);
    assert_int_equal(book_execute(p.b, 9, 1), BOOK_EUNKNOWN);
    assert_int_equal(crc_now(p.b), c0);
    p.eb->n = 0;
    assert_int_equal(book_execute(p.b, 1, 3), 0);
    assert_int_equal(p.eb->ev[0].type, BOOK_EV_TRADE);
    assert_int_equal(p.eb->ev[1].type, BOOK_EV_DONE);
    assert_int_equal(p.eb->ev[2].type, BOOK_EV_LEVEL);
    assert_int_equal(book_order_count(p.b), 0);
    pair_free(&p);
}

/* Growth that fails (allocator refuses) rejects with BOOK_ENOMEM and leaves
 * the book as it was. */
static int g_fail_allocs;
static void *failing_alloc(size_t size, size_t align, void *ud) {
    (void)ud;
    if (g_fail_allocs) return NULL;
    void *p = NULL;
    return posix_memalign(&p, align, size) ? NULL : p;
}
static void plain_free(void *p, void *ud) {
    (void)ud;
    free(p);
}
static void test_growth_enomem(void **state) {
    (void)state;
    lat_alloc_hooks hooks = {.alloc = failing_alloc, .free = plain_free};
    lat_set_alloc_hooks(&hooks);
    book_config cfg = {.price_lo = 1,
                       .price_hi = 1 << 24,
                       .tick = 1,
                       .max_orders = 1000,
                       .reserve_orders = 2,
                       .reserve_levels = 1};
    book *b;
    assert_int_equal(book_create(&cfg, &b), 0);
    /* the reserve: one page per side, two slots */
    assert_int_equal(book_limit(b, 1, 1, BOOK_SELL, 100, 5, BOOK_GTC, 0), 0);
    assert_int_equal(book_limit(b, 2, 1, BOOK_SELL, 101, 5, BOOK_GTC, 0), 0);
    g_fail_allocs = 1;
    assert_int_equal(book_limit(b, 3, 1, BOOK_SELL, 102, 5, BOOK_GTC, 0), BOOK_ENOMEM);
    assert_int_equal(book_order_count(b), 2);
    /* an IOC needs no slot, so it still trades */
    assert_int_equal(book_limit(b, 4, 2, BOOK_BUY, 100, 1, BOOK_IOC, 0), 0);
    g_fail_allocs = 0;
    assert_int_equal(book_limit(b, 3, 1, BOOK_SELL, 102, 5, BOOK_GTC, 0), 0);
    assert_int_equal(book_limit(b, 6, 3, BOOK_BUY, 50, 1, BOOK_GTC, 0), 0); /* last spare page */
    g_fail_allocs = 1; /* a new page far away */
    assert_int_equal(book_replace(b, 3, 9000000, 5), BOOK_ENOMEM);
    assert_int_equal(book_add_resting(b, 5, 1, BOOK_BUY, 7000000, 5), BOOK_ENOMEM);
    int64_t px;
    assert_int_equal(book_lookup(b, 3, NULL, NULL, &px, NULL), 0);
    assert_int_equal(px, 102);
    g_fail_allocs = 0;
    assert_int_equal(book_replace(b, 3, 9000000, 5), 0);
    assert_int_equal(book_reserve(b, BOOK_BUY, 5000000, 5001000), 0);
    book_destroy(b);
    lat_set_alloc_hooks(NULL);
}

/* ---- edge cases ------------------------------------------------------------------- */

static uint32_t crc_now(book *b) {
    static book_level_view bb[RMAX], aa[RMAX];
    book_package pkg = {.bids = bb, .asks = aa};
    assert_int_equal(book_snapshot_package(b, 0, &pkg), 0);
    return pkg.crc32;
}

static void test_fok_unfillable_unchanged(void **state) {
    (void)state;
    pair p;
    pair_init(&p, 1, 1000, 1, 64);
    assert_int_equal(book_limit(p.b, 1, 1, BOOK_SELL, 100, 5, BOOK_GTC, 0), 0);
    assert_int_equal(book_limit(p.b, 2, 1, BOOK_SELL, 101, 5, BOOK_GTC, 0), 0);
    uint32_t c0 = crc_now(p.b);
    uint64_t s0 = book_seq(p.b);
    p.eb->n = 0;
    assert_int_equal(book_limit(p.b, 3, 2, BOOK_BUY, 101, 11, BOOK_FOK, 0), 0);
    assert_int_equal(p.eb->n, 2); /* accepted, cancelled: no trade */
    assert_int_equal(p.eb->ev[0].type, BOOK_EV_ACCEPTED);
    assert_int_equal(p.eb->ev[1].type, BOOK_EV_CANCELLED);
    assert_int_equal(p.eb->ev[1].reason, BOOK_CXL_FOK);
    assert_int_equal(crc_now(p.b), c0);
    assert_int_equal(book_seq(p.b), s0);
    /* a price limit that excludes the second level also makes it unfillable */
    assert_int_equal(book_limit(p.b, 4, 2, BOOK_BUY, 100, 6, BOOK_FOK, 0), 0);
    assert_int_equal(crc_now(p.b), c0);
    /* exactly fillable: two trades, done */
    p.eb->n = 0;
    assert_int_equal(book_limit(p.b, 5, 2, BOOK_BUY, 101, 10, BOOK_FOK, 0), 0);
    assert_int_equal(p.eb->ev[p.eb->n - 1].type, BOOK_EV_DONE);
    assert_int_equal(book_order_count(p.b), 0);
    pair_free(&p);
}

static void test_post_only_cross_rejected(void **state) {
    (void)state;
    pair p;
    pair_init(&p, 1, 1000, 1, 64);
    assert_int_equal(book_limit(p.b, 1, 1, BOOK_SELL, 100, 5, BOOK_GTC, 0), 0);
    uint32_t c0 = crc_now(p.b);
    p.eb->n = 0;
    assert_int_equal(book_limit(p.b, 2, 2, BOOK_BUY, 100, 5, BOOK_GTC, BOOK_POST_ONLY),
                     BOOK_ECROSS);
    assert_int_equal(p.eb->n, 1);
    assert_int_equal(p.eb->ev[0].type, BOOK_EV_REJECTED);
    assert_int_equal(p.eb->ev[0].reason, BOOK_ECROSS);
    assert_int_equal(crc_now(p.b), c0);
    /* one tick away does not cross: rests */
    assert_int_equal(book_limit(p.b, 2, 2, BOOK_BUY, 99, 5, BOOK_GTC, BOOK_POST_ONLY), 0);
    assert_int_equal(book_order_count(p.b), 2);
    /* post-only with IOC is a bad argument */
    assert_int_equal(book_limit(p.b, 3, 2, BOOK_BUY, 98, 5, BOOK_IOC, BOOK_POST_ONLY), BOOK_EARG);
    pair_free(&p);
}

/* Resting adds can cross a book (nothing matches them): book_crossed says so. */
static void test_crossed_resting(void **state) {
    (void)state;
    pair p;
    pair_init(&p, 1, 1000, 1, 64);
    assert_int_equal(book_crossed(p.b), 0); /* empty */
    assert_int_equal(book_add_resting(p.b, 1, 1, BOOK_BUY, 100, 5), 0);
    assert_int_equal(book_crossed(p.b), 0); /* one side */
    assert_int_equal(book_add_resting(p.b, 2, 1, BOOK_SELL, 101, 5), 0);
    assert_int_equal(book_crossed(p.b), 0);
    assert_int_equal(book_add_resting(p.b, 3, 1, BOOK_SELL, 100, 5), 0);
    assert_int_equal(book_crossed(p.b), 1); /* locked */
    assert_int_equal(book_add_resting(p.b, 4, 1, BOOK_SELL, 99, 5), 0);
    assert_int_equal(book_crossed(p.b), 2); /* crossed */
    assert_int_equal(book_crossed(NULL), 0);
    pair_free(&p);
}

static void test_modify_priority(void **state) {
    (void)state;
    pair p;
    pair_init(&p, 1, 1000, 1, 64);
    for (uint64_t id = 1; id <= 3; id++)
        assert_int_equal(book_limit(p.b, id, (uint32_t)id, BOOK_SELL, 100, 10, BOOK_GTC, 0), 0);
    /* down keeps priority: 1 still first */
    assert_int_equal(book_modify(p.b, 1, 4), 0);
    p.eb->n = 0;
    assert_int_equal(book_market(p.b, 10, 9, BOOK_BUY, 1), 0);
    assert_int_equal(p.eb->ev[1].type, BOOK_EV_TRADE);
    assert_int_equal(p.eb->ev[1].maker_id, 1);
    /* up loses priority: 1 goes behind 3, so 2 is next */
    assert_int_equal(book_modify(p.b, 1, 20), 0);
    p.eb->n = 0;
    assert_int_equal(book_market(p.b, 11, 9, BOOK_BUY, 25), 0);
    assert_int_equal(p.eb->ev[1].maker_id, 2);
    size_t t = 0;
    uint64_t order[3] = {0};
    for (size_t i = 0; i < p.eb->n; i++)
        if (p.eb->ev[i].type == BOOK_EV_TRADE && t < 3) order[t++] = p.eb->ev[i].maker_id;
    assert_int_equal(t, 3);
    assert_int_equal(order[0], 2);
    assert_int_equal(order[1], 3);
    assert_int_equal(order[2], 1);
    /* errors */
    assert_int_equal(book_modify(p.b, 1, 0), BOOK_EQTY);
    assert_int_equal(book_modify(p.b, 999, 5), BOOK_EUNKNOWN);
    /* a price change loses priority even when it comes back to the same price */
    assert_int_equal(book_cancel(p.b, 1), 0);
    for (uint64_t id = 20; id <= 22; id++)
        assert_int_equal(book_limit(p.b, id, 5, BOOK_SELL, 200, 10, BOOK_GTC, 0), 0);
    assert_int_equal(book_replace(p.b, 20, 201, 10), 0);
    assert_int_equal(book_replace(p.b, 20, 200, 10), 0); /* now behind 21 and 22 */
    assert_int_equal(book_replace(p.b, 21, 200, 10), 0); /* same price: still to the back */
    p.eb->n = 0;
    assert_int_equal(book_market(p.b, 30, 9, BOOK_BUY, 40), 0);
    t = 0;
    for (size_t i = 0; i < p.eb->n; i++)
        if (p.eb->ev[i].type == BOOK_EV_TRADE && t < 3) order[t++] = p.eb->ev[i].maker_id;
    assert_int_equal(t, 3);
    assert_int_equal(order[0], 22);
    assert_int_equal(order[1], 20);
    assert_int_equal(order[2], 21);
    assert_int_equal(book_replace(p.b, 999, 200, 1), BOOK_EUNKNOWN);
    pair_free(&p);
}

static void test_mass_cancel_owner_only(void **state) {
    (void)state;
    pair p;
    pair_init(&p, 1, 1000, 1, 64);
    uint64_t id = 1;
    for (int i = 0; i < 6; i++) {
        assert_int_equal(
            book_limit(p.b, id, 1 + (uint32_t)(i % 3), BOOK_BUY, 90 + i, 5, BOOK_GTC, 0), 0);
        id++;
        assert_int_equal(
            book_limit(p.b, id, 1 + (uint32_t)(i % 3), BOOK_SELL, 110 + i, 5, BOOK_GTC, 0), 0);
        id++;
    }
    uint64_t ids[16];
    book_filter f = book_filter_owner(2);
    assert_int_equal(book_mass_cancel(p.b, &f, ids, 16), 4);
    for (int i = 0; i < 4; i++) {
        uint32_t owner;
        assert_int_equal(book_lookup(p.b, ids[i], &owner, NULL, NULL, NULL), BOOK_EUNKNOWN);
    }
    assert_int_equal(book_order_count(p.b), 8);
    g_walk.n = 0;
    book_walk(p.b, BOOK_BUY, walk_cb, &g_walk);
    book_walk(p.b, BOOK_SELL, walk_cb, &g_walk);
    assert_int_equal(g_walk.n, 8);
    for (size_t i = 0; i < g_walk.n; i++)
        assert_true(g_walk.o[i].owner != 2);
    f = book_filter_side(BOOK_SELL);
    assert_int_equal(book_mass_cancel(p.b, &f, NULL, 0), 4);
    f = book_filter_range(92, 94);
    assert_int_equal(book_mass_cancel(p.b, &f, NULL, 0), 2); /* 92, 93 (94 was owner 2's) */
    f = book_filter_all();
    assert_int_equal(book_mass_cancel(p.b, &f, NULL, 0), 2);
    assert_int_equal(book_order_count(p.b), 0);
    f.side = 7;
    assert_int_equal(book_mass_cancel(p.b, &f, NULL, 0), BOOK_EARG);
    pair_free(&p);
}

static void test_checksum_iff_change(void **state) {
    (void)state;
    pair p;
    pair_init(&p, 1, 1000, 1, 64);
    uint32_t c = crc_now(p.b);
    uint32_t seen[64];
    size_t nseen = 0;
    seen[nseen++] = c;
    /* changes: each new state's checksum differs from the previous one */
    assert_int_equal(book_limit(p.b, 1, 1, BOOK_BUY, 100, 5, BOOK_GTC, 0), 0);
    uint32_t c1 = crc_now(p.b);
    assert_true(c1 != c);
    assert_int_equal(book_modify(p.b, 1, 4), 0);
    uint32_t c2 = crc_now(p.b);
    assert_true(c2 != c1);
    assert_int_equal(book_limit(p.b, 2, 1, BOOK_SELL, 101, 4, BOOK_GTC, 0), 0);
    uint32_t c3 = crc_now(p.b);
    assert_true(c3 != c2);
    /* no change: rejected inputs, no-op modify, unknown cancel */
    assert_int_equal(book_limit(p.b, 3, 1, BOOK_BUY, 100, 0, BOOK_GTC, 0), BOOK_EQTY);
    assert_int_equal(book_limit(p.b, 3, 1, BOOK_BUY, 5000, 1, BOOK_GTC, 0), BOOK_EBAND);
    assert_int_equal(book_limit(p.b, 1, 1, BOOK_BUY, 100, 1, BOOK_GTC, 0), BOOK_EDUP);
    assert_int_equal(book_cancel(p.b, 77), BOOK_EUNKNOWN);
    assert_int_equal(book_modify(p.b, 1, 4), 0);
    assert_int_equal(book_limit(p.b, 3, 1, BOOK_BUY, 101, 1, BOOK_GTC, BOOK_POST_ONLY),
                     BOOK_ECROSS);
    assert_int_equal(crc_now(p.b), c3);
    /* back to an earlier state gives the earlier checksum */
    assert_int_equal(book_cancel(p.b, 2), 0);
    assert_int_equal(crc_now(p.b), c2);
    (void)seen;
    pair_free(&p);
}

static void test_distinct_errors_unchanged(void **state) {
    (void)state;
    pair p;
    pair_init(&p, 10, 100, 5, 3);
    assert_int_equal(book_limit(p.b, 1, 1, BOOK_BUY, 50, 5, BOOK_GTC, 0), 0);
    assert_int_equal(book_limit(p.b, 2, 1, BOOK_SELL, 60, 5, BOOK_GTC, 0), 0);
    uint32_t c0 = crc_now(p.b);
    uint64_t s0 = book_seq(p.b);
    int codes[8];
    codes[0] = book_limit(p.b, 3, 1, BOOK_BUY, 50, 0, BOOK_GTC, 0);              /* zero qty */
    codes[1] = book_limit(p.b, 3, 1, BOOK_BUY, 52, 5, BOOK_GTC, 0);              /* off tick */
    codes[2] = book_limit(p.b, 3, 1, BOOK_BUY, 105, 5, BOOK_GTC, 0);             /* out of band */
    codes[3] = book_limit(p.b, 1, 1, BOOK_BUY, 45, 5, BOOK_GTC, 0);              /* duplicate */
    codes[4] = book_cancel(p.b, 42);                                             /* unknown */
    codes[5] = book_limit(p.b, 3, 1, BOOK_BUY, 60, 5, BOOK_GTC, BOOK_POST_ONLY); /* crosses */
    codes[6] = book_limit(p.b, 3, 1, (book_side)5, 45, 5, BOOK_GTC, 0);          /* bad side */
    assert_int_equal(crc_now(p.b), c0);
    assert_int_equal(book_seq(p.b), s0);
    assert_int_equal(book_limit(p.b, 4, 1, BOOK_BUY, 40, 5, BOOK_GTC, 0), 0);
    c0 = crc_now(p.b);
    s0 = book_seq(p.b);
    codes[7] = book_limit(p.b, 3, 1, BOOK_BUY, 45, 5, BOOK_GTC, 0); /* full (capacity 3) */
    size_t n = sizeof codes / sizeof codes[0];
    for (size_t i = 0; i < n; i++) {
        assert_true(codes[i] < 0);
        for (size_t j = 0; j < i; j++)
            assert_true(codes[i] != codes[j]);
        assert_true(strcmp(book_reason(codes[i]), "error") != 0);
    }
    assert_int_equal(crc_now(p.b), c0);
    assert_int_equal(book_seq(p.b), s0);
    assert_int_equal(book_order_count(p.b), 3);
    /* a full book still takes IOC orders, which never rest */
    assert_int_equal(book_limit(p.b, 3, 2, BOOK_BUY, 60, 2, BOOK_IOC, 0), 0);
    pair_free(&p);
}

static void test_stp_modes(void **state) {
    (void)state;
    for (int m = 0; m < 4; m++) {
        pair p;
        pair_init(&p, 1, 1000, 1, 64);
        set_stp(&p, (book_stp)m);
        assert_int_equal(book_limit(p.b, 1, 7, BOOK_SELL, 100, 5, BOOK_GTC, 0), 0);
        assert_int_equal(book_limit(p.b, 2, 8, BOOK_SELL, 100, 5, BOOK_GTC, 0), 0);
        assert_int_equal(book_limit(p.b, 3, 7, BOOK_BUY, 100, 8, BOOK_GTC, 0), 0);
        uint32_t q;
        int has1 = book_lookup(p.b, 1, NULL, NULL, NULL, &q) == 0;
        int has3 = book_lookup(p.b, 3, NULL, NULL, NULL, NULL) == 0;
        switch (m) {
        case BOOK_STP_NONE:
            assert_false(has1);
            assert_false(has3);
            break; /* 5 + 3 traded */
        case BOOK_STP_CANCEL_TAKER:
            assert_true(has1);
            assert_false(has3);
            break;
        case BOOK_STP_CANCEL_MAKER:
            assert_false(has1);
            assert_true(has3);
            break; /* 5 from #2, 3 rest */
        case BOOK_STP_CANCEL_BOTH:
            assert_false(has1);
            assert_false(has3);
            break;
        }
        pair_free(&p);
    }
}

static void test_fees_on_trades(void **state) {
    (void)state;
    pair p;
    pair_init(&p, 1, 1000, 1, 64);
    set_fees(&p, -2, 5);
    assert_int_equal(book_limit(p.b, 1, 1, BOOK_SELL, 200, 10, BOOK_GTC, 0), 0);
    p.eb->n = 0;
    assert_int_equal(book_market(p.b, 2, 2, BOOK_BUY, 3), 0);
    assert_int_equal(p.eb->ev[1].type, BOOK_EV_TRADE);
    assert_true(p.eb->ev[1].maker_fee_e4 == -2 * 200 * 3);
    assert_true(p.eb->ev[1].taker_fee_e4 == 5 * 200 * 3);
    pair_free(&p);
}

static void noop_cb(const book_event *ev, void *ud) {
    (void)ev;
    (*(uint64_t *)ud)++;
}

static void test_no_allocation(void **state) {
    (void)state;
    if (!lat_alloc_count_available()) LAT_SKIP("counting allocator unavailable under sanitizers");
    uint64_t nev = 0;
    book_config cfg = {.price_lo = 1,
                       .price_hi = 65535,
                       .tick = 1,
                       .max_orders = 100000,
                       .on_event = noop_cb,
                       .ud = &nev};
    book *b;
    assert_int_equal(book_create(&cfg, &b), 0);
    static book_level_view bb[64], aa[64];
    book_package pkg = {.bids = bb, .asks = aa};
    lat_alloc_count_begin();
    uint64_t id = 1;
    for (int i = 0; i < 200000; i++) {
        uint64_t k = rn(10);
        int side = (int)rn(2);
        int64_t px = 30000 + (int64_t)rn(40) - 20;
        if (k < 6)
            book_limit(b, id++, (uint32_t)rn(4), (book_side)side, px, 1 + (uint32_t)rn(50),
                       BOOK_GTC, 0);
        else if (k < 8)
            book_cancel(b, id - 1 - rn(100));
        else if (k < 9)
            book_market(b, id++, (uint32_t)rn(4), (book_side)side, 1 + (uint32_t)rn(80));
        else
            book_snapshot_package(b, 10, &pkg);
    }
    book_filter f = book_filter_all();
    book_mass_cancel(b, &f, NULL, 0);
    book_reset(b);
    uint64_t allocs = lat_alloc_count_end();
    printf("200000 ops, %llu events, %llu allocations\n", (unsigned long long)nev,
           (unsigned long long)allocs);
    assert_int_equal(allocs, 0);
    book_destroy(b);
}

/* A 2^28-level band pre-sized with book_reserve(): operations inside the
 * reserved range allocate nothing, like a small band bound at creation. */
static void test_no_allocation_sparse(void **state) {
    (void)state;
    if (!lat_alloc_count_available()) LAT_SKIP("counting allocator unavailable under sanitizers");
    uint64_t nev = 0;
    const int64_t mid = 200000000;
    book_config cfg = {.price_lo = 1,
                       .price_hi = BOOK_MAX_LEVELS,
                       .tick = 1,
                       .max_orders = 100000,
                       .reserve_levels = 1,
                       .on_event = noop_cb,
                       .ud = &nev};
    book *b;
    assert_int_equal(book_create(&cfg, &b), 0);
    for (int side = 0; side < 2; side++)
        assert_int_equal(book_reserve(b, (book_side)side, mid - 5000, mid + 5000), 0);
    lat_alloc_count_begin();
    uint64_t id = 1;
    for (int i = 0; i < 100000; i++) {
        int side = (int)rn(2);
        int64_t px = mid + (int64_t)rn(8000) - 4000;
        if (rn(10) < 7)
            book_limit(b, id++, (uint32_t)rn(4), (book_side)side, px, 1 + (uint32_t)rn(50),
                       BOOK_GTC, 0);
        else
            book_cancel(b, id - 1 - rn(100));
    }
    book_reset(b);
    uint64_t allocs = lat_alloc_count_end();
    assert_int_equal(allocs, 0);
    book_destroy(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fok_unfillable_unchanged),
        cmocka_unit_test(test_post_only_cross_rejected),
        cmocka_unit_test(test_crossed_resting),
        cmocka_unit_test(test_modify_priority),
        cmocka_unit_test(test_mass_cancel_owner_only),
        cmocka_unit_test(test_checksum_iff_change),
        cmocka_unit_test(test_distinct_errors_unchanged),
        cmocka_unit_test(test_stp_modes),
        cmocka_unit_test(test_fees_on_trades),
        cmocka_unit_test(test_no_allocation),
        cmocka_unit_test(test_differential),
        cmocka_unit_test(test_differential_sparse),
        cmocka_unit_test(test_sparse_memory),
        cmocka_unit_test(test_band_extremes),
        cmocka_unit_test(test_execute),
        cmocka_unit_test(test_growth_enomem),
        cmocka_unit_test(test_no_allocation_sparse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
