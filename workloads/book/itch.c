/* itch.c - ITCH 5.0 framing, decoding and the per-stock book replay of itch.h.
 *
 * The reader trusts nothing: every length is checked against the end of the
 * input before a byte is read, so truncated or garbage input (the fuzz target
 * feeds it both) ends with an error and an offset, never a stray read. */
#include "itch.h"

#include "alloc_internal.h"
#include "latlab/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t itch_msg_len(uint8_t type) {
    switch (type) {
    case 'S':
        return 12;
    case 'R':
        return 39;
    case 'H':
        return 25;
    case 'Y':
        return 20;
    case 'L':
        return 26;
    case 'V':
        return 35;
    case 'W':
        return 12;
    case 'K':
        return 28;
    case 'J':
        return 35;
    case 'h':
        return 21;
    case 'A':
        return 36;
    case 'F':
        return 40;
    case 'E':
        return 31;
    case 'C':
        return 36;
    case 'X':
        return 23;
    case 'D':
        return 19;
    case 'U':
        return 35;
    case 'P':
        return 44;
    case 'Q':
        return 40;
    case 'B':
        return 19;
    case 'I':
        return 50;
    case 'N':
        return 20;
    case 'O':
        return 48;
    default:
        return 0;
    }
}

static inline uint16_t be16(const uint8_t *p) {
    return (uint16_t)((p[0] << 8) | p[1]);
}
static inline uint32_t be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline uint64_t be48(const uint8_t *p) {
    return ((uint64_t)be16(p) << 32) | be32(p + 2);
}
static inline uint64_t be64(const uint8_t *p) {
    return ((uint64_t)be32(p) << 32) | be32(p + 4);
}

void itch_reader_init(itch_reader *r, const uint8_t *buf, size_t len) {
    r->buf = buf;
    r->len = len;
    r->off = 0;
    r->err_off = 0;
}

int itch_next(itch_reader *r, itch_msg *m) {
    size_t off = r->off, left = r->len - off;
    if (left == 0) return 0;
    if (left < 3) {
        r->err_off = off;
        return LAT_ETRUNCATED;
    }
    uint16_t prefix = be16(r->buf + off);
    uint8_t type = r->buf[off + 2];
    size_t n = itch_msg_len(type);
    if (n == 0 || (prefix != 0 && prefix != n)) {
        r->err_off = off;
        return LAT_EFORMAT;
    }
    if (left - 2 < n) {
        r->err_off = off;
        return LAT_ETRUNCATED;
    }
    const uint8_t *p = r->buf + off + 2;
    m->type = type;
    m->locate = be16(p + 1);
    m->ts_ns = be48(p + 5);
    m->p = p;
    m->len = n;
    m->offset = off;
    r->off = off + 2 + n;
    return 1;
}

int itch_decode_order(const itch_msg *m, itch_order_msg *o) {
    const uint8_t *p = m->p;
    memset(o, 0, sizeof *o);
    switch (m->type) {
    case 'A':
    case 'F':
        o->ref = be64(p + 11);
        o->side = p[19] == 'S' ? BOOK_SELL : BOOK_BUY;
        o->shares = be32(p + 20);
        o->price = be32(p + 32);
        return 1;
    case 'E':
    case 'C':
    case 'X':
        o->ref = be64(p + 11);
        o->shares = be32(p + 19);
        return 1;
    case 'D':
        o->ref = be64(p + 11);
        return 1;
    case 'U':
        o->ref = be64(p + 11);
        o->new_ref = be64(p + 19);
        o->shares = be32(p + 27);
        o->price = be32(p + 31);
        return 1;
    default:
        return 0;
    }
}

/* ---- replay ------------------------------------------------------------------------ */

struct itch_replay {
    itch_stock *stock[ITCH_NSTOCKS];
    itch_counts counts;
    size_t bytes, max_bytes; /* the books' memory and its cap */
};

