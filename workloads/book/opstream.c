/* opstream.c - the op-stream reader of opstream.h: bounded lines, strict
 * field parsing, tick arithmetic.  Every field is checked before it is used;
 * the fuzz target feeds it arbitrary bytes. */
#include "opstream.h"

#include "latlab/error.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- bounded line reader ------------------------------------------------------------ */

void book_lines_init(book_lines *r, FILE *f) {
    r->f = f;
    r->start = r->end = 0;
    r->lineno = 0;
    r->eof = 0;
}

int book_lines_next(book_lines *r, char **line, size_t *len) {
    const size_t room = sizeof r->buf - 1; /* one byte kept for the terminator */
    for (;;) {
        char *p = r->buf + r->start;
        char *nl = memchr(p, '\n', r->end - r->start);
        if (nl || (r->eof && r->start < r->end)) {
            size_t n = nl ? (size_t)(nl - p) : r->end - r->start;
            r->start += nl ? n + 1 : n;
            r->lineno++;
            if (n > BOOK_MAX_LINE) return LAT_EFORMAT;
            if (n && p[n - 1] == '\r') n--;
            p[n] = 0;
            *line = p;
            *len = n;
            return 1;
        }
        if (r->eof) return 0;
        if (r->start > 0) {
            memmove(r->buf, r->buf + r->start, r->end - r->start);
            r->end -= r->start;
            r->start = 0;
        }
        if (r->end == room) { /* no newline within the longest line allowed: fatal */
            r->lineno++;
            r->start = r->end = 0;
            r->eof = 1;
            return LAT_EFORMAT;
        }
        errno = 0;
        size_t got = fread(r->buf + r->end, 1, room - r->end, r->f);
        r->end += got;
        if (got == 0) {
            if (ferror(r->f)) return errno ? -errno : -EIO;
            r->eof = 1;
        }
    }
}

/* ---- prices -------------------------------------------------------------------------- */

int book_tick_units(const char *tick, uint64_t scale, int64_t *units) {
    if (!tick || scale == 0 || scale > 1000000000000ull) return LAT_EFORMAT;
    uint64_t ip = 0, frac = 0, den = 1;
    const char *s = tick;
    int digits = 0;
    for (; *s >= '0' && *s <= '9'; s++, digits++) {
        if (ip > 1000000000000ull) return LAT_EFORMAT;
        ip = ip * 10 + (uint64_t)(*s - '0');
    }
    if (*s == '.') {
        for (s++; *s >= '0' && *s <= '9'; s++, digits++) {
            if (den >= 1000000000000ull) return LAT_EFORMAT;
            frac = frac * 10 + (uint64_t)(*s - '0');
            den *= 10;
        }
    }
    if (*s || digits == 0) return LAT_EFORMAT;
    /* tick * scale = ip * scale + frac * scale / den, which must be whole */
    unsigned __int128 whole = (unsigned __int128)ip * scale;
    unsigned __int128 part = (unsigned __int128)frac * scale;
    if (part % den) return LAT_EFORMAT;
    whole += part / den;
    if (whole == 0 || whole > (unsigned __int128)(INT64_MAX / 2)) return LAT_EFORMAT;
    *units = (int64_t)whole;
    return 0;
}

/* Floor and ceiling of a / t for t > 0, any sign of a. */
static int64_t floor_div(int64_t a, int64_t t) {
    int64_t q = a / t;
    return (a % t != 0 && a < 0) ? q - 1 : q;
}
static int64_t ceil_div(int64_t a, int64_t t) {
    int64_t q = a / t;
    return (a % t != 0 && a > 0) ? q + 1 : q;
}

int book_band_on_tick(int64_t *lo, int64_t *hi, int64_t tick_units) {
    if (tick_units <= 0 || *lo > *hi) return -EINVAL;
    int64_t a = ceil_div(*lo, tick_units), z = floor_div(*hi, tick_units);
    if (a > z) return -EINVAL; /* no multiple of the tick inside */
    /* z - a in unsigned arithmetic: exact for a <= z, never overflows */
    if ((uint64_t)z - (uint64_t)a >= BOOK_MAX_LEVELS) return -EINVAL;
    *lo = a * tick_units;
    *hi = z * tick_units;
    return 0;
}

/* ---- op lines ------------------------------------------------------------------------- */

static int bad(char *why, size_t wl, const char *fmt, const char *a) {
    snprintf(why, wl, fmt, a);
    return LAT_EFORMAT;
}

