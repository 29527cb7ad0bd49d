/* lobster.c - LOBSTER message/orderbook reader, replay with depth-aware
 * comparison, and the fixture writer of lobster.h. */
#include "lobster.h"

#include "alloc_internal.h"
#include "opstream.h"
#include "latlab/error.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

/* ---- reader ----------------------------------------------------------------------- */

/* Strict decimal integer in [min, max]: 0 or -1. */
static int int_field(const char *s, int64_t min, int64_t max, int64_t *out) {
    const char *p = s;
    int neg = *p == '-';
    if (neg) p++;
    if (*p < '0' || *p > '9') return -1;
    uint64_t v = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (UINT64_MAX - 9) / 10) return -1;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (*p) return -1;
    if (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX) return -1;
    int64_t x = neg ? (int64_t)(0 - v) : (int64_t)v;
    if (x < min || x > max) return -1;
    *out = x;
    return 0;
}

/* Seconds after midnight with up to 9 (more are cut) decimals, into ns. */
static int time_field(const char *s, uint64_t *ns) {
    uint64_t sec = 0, frac = 0;
    int digits = 0, fd = 0;
    for (; *s >= '0' && *s <= '9'; s++, digits++) {
        if (sec > 10000000ull) return -1;
        sec = sec * 10 + (uint64_t)(*s - '0');
    }
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9'; s++, fd++)
            if (fd < 9) frac = frac * 10 + (uint64_t)(*s - '0');
    if (*s || digits == 0) return -1;
    for (int i = fd; i < 9; i++)
        frac *= 10;
    *ns = sec * 1000000000ull + frac;
    return 0;
}

/* Split at commas into at most max fields; returns the count (max + 1 when
 * there are more). */
static int split_csv(char *line, char **f, int max) {
    int n = 0;
    for (char *p = line;;) {
        if (n == max) return max + 1;
        f[n++] = p;
        char *c = strchr(p, ',');
        if (!c) break;
        *c = 0;
        p = c + 1;
    }
    return n;
}

static int no_nul(const char *line, size_t len, char *why, size_t wl) {
    const char *nul = memchr(line, 0, len);
    if (!nul) return 0;
    snprintf(why, wl, "NUL byte at column %zu", (size_t)(nul - line) + 1);
    return LAT_EFORMAT;
}

static int fail(char *why, size_t wl, const char *what, const char *val) {
    snprintf(why, wl, "%s '%.40s'", what, val);
    return LAT_EFORMAT;
}

int lobster_parse_msg(char *line, size_t len, int64_t tick, lobster_msg *m, char *why,
                      size_t why_len) {
    if (no_nul(line, len, why, why_len)) return LAT_EFORMAT;
    char *f[7];
    int n = split_csv(line, f, 6);
    if (n != 6) {
        snprintf(why, why_len, "%s%d columns, want 6 (time,type,id,size,price,direction)",
                 n > 6 ? "more than " : "", n > 6 ? 6 : n);
        return LAT_EFORMAT;
    }
    int64_t v;
    memset(m, 0, sizeof *m);
    if (time_field(f[0], &m->time_ns))
        return fail(why, why_len, "time is not seconds after midnight:", f[0]);
    if (int_field(f[1], 1, 7, &v)) return fail(why, why_len, "type is not 1..7:", f[1]);
    m->type = (int)v;
    if (int_field(f[2], 0, INT64_MAX, &v))
        return fail(why, why_len, "order id is not a non-negative integer:", f[2]);
    m->id = (uint64_t)v;
    if (int_field(f[3], 0, UINT32_MAX, &v))
        return fail(why, why_len, "size is not an integer in 0..2^32-1:", f[3]);
    m->size = (uint32_t)v;
    if (int_field(f[4], INT64_MIN, INT64_MAX, &m->price))
        return fail(why, why_len, "price is not an integer:", f[4]);
    if (int_field(f[5], -1, 1, &v) || v == 0)
        return fail(why, why_len, "direction is not 1 or -1:", f[5]);
    m->side = v == 1 ? BOOK_BUY : BOOK_SELL;
    if (m->type <= 4 && (m->price <= 0 || (tick > 1 && m->price % tick))) {
        snprintf(why, why_len,
                 "price %" PRId64 " is not a positive multiple of the tick (%" PRId64 ")", m->price,
                 tick);
        return LAT_EFORMAT;
    }
    return 0;
}

