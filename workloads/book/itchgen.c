/* itchgen.c - the synthetic ITCH 5.0 capture of itchgen.h: a two-state
 * Markov-modulated Poisson arrival process driving a per-stock order flow
 * that only ever refers to orders it has added. */
#include "itchgen.h"

#include <inttypes.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "alloc_internal.h"

/* ---- random numbers: splitmix64 seeding, xorshift64* stream ------------------------ */

typedef struct rng {
    uint64_t s;
} rng;

static void rng_seed(rng *r, uint64_t seed) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    r->s = (z ^ (z >> 31)) | 1;
}

static uint64_t rng_next(rng *r) {
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545F4914F6CDD1Dull;
}

static double rng_unit(rng *r) { /* [0, 1) */
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

static uint32_t rng_below(rng *r, uint32_t n) {
    return (uint32_t)(rng_unit(r) * n);
}

static double rng_exp(rng *r, double mean) {
    return -log(1.0 - rng_unit(r)) * mean;
}

/* ---- per-stock state ----------------------------------------------------------------- */

typedef struct resting {
    uint64_t ref;
    uint32_t shares, price;
    uint8_t side; /* 'B' or 'S' */
} resting;

typedef struct stock_state {
    char symbol[8];
    int64_t mid; /* 1/10000 dollars, a multiple of TICK */
    resting *live;
    uint32_t n, cap;
} stock_state;

#define TICK 100 /* one cent */
#define TOTAL_RESTING_CAP 1000000u
#define ITCH_START_NS 34200000000000ull /* 09:30:00 */

typedef struct gen {
    rng r;
    FILE *f;
    itchgen_counts *cn;
    uint64_t ts, next_ref, next_match;
    stock_state *st;
    double *zipf_cdf;
    uint32_t k;
    int err;
} gen;

/* ---- encoding ------------------------------------------------------------------------ */

static void put16(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static void put32(uint8_t *p, uint32_t v) {
    put16(p, v >> 16);
    put16(p + 2, v & 0xffff);
}
static void put48(uint8_t *p, uint64_t v) {
    put16(p, (uint32_t)(v >> 32) & 0xffff);
    put32(p + 2, (uint32_t)v);
}
static void put64(uint8_t *p, uint64_t v) {
    put32(p, (uint32_t)(v >> 32));
    put32(p + 4, (uint32_t)v);
}

/* Frame: length prefix, then type, locate, tracking number 0, timestamp. */
static uint8_t *begin(uint8_t *buf, uint8_t type, size_t len, uint16_t locate, uint64_t ts) {
    memset(buf, 0, len + 2);
    put16(buf, (uint32_t)len);
    uint8_t *p = buf + 2;
    p[0] = type;
    put16(p + 1, locate);
    put48(p + 5, ts);
    return p;
}

static void emit(gen *g, const uint8_t *buf, size_t len) {
    if (fwrite(buf, 1, len + 2, g->f) != len + 2 && !g->err)
        g->err = errno > 0 ? -errno : -EIO; /* ENOSPC for a full disk, not EIO */
    g->cn->messages++;
    g->cn->by_type[buf[2]]++;
}

static void emit_system(gen *g, char code) {
    uint8_t b[14];
    uint8_t *p = begin(b, 'S', 12, 0, g->ts);
    p[11] = (uint8_t)code;
    emit(g, b, 12);
}

static void emit_directory(gen *g, uint16_t loc) {
    uint8_t b[41];
    uint8_t *p = begin(b, 'R', 39, loc, g->ts);
    memcpy(p + 11, g->st[loc - 1].symbol, 8);
    p[19] = 'Q';             /* market category: NASDAQ Global Select */
    p[20] = 'N';             /* financial status: normal */
    put32(p + 21, 100);      /* round lot size */
    p[25] = 'N';             /* round lots only: no */
    p[26] = 'C';             /* issue classification: common stock */
    memcpy(p + 27, "Z ", 2); /* issue subtype */
    p[29] = 'P';             /* authenticity: production */
    p[30] = 'N';             /* short sale threshold */
    p[31] = 'N';             /* IPO flag */
    p[32] = '1';             /* LULD reference price tier */
    p[33] = 'N';             /* ETP flag */
    put32(p + 34, 0);        /* ETP leverage factor */
    p[38] = 'N';             /* inverse indicator */
    emit(g, b, 39);
}

/* ---- order flow ---------------------------------------------------------------------- */

static uint32_t draw_shares(gen *g) {
    uint32_t u = rng_below(&g->r, 100);
    if (u < 80) return 100 * (1 + rng_below(&g->r, 10)); /* round lots */
    if (u < 95) return 1 + rng_below(&g->r, 99);         /* odd lots */
    return 1000 * (1 + rng_below(&g->r, 20));            /* blocks */
}

static uint32_t draw_price(gen *g, stock_state *s, uint8_t side) {
    uint32_t away = 1;
    while (away < 51 && rng_unit(&g->r) < 0.7)
        away++;
    int64_t p = side == 'B' ? s->mid - (int64_t)away * TICK : s->mid + (int64_t)away * TICK;
    return (uint32_t)p;
}

static void emit_add(gen *g, uint16_t loc, bool attributed) {
    stock_state *s = &g->st[loc - 1];
    uint8_t b[42];
    size_t len = attributed ? 40 : 36;
    uint8_t *p = begin(b, attributed ? 'F' : 'A', len, loc, g->ts);
    resting o = {.ref = g->next_ref++, .side = rng_below(&g->r, 2) ? 'S' : 'B'};
    o.shares = draw_shares(g);
    o.price = draw_price(g, s, o.side);
    put64(p + 11, o.ref);
    p[19] = o.side;
    put32(p + 20, o.shares);
    memcpy(p + 24, s->symbol, 8);
    put32(p + 32, o.price);
    if (attributed) memcpy(p + 36, "LATL", 4);
    s->live[s->n++] = o;
    emit(g, b, len);
}

static void remove_at(stock_state *s, uint32_t i) {
    s->live[i] = s->live[--s->n];
}

static void emit_delete(gen *g, uint16_t loc, uint32_t i) {
    stock_state *s = &g->st[loc - 1];
    uint8_t b[21];
    uint8_t *p = begin(b, 'D', 19, loc, g->ts);
    put64(p + 11, s->live[i].ref);
    remove_at(s, i);
    emit(g, b, 19);
}

static void emit_cancel(gen *g, uint16_t loc, uint32_t i) {
    stock_state *s = &g->st[loc - 1];
    resting *o = &s->live[i];
    uint8_t b[25];
    uint8_t *p = begin(b, 'X', 23, loc, g->ts);
    uint32_t by = 1 + rng_below(&g->r, o->shares - 1); /* partial: leaves >= 1 */
    put64(p + 11, o->ref);
    put32(p + 19, by);
    o->shares -= by;
    emit(g, b, 23);
}

static void emit_execute(gen *g, uint16_t loc, uint32_t i, bool with_price) {
    stock_state *s = &g->st[loc - 1];
    resting *o = &s->live[i];
    uint8_t b[38];
    size_t len = with_price ? 36 : 31;
    uint8_t *p = begin(b, with_price ? 'C' : 'E', len, loc, g->ts);
    uint32_t want = 100 * (1 + rng_below(&g->r, 3));
    uint32_t n = want < o->shares ? want : o->shares;
    put64(p + 11, o->ref);
    put32(p + 19, n);
    put64(p + 23, g->next_match++);
    if (with_price) {
        p[31] = 'Y';
        put32(p + 32, o->price);
    }
    if (n == o->shares)
        remove_at(s, i);
    else
        o->shares -= n;
    emit(g, b, len);
}

static void emit_replace(gen *g, uint16_t loc, uint32_t i) {
    stock_state *s = &g->st[loc - 1];
    resting *o = &s->live[i];
    uint8_t b[37];
    uint8_t *p = begin(b, 'U', 35, loc, g->ts);
    put64(p + 11, o->ref);
    o->ref = g->next_ref++;
    o->shares = draw_shares(g);
    o->price = draw_price(g, s, o->side);
    put64(p + 19, o->ref);
    put32(p + 27, o->shares);
    put32(p + 31, o->price);
    emit(g, b, 35);
}

static uint16_t draw_stock(gen *g) {
    double u = rng_unit(&g->r) * g->zipf_cdf[g->k - 1];
    uint32_t lo = 0, hi = g->k - 1;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (g->zipf_cdf[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return (uint16_t)(lo + 1);
}

static void emit_order(gen *g) {
    uint16_t loc = draw_stock(g);
    stock_state *s = &g->st[loc - 1];
    uint32_t u = rng_below(&g->r, 1000);
    bool add = u < 440;
    if (s->n == 0) add = true;
    if (add && s->n == s->cap) { /* full: a delete instead */
        add = false;
        u = 440;
    }
    if (add) {
        emit_add(g, loc, u >= 430 && u < 440);
        return;
    }
    uint32_t i = rng_below(&g->r, s->n);
    if (u < 720)
        emit_delete(g, loc, i);
    else if (u < 780)
        s->live[i].shares > 1 ? emit_cancel(g, loc, i) : emit_delete(g, loc, i);
    else if (u < 900)
        emit_execute(g, loc, i, false);
    else if (u < 910)
        emit_execute(g, loc, i, true);
    else
        emit_replace(g, loc, i);
}

/* ---- driver -------------------------------------------------------------------------- */

void itchgen_config_default(itchgen_config *c) {
    memset(c, 0, sizeof *c);
    c->messages = 100000;
    c->stocks = 8;
    c->rate_hz = 200000;
    c->peak_to_mean = 10;
    c->burst_ns = 200000;
    c->seed = 1;
}

static bool config_ok(const itchgen_config *c) {
    return c && c->stocks >= 1 && c->stocks <= ITCHGEN_MAX_STOCKS &&
           c->messages >= (uint64_t)c->stocks + 2 && c->rate_hz > 0 && c->rate_hz <= 1e10 &&
           c->peak_to_mean >= 1 && c->peak_to_mean <= 10000 && c->burst_ns >= 1;
}

static int setup(gen *g, const itchgen_config *c) {
    g->k = c->stocks;
    g->st = lat__calloc(g->k, sizeof *g->st);
    g->zipf_cdf = lat__calloc(g->k, sizeof *g->zipf_cdf);
    if (!g->st || !g->zipf_cdf) return -ENOMEM;
    uint32_t cap = TOTAL_RESTING_CAP / g->k;
    if (cap < 16) cap = 16;
    double acc = 0;
    for (uint32_t i = 0; i < g->k; i++) {
        stock_state *s = &g->st[i];
        char name[16];
        snprintf(name, sizeof name, "STK%05u", i + 1);
        memset(s->symbol, ' ', 8);
        memcpy(s->symbol, name, strlen(name) < 8 ? strlen(name) : 8);
        s->mid = (int64_t)(10 + rng_below(&g->r, 490)) * 10000; /* $10 .. $499 */
        s->cap = cap;
        s->live = lat__calloc(cap, sizeof *s->live);
        if (!s->live) return -ENOMEM;
        acc += 1.0 / (i + 1);
        g->zipf_cdf[i] = acc;
    }
    return 0;
}

static void teardown(gen *g) {
    for (uint32_t i = 0; g->st && i < g->k; i++)
        lat__free(g->st[i].live);
    lat__free(g->st);
    lat__free(g->zipf_cdf);
}

int itchgen_write(const itchgen_config *c, FILE *f, itchgen_counts *counts) {
    if (!config_ok(c) || !f) return -EINVAL;
    itchgen_counts local;
    gen g = {.f = f, .cn = counts ? counts : &local, .next_ref = 1, .next_match = 1};
    memset(g.cn, 0, sizeof *g.cn);
    rng_seed(&g.r, c->seed);
    int rc = setup(&g, c);
    if (rc) {
        teardown(&g);
        return rc;
    }
    g.ts = ITCH_START_NS;
    emit_system(&g, 'O');
    for (uint32_t i = 1; i <= g.k; i++)
        emit_directory(&g, (uint16_t)i);

    /* MMPP: burst fraction f = 1/(2R); the quiet rate keeps the mean. */
    double R = c->peak_to_mean, f_burst = 1.0 / (2.0 * R);
    double mean_gap_ns = 1e9 / c->rate_hz;
    double gap[2] = {mean_gap_ns * (1.0 - f_burst) / (1.0 - f_burst * R), mean_gap_ns / R};
    double stay[2] = {(double)c->burst_ns * (1.0 - f_burst) / f_burst, (double)c->burst_ns};
    if (R == 1) gap[0] = gap[1] = mean_gap_ns;
    int state = 0;
    double t = 1e6, left = rng_exp(&g.r, stay[0]); /* orders start 1 ms after the directory */
    uint64_t orders = c->messages - g.k - 2;
    for (uint64_t n = 0; n < orders && !g.err; n++) {
        for (;;) {
            double dt = rng_exp(&g.r, gap[state]);
            if (dt < left) {
                t += dt;
                left -= dt;
                break;
            }
            t += left; /* state change: memoryless, so draw the next gap afresh */
            state ^= 1;
            if (state) g.cn->bursts++;
            left = rng_exp(&g.r, stay[state]);
        }
        g.ts = ITCH_START_NS + (uint64_t)t;
        if (state) g.cn->burst_messages++;
        emit_order(&g);
    }
    emit_system(&g, 'C');
    g.cn->span_ns = g.ts - ITCH_START_NS;
    if (!g.err && (fflush(f) != 0 || ferror(f))) g.err = errno > 0 ? -errno : -EIO;
    teardown(&g);
    return g.err;
}

void itchgen_print_counts(FILE *f, const char *path, const itchgen_config *cfg,
                          const itchgen_counts *cn) {
    fprintf(f, "wrote %s: %" PRIu64 " messages, %u stocks, %.6f s of market time (mean %.0f/s)\n",
            path, cn->messages, cfg->stocks, (double)cn->span_ns / 1e9,
            cn->span_ns ? (double)cn->messages * 1e9 / (double)cn->span_ns : 0.0);
    fprintf(f, "by type        ");
    for (int t = 0; t < 256; t++)
        if (cn->by_type[t]) fprintf(f, " %c %" PRIu64, t, cn->by_type[t]);
    fprintf(f, "\nbursts          %" PRIu64 " (peak %.0f/s), carrying %" PRIu64 " order messages\n",
            cn->bursts, cfg->rate_hz * cfg->peak_to_mean, cn->burst_messages);
}