static int field_u64(const char *s, uint64_t max, uint64_t *out, const char *what, char *why,
                     size_t wl) {
    char *end;
    if (*s < '0' || *s > '9') {
        snprintf(why, wl, "%s '%.40s' is not a non-negative integer", what, s);
        return LAT_EFORMAT;
    }
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end) {
        snprintf(why, wl, "%s '%.40s' is not a non-negative integer", what, s);
        return LAT_EFORMAT;
    }
    if (errno == ERANGE || v > max) {
        snprintf(why, wl, "%s '%.40s' is out of range (0..%" PRIu64 ")", what, s, max);
        return LAT_EFORMAT;
    }
    *out = v;
    return 0;
}

static int field_u32(const char *s, uint32_t *out, const char *what, char *why, size_t wl) {
    uint64_t v;
    int err = field_u64(s, UINT32_MAX, &v, what, why, wl);
    if (!err) *out = (uint32_t)v;
    return err;
}

static int field_i64(const char *s, int64_t *out, const char *what, char *why, size_t wl) {
    char *end;
    const char *d = *s == '-' ? s + 1 : s;
    if (*d < '0' || *d > '9') {
        snprintf(why, wl, "%s '%.40s' is not an integer", what, s);
        return LAT_EFORMAT;
    }
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end || errno == ERANGE) {
        snprintf(why, wl, "%s '%.40s' is not an integer in range", what, s);
        return LAT_EFORMAT;
    }
    *out = v;
    return 0;
}

static int field_price(const char *s, int64_t tick, int64_t *out, const char *what, char *why,
                       size_t wl) {
    int err = field_i64(s, out, what, why, wl);
    if (err) return err;
    if (tick > 1 && *out % tick) {
        snprintf(why, wl, "%s %" PRId64 " is not on the tick (a multiple of %" PRId64 ")", what,
                 *out, tick);
        return LAT_EFORMAT;
    }
    return 0;
}

static int field_side(const char *s, book_side *out, char *why, size_t wl) {
    if (!strcmp(s, "B"))
        *out = BOOK_BUY;
    else if (!strcmp(s, "S"))
        *out = BOOK_SELL;
    else
        return bad(why, wl, "side '%.40s' is not B or S", s);
    return 0;
}

static int field_tif(const char *s, book_op *op, char *why, size_t wl) {
    op->flags = 0;
    if (!strcmp(s, "GTC"))
        op->tif = BOOK_GTC;
    else if (!strcmp(s, "IOC"))
        op->tif = BOOK_IOC;
    else if (!strcmp(s, "FOK"))
        op->tif = BOOK_FOK;
    else if (!strcmp(s, "POST"))
        op->tif = BOOK_GTC, op->flags = BOOK_POST_ONLY;
    else
        return bad(why, wl, "time in force '%.40s' is not GTC, IOC, FOK or POST", s);
    return 0;
}

#define MAXTOK 8

static int parse_mass(char **tok, int nt, book_op *op, char *why, size_t wl) {
    op->kind = BOOK_OP_MASS;
    if (nt == 2 && !strcmp(tok[1], "ALL")) {
        op->filter = book_filter_all();
    } else if (nt == 3 && !strcmp(tok[1], "SIDE")) {
        if (field_side(tok[2], &op->side, why, wl)) return LAT_EFORMAT;
        op->filter = book_filter_side(op->side);
    } else if (nt == 3 && !strcmp(tok[1], "OWNER")) {
        if (field_u32(tok[2], &op->owner, "owner", why, wl)) return LAT_EFORMAT;
        op->filter = book_filter_owner(op->owner);
    } else if (nt == 4 && !strcmp(tok[1], "RANGE")) {
        int64_t lo, hi;
        /* a range selects orders; its ends need not sit on the tick */
        if (field_i64(tok[2], &lo, "lo", why, wl) || field_i64(tok[3], &hi, "hi", why, wl))
            return LAT_EFORMAT;
        op->filter = book_filter_range(lo, hi);
    } else {
        snprintf(why, wl, "'X' needs ALL, SIDE <B|S>, OWNER <owner> or RANGE <lo> <hi>");
        return LAT_EFORMAT;
    }
    return 0;
}

static const struct {
    const char *op;
    int fields;
    book_op_kind kind;
    const char *shape;
} shapes[] = {
    {"L", 7, BOOK_OP_LIMIT, "L <id> <owner> <B|S> <price> <qty> <GTC|IOC|FOK|POST>"},
    {"M", 5, BOOK_OP_MARKET, "M <id> <owner> <B|S> <qty>"},
    {"C", 2, BOOK_OP_CANCEL, "C <id>"},
    {"R", 3, BOOK_OP_MODIFY, "R <id> <new_qty>"},
    {"P", 4, BOOK_OP_REPLACE, "P <id> <new_price> <new_qty>"},
    {"E", 3, BOOK_OP_EXEC, "E <id> <qty>"},
    {"S", 2, BOOK_OP_SNAPSHOT, "S <depth>"},
};