static int level_field(const char *pf, const char *qf, int64_t empty, int64_t tick,
                       lobster_level *l, char *why, size_t wl) {
    int64_t p, q;
    if (int_field(pf, INT64_MIN, INT64_MAX, &p))
        return fail(why, wl, "price is not an integer:", pf);
    if (int_field(qf, 0, UINT32_MAX, &q))
        return fail(why, wl, "size is not an integer in 0..2^32-1:", qf);
    if (p == empty || (q == 0 && (p == LOBSTER_EMPTY_ASK || p == LOBSTER_EMPTY_BID))) {
        l->price = 0;
        l->qty = 0;
        return 0;
    }
    if (p <= 0 || (tick > 1 && p % tick) || q == 0) {
        snprintf(why, wl,
                 "level %" PRId64 " x %" PRId64 " is not a positive price on the tick (%" PRId64
                 ") with a positive size",
                 p, q, tick);
        return LAT_EFORMAT;
    }
    l->price = p;
    l->qty = (uint64_t)q;
    return 0;
}

int lobster_parse_row(char *line, size_t len, int64_t tick, uint32_t want_levels, lobster_row *r,
                      char *why, size_t why_len) {
    if (no_nul(line, len, why, why_len)) return LAT_EFORMAT;
    char *f[4 * LOBSTER_MAX_LEVELS + 1];
    int n = split_csv(line, f, 4 * LOBSTER_MAX_LEVELS);
    if (n > 4 * LOBSTER_MAX_LEVELS || n % 4 || (want_levels && (uint32_t)n != 4 * want_levels)) {
        if (want_levels)
            snprintf(why, why_len, "%s%d columns, want %u (4 per level)",
                     n > 4 * LOBSTER_MAX_LEVELS ? "more than " : "",
                     n > 4 * LOBSTER_MAX_LEVELS ? 4 * LOBSTER_MAX_LEVELS : n, 4 * want_levels);
        else
            snprintf(why, why_len, "%d columns, want a multiple of 4 (at most %d levels)", n,
                     LOBSTER_MAX_LEVELS);
        return LAT_EFORMAT;
    }
    r->nlevels = (uint32_t)n / 4;
    for (uint32_t i = 0; i < r->nlevels; i++) {
        char sub[160];
        if (level_field(f[4 * i], f[4 * i + 1], LOBSTER_EMPTY_ASK, tick, &r->ask[i], sub,
                        sizeof sub) ||
            level_field(f[4 * i + 2], f[4 * i + 3], LOBSTER_EMPTY_BID, tick, &r->bid[i], sub,
                        sizeof sub)) {
            snprintf(why, why_len, "level %u: %s", i + 1, sub);
            return LAT_EFORMAT;
        }
    }
    return 0;
}

int64_t lobster_scan_max_price(FILE *msg, int64_t tick) {
    long start = ftell(msg);
    if (start < 0) return -errno;
    book_lines rd;
    book_lines_init(&rd, msg);
    char *line, why[8];
    size_t len;
    int64_t hi = 0;
    lobster_msg m;
    int r;
    while ((r = book_lines_next(&rd, &line, &len)) == 1)
        if (!lobster_parse_msg(line, len, tick, &m, why, sizeof why) && m.type <= 4 && m.price > hi)
            hi = m.price;
    if (r < 0 && r != LAT_EFORMAT) return r;
    clearerr(msg);
    if (fseek(msg, start, SEEK_SET)) return -errno;
    return hi;
}

/* ---- replay ----------------------------------------------------------------------- */