static uint64_t gcd64(uint64_t a, uint64_t b) {
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static itch_stock *stock_get(itch_replay *r, uint16_t loc) {
    if (!r->stock[loc]) {
        r->stock[loc] = lat__calloc(1, sizeof(itch_stock));
        if (!r->stock[loc]) return NULL;
        r->stock[loc]->price_lo = INT64_MAX;
        r->stock[loc]->price_hi = INT64_MIN;
    }
    return r->stock[loc];
}

static void note_price(itch_stock *s, uint32_t price) {
    int64_t p = price;
    if (s->price_lo != INT64_MAX && p != s->price_lo) {
        /* tick = gcd of the distances to the lowest price seen so far */
        int64_t lo = p < s->price_lo ? p : s->price_lo;
        uint64_t g = gcd64((uint64_t)s->tick, (uint64_t)(s->price_lo - lo));
        g = gcd64(g, (uint64_t)(p - lo));
        s->tick = (int64_t)g;
    }
    if (p < s->price_lo) s->price_lo = p;
    if (p > s->price_hi) s->price_hi = p;
    s->adds++;
}

/* Bind every page an add or replace will rest on, so the timed pass never
 * allocates.  Replaces reserve both sides (the side is the original order's). */
static int reserve_pages(itch_replay *r, const uint8_t *buf, size_t len) {
    itch_reader rd;
    itch_msg m;
    itch_order_msg o;
    itch_reader_init(&rd, buf, len);
    while (itch_next(&rd, &m) == 1) {
        if ((m.type != 'A' && m.type != 'F' && m.type != 'U') || !itch_decode_order(&m, &o))
            continue;
        itch_stock *s = r->stock[m.locate];
        if (!s || !s->bk) continue;
        for (int side = 0; side < 2; side++) {
            if (m.type != 'U' && side != (int)o.side) continue;
            int err = book_reserve(s->bk, (book_side)side, o.price, o.price);
            if (err == BOOK_ENOMEM) return -ENOMEM;
        }
    }
    return 0;
}

static int create_books(itch_replay *r, const itch_replay_opts *opt) {
    uint32_t max_levels = opt->max_levels ? opt->max_levels : 1u << 22;
    for (int i = 0; i < ITCH_NSTOCKS; i++) {
        itch_stock *s = r->stock[i];
        if (!s || !s->adds) continue;
        if (opt->tick > 0) {
            s->tick = opt->tick; /* band on the tick; adds off it are rejected */
            s->price_lo -= s->price_lo % s->tick;
        }
        if (s->tick <= 0) s->tick = 1;
        int64_t span = (s->price_hi - s->price_lo) / s->tick + 1;
        if (span > (int64_t)max_levels)
            s->price_hi = s->price_lo + ((int64_t)max_levels - 1) * s->tick;
        book_config cfg = {.price_lo = s->price_lo,
                           .price_hi = s->price_hi,
                           .tick = s->tick,
                           .max_orders = s->adds,
                           .reserve_levels = 1};
        int err = book_create(&cfg, &s->bk);
        if (err) return err;
        r->bytes += book_memory_bytes(s->bk);
        if (r->bytes > r->max_bytes) return -ENOMEM;
    }
    return 0;
}

int itch_replay_create_opts(const uint8_t *buf, size_t len, const itch_replay_opts *opt,
                            itch_replay **out, size_t *err_off, size_t *bytes) {
    if (!out || !opt || (!buf && len)) return -EINVAL;
    itch_replay *r = lat__calloc(1, sizeof *r);
    if (!r) return -ENOMEM;
    r->max_bytes = opt->max_bytes ? opt->max_bytes : ITCH_DEFAULT_MAX_BYTES;
    int err = 0;
    itch_reader rd;
    itch_msg m;
    itch_reader_init(&rd, buf, len);
    int rc;
    while ((rc = itch_next(&rd, &m)) == 1) {
        itch_order_msg o;
        if (m.type == 'R') {
            itch_stock *s = stock_get(r, m.locate);
            if (!s) goto nomem;
            memcpy(s->symbol, m.p + 11, 8);
            s->symbol[8] = 0;
            for (int i = 7; i >= 0 && s->symbol[i] == ' '; i--)
                s->symbol[i] = 0;
        } else if ((m.type == 'A' || m.type == 'F' || m.type == 'U') && itch_decode_order(&m, &o)) {
            itch_stock *s = stock_get(r, m.locate);
            if (!s) goto nomem;
            note_price(s, o.price);
        }
    }
    if (rc < 0) {
        if (err_off) *err_off = rd.err_off;
        err = rc;
        goto fail;
    }
    if ((err = create_books(r, opt)) || (err = reserve_pages(r, buf, len))) goto fail;
    r->bytes = 0;
    for (int i = 0; i < ITCH_NSTOCKS; i++)
        if (r->stock[i] && r->stock[i]->bk) r->bytes += book_memory_bytes(r->stock[i]->bk);
    if (bytes) *bytes = r->bytes;
    if (r->bytes > r->max_bytes) {
        err = -ENOMEM;
        goto fail;
    }
    *out = r;
    return 0;
nomem:
    err = -ENOMEM;
fail:
    if (bytes) *bytes = r->bytes;
    itch_replay_destroy(r);
    return err;
}

int itch_replay_create(const uint8_t *buf, size_t len, uint32_t max_levels, itch_replay **out,
                       size_t *err_off) {
    itch_replay_opts opt = {.max_levels = max_levels};
    return itch_replay_create_opts(buf, len, &opt, out, err_off, NULL);
}

size_t itch_replay_bytes(const itch_replay *r) {
    return r->bytes;
}

void itch_replay_destroy(itch_replay *r) {
    if (!r) return;
    for (int i = 0; i < ITCH_NSTOCKS; i++) {
        if (!r->stock[i]) continue;
        book_destroy(r->stock[i]->bk);
        lat__free(r->stock[i]);
    }
    lat__free(r);
}

void itch_replay_reset(itch_replay *r) {
    for (int i = 0; i < ITCH_NSTOCKS; i++)
        if (r->stock[i] && r->stock[i]->bk) book_reset(r->stock[i]->bk);
    memset(&r->counts, 0, sizeof r->counts);
}

static inline void unknown(itch_replay *r, uint8_t type) {
    r->counts.unknown_ref++;
    r->counts.unknown_by_type[type]++;
}

void itch_replay_apply(itch_replay *r, const itch_msg *m) {
    r->counts.messages++;
    r->counts.by_type[m->type]++;
    itch_order_msg o;
    if (!itch_decode_order(m, &o)) return;
    itch_stock *s = r->stock[m->locate];
    book *b = s ? s->bk : NULL;
    switch (m->type) {
    case 'A':
    case 'F': {
        int rc = b ? book_add_resting(b, o.ref, 0, o.side, o.price, o.shares) : BOOK_EBAND;
        if (rc == BOOK_EDUP)
            r->counts.dup_add++;
        else if (rc)
            r->counts.rejected_add++;
        break;
    }
    case 'E':
    case 'C':
    case 'X': {
        uint32_t open;
        if (!b || book_lookup(b, o.ref, NULL, NULL, NULL, &open)) {
            unknown(r, m->type);
            break;
        }
        if (o.shares > open) r->counts.over_exec++;
        if (o.shares) book_reduce(b, o.ref, o.shares);
        break;
    }
    case 'D':
        if (!b || book_cancel(b, o.ref)) unknown(r, m->type);
        break;
    case 'U': {
        book_side side;
        if (!b || book_lookup(b, o.ref, NULL, &side, NULL, NULL)) {
            unknown(r, m->type);
            break;
        }
        book_cancel(b, o.ref);
        int rc = book_add_resting(b, o.new_ref, 0, side, o.price, o.shares);
        if (rc == BOOK_EDUP)
            r->counts.dup_add++;
        else if (rc)
            r->counts.rejected_add++;
        break;
    }
    }
}

const itch_counts *itch_replay_counts(const itch_replay *r) {
    return &r->counts;
}

const itch_stock *itch_replay_stock(const itch_replay *r, uint16_t locate) {
    return r->stock[locate];
}

int itch_replay_stock_next(const itch_replay *r, int prev) {
    for (int i = prev + 1; i < ITCH_NSTOCKS; i++)
        if (r->stock[i]) return i;
    return -1;
}

/* Has the framing of buf[0, n) gone wrong (an unknown type or a bad length
 * prefix)?  *off is where checking resumes; a message cut by the end of what
 * was read so far is not an error yet. */
static int framing_broken(const uint8_t *buf, size_t n, size_t *off) {
    itch_reader rd;
    itch_msg m;
    itch_reader_init(&rd, buf, n);
    rd.off = *off;
    int r;
    while ((r = itch_next(&rd, &m)) == 1)
        ;
    *off = rd.off;
    return r == LAT_EFORMAT;
}

int itch_read_file(const char *path, uint8_t **buf, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return -errno;
    errno = 0; /* a read error's cause (EISDIR for a folder), not a stale one */
    size_t cap = 1 << 20, n = 0, checked = 0;
    uint8_t *b = malloc(cap);
    int err = b ? 0 : -ENOMEM;
    while (!err) {
        if (n == cap) {
            uint8_t *nb = realloc(b, cap *= 2);
            if (!nb) {
                err = -ENOMEM;
                break;
            }
            b = nb;
        }
        size_t r = fread(b + n, 1, cap - n, f);
        n += r;
        if (r == 0 || framing_broken(b, n, &checked)) break;
    }
    if (!err && ferror(f)) err = errno ? -errno : -EIO;
    fclose(f);
    if (err) {
        free(b);
        return err;
    }
    *buf = b;
    *len = n;
    return 0;
}
