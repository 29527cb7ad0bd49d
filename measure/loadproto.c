/* loadproto.c - requests and incremental response parsers for `latlab load`
 * (echo, HTTP/1.1, Redis RESP, memcached text).  See loadproto.h.
 *
 * Each parser is a state machine over whatever bytes arrived: lines (status,
 * headers, chunk sizes, RESP and memcached lines) are gathered into the
 * state's small line buffer; bodies, chunks and bulk strings are skipped by
 * count without being kept.  The bytes of one response are counted against
 * max_response so a server that never ends a reply cannot grow anything. */
#include "latlab/loadproto.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Phases (one numbering for every protocol). */
enum {
    PH_START = 0, /* before the first byte of a response */
    PH_LINE,      /* gathering a line: status / RESP / memcached */
    PH_HEADER,    /* HTTP header line */
    PH_BODY,      /* counted bytes: HTTP body, RESP bulk, memcached data, echo */
    PH_CHUNK_SIZE,
    PH_CHUNK_DATA,
    PH_CHUNK_END, /* the CRLF after a chunk's data */
    PH_TRAILER,
};

const char *lat_loadproto_name(lat_loadproto_kind k) {
    static const char *const names[] = {"echo", "http", "redis", "memcached"};
    return (unsigned)k < 4 ? names[k] : NULL;
}

/* ---- requests ---------------------------------------------------------------------- */

static const char alpha[] = "abcdefghijklmnopqrstuvwxyz";

typedef struct reqbuf {
    lat_loadproto *p;
    int err;
} reqbuf;

static void put(reqbuf *b, const void *s, size_t n) {
    if (b->err || b->p->req_len + n > LAT_LOADPROTO_REQ_MAX) {
        b->err = -E2BIG;
        return;
    }
    memcpy(b->p->req + b->p->req_len, s, n);
    b->p->req_len += n;
}

static void putf(reqbuf *b, const char *fmt, unsigned long long v) {
    char t[32];
    int n = snprintf(t, sizeof t, fmt, v);
    put(b, t, (size_t)n);
}

/* "key:" and the fixed-width digits, remembered for lat_loadproto_request. */
static void put_key(reqbuf *b) {
    put(b, "key:", 4);
    if (b->err) return;
    if (b->p->nkeys < 2) b->p->key_off[b->p->nkeys++] = b->p->req_len;
    put(b, "0000000000", LAT_LOADPROTO_KEY_DIGITS);
}

static bool one_line(const char *s) {
    return s && !strpbrk(s, "\r\n");
}

static int build_http(reqbuf *b, const lat_loadproto_opts *o) {
    const char *m = o->method ? o->method : "GET", *path = o->path ? o->path : "/";
    const char *host = o->host ? o->host : "localhost";
    if (!*m || !*path || !one_line(m) || !one_line(path) || !one_line(host) || strchr(m, ' ') ||
        strchr(path, ' '))
        return -EINVAL;
    b->p->head = !strcmp(m, "HEAD");
    put(b, m, strlen(m));
    put(b, " ", 1);
    put(b, path, strlen(path));
    put(b, " HTTP/1.1\r\nHost: ", 17);
    put(b, host, strlen(host));
    put(b, "\r\n", 2);
    if (o->headers && *o->headers) {
        put(b, o->headers, strlen(o->headers));
        put(b, "\r\n", 2);
    }
    if (o->body) putf(b, "Content-Length: %llu\r\n", (unsigned long long)strlen(o->body));
    put(b, "\r\n", 2);
    if (o->body) put(b, o->body, strlen(o->body));
    return b->err;
}

static int build_redis(reqbuf *b, const lat_loadproto_opts *o) {
    const char *c = o->redis_cmd ? o->redis_cmd : "PING";
    if (!one_line(c)) return -EINVAL;
    const char *w[64];
    size_t wl[64], n = 0;
    for (const char *s = c; *s;) {
        while (*s == ' ')
            s++;
        if (!*s) break;
        const char *e = strchr(s, ' ');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        if (n == 64) return -E2BIG;
        w[n] = s;
        wl[n++] = l;
        s += l;
    }
    if (!n) return -EINVAL;
    putf(b, "*%llu\r\n", n);
    for (size_t i = 0; i < n; i++) {
        bool key = wl[i] == 5 && !memcmp(w[i], "{key}", 5);
        putf(b, "$%llu\r\n", key ? 4 + LAT_LOADPROTO_KEY_DIGITS : wl[i]);
        if (key)
            put_key(b);
        else
            put(b, w[i], wl[i]);
        put(b, "\r\n", 2);
    }
    return b->err;
}

