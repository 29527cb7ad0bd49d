/* scenario.c - generators and the measurement loop for the seven order-book
 * scenarios of scenario.h.
 *
 * Each measured operation is prepared before the clock starts (ids, prices,
 * sizes, targets drawn from the generator's own view of the live orders),
 * timed alone, and followed by untimed bookkeeping: the generator learns which
 * orders left the book from the engine's events (the callback only notes ids
 * in a preallocated array) and refills the book where the scenario says so.
 * Nothing in the warm-up or measured windows allocates. */
#include "scenario.h"

#include "book.h"
#include "alloc_internal.h"
#include "latlab/compiler.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define NIL UINT32_MAX
#define MID 32768
#define SNAP_DEPTH 20
#define MASS_OWNERS 32

static const char *const names[BOOK_SCN_COUNT] = {
    "add_only",        "cancel_only",       "aggressive_walk",  "mixed_70_20_10",
    "thin_book_sweep", "mass_cancel_burst", "snapshot_capture",
};

static const char *const descr[BOOK_SCN_COUNT] = {
    "passive limit submits only (buys below a fixed mid, sells above): never cross",
    "cancels of live orders in a book held at depth (untimed refill)",
    "IOC limits sweeping 2..6 levels; consumed makers re-added at their prices (untimed)",
    "70% limit submits (95% passive, 5% marketable), 20% cancels of live orders, 10% market "
    "orders sized to hold the book near depth",
    "3 orders per side at the touch; IOC probes larger than the opposite side (partial fill "
    "+ remainder cancelled); untimed refill",
    "mass cancel of one of 32 owners (80%) or a 5-level price range (20%); untimed refill to "
    "depth",
    "snapshot(20) and snapshot_package(20) alternately; one untimed book change between",
};

static const char *const kind_names[BOOK_OPK_COUNT] = {
    "passive submit", "crossing submit", "cancel",           "market",
    "mass cancel",    "snapshot",        "snapshot package",
};

const char *book_scn_name(book_scn s) {
    return (unsigned)s < BOOK_SCN_COUNT ? names[s] : "?";
}
const char *book_scn_describe(book_scn s) {
    return (unsigned)s < BOOK_SCN_COUNT ? descr[s] : "?";
}
const char *book_opk_name(book_opk k) {
    return (unsigned)k < BOOK_OPK_COUNT ? kind_names[k] : "?";
}

int book_scn_from_name(const char *name) {
    for (int i = 0; i < BOOK_SCN_COUNT; i++)
        if (name && !strcmp(name, names[i])) return i;
    return -1;
}

uint32_t book_scn_default_depth(book_scn s) {
    switch (s) {
    case BOOK_SCN_ADD_ONLY:
        return 0;
    case BOOK_SCN_CANCEL_ONLY:
        return 10000;
    case BOOK_SCN_AGGRESSIVE_WALK:
        return 500;
    case BOOK_SCN_MIXED:
        return 5000;
    case BOOK_SCN_THIN_BOOK_SWEEP:
        return 6;
    case BOOK_SCN_MASS_CANCEL_BURST:
        return 2000;
    case BOOK_SCN_SNAPSHOT_CAPTURE:
        return 5000;
    default:
        return 0;
    }
}

/* ---- generator ------------------------------------------------------------------ */

typedef struct removed {
    uint64_t id;
    int64_t price;
    uint8_t side, type;
} removed;

typedef struct gen {
    book *b;
    book_scn scn;
    uint64_t rng;
    uint32_t depth;
    int64_t mid;
    uint32_t idcap;
    uint32_t *free_ids, nfree; /* id pool: ids 1..idcap, recycled */
    uint32_t *live, nlive;     /* live (resting) ids */
    uint32_t *pos;             /* pos[id]: index in live, or NIL */
    removed *rm;
    uint32_t nrm, rmcap;
    uint64_t events, trades;
    uint64_t flip;
    book_level_view lv[2][SNAP_DEPTH];
    book_level_view *all[2]; /* full-depth snapshot buffers (thin book) */
} gen;