struct lobster_replay {
    book *b;
    int64_t tick;
    uint32_t levels, compare;
    int started;
    /* prices worse than these were outside the file's window at some row:
     * bids below bid_trust, asks above ask_trust */
    int64_t bid_trust, ask_trust;
    uint64_t last_time_ns; /* the previous message's time */
    lobster_counts c;
    book_level_view lv[2][LOBSTER_MAX_LEVELS];
};

#define SYNTH_BIT (1ull << 63)

/* The one synthetic order standing for a level's pre-window quantity. */
static uint64_t synth_id(book_side side, int64_t price) {
    return SYNTH_BIT | ((uint64_t)side << 62) | ((uint64_t)price & ((1ull << 62) - 1));
}

int lobster_replay_create(int64_t tick, int64_t price_hi, uint32_t levels, uint32_t compare,
                          lobster_replay **out) {
    if (tick <= 0 || levels > LOBSTER_MAX_LEVELS || compare > levels || !out) return -EINVAL;
    lobster_replay *r = lat__calloc(1, sizeof *r);
    if (!r) return -ENOMEM;
    r->tick = tick;
    r->levels = levels;
    r->compare = compare;
    r->bid_trust = INT64_MIN;
    r->ask_trust = INT64_MAX;
    /* at most 2^26 ticks ($671,088 on a cent tick): a 4 MB page directory */
    const int64_t span = (int64_t)LOBSTER_BAND_TICKS;
    int64_t hi = tick <= INT64_MAX / span ? tick * span : INT64_MAX;
    if (price_hi > 0 && price_hi < hi) hi = price_hi < tick ? tick : price_hi;
    book_config cfg = {.price_lo = tick,
                       .price_hi = hi - (hi % tick),
                       .tick = tick,
                       .max_orders = (1u << 31) - 1,
                       .reserve_orders = 1u << 14,
                       .reserve_levels = 4096}; /* grows on demand beyond these */
    int err = book_create(&cfg, &r->b);
    if (err) {
        lat__free(r);
        return err;
    }
    *out = r;
    return 0;
}

void lobster_replay_destroy(lobster_replay *r) {
    if (!r) return;
    book_destroy(r->b);
    lat__free(r);
}

static int untrusted(const lobster_replay *r, book_side side, int64_t price) {
    if (price == 0) return 0;
    return side == BOOK_BUY ? price < r->bid_trust : price > r->ask_trust;
}

static void widen_untrusted(lobster_replay *r, const lobster_row *row) {
    uint32_t n = row->nlevels;
    if (n == 0) return;
    if (row->bid[n - 1].price && row->bid[n - 1].price > r->bid_trust)
        r->bid_trust = row->bid[n - 1].price;
    if (row->ask[n - 1].price && row->ask[n - 1].price < r->ask_trust)
        r->ask_trust = row->ask[n - 1].price;
}

int lobster_replay_start(lobster_replay *r, const lobster_row *row) {
    for (uint32_t i = 0; i < row->nlevels; i++)
        for (int s = 0; s < 2; s++) {
            const lobster_level *l = s ? &row->ask[i] : &row->bid[i];
            if (!l->price) continue;
            /* sizes were checked to fit one order (< 2^32) by the row parser */
            int err = book_add_resting(r->b, synth_id((book_side)s, l->price), 0, (book_side)s,
                                       l->price, (uint32_t)l->qty);
            if (err) return err;
        }
    widen_untrusted(r, row);
    r->started = 1;
    return 0;
}

/* Types 2, 3, 4 naming an order that is not resting: take the quantity off
 * the level's synthetic (pre-window) order. */
static int apply_prewindow(lobster_replay *r, const lobster_msg *m, const char **reason) {
    uint64_t sid = synth_id(m->side, m->price);
    uint32_t open;
    if (book_lookup(r->b, sid, NULL, NULL, NULL, &open)) {
        r->c.unappliable++;
        if (r->started && untrusted(r, m->side, m->price)) {
            r->c.unappliable_depth++;
            *reason = "unknown order id at a price outside the file's depth";
        } else {
            *reason = "unknown order id, and no pre-window quantity at that price";
        }
        return BOOK_EUNKNOWN;
    }
    if (m->size == 0 || m->size > open) {
        r->c.unappliable++;
        *reason = m->size ? "unknown order id, and more than the pre-window quantity at that price"
                          : "size is zero";
        return m->size ? BOOK_EEXCESS : BOOK_EQTY;
    }
    if (m->type == 4)
        book_execute(r->b, sid, m->size);
    else
        book_reduce(r->b, sid, m->size);
    r->c.prewindow++;
    return 1;
}