static int build_memcached(reqbuf *b, const lat_loadproto_opts *o) {
    size_t v = o->value_size ? o->value_size : 32;
    put(b, o->mc_set ? "set " : "get ", 4);
    put_key(b);
    if (!o->mc_set) {
        put(b, "\r\n", 2);
        return b->err;
    }
    putf(b, " 0 0 %llu\r\n", v);
    for (size_t i = 0; i < v && !b->err; i++)
        put(b, &alpha[i % 26], 1);
    put(b, "\r\n", 2);
    return b->err;
}

int lat_loadproto_init(lat_loadproto *p, const lat_loadproto_opts *o) {
    if (!p || !o) return -EINVAL;
    memset(p, 0, offsetof(lat_loadproto, req));
    p->req_len = 0;
    p->kind = o->kind;
    p->key_space = o->key_space ? o->key_space : 1;
    p->max_response = o->max_response ? o->max_response : LAT_LOADPROTO_DEFAULT_MAX_RESPONSE;
    p->mc_set = o->mc_set;
    reqbuf b = {p, 0};
    switch (o->kind) {
    case LAT_LOADPROTO_ECHO:
        p->echo_size = o->echo_size ? o->echo_size : 64;
        for (size_t i = 0; i < p->echo_size && !b.err; i++)
            put(&b, &alpha[i % 26], 1);
        return b.err;
    case LAT_LOADPROTO_HTTP:
        return build_http(&b, o);
    case LAT_LOADPROTO_REDIS:
        return build_redis(&b, o);
    case LAT_LOADPROTO_MEMCACHED:
        return build_memcached(&b, o);
    }
    return -EINVAL;
}

void lat_loadproto_request(const lat_loadproto *p, uint64_t seq, uint8_t *out) {
    if (!p->nkeys) return;
    uint64_t k = seq % p->key_space;
    char d[LAT_LOADPROTO_KEY_DIGITS];
    for (int i = LAT_LOADPROTO_KEY_DIGITS - 1; i >= 0; i--, k /= 10)
        d[i] = (char)('0' + k % 10);
    for (int j = 0; j < p->nkeys; j++)
        memcpy(out + p->key_off[j], d, sizeof d);
}

/* ---- parsing helpers ---------------------------------------------------------------- */

void lat_loadproto_reset(lat_loadproto_state *s) {
    memset(s, 0, offsetof(lat_loadproto_state, line));
    s->line[0] = 0;
}

/* Gather bytes of a line from buf[*i..len).  1: a line ended (LF consumed; the
 * line without CR/LF is in s->line, NUL-terminated, s->line_len long; a line
 * longer than the buffer is kept cut, s->line_len says its full length); 0:
 * more needed. */
static int take_line(lat_loadproto_state *s, const uint8_t *buf, size_t len, size_t *i) {
    const uint8_t *lf = memchr(buf + *i, '\n', len - *i);
    size_t end = lf ? (size_t)(lf - buf) : len, got = end - *i;
    if (s->line_len < LAT_LOADPROTO_LINE_MAX - 1) { /* what fits is kept, the rest counted */
        size_t room = LAT_LOADPROTO_LINE_MAX - 1 - s->line_len;
        char *d = s->line + s->line_len;
        const uint8_t *from = buf + *i;
        size_t k = 0, m = got < room ? got : room;
        for (; k + 16 <= m; k += 16) /* lines are short: 16-byte moves, no memcpy call */
            memcpy(d + k, from + k, 16);
        for (; k < m; k++)
            d[k] = (char)from[k];
    }
    s->line_len += (uint32_t)got;
    *i = lf ? end + 1 : len;
    if (!lf) return 0;
    size_t n = s->line_len < LAT_LOADPROTO_LINE_MAX - 1 ? s->line_len : LAT_LOADPROTO_LINE_MAX - 1;
    if (n && s->line[n - 1] == '\r') {
        n--;
        s->line_len--;
    }
    s->line[n] = 0;
    return 1;
}