static inline uint64_t rnd(gen *g) {
    uint64_t x = g->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return g->rng = x;
}
static inline uint64_t rn(gen *g, uint64_t n) {
    return rnd(g) % n;
}

static void on_event(const book_event *ev, void *ud) {
    gen *g = ud;
    g->events++;
    if (ev->type == BOOK_EV_TRADE) {
        g->trades++;
    } else if (ev->type == BOOK_EV_DONE || ev->type == BOOK_EV_CANCELLED) {
        if (LAT_LIKELY(g->nrm < g->rmcap)) {
            removed *r = &g->rm[g->nrm++];
            r->id = ev->id;
            r->price = ev->price;
            r->side = (uint8_t)ev->side;
            r->type = (uint8_t)ev->type;
        }
    }
}

static inline uint64_t id_alloc(gen *g) {
    return g->nfree ? g->free_ids[--g->nfree] : 0;
}
static inline void id_release(gen *g, uint64_t id) {
    g->free_ids[g->nfree++] = (uint32_t)id;
}

static inline void live_add(gen *g, uint64_t id) {
    g->pos[id] = g->nlive;
    g->live[g->nlive++] = (uint32_t)id;
}
static inline void live_remove(gen *g, uint64_t id) {
    uint32_t i = g->pos[id], last = g->live[--g->nlive];
    g->live[i] = last;
    g->pos[last] = i;
    g->pos[id] = NIL;
}

static inline int64_t passive_px(gen *g, int side) {
    uint64_t r = rnd(g);
    int64_t off = (r & 3) ? (int64_t)((r >> 2) % 32) : (int64_t)((r >> 2) % 256);
    return side == BOOK_BUY ? g->mid - 1 - off : g->mid + 1 + off;
}

/* Untimed: add a resting order (returns 0 when it rests). */
static int add_resting(gen *g, int side, uint32_t owner, int64_t px, uint32_t qty) {
    uint64_t id = id_alloc(g);
    if (!id) return -1;
    int rc = book_limit(g->b, id, owner, (book_side)side, px, qty, BOOK_GTC, 0);
    if (rc == 0 && book_lookup(g->b, id, NULL, NULL, NULL, NULL) == 0) {
        live_add(g, id);
        return 0;
    }
    id_release(g, id);
    return -1;
}

/* After an op: forget orders that left the book; settle the taker's id. */
/* After an op: forget orders that left the book; settle the taker's id (it
 * rests unless it was rejected or its own DONE/CANCELLED event came back). */
static void settle(gen *g, uint64_t taker, int rc) {
    int gone = rc != 0;
    for (uint32_t i = 0; i < g->nrm; i++) {
        uint64_t id = g->rm[i].id;
        if (id == taker) {
            gone = 1;
        } else if (id && id <= g->idcap && g->pos[id] != NIL) {
            live_remove(g, id);
            id_release(g, id);
        }
    }
    if (taker) {
        if (gone)
            id_release(g, taker);
        else
            live_add(g, taker);
    }
}

/* ---- operations ----------------------------------------------------------------------- */

enum { OP_LIMIT, OP_MARKET, OP_CANCEL, OP_MASS, OP_SNAP, OP_PACKAGE };

typedef struct op {
    int type;
    book_opk kind;
    int side;
    uint32_t owner, qty;
    uint64_t id;
    int64_t price;
    book_tif tif;
    book_filter f;
    int empty; /* met an empty book / empty opposite side */
} op;

static inline int opp_crosses(gen *g, int side, int64_t px) {
    int64_t best;
    if (book_best(g->b, (book_side)(side ^ 1), &best, NULL)) return 0;
    return side == BOOK_BUY ? best <= px : best >= px;
}

static inline int side_empty(gen *g, int side) {
    return book_best(g->b, (book_side)side, NULL, NULL) != 0;
}