/* Count a message; a time before the previous message's is an inconsistency
 * (counted, and the reason given; the message is still applied). */
static void count_msg(lobster_replay *r, const lobster_msg *m, const char **reason) {
    if (r->c.messages && m->time_ns < r->last_time_ns) {
        r->c.time_backwards++;
        *reason = "timestamp earlier than the previous message's (applied)";
    }
    r->last_time_ns = m->time_ns;
    r->c.messages++;
    r->c.by_type[m->type & 7]++;
}

void lobster_replay_note(lobster_replay *r, const lobster_msg *m) {
    const char *ignored;
    count_msg(r, m, &ignored);
}

/* A new limit order at or through the opposite side's best would trade at
 * once: LOBSTER records that as executions, never as a resting add. */
static int crossing_add(const lobster_replay *r, const lobster_msg *m, const char **reason) {
    int64_t px;
    uint64_t q;
    book_side other = m->side == BOOK_BUY ? BOOK_SELL : BOOK_BUY;
    if (book_best(r->b, other, &px, &q) != 0) return 0;
    if (m->side == BOOK_BUY ? m->price < px : m->price > px) return 0;
    *reason = m->side == BOOK_BUY ? "a buy at or above the resting ask (the book would cross)"
                                  : "a sell at or below the resting bid (the book would cross)";
    return 1;
}

/* Types 2-4 naming a resting order at another price or side: LOBSTER carries
 * the order's own price, so the file disagrees with itself (applied by id). */
static void check_order(lobster_replay *r, const lobster_msg *m, const char **reason) {
    book_side side;
    int64_t price;
    if (book_lookup(r->b, m->id, NULL, &side, &price, NULL)) return;
    if (side == m->side && price == m->price) return;
    r->c.wrong_price++;
    *reason = side != m->side ? "direction differs from the resting order's (applied by id)"
                              : "price differs from the resting order's (applied by id)";
}

int lobster_replay_apply(lobster_replay *r, const lobster_msg *m, const char **reason) {
    static const char *const none = "";
    *reason = none;
    count_msg(r, m, reason);
    int err = 0;
    uint32_t open;
    if (m->type >= 5) return 0; /* hidden execution, cross, halt: no visible change */
    if (m->id & SYNTH_BIT) {
        *reason = "order id at or above 2^63 (reserved for pre-window levels)";
        r->c.unappliable++;
        return BOOK_EARG;
    }
    if (m->type == 1) {
        if (crossing_add(r, m, reason)) {
            r->c.crossing++;
            return BOOK_EARG;
        }
        err = book_add_resting(r->b, m->id, 0, m->side, m->price, m->size);
        if (err) {
            *reason =
                err == BOOK_EDUP ? "an order with this id is already resting" : book_strerror(err);
            r->c.unappliable++;
        }
        return err;
    }
    if (book_lookup(r->b, m->id, NULL, NULL, NULL, &open)) return apply_prewindow(r, m, reason);
    check_order(r, m, reason);
    if (m->type == 3) return book_cancel(r->b, m->id);
    if (m->size == 0 || m->size > open) {
        *reason = m->size ? "size exceeds the order's open quantity" : "size is zero";
        r->c.unappliable++;
        return m->size ? BOOK_EEXCESS : BOOK_EQTY;
    }
    int64_t left =
        m->type == 4 ? book_execute(r->b, m->id, m->size) : book_reduce(r->b, m->id, m->size);
    return left < 0 ? (int)left : 0;
}