static bool line_cut(const lat_loadproto_state *s) {
    return s->line_len >= LAT_LOADPROTO_LINE_MAX - 1;
}

/* Decimal (base 10) or hex digits of s up to a non-digit; -1 when none or
 * above 2^40 (no reply of ours is that large). */
static int64_t parse_num(const char *s, int base, const char **end) {
    int64_t v = 0;
    const char *p = s;
    if (end) *end = s;
    for (;; p++) {
        int d;
        if (*p >= '0' && *p <= '9')
            d = *p - '0';
        else if (base == 16 && *p >= 'a' && *p <= 'f')
            d = *p - 'a' + 10;
        else if (base == 16 && *p >= 'A' && *p <= 'F')
            d = *p - 'A' + 10;
        else
            break;
        v = v * base + d;
        if (v > ((int64_t)1 << 40)) return -1;
    }
    if (end) *end = p;
    return p == s ? -1 : v;
}

/* Skip counted bytes; 1 when the count reached 0. */
static int skip_bytes(lat_loadproto_state *s, size_t len, size_t *i) {
    size_t n = len - *i < s->remaining ? len - *i : (size_t)s->remaining;
    *i += n;
    s->remaining -= n;
    return s->remaining == 0;
}

/* ---- HTTP/1.1 ---------------------------------------------------------------------- */

static int http_status(lat_loadproto_state *s) {
    const char *l = s->line;
    if (line_cut(s) || strncmp(l, "HTTP/1.", 7) || l[7] < '0' || l[7] > '9' || l[8] != ' ')
        return -EBADMSG;
    const char *e;
    int64_t st = parse_num(l + 9, 10, &e);
    if (st < 100 || st > 999 || e != l + 12 || (*e && *e != ' ')) return -EBADMSG;
    if (st == 101) return -EBADMSG; /* no upgrades: the stream would stop being HTTP */
    s->status = st;
    s->chunked = s->has_length = s->close = false;
    s->phase = PH_HEADER;
    return LAT_LOADPROTO_MORE;
}

/* Whether line l, whose name ends at its first ':' (name_len bytes), is
 * header name (lower case); *value is then its value. */
static bool header_is(const char *l, size_t name_len, const char *name, const char **value) {
    size_t n = strlen(name);
    if (name_len != n || strncasecmp(l, name, n)) return false;
    for (*value = l + n + 1; **value == ' ' || **value == '\t'; (*value)++) {
    }
    return true;
}

/* Whether v holds t (lower case, letters) anywhere, case-blind: strcasestr
 * without its per-call setup, which cost more than the search here. */
static bool has_word(const char *v, const char *t) {
    size_t n = strlen(t);
    for (; *v; v++)
        if ((*v | 0x20) == t[0] && !strncasecmp(v, t, n)) return true;
    return false;
}

/* One header line (not empty). */
static int http_header(lat_loadproto_state *s) {
    const char *v, *colon = strchr(s->line, ':');
    size_t nl = colon ? (size_t)(colon - s->line) : 0;
    if (colon && header_is(s->line, nl, "content-length", &v)) {
        const char *e;
        int64_t n = parse_num(v, 10, &e);
        while (*e == ' ' || *e == '\t')
            e++;
        if (line_cut(s) || n < 0 || *e || (s->has_length && (uint64_t)n != s->remaining))
            return -EBADMSG;
        s->has_length = true;
        s->remaining = (uint64_t)n;
    } else if (colon && header_is(s->line, nl, "transfer-encoding", &v)) {
        if (line_cut(s)) return -EBADMSG;
        if (has_word(v, "chunked")) s->chunked = true;
    } else if (colon && header_is(s->line, nl, "connection", &v)) {
        if (has_word(v, "close")) s->close = true;
    } else if (!colon && !line_cut(s)) {
        return -EBADMSG;
    }
    return LAT_LOADPROTO_MORE;
}