static void make_limit(gen *g, op *o, int side, int64_t px, uint32_t qty, book_tif tif) {
    o->type = OP_LIMIT;
    o->side = side;
    o->price = px;
    o->qty = qty;
    o->tif = tif;
    o->owner = (uint32_t)rn(g, 8);
    o->id = id_alloc(g);
    o->kind = opp_crosses(g, side, px) ? BOOK_OPK_CROSSING : BOOK_OPK_PASSIVE;
}

static void make_cancel(gen *g, op *o) {
    o->type = OP_CANCEL;
    o->kind = BOOK_OPK_CANCEL;
    if (g->nlive) {
        o->id = g->live[rn(g, g->nlive)];
    } else {
        o->id = g->idcap + 1; /* never live: a miss, and an empty-book op */
        o->empty = 1;
    }
}

static void gen_op(gen *g, op *o) {
    memset(o, 0, sizeof *o);
    int side = (int)rn(g, 2);
    switch (g->scn) {
    case BOOK_SCN_ADD_ONLY:
        make_limit(g, o, side, passive_px(g, side), 1 + (uint32_t)rn(g, 100), BOOK_GTC);
        break;
    case BOOK_SCN_CANCEL_ONLY:
        make_cancel(g, o);
        break;
    case BOOK_SCN_AGGRESSIVE_WALK: {
        size_t n = 0;
        int opp = side ^ 1;
        book_snapshot(g->b, SNAP_DEPTH, opp ? NULL : g->lv[0], opp ? NULL : &n,
                      opp ? g->lv[1] : NULL, opp ? &n : NULL);
        if (n == 0) {
            make_limit(g, o, side, passive_px(g, opp), 1 + (uint32_t)rn(g, 100), BOOK_IOC);
            o->empty = 1;
            break;
        }
        size_t k = 2 + (size_t)rn(g, 5);
        if (k > n) k = n;
        uint64_t q = 0;
        for (size_t i = 0; i + 1 < k; i++)
            q += g->lv[opp][i].qty;
        q += 1 + rn(g, g->lv[opp][k - 1].qty);
        if (q > UINT32_MAX) q = UINT32_MAX;
        make_limit(g, o, side, g->lv[opp][k - 1].price, (uint32_t)q, BOOK_IOC);
        break;
    }
    case BOOK_SCN_MIXED: {
        uint64_t r = rn(g, 100);
        if (r < 70) {
            int64_t px = passive_px(g, side);
            int64_t best;
            if (rn(g, 100) < 5 && !book_best(g->b, (book_side)(side ^ 1), &best, NULL))
                px = side == BOOK_BUY ? best + (int64_t)rn(g, 3) : best - (int64_t)rn(g, 3);
            make_limit(g, o, side, px, 1 + (uint32_t)rn(g, 100), BOOK_GTC);
        } else if (r < 90) {
            make_cancel(g, o);
        } else {
            /* expected size 5 x mean order size x (live / depth): consumes about
             * as many orders as the submits and cancels leave, so the book
             * holds near depth */
            uint64_t m = 250ull * g->nlive / (g->depth ? g->depth : 1);
            o->type = OP_MARKET;
            o->kind = BOOK_OPK_MARKET;
            o->side = side;
            o->qty = (uint32_t)(1 + rn(g, 2 * m + 1));
            o->owner = (uint32_t)rn(g, 8);
            o->id = id_alloc(g);
            o->empty = side_empty(g, side ^ 1);
        }
        break;
    }
    case BOOK_SCN_THIN_BOOK_SWEEP: {
        int opp = side ^ 1;
        size_t n = 0;
        book_snapshot(g->b, 0, opp ? NULL : g->all[0], opp ? NULL : &n, opp ? g->all[1] : NULL,
                      opp ? &n : NULL);
        if (n == 0) {
            make_limit(g, o, side, g->mid, 1 + (uint32_t)rn(g, 20), BOOK_IOC);
            o->empty = 1;
            break;
        }
        uint64_t avail = 0;
        for (size_t i = 0; i < n; i++)
            avail += g->all[opp][i].qty;
        make_limit(g, o, side, g->all[opp][n - 1].price, (uint32_t)(avail + 1 + rn(g, 20)),
                   BOOK_IOC);
        break;
    }
    case BOOK_SCN_MASS_CANCEL_BURST:
        o->type = OP_MASS;
        o->kind = BOOK_OPK_MASS_CANCEL;
        if (rn(g, 10) < 8) {
            o->f = book_filter_owner((uint32_t)rn(g, MASS_OWNERS));
        } else {
            int64_t edge = (int64_t)rn(g, 32);
            o->f = side == BOOK_BUY ? book_filter_range(g->mid - 5 - edge, g->mid - 1 - edge)
                                    : book_filter_range(g->mid + 1 + edge, g->mid + 5 + edge);
            o->f.side = side;
        }
        o->empty = g->nlive == 0;
        break;
    case BOOK_SCN_SNAPSHOT_CAPTURE:
        o->type = (g->flip++ & 1) ? OP_PACKAGE : OP_SNAP;
        o->kind = o->type == OP_PACKAGE ? BOOK_OPK_PACKAGE : BOOK_OPK_SNAPSHOT;
        o->empty = g->nlive == 0;
        break;
    default:
        break;
    }
}