static int compare_side(lobster_replay *r, const lobster_row *row, book_side side, size_t n,
                        lobster_mismatch *mm) {
    const book_level_view *v = r->lv[side];
    for (uint32_t i = 0; i < r->compare; i++) {
        const lobster_level *f = side == BOOK_BUY ? &row->bid[i] : &row->ask[i];
        int64_t bp = i < n ? v[i].price : 0;
        uint64_t bq = i < n ? v[i].qty : 0;
        if (bp == f->price && bq == f->qty) continue;
        mm->level = i + 1;
        mm->side = side;
        mm->book_price = bp;
        mm->book_qty = bq;
        mm->file_price = f->price;
        mm->file_qty = f->qty;
        mm->outside_depth = untrusted(r, side, bp) || untrusted(r, side, f->price);
        return mm->outside_depth ? 2 : 1;
    }
    return 0;
}

int lobster_replay_compare(lobster_replay *r, const lobster_row *row, lobster_mismatch *first) {
    widen_untrusted(r, row);
    size_t nb, na;
    book_snapshot(r->b, r->compare, r->lv[0], &nb, r->lv[1], &na);
    lobster_mismatch m[2];
    int a = compare_side(r, row, BOOK_BUY, nb, &m[0]);
    int b = compare_side(r, row, BOOK_SELL, na, &m[1]);
    r->c.rows_compared++;
    /* a side that matches on all N levels is verified up to level N: only
     * prices beyond it stay in doubt (everything, when the side is not full) */
    uint32_t n = row->nlevels;
    if (r->compare == n && n) {
        if (!a) r->bid_trust = row->bid[n - 1].price ? row->bid[n - 1].price : INT64_MIN;
        if (!b) r->ask_trust = row->ask[n - 1].price ? row->ask[n - 1].price : INT64_MAX;
    }
    if (!a && !b) return 0;
    int worst = (a == 1 || b == 1) ? 1 : 2;
    /* report a book mismatch before a depth one, bids before asks */
    *first = (a == worst || (a && b != worst)) ? m[0] : m[1];
    if (worst == 1)
        r->c.rows_mismatch++;
    else
        r->c.rows_depth_only++;
    return worst;
}

const lobster_counts *lobster_replay_counts(const lobster_replay *r) {
    return &r->c;
}

book *lobster_replay_book(lobster_replay *r) {
    return r->b;
}

/* ---- fixtures ---------------------------------------------------------------------- */

#define NS_PER_S ((uint64_t)1000000000)
#define SYN_TICK 100
#define SYN_MID 585000 /* $58.50 */
#define SYN_MAXLIVE 4096

typedef struct syn_order {
    uint64_t id;
    book_side side;
    int64_t price;
} syn_order;

typedef struct synth {
    const lobster_synth_cfg *cfg;
    lobster_synth_stats *st;
    FILE *msg, *ob;
    book *b;
    uint64_t rng, next_id, prewindow_below, t_ns;
    syn_order live[SYN_MAXLIVE];
    uint32_t nlive;
    book_level_view lv[2][LOBSTER_MAX_LEVELS + 1];
    int halted;
} synth;

static uint64_t syn_rand(synth *g) {
    g->rng ^= g->rng << 13;
    g->rng ^= g->rng >> 7;
    g->rng ^= g->rng << 17;
    return g->rng;
}
static uint32_t syn_rn(synth *g, uint32_t n) {
    return (uint32_t)(syn_rand(g) % n);
}

/* 1-based level of price on side (best first), or N + 1 when it is beyond
 * level N of a full side; a new price counts where it would be inserted. */
static uint32_t syn_level_of(synth *g, book_side side, int64_t price) {
    uint32_t n = g->cfg->levels;
    size_t nl[2];
    book_snapshot(g->b, n, g->lv[0], &nl[0], g->lv[1], &nl[1]);
    for (uint32_t i = 0; i < nl[side]; i++) {
        int64_t p = g->lv[side][i].price;
        if (p == price || (side == BOOK_BUY ? p < price : p > price)) return i + 1;
    }
    return nl[side] < n ? (uint32_t)nl[side] + 1 : n + 1;
}