/* The empty line after the headers: what follows. */
static int http_body_start(const lat_loadproto *p, lat_loadproto_state *s) {
    if (s->status < 200) { /* 1xx interim: another status line follows */
        s->phase = PH_LINE;
        return LAT_LOADPROTO_MORE;
    }
    s->error_reply = s->status >= 400;
    if (p->head || s->status == 204 || s->status == 304) return LAT_LOADPROTO_DONE;
    if (s->chunked) {
        s->phase = PH_CHUNK_SIZE;
        return LAT_LOADPROTO_MORE;
    }
    if (!s->has_length) return -EBADMSG; /* length by close: no keep-alive */
    s->phase = PH_BODY;
    return s->remaining ? LAT_LOADPROTO_MORE : LAT_LOADPROTO_DONE;
}

static int http_chunk_size(lat_loadproto_state *s) {
    const char *e;
    int64_t n = parse_num(s->line, 16, &e);
    while (*e == ' ' || *e == '\t')
        e++;
    if (line_cut(s) || n < 0 || (*e && *e != ';')) return -EBADMSG;
    s->remaining = (uint64_t)n;
    s->phase = n ? PH_CHUNK_DATA : PH_TRAILER;
    return LAT_LOADPROTO_MORE;
}

static int http_step(const lat_loadproto *p, lat_loadproto_state *s, const uint8_t *buf, size_t len,
                     size_t *i) {
    if (s->phase == PH_BODY) return skip_bytes(s, len, i) ? LAT_LOADPROTO_DONE : 0;
    if (s->phase == PH_CHUNK_DATA) {
        if (skip_bytes(s, len, i)) s->phase = PH_CHUNK_END;
        return LAT_LOADPROTO_MORE;
    }
    if (!take_line(s, buf, len, i)) return LAT_LOADPROTO_MORE;
    bool empty = s->line_len == 0;
    s->line_len = 0;
    switch (s->phase) {
    case PH_LINE:
        return http_status(s);
    case PH_HEADER:
        return empty ? http_body_start(p, s) : http_header(s);
    case PH_CHUNK_SIZE:
        return http_chunk_size(s);
    case PH_CHUNK_END:
        if (!empty) return -EBADMSG;
        s->phase = PH_CHUNK_SIZE;
        return LAT_LOADPROTO_MORE;
    case PH_TRAILER:
        return empty ? LAT_LOADPROTO_DONE : LAT_LOADPROTO_MORE;
    }
    return -EBADMSG;
}

/* ---- Redis RESP ----------------------------------------------------------------------
 * RESP is prefix-encoded, so one count of the elements still owed is the whole
 * stack: an aggregate of n replaces itself with its n elements. */

static int resp_line(lat_loadproto_state *s) {
    const char *l = s->line;
    if (line_cut(s) || !*l) return -EBADMSG;
    int64_t n = 0;
    if (strchr("$=!*~>%|", l[0])) {
        const char *e;
        n = l[1] == '-' ? (parse_num(l + 2, 10, &e) == 1 ? -1 : -2) : parse_num(l + 1, 10, &e);
        if (n < -1 || *e || n > (1 << 30)) return -EBADMSG;
    }
    switch (l[0]) {
    case '-':
    case '!':
        s->error_reply = true; /* fall through */
    case '$':
    case '=':
        if (l[0] == '-' || n < 0) break;
        s->remaining = (uint64_t)n + 2; /* the bytes and their CRLF */
        s->phase = PH_BODY;
        return LAT_LOADPROTO_MORE;
    case '+':
    case ':':
    case '_':
    case ',':
    case '#':
    case '(':
        break;
    case '*':
    case '~':
    case '>':
        if (n > 0) s->pending += n;
        break;
    case '%':
        if (n > 0) s->pending += 2 * n;
        break;
    case '|': /* RESP3 attribute: its pairs, then the reply (or element) it annotates */
        if (n > 0) s->pending += 2 * n;
        return LAT_LOADPROTO_MORE;
    default:
        return -EBADMSG;
    }
    return --s->pending == 0 ? LAT_LOADPROTO_DONE : LAT_LOADPROTO_MORE;
}