/* The timed part. */
static inline int apply(gen *g, const op *o) {
    switch (o->type) {
    case OP_LIMIT:
        return book_limit(g->b, o->id, o->owner, (book_side)o->side, o->price, o->qty, o->tif, 0);
    case OP_MARKET:
        return book_market(g->b, o->id, o->owner, (book_side)o->side, o->qty);
    case OP_CANCEL:
        return book_cancel(g->b, o->id);
    case OP_MASS:
        return (int)book_mass_cancel(g->b, &o->f, NULL, 0);
    case OP_SNAP: {
        size_t nb, na;
        book_snapshot(g->b, SNAP_DEPTH, g->lv[0], &nb, g->lv[1], &na);
        return (int)(nb + na);
    }
    case OP_PACKAGE: {
        book_package pkg = {.bids = g->lv[0], .asks = g->lv[1]};
        return book_snapshot_package(g->b, SNAP_DEPTH, &pkg);
    }
    }
    return 0;
}

/* Untimed refill after an op, per scenario. */
static void refill(gen *g, const op *o) {
    switch (g->scn) {
    case BOOK_SCN_CANCEL_ONLY:
    case BOOK_SCN_MASS_CANCEL_BURST:
        while (g->nlive < g->depth) {
            int side = (int)rn(g, 2);
            uint32_t owner = g->scn == BOOK_SCN_MASS_CANCEL_BURST ? (uint32_t)rn(g, MASS_OWNERS)
                                                                  : (uint32_t)rn(g, 8);
            if (add_resting(g, side, owner, passive_px(g, side), 1 + (uint32_t)rn(g, 100))) break;
        }
        break;
    case BOOK_SCN_AGGRESSIVE_WALK:
        /* every maker the walk consumed comes back at its own price */
        for (uint32_t i = 0; i < g->nrm; i++)
            if (g->rm[i].type == BOOK_EV_DONE && g->rm[i].id != o->id)
                add_resting(g, g->rm[i].side, (uint32_t)rn(g, 8), g->rm[i].price,
                            1 + (uint32_t)rn(g, 100));
        while (g->nlive < g->depth) {
            int side = (int)rn(g, 2);
            if (add_resting(g, side, (uint32_t)rn(g, 8), passive_px(g, side),
                            1 + (uint32_t)rn(g, 100)))
                break;
        }
        break;
    case BOOK_SCN_THIN_BOOK_SWEEP:
        for (int side = 0; side < 2; side++) {
            for (int guard = 0; guard < 8; guard++) {
                size_t n = 0;
                uint32_t cnt = 0;
                book_snapshot(g->b, 0, side ? NULL : g->all[0], side ? NULL : &n,
                              side ? g->all[1] : NULL, side ? &n : NULL);
                for (size_t i = 0; i < n; i++)
                    cnt += g->all[side][i].count;
                if (cnt >= g->depth / 2) break;
                int64_t px = side == BOOK_BUY ? g->mid - 1 - (int64_t)rn(g, 3)
                                              : g->mid + 1 + (int64_t)rn(g, 3);
                if (add_resting(g, side, (uint32_t)rn(g, 8), px, 1 + (uint32_t)rn(g, 20))) break;
            }
        }
        break;
    case BOOK_SCN_SNAPSHOT_CAPTURE: {
        int add = g->nlive < g->depth ? 1 : g->nlive > g->depth ? 0 : (int)rn(g, 2);
        if (add || !g->nlive) {
            int side = (int)rn(g, 2);
            add_resting(g, side, (uint32_t)rn(g, 8), passive_px(g, side), 1 + (uint32_t)rn(g, 100));
        } else {
            uint64_t id = g->live[rn(g, g->nlive)];
            g->nrm = 0;
            book_cancel(g->b, id);
            settle(g, 0, 0);
        }
        break;
    }
    default:
        break;
    }
}