/* Fields of the fixed-shape ops, tok[1..]. */
static int parse_fields(char **tok, int64_t tick, book_op *op, char *why, size_t wl) {
    uint64_t depth;
    switch (op->kind) {
    case BOOK_OP_LIMIT:
        return field_u64(tok[1], UINT64_MAX, &op->id, "id", why, wl) ||
                       field_u32(tok[2], &op->owner, "owner", why, wl) ||
                       field_side(tok[3], &op->side, why, wl) ||
                       field_price(tok[4], tick, &op->price, "price", why, wl) ||
                       field_u32(tok[5], &op->qty, "qty", why, wl) || field_tif(tok[6], op, why, wl)
                   ? LAT_EFORMAT
                   : 0;
    case BOOK_OP_MARKET:
        return field_u64(tok[1], UINT64_MAX, &op->id, "id", why, wl) ||
                       field_u32(tok[2], &op->owner, "owner", why, wl) ||
                       field_side(tok[3], &op->side, why, wl) ||
                       field_u32(tok[4], &op->qty, "qty", why, wl)
                   ? LAT_EFORMAT
                   : 0;
    case BOOK_OP_CANCEL:
        return field_u64(tok[1], UINT64_MAX, &op->id, "id", why, wl);
    case BOOK_OP_MODIFY:
    case BOOK_OP_EXEC:
        return field_u64(tok[1], UINT64_MAX, &op->id, "id", why, wl) ||
                       field_u32(tok[2], &op->qty, op->kind == BOOK_OP_EXEC ? "qty" : "new_qty",
                                 why, wl)
                   ? LAT_EFORMAT
                   : 0;
    case BOOK_OP_REPLACE:
        return field_u64(tok[1], UINT64_MAX, &op->id, "id", why, wl) ||
                       field_price(tok[2], tick, &op->price, "new_price", why, wl) ||
                       field_u32(tok[3], &op->qty, "new_qty", why, wl)
                   ? LAT_EFORMAT
                   : 0;
    case BOOK_OP_SNAPSHOT:
        if (field_u64(tok[1], UINT32_MAX, &depth, "depth", why, wl)) return LAT_EFORMAT;
        op->depth = (uint32_t)depth;
        return 0;
    default:
        return LAT_EFORMAT;
    }
}

int book_op_parse(char *line, size_t len, int64_t tick_units, book_op *op, char *why,
                  size_t why_len) {
    memset(op, 0, sizeof *op);
    char *nul = memchr(line, 0, len);
    if (nul) {
        snprintf(why, why_len, "NUL byte at column %zu", (size_t)(nul - line) + 1);
        return LAT_EFORMAT;
    }
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    char *tok[MAXTOK + 1], *save = NULL;
    int nt = 0;
    for (char *t = strtok_r(line, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
        if (nt == MAXTOK) {
            snprintf(why, why_len, "too many fields");
            return LAT_EFORMAT;
        }
        tok[nt++] = t;
    }
    if (nt == 0) return 0;
    if (!strcmp(tok[0], "X")) return parse_mass(tok, nt, op, why, why_len);
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        if (strcmp(tok[0], shapes[i].op)) continue;
        if (nt != shapes[i].fields) {
            snprintf(why, why_len, "'%s' needs %d fields (%s), got %d", shapes[i].op,
                     shapes[i].fields, shapes[i].shape, nt);
            return LAT_EFORMAT;
        }
        op->kind = shapes[i].kind;
        int err = parse_fields(tok, tick_units, op, why, why_len);
        if (err) op->kind = BOOK_OP_NONE;
        return err;
    }
    return bad(why, why_len, "unknown op '%.40s' (L, M, C, R, P, E, X or S)", tok[0]);
}

int book_op_apply(book *b, const book_op *op) {
    int64_t r;
    switch (op->kind) {
    case BOOK_OP_LIMIT:
        return book_limit(b, op->id, op->owner, op->side, op->price, op->qty, op->tif, op->flags);
    case BOOK_OP_MARKET:
        return book_market(b, op->id, op->owner, op->side, op->qty);
    case BOOK_OP_CANCEL:
        return book_cancel(b, op->id);
    case BOOK_OP_MODIFY:
        return book_modify(b, op->id, op->qty);
    case BOOK_OP_REPLACE:
        return book_replace(b, op->id, op->price, op->qty);
    case BOOK_OP_EXEC:
        r = book_execute(b, op->id, op->qty);
        return r < 0 ? (int)r : 0;
    case BOOK_OP_MASS:
        r = book_mass_cancel(b, &op->filter, NULL, 0);
        return r < 0 ? (int)r : 0;
    default:
        return BOOK_EARG;
    }
}