static int syn_write(synth *g, int type, uint64_t id, uint32_t size, int64_t price,
                     book_side side) {
    g->t_ns += 1000 + syn_rn(g, 200000);
    if (fprintf(g->msg, "%" PRIu64 ".%09" PRIu64 ",%d,%" PRIu64 ",%u,%" PRId64 ",%d\n",
                g->t_ns / NS_PER_S, g->t_ns % NS_PER_S, type, id, size, price,
                side == BOOK_BUY ? 1 : -1) < 0)
        return -errno;
    g->st->written++;
    g->st->by_type[type]++;
    if (type >= 2 && type <= 4 && id < g->prewindow_below) g->st->prewindow_refs++;
    size_t nb, na;
    uint32_t n = g->cfg->levels;
    book_snapshot(g->b, n, g->lv[0], &nb, g->lv[1], &na);
    for (uint32_t i = 0; i < n; i++) {
        int64_t ap = i < na ? g->lv[1][i].price : LOBSTER_EMPTY_ASK;
        int64_t bp = i < nb ? g->lv[0][i].price : LOBSTER_EMPTY_BID;
        if (fprintf(g->ob, "%s%" PRId64 ",%" PRIu64 ",%" PRId64 ",%" PRIu64, i ? "," : "", ap,
                    i < na ? g->lv[1][i].qty : 0, bp, i < nb ? g->lv[0][i].qty : 0) < 0)
            return -errno;
    }
    return fputc('\n', g->ob) == EOF ? -errno : 0;
}

static void syn_forget(synth *g, uint32_t k) {
    g->live[k] = g->live[--g->nlive];
}

/* A new order k ticks from the mid on its passive side (never crosses). */
static int syn_add(synth *g, int deep, int write) {
    if (g->nlive == SYN_MAXLIVE) return 0;
    book_side side = (book_side)syn_rn(g, 2);
    uint32_t n = g->cfg->levels;
    int64_t k = deep ? (int64_t)(n + 1 + syn_rn(g, 2)) : (int64_t)(1 + syn_rn(g, n));
    int64_t price = side == BOOK_BUY ? SYN_MID - k * SYN_TICK : SYN_MID + k * SYN_TICK;
    if (write && syn_level_of(g, side, price) > n) return 0; /* would be unseen: skip */
    if (!write && deep && syn_level_of(g, side, price) <= n) return 0;
    uint32_t size = 1 + syn_rn(g, 500);
    uint64_t id = g->next_id++;
    if (book_add_resting(g->b, id, 0, side, price, size)) return 0;
    g->live[g->nlive++] = (syn_order){id, side, price};
    if (!write) return g->st->unseen++, 0;
    return syn_write(g, 1, id, size, price, side) ? -EIO : 1;
}

/* Cancel (type 3), partial cancel (2) or execution (4, best level only) of a
 * live order within the window, or (write == 0) a cancel beyond it. */
static int syn_remove(synth *g, int type, int write) {
    for (int tries = 0; tries < 8 && g->nlive; tries++) {
        uint32_t k = syn_rn(g, g->nlive);
        syn_order o = g->live[k];
        uint32_t lvl = syn_level_of(g, o.side, o.price), open;
        if (write ? lvl > g->cfg->levels : lvl <= g->cfg->levels) continue;
        if (type == 4 && lvl != 1) continue;
        book_lookup(g->b, o.id, NULL, NULL, NULL, &open);
        uint32_t size = type == 3   ? open
                        : type == 2 ? (open > 1 ? 1 + syn_rn(g, open - 1) : 0)
                                    : 1 + syn_rn(g, open);
        if (size == 0) continue;
        if (type == 3)
            book_cancel(g->b, o.id);
        else if (type == 4)
            book_execute(g->b, o.id, size);
        else
            book_reduce(g->b, o.id, size);
        if (type == 3 || (type == 4 && size == open)) syn_forget(g, k);
        if (!write) return g->st->unseen++, 0;
        return syn_write(g, type, o.id, size, o.price, o.side) ? -EIO : 1;
    }
    return 0;
}