static void prefill(gen *g) {
    if (g->scn == BOOK_SCN_ADD_ONLY) return;
    if (g->scn == BOOK_SCN_THIN_BOOK_SWEEP) {
        op o = {0};
        refill(g, &o);
        return;
    }
    for (uint64_t guard = 0; g->nlive < g->depth && guard < 4ull * g->depth + 100; guard++) {
        int side = (int)rn(g, 2);
        uint32_t owner = g->scn == BOOK_SCN_MASS_CANCEL_BURST ? (uint32_t)rn(g, MASS_OWNERS)
                                                              : (uint32_t)rn(g, 8);
        add_resting(g, side, owner, passive_px(g, side), 1 + (uint32_t)rn(g, 100));
    }
}

static void gen_free(gen *g) {
    book_destroy(g->b);
    lat__free(g->free_ids);
    lat__free(g->live);
    lat__free(g->pos);
    lat__free(g->rm);
    lat__free(g->all[0]);
    lat__free(g->all[1]);
}

static int gen_init(gen *g, book_scn s, const book_bench_cfg *cfg) {
    memset(g, 0, sizeof *g);
    g->scn = s;
    g->rng = cfg->seed ? cfg->seed : 0xA5A5A5A5ull;
    g->depth = cfg->depth ? cfg->depth : book_scn_default_depth(s);
    g->mid = MID;
    uint64_t cap =
        s == BOOK_SCN_ADD_ONLY ? cfg->warmup + cfg->measured + 16 : 2ull * g->depth + 1024;
    if (cap >= (1u << 30)) return -EINVAL;
    g->idcap = (uint32_t)cap + 16;
    book_config bc = {.price_lo = 1,
                      .price_hi = 65535,
                      .tick = 1,
                      .max_orders = (uint32_t)cap,
                      .on_event = on_event,
                      .ud = g};
    int err = book_create(&bc, &g->b);
    if (err) return err;
    g->free_ids = lat__calloc(g->idcap, sizeof(uint32_t));
    g->live = lat__calloc(g->idcap + 1, sizeof(uint32_t));
    g->pos = lat__calloc(g->idcap + 2, sizeof(uint32_t));
    g->rmcap = g->idcap + 8;
    g->rm = lat__calloc(g->rmcap, sizeof(removed));
    g->all[0] = lat__calloc(65536, sizeof(book_level_view));
    g->all[1] = lat__calloc(65536, sizeof(book_level_view));
    if (!g->free_ids || !g->live || !g->pos || !g->rm || !g->all[0] || !g->all[1]) {
        gen_free(g);
        return -ENOMEM;
    }
    /* ids handed out low first (the pool is a stack) */
    for (uint32_t i = 0; i < g->idcap; i++)
        g->free_ids[i] = g->idcap - i;
    g->nfree = g->idcap;
    for (uint32_t i = 0; i < g->idcap + 2; i++)
        g->pos[i] = NIL;
    return 0;
}

/* ---- measurement ------------------------------------------------------------------- */