static int redis_step(lat_loadproto_state *s, const uint8_t *buf, size_t len, size_t *i) {
    if (s->phase == PH_BODY) {
        if (!skip_bytes(s, len, i)) return LAT_LOADPROTO_MORE;
        s->phase = PH_LINE;
        return --s->pending == 0 ? LAT_LOADPROTO_DONE : LAT_LOADPROTO_MORE;
    }
    if (!take_line(s, buf, len, i)) return LAT_LOADPROTO_MORE;
    int rc = resp_line(s);
    s->line_len = 0;
    return rc;
}

/* ---- memcached text ------------------------------------------------------------------ */

static int mc_line(const lat_loadproto *p, lat_loadproto_state *s) {
    const char *l = s->line;
    if (line_cut(s)) return -EBADMSG;
    if (!strcmp(l, "ERROR") || !strncmp(l, "CLIENT_ERROR ", 13) ||
        !strncmp(l, "SERVER_ERROR ", 13)) {
        s->error_reply = true;
        return LAT_LOADPROTO_DONE;
    }
    if (p->mc_set) {
        if (!strcmp(l, "STORED") || !strcmp(l, "NOT_STORED") || !strcmp(l, "EXISTS") ||
            !strcmp(l, "NOT_FOUND"))
            return LAT_LOADPROTO_DONE;
        return -EBADMSG;
    }
    if (!strcmp(l, "END")) return LAT_LOADPROTO_DONE;
    if (strncmp(l, "VALUE ", 6)) return -EBADMSG;
    /* VALUE <key> <flags> <bytes> [<cas>] */
    const char *k = l + 6, *f = strchr(k, ' '), *b = f ? strchr(f + 1, ' ') : NULL, *e;
    if (!f || f == k || !b || parse_num(f + 1, 10, &e) < 0 || e != b) return -EBADMSG;
    int64_t n = parse_num(b + 1, 10, &e);
    if (n < 0 || (*e && *e != ' ')) return -EBADMSG;
    s->remaining = (uint64_t)n + 2;
    s->phase = PH_BODY;
    return LAT_LOADPROTO_MORE;
}

static int mc_step(const lat_loadproto *p, lat_loadproto_state *s, const uint8_t *buf, size_t len,
                   size_t *i) {
    if (s->phase == PH_BODY) {
        if (skip_bytes(s, len, i)) s->phase = PH_LINE;
        return LAT_LOADPROTO_MORE;
    }
    if (!take_line(s, buf, len, i)) return LAT_LOADPROTO_MORE;
    int rc = mc_line(p, s);
    s->line_len = 0;
    return rc;
}

/* ---- the feed ---------------------------------------------------------------------- */

static void begin(const lat_loadproto *p, lat_loadproto_state *s) {
    lat_loadproto_reset(s);
    s->pending = 1;
    s->phase = PH_LINE;
    if (p->kind == LAT_LOADPROTO_ECHO) {
        s->phase = PH_BODY;
        s->remaining = p->echo_size;
    }
}

int lat_loadproto_feed(const lat_loadproto *p, lat_loadproto_state *s, const uint8_t *buf,
                       size_t len, size_t *used) {
    size_t i = 0;
    int rc = LAT_LOADPROTO_MORE;
    if (s->phase == PH_START && len) begin(p, s);
    while (i < len && rc == LAT_LOADPROTO_MORE) {
        size_t i0 = i;
        switch (p->kind) {
        case LAT_LOADPROTO_ECHO:
            rc = skip_bytes(s, len, &i);
            break;
        case LAT_LOADPROTO_HTTP:
            rc = http_step(p, s, buf, len, &i);
            break;
        case LAT_LOADPROTO_REDIS:
            rc = redis_step(s, buf, len, &i);
            break;
        case LAT_LOADPROTO_MEMCACHED:
            rc = mc_step(p, s, buf, len, &i);
            break;
        default:
            return -EINVAL;
        }
        s->total += i - i0;
        /* oversized first: a line is judged only when its LF arrives, so fed
         * whole a long bad line would read as malformed where fed in pieces
         * the same bytes pass the cap first; the same input, the same error */
        if (s->total > p->max_response) return -EMSGSIZE;
        if (rc < 0) return rc;
    }
    if (rc == LAT_LOADPROTO_DONE) s->phase = PH_START;
    *used = i;
    return rc;
}