/* Execute every order at one side's best level (type 4 each), so the level
 * beyond the window comes into view until the flow refills it. */
static int syn_sweep(synth *g) {
    book_side side = (book_side)syn_rn(g, 2);
    int64_t best;
    if (book_best(g->b, side, &best, NULL)) return 0;
    for (uint32_t k = 0; k < g->nlive && g->st->written < g->cfg->messages;) {
        syn_order o = g->live[k];
        uint32_t open;
        if (o.side != side || o.price != best) {
            k++;
            continue;
        }
        book_lookup(g->b, o.id, NULL, NULL, NULL, &open);
        book_execute(g->b, o.id, open);
        syn_forget(g, k);
        if (syn_write(g, 4, o.id, open, o.price, o.side)) return -EIO;
    }
    return 1;
}

static int syn_step(synth *g) {
    uint32_t r = syn_rn(g, 1000);
    if (r < g->cfg->hidden_pm) return syn_rn(g, 2) ? syn_add(g, 1, 0) : syn_remove(g, 3, 0);
    if (r < g->cfg->hidden_pm + 10) return syn_sweep(g);
    if (r == 999 && syn_rn(g, 8) == 0) {
        g->halted ^= 1; /* halt, then resume trading */
        return syn_write(g, 7, 0, 0, g->halted ? -1 : 1, BOOK_SELL) ? -EIO : 1;
    }
    r = syn_rn(g, 100);
    if (r < 45) return syn_add(g, 0, 1);
    if (r < 68) return syn_remove(g, 3, 1);
    if (r < 80) return syn_remove(g, 2, 1);
    if (r < 95) return syn_remove(g, 4, 1);
    if (r < 98)
        return syn_write(g, 5, 0, 1 + syn_rn(g, 100), SYN_MID, (book_side)syn_rn(g, 2)) ? -EIO : 1;
    if (r < 99) return syn_write(g, 6, 0, 100 + syn_rn(g, 1000), SYN_MID, BOOK_BUY) ? -EIO : 1;
    g->halted ^= 1; /* halt, then resume trading */
    return syn_write(g, 7, 0, 0, g->halted ? -1 : 1, BOOK_SELL) ? -EIO : 1;
}

int lobster_synth_write(const lobster_synth_cfg *cfg, FILE *msg, FILE *ob,
                        lobster_synth_stats *st) {
    if (!cfg || !msg || !ob || !st || cfg->levels == 0 || cfg->levels > LOBSTER_MAX_LEVELS)
        return -EINVAL;
    memset(st, 0, sizeof *st);
    synth *g = lat__calloc(1, sizeof *g);
    if (!g) return -ENOMEM;
    g->cfg = cfg;
    g->st = st;
    g->msg = msg;
    g->ob = ob;
    g->rng = cfg->seed ? cfg->seed : 0x2545F4914F6CDD1Dull;
    g->next_id = 1000;
    g->t_ns = 34200ull * 1000000000ull; /* 09:30 */
    book_config bc = {
        .price_lo = SYN_TICK, .price_hi = 2 * SYN_MID, .tick = SYN_TICK, .max_orders = SYN_MAXLIVE};
    int err = book_create(&bc, &g->b);
    if (err) {
        lat__free(g);
        return err == -ENOMEM ? -ENOMEM : -EINVAL;
    }
    /* orders resting before the window: within the depth and beyond it */
    for (int i = 0; i < 12 * (int)cfg->levels; i++)
        syn_add(g, i % 6 == 5, 0);
    st->unseen = 0;
    g->prewindow_below = g->next_id;
    errno = 0; /* a failed write's cause: ENOSPC for a full disk, not EIO */
    while (st->written < cfg->messages) {
        int rc = syn_step(g);
        if (rc < 0) {
            err = errno > 0 ? -errno : -EIO;
            break;
        }
    }
    book_destroy(g->b);
    lat__free(g);
    if (!err && (ferror(msg) || ferror(ob))) err = errno > 0 ? -errno : -EIO;
    return err;
}