void book_bench_result_fini(book_bench_result *res) {
    if (!res) return;
    lat_hist_fini(&res->total);
    for (int k = 0; k < BOOK_OPK_COUNT; k++)
        lat_hist_fini(&res->kind[k]);
    if (res->interval)
        for (uint32_t i = 0; i < res->nintervals; i++)
            lat_hist_fini(&res->interval[i]);
    lat__free(res->interval);
    lat__free(res->interval_start_s);
    lat__free(res->interval_len_s);
    memset(res, 0, sizeof *res);
}

/* 1-minute load average, or -1. */
static double loadavg1(void) {
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f) return -1;
    double v = -1;
    if (fscanf(f, "%lf", &v) != 1) v = -1;
    fclose(f);
    return v;
}

/* Aggregate steal time from /proc/stat in ms, or -1. */
static double steal_ms_now(void) {
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return -1;
    unsigned long long v[8] = {0};
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    long hz = sysconf(_SC_CLK_TCK);
    if (n != 8 || hz <= 0) return -1;
    return (double)v[7] * 1000.0 / (double)hz;
}

static double cycles_s(const lat_clock_cal *cal, uint64_t c) {
    return (double)lat_clock_to_ns(cal, c) / 1e9;
}

/* The timer's own floor: two back-to-back fenced reads. */
static int timer_floor(const lat_clock_cal *cal, book_bench_result *res) {
    lat_hist h;
    int err = lat_hist_init(&h, 1, 1000000000, 3);
    if (err) return err;
    for (int i = 0; i < 100000; i++) {
        uint64_t a = lat_cycles_fenced();
        uint64_t b = lat_cycles_fenced();
        lat_hist_record(&h, (int64_t)lat_clock_to_ns(cal, b - a));
    }
    res->timer_floor_p50_ns = lat_hist_value_at_percentile(&h, 50);
    res->timer_floor_p99_ns = lat_hist_value_at_percentile(&h, 99);
    lat_hist_fini(&h);
    return 0;
}

/* One measured op's share of the book's health counters. */
static void count_health(book_bench_health *h, const op *o, int rc, uint64_t events,
                         uint64_t trades, uint32_t depth_before) {
    h->ops++;
    h->events += events;
    h->trades += trades;
    if (o->type == OP_LIMIT) {
        h->submits++;
        if (o->kind == BOOK_OPK_CROSSING) h->crossing_submits++;
    }
    if (o->type == OP_CANCEL) {
        h->cancels++;
        if (rc == BOOK_EUNKNOWN) h->cancel_misses++;
    }
    if (o->empty || depth_before == 0) h->empty_book_ops++;
}

/* The measured window ends: its wall and CPU time, steal, faults, switches
 * and the intervals' bounds. */
static void close_window(const book_bench_cfg *cfg, const lat_clock_cal *cal,
                         book_bench_result *res, uint64_t *bound, uint64_t start,
                         const struct rusage *ru0) {
    uint32_t nint = res->nintervals;
    uint64_t end = lat_cycles_fenced();
    bound[nint] = end;
    if (cfg->window) cfg->window(0, cfg->window_ud);
    struct rusage ru1;
    getrusage(RUSAGE_THREAD, &ru1);
    double st = steal_ms_now();
    res->steal_ms = (st >= 0 && res->steal_ms >= 0) ? st - res->steal_ms : -1;
    res->elapsed_s = cycles_s(cal, end - start);
    res->cpu_s = (double)(ru1.ru_utime.tv_sec - ru0->ru_utime.tv_sec) +
                 (double)(ru1.ru_stime.tv_sec - ru0->ru_stime.tv_sec) +
                 (double)(ru1.ru_utime.tv_usec - ru0->ru_utime.tv_usec) / 1e6 +
                 (double)(ru1.ru_stime.tv_usec - ru0->ru_stime.tv_usec) / 1e6;
    res->loadavg1 = loadavg1();
    res->ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    for (uint32_t k = 0; k < nint; k++) {
        uint64_t b0 = bound[k] ? bound[k] : start, b1 = bound[k + 1] ? bound[k + 1] : end;
        if (b1 < b0) b1 = b0;
        res->interval_start_s[k] = cycles_s(cal, b0 - start);
        res->interval_len_s[k] = cycles_s(cal, b1 - b0);
    }
    res->minor_faults = (uint64_t)(ru1.ru_minflt - ru0->ru_minflt);
    res->major_faults = (uint64_t)(ru1.ru_majflt - ru0->ru_majflt);
    res->vol_switches = (uint64_t)(ru1.ru_nvcsw - ru0->ru_nvcsw);
    res->invol_switches = (uint64_t)(ru1.ru_nivcsw - ru0->ru_nivcsw);
}

/* Tail attribution: samples at or above the p99.9 value's bucket, by kind,
 * and the book events they caused. */
static void attribute_tail(book_bench_result *res, uint64_t n, const uint32_t *lat_ns,
                           const uint8_t *kinds, const uint16_t *evs) {
    res->tail_threshold_ns = lat_hist_value_at_percentile(&res->total, 99.9);
    int64_t cut = lat_hist_lowest_equivalent(&res->total, res->tail_threshold_ns);
    uint64_t ev_all = 0, ev_tail = 0;
    for (uint64_t i = 0; i < n; i++) {
        ev_all += evs[i];
        if ((int64_t)lat_ns[i] >= cut) {
            res->tail_samples++;
            res->tail_by_kind[kinds[i]]++;
            ev_tail += evs[i];
        }
    }
    res->mean_events = (double)ev_all / (double)n;
    res->tail_mean_events = res->tail_samples ? (double)ev_tail / (double)res->tail_samples : 0;
}

int book_bench_run(book_scn s, const book_bench_cfg *cfg, book_bench_result *res) {
    if ((unsigned)s >= BOOK_SCN_COUNT || !cfg || !res || cfg->measured == 0 ||
        cfg->open_loop_rate < 0)
        return -EINVAL;
    const lat_clock_cal *cal = cfg->cal ? cfg->cal : lat_clock_default();
    uint32_t nint = cfg->intervals ? cfg->intervals : 10;
    if (nint > cfg->measured) nint = (uint32_t)cfg->measured;
    gen g;
    int err = gen_init(&g, s, cfg);
    if (err) return err;
    uint32_t *lat_ns = lat__calloc(cfg->measured, sizeof(uint32_t));
    uint8_t *kinds = lat__calloc(cfg->measured, 1);
    uint16_t *evs = lat__calloc(cfg->measured, sizeof(uint16_t));
    uint64_t *bound = lat__calloc(nint + 1, sizeof(uint64_t));
    memset(res, 0, sizeof *res);
    res->scn = s;
    res->depth = g.depth;
    res->nintervals = nint;
    res->interval = lat__calloc(nint, sizeof(lat_hist));
    res->interval_start_s = lat__calloc(nint, sizeof(double));
    res->interval_len_s = lat__calloc(nint, sizeof(double));
    err = -ENOMEM;
    if (!lat_ns || !kinds || !evs || !bound || !res->interval || !res->interval_start_s ||
        !res->interval_len_s)
        goto fail;
    if ((err = lat_hist_init(&res->total, 1, 1000000000, 3))) goto fail;
    for (int k = 0; k < BOOK_OPK_COUNT; k++)
        if ((err = lat_hist_init(&res->kind[k], 1, 1000000000, 3))) goto fail;
    for (uint32_t i = 0; i < nint; i++)
        if ((err = lat_hist_init(&res->interval[i], 1, 1000000000, 3))) goto fail;

    if ((err = timer_floor(cal, res))) goto fail;

    prefill(&g);
    res->open_loop = cfg->open_loop_rate > 0;
    res->rate = cfg->open_loop_rate;
    uint64_t interval_cycles =
        res->open_loop ? lat_clock_from_ns(cal, (uint64_t)(1e9 / cfg->open_loop_rate)) : 0;
    if (res->open_loop && interval_cycles == 0) interval_cycles = 1;
    uint64_t late_cycles = lat_clock_from_ns(cal, 1000);
    book_bench_health *h = &res->health;
    double depth_sum = 0;
    struct rusage ru0;

    for (int phase = 0; phase < 2; phase++) {
        int rec = phase == 1;
        uint64_t n = rec ? cfg->measured : cfg->warmup;
        if (rec) {
            res->steal_ms = steal_ms_now();
            getrusage(RUSAGE_THREAD, &ru0);
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            res->start_epoch_s = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
            if (cfg->window) cfg->window(1, cfg->window_ud);
        }
        uint64_t start = lat_cycles_fenced();
        uint32_t slice = 0;
        if (rec) bound[0] = start;
        for (uint64_t i = 0; i < n; i++) {
            op o;
            gen_op(&g, &o);
            g.nrm = 0;
            uint64_t ev0 = g.events, tr0 = g.trades;
            uint32_t depth_before = book_order_count(g.b);
            uint64_t t0, t1, due = 0;
            int rc;
            if (res->open_loop) {
                due = start + i * interval_cycles;
                while ((t0 = lat_cycles()) < due)
                    lat_cpu_relax();
                rc = apply(&g, &o);
                t1 = lat_cycles_fenced();
                if (rec && t0 > due + late_cycles) res->late_ops++;
                t0 = due;
            } else {
                t0 = lat_cycles_fenced();
                rc = apply(&g, &o);
                t1 = lat_cycles_fenced();
            }
            uint64_t ev = g.events - ev0;
            if (rec) {
                uint64_t ns = lat_clock_to_ns(cal, t1 - t0);
                if (ns == 0) ns = 1;
                while (slice + 1 < nint && i >= (slice + 1) * cfg->measured / nint) {
                    bound[++slice] = t0;
                }
                lat_hist_record(&res->total, (int64_t)ns);
                lat_hist_record(&res->interval[slice], (int64_t)ns);
                lat_hist_record(&res->kind[o.kind], (int64_t)ns);
                lat_ns[i] = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
                kinds[i] = (uint8_t)o.kind;
                evs[i] = ev > UINT16_MAX ? UINT16_MAX : (uint16_t)ev;
                res->ops_by_kind[o.kind]++;
                count_health(h, &o, rc, ev, g.trades - tr0, depth_before);
                depth_sum += depth_before;
            }
            settle(&g, (o.type == OP_LIMIT || o.type == OP_MARKET) ? o.id : 0, rc);
            refill(&g, &o);
        }
        if (rec) close_window(cfg, cal, res, bound, start, &ru0);
    }
    h->mean_depth = h->ops ? depth_sum / (double)h->ops : 0;
    attribute_tail(res, cfg->measured, lat_ns, kinds, evs);
    err = 0;
fail:
    if (err) book_bench_result_fini(res);
    lat__free(lat_ns);
    lat__free(kinds);
    lat__free(evs);
    lat__free(bound);
    gen_free(&g);
    return err;
}

int book_bench_pass(const book_bench_cfg *base, const int sel[BOOK_SCN_COUNT], int nsel,
                    size_t pass, double open_rate, double also_rate, book_bench_cfg *rcfg) {
    int s = -1;
    *rcfg = *base;
    if (pass < (size_t)nsel) {
        int seen = -1;
        for (int i = 0; i < BOOK_SCN_COUNT; i++)
            if (sel[i] && ++seen == (int)pass) s = i;
        rcfg->open_loop_rate = open_rate;
    } else {
        s = BOOK_SCN_MIXED;
        rcfg->open_loop_rate = also_rate;
    }
    if (s != BOOK_SCN_MIXED && s != BOOK_SCN_CANCEL_ONLY && s != BOOK_SCN_SNAPSHOT_CAPTURE &&
        s != BOOK_SCN_ADD_ONLY && base->depth == 0)
        rcfg->depth = 0; /* scenario default */
    return s;
}
