/* loadtarget.c - `latlab load`'s TARGET split into host, port, path and
 * scheme (http://, https://); the --targets file (many endpoints of one
 * service), the pick of a target for each request and the results per
 * target.  See loadtarget.h.  Its own file so that the engine (load.c) keeps
 * to connections and the schedule: it asks here what to send and says here
 * how it went. */
#include "latlab/loadtarget.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "latlab/json.h"
#include "latlab/loadverdict.h"

int lat_loadtarget_split(const char *t, char *host, size_t hn, char *port, const char **path,
                         const char **why, bool *tls_out) {
    const char *s = t, *def_port = NULL;
    *path = NULL;
    *why = NULL;
    bool tls = !strncmp(s, "https://", 8);
    if (tls_out) *tls_out = tls;
    if (tls || !strncmp(s, "http://", 7)) {
        s += tls ? 8 : 7;
        def_port = tls ? "443" : "80";
        const char *sl = strchr(s, '/');
        *path = sl;
    }
    size_t len = *path ? (size_t)(*path - s) : strlen(s);
    const char *hs = s, *he, *ps = NULL;
    if (*s == '[') {
        he = memchr(s, ']', len);
        if (!he) return *why = ": no ']'", -EINVAL;
        hs = s + 1;
        if (he + 1 < s + len && he[1] == ':') ps = he + 2;
    } else {
        const char *c = memchr(s, ':', len);
        he = c ? c : s + len;
        if (c) ps = c + 1;
    }
    size_t hl = (size_t)(he - hs), pl = ps ? (size_t)(s + len - ps) : 0;
    if (!hl || hl >= hn) return *why = ": no host", -EINVAL;
    if (!ps && !def_port) return *why = " is not HOST:PORT", -EINVAL;
    memcpy(host, hs, hl);
    host[hl] = 0;
    if (ps) {
        if (!pl || pl > 5 || strspn(ps, "0123456789") < pl) return *why = ": bad port", -EINVAL;
        memcpy(port, ps, pl);
        port[pl] = 0;
        long pn = strtol(port, NULL, 10);
        if (pn < 1 || pn > 65535) return *why = ": port out of range (1-65535)", -EINVAL;
    } else {
        strcpy(port, def_port);
    }
    return 0;
}

/* ---- the targets file ---------------------------------------------------------------------- */

#define TEXT_LINE_MAX 8192 /* a line of the targets file at most */

typedef struct target {
    char name[LAT_LOADTARGET_NAME_MAX], tag[LAT_LOADTARGET_NAME_MAX + 8], method[16];
    char path[LAT_LOADPROTO_LINE_MAX];
    char headers[LAT_LOADTARGET_HEADERS_MAX];
    char *body;
    unsigned weight;
    long line;
    lat_loadproto *proto;
    bool rec_ok;
    lat_hist_recorder rec; /* kept latency, every engine writing */
    lat_hist iv, tot;      /* the last interval; the run's */
    _Atomic uint64_t sent, completed, error_replies, censored;
} target;

struct lat_loadtargets {
    unsigned n, w; /* targets; the sum of their weights */
    lat_loadtarget_pick_kind pick;
    uint8_t *rr, *by_weight; /* w entries each: a round robin's period; i weight_i times */
    target *t[LAT_LOADTARGETS_MAX];
};

typedef struct parser {
    lat_loadtargets *ts;
    const char *name, *dir;
    const lat_loadtarget_origin *o;
    char *err;
    size_t errn;
    long line;
    target *cur; /* the block being read */
    bool body_seen;
} parser;

static int fault(parser *p, long line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fault(parser *p, long line, const char *fmt, ...) {
    int k = snprintf(p->err, p->errn, "%s line %ld: ", p->name, line);
    va_list ap;
    va_start(ap, fmt);
    if (k >= 0 && (size_t)k < p->errn) vsnprintf(p->err + k, p->errn - (size_t)k, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

void lat_loadtarget_destroy(lat_loadtargets *ts) {
    if (!ts) return;
    for (unsigned i = 0; i < ts->n; i++) {
        target *t = ts->t[i];
        free(t->body);
        free(t->proto);
        if (t->rec_ok) {
            lat_hist_recorder_fini(&t->rec);
            lat_hist_fini(&t->iv);
            lat_hist_fini(&t->tot);
        }
        free(t);
    }
    free(ts->rr);
    free(ts->by_weight);
    free(ts);
}

static bool name_char(char c) {
    return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.' || c == '/';
}

/* @PATH: the body, read now (relative to the file's folder). */
static int read_body(parser *p, target *t, const char *file) {
    char path[4096];
    if (p->body_seen) return fault(p, p->line, "a second body (@FILE) for one target");
    p->body_seen = true;
    if (!*file) return fault(p, p->line, "'@' without a file");
    bool rel = file[0] != '/' && p->dir;
    if (strlen(file) + (rel ? strlen(p->dir) + 1 : 0) >= sizeof path)
        return fault(p, p->line, "body file name: too long");
    snprintf(path, sizeof path, "%s%s%.4000s", rel ? p->dir : "", rel ? "/" : "", file);
    FILE *f = fopen(path, "rb");
    if (!f) return fault(p, p->line, "body file '%s': %s", path, strerror(errno));
    t->body = malloc(LAT_LOADTARGET_BODY_MAX + 2);
    size_t n = t->body ? fread(t->body, 1, LAT_LOADTARGET_BODY_MAX + 1, f) : 0;
    bool bad = ferror(f);
    fclose(f);
    if (!t->body) return -ENOMEM;
    if (bad) return fault(p, p->line, "body file '%s': read failed", path);
    if (n > LAT_LOADTARGET_BODY_MAX)
        return fault(p, p->line, "body file '%s': over %d bytes", path, LAT_LOADTARGET_BODY_MAX);
    if (memchr(t->body, 0, n)) return fault(p, p->line, "body file '%s': holds a NUL byte", path);
    t->body[n] = 0;
    return 0;
}

/* "METHOD URL [name=NAME] [weight=N]": a new target. */
static int first_line(parser *p, char *s) {
    lat_loadtargets *ts = p->ts;
    if (ts->n == LAT_LOADTARGETS_MAX)
        return fault(p, p->line, "more than %d targets", LAT_LOADTARGETS_MAX);
    target *t = calloc(1, sizeof *t);
    if (!t) return -ENOMEM;
    ts->t[ts->n++] = t;
    p->cur = t;
    p->body_seen = false;
    t->line = p->line;
    t->weight = 1;
    char *save = NULL, *m = strtok_r(s, " \t", &save), *url = strtok_r(NULL, " \t", &save);
    if (!url) return fault(p, p->line, "not 'METHOD URL [name=NAME] [weight=N]'");
    if (strlen(m) >= sizeof t->method || strspn(m, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != strlen(m))
        return fault(p, p->line, "method '%s': not 1-15 capital letters", m);
    if (!strcmp(m, "HEAD"))
        return fault(p, p->line, "HEAD: not in a targets file (its replies have no body)");
    strcpy(t->method, m);
    const char *path = url;
    if (url[0] != '/') {
        char host[256], port[8];
        const char *why;
        bool tls;
        if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
            return fault(p, p->line, "URL '%s': not http(s)://HOST[:PORT]/PATH or /PATH", url);
        if (lat_loadtarget_split(url, host, sizeof host, port, &path, &why, &tls))
            return fault(p, p->line, "URL '%s'%s", url, why);
        if (tls != p->o->tls || strcasecmp(host, p->o->host) || strcmp(port, p->o->port))
            return fault(p, p->line, "URL '%s': not on the run's origin %s://%s:%s", url,
                         p->o->tls ? "https" : "http", p->o->host, p->o->port);
        if (!path) path = "/";
    }
    if (strlen(path) >= sizeof t->path) return fault(p, p->line, "path: too long");
    strcpy(t->path, path);
    for (char *w; (w = strtok_r(NULL, " \t", &save));) {
        if (!strncmp(w, "name=", 5)) {
            const char *v = w + 5;
            size_t k = strlen(v);
            if (!k || k >= sizeof t->name ||
                strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
                          "qrstuvwxyz0123456789_-./") != k)
                return fault(p, p->line, "name '%s': not 1-%d of letters, digits, _-./", v,
                             LAT_LOADTARGET_NAME_MAX - 1);
            strcpy(t->name, v);
        } else if (!strncmp(w, "weight=", 7)) {
            char *end;
            errno = 0;
            unsigned long v = strtoul(w + 7, &end, 10);
            if (!isdigit((unsigned char)w[7]) || *end || errno || !v ||
                v > LAT_LOADTARGET_WEIGHT_MAX)
                return fault(p, p->line, "weight '%s': not 1..%d", w + 7,
                             LAT_LOADTARGET_WEIGHT_MAX);
            t->weight = (unsigned)v;
        } else {
            return fault(p, p->line, "'%s': not name=NAME or weight=N", w);
        }
    }
    if (!t->name[0]) { /* the path, as a name may be spelled */
        size_t k = 0;
        for (const char *c = t->path; *c && k + 1 < sizeof t->name; c++)
            t->name[k++] = name_char(*c) ? *c : '_';
        t->name[k] = 0;
    }
    for (unsigned i = 0; i + 1 < ts->n; i++)
        if (!strcmp(ts->t[i]->name, t->name))
            return fault(p, p->line, "name '%s': already line %ld's (give name=)", t->name,
                         ts->t[i]->line);
    snprintf(t->tag, sizeof t->tag, "latency.%s", t->name);
    return 0;
}

/* "Header: value" or @PATH in a block. */
static int body_line(parser *p, const char *s) {
    target *t = p->cur;
    if (s[0] == '@') return read_body(p, t, s + 1);
    const char *c = strchr(s, ':');
    if (!c || c == s || strcspn(s, " \t") < (size_t)(c - s))
        return fault(p, p->line, "not 'Header: value', '@FILE' or a '#' comment");
    size_t k = strlen(t->headers), n = strlen(s);
    if (k + n + 2 >= sizeof t->headers)
        return fault(p, p->line, "headers: over %d bytes for one target",
                     LAT_LOADTARGET_HEADERS_MAX);
    snprintf(t->headers + k, sizeof t->headers - k, "%s%s", k ? "\r\n" : "", s);
    return 0;
}

/* The block ended: its request built. */
static int end_block(parser *p) {
    target *t = p->cur;
    p->cur = NULL;
    if (!t) return 0;
    if (!(t->proto = malloc(sizeof *t->proto))) return -ENOMEM;
    lat_loadproto_opts po = {.kind = LAT_LOADPROTO_HTTP,
                             .method = t->method,
                             .path = t->path,
                             .host = p->o->host_header ? p->o->host_header : p->o->host,
                             .headers = t->headers[0] ? t->headers : NULL,
                             .body = t->body,
                             .max_response = p->o->max_response};
    int rc = lat_loadproto_init(t->proto, &po);
    if (rc == -E2BIG)
        return fault(p, t->line, "the request is larger than %d bytes", LAT_LOADPROTO_REQ_MAX);
    if (rc) return fault(p, t->line, "path '%s': a space or line break where none may be", t->path);
    return 0;
}

/* The pick's tables: a smooth weighted round robin's period (each step
 * every target gains its weight, the one with the most goes and loses the
 * sum) and every target weight times, in order. */
static int tables(lat_loadtargets *ts) {
    for (unsigned i = 0; i < ts->n; i++)
        ts->w += ts->t[i]->weight;
    ts->rr = malloc(ts->w);
    ts->by_weight = malloc(ts->w);
    if (!ts->rr || !ts->by_weight) return -ENOMEM;
    long cur[LAT_LOADTARGETS_MAX] = {0};
    for (unsigned k = 0; k < ts->w; k++) {
        unsigned best = 0;
        for (unsigned i = 0; i < ts->n; i++) {
            cur[i] += ts->t[i]->weight;
            if (cur[i] > cur[best]) best = i;
        }
        cur[best] -= (long)ts->w;
        ts->rr[k] = (uint8_t)best;
    }
    for (unsigned i = 0, j = 0; i < ts->n; i++)
        for (unsigned k = 0; k < ts->t[i]->weight; k++)
            ts->by_weight[j++] = (uint8_t)i;
    for (unsigned i = 0; i < ts->n; i++) {
        target *t = ts->t[i];
        if (lat_hist_recorder_init(&t->rec, 1, 3600000000000ll, 3)) return -ENOMEM;
        if (lat_hist_init(&t->iv, 1, 3600000000000ll, 3) ||
            lat_hist_init(&t->tot, 1, 3600000000000ll, 3)) {
            lat_hist_recorder_fini(&t->rec);
            lat_hist_fini(&t->iv);
            return -ENOMEM;
        }
        t->rec_ok = true;
    }
    return 0;
}

static int parse_lines(parser *p, const char *text) {
    char buf[TEXT_LINE_MAX];
    for (const char *s = text; *s;) {
        const char *e = strchr(s, '\n');
        size_t k = e ? (size_t)(e - s) : strlen(s);
        p->line++;
        if (k >= sizeof buf) return fault(p, p->line, "over %d bytes", TEXT_LINE_MAX - 1);
        memcpy(buf, s, k);
        buf[k] = 0;
        s += k + (e != NULL);
        if (k && buf[k - 1] == '\r') buf[--k] = 0;
        const char *t = buf + strspn(buf, " \t");
        int rc = 0;
        if (!*t)
            rc = end_block(p);
        else if (*t == '#')
            continue;
        else if (!p->cur)
            rc = first_line(p, buf);
        else
            rc = body_line(p, buf);
        if (rc) return rc;
    }
    return end_block(p);
}

int lat_loadtarget_parse(const char *text, const char *name, const char *dir,
                         const lat_loadtarget_origin *o, lat_loadtarget_pick_kind pick,
                         lat_loadtargets **out, char *err, size_t errn) {
    if (!text || !name || !o || !o->host || !o->port || !out || !err || !errn) return -EINVAL;
    *out = NULL;
    err[0] = 0;
    parser p = {
        .ts = calloc(1, sizeof *p.ts), .name = name, .dir = dir, .o = o, .err = err, .errn = errn};
    if (!p.ts) return -ENOMEM;
    p.ts->pick = pick;
    int rc = parse_lines(&p, text);
    if (!rc && !p.ts->n) {
        snprintf(err, errn, "%s: no targets in it", name);
        rc = -EINVAL;
    }
    if (!rc) rc = tables(p.ts);
    if (rc == -ENOMEM && !err[0]) snprintf(err, errn, "%s: out of memory", name);
    if (rc) {
        lat_loadtarget_destroy(p.ts);
        return rc;
    }
    *out = p.ts;
    return 0;
}

int lat_loadtarget_read_file(const char *path, const lat_loadtarget_origin *o,
                             lat_loadtarget_pick_kind pick, lat_loadtargets **out, char *err,
                             size_t errn) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        snprintf(err, errn, "%s: %s", path, strerror(e));
        return -e;
    }
    char *text = malloc(LAT_LOADTARGETS_FILE_MAX + 1), dir[4096];
    size_t n = text ? fread(text, 1, LAT_LOADTARGETS_FILE_MAX + 1, f) : 0;
    int rc = !text ? -ENOMEM : ferror(f) ? -EIO : 0;
    fclose(f);
    if (!rc && n > LAT_LOADTARGETS_FILE_MAX) {
        snprintf(err, errn, "%s: over %d bytes", path, LAT_LOADTARGETS_FILE_MAX);
        rc = -EINVAL;
    } else if (!rc && memchr(text, 0, n)) {
        snprintf(err, errn, "%s: holds a NUL byte (not a text file)", path);
        rc = -EINVAL;
    } else if (rc) {
        snprintf(err, errn, "%s: %s", path, strerror(-rc));
    }
    if (!rc) {
        text[n] = 0;
        const char *sl = strrchr(path, '/');
        snprintf(dir, sizeof dir, "%.*s", sl ? (int)(sl - path) : 1, sl ? path : ".");
        if (sl == path) strcpy(dir, "/");
        rc = lat_loadtarget_parse(text, path, dir, o, pick, out, err, errn);
    }
    free(text);
    return rc;
}

/* ---- the pick and the engine's side ---------------------------------------------------- */

unsigned lat_loadtarget_count(const lat_loadtargets *ts) {
    return ts->n;
}
const char *lat_loadtarget_name(const lat_loadtargets *ts, unsigned i) {
    return ts->t[i]->name;
}
unsigned lat_loadtarget_weight(const lat_loadtargets *ts, unsigned i) {
    return ts->t[i]->weight;
}
const lat_loadproto *lat_loadtarget_proto(const lat_loadtargets *ts, unsigned i) {
    return ts->t[i]->proto;
}
size_t lat_loadtarget_req_max(const lat_loadtargets *ts) {
    size_t m = 0;
    for (unsigned i = 0; i < ts->n; i++)
        if (ts->t[i]->proto->req_len > m) m = ts->t[i]->proto->req_len;
    return m;
}
const char *lat_loadtarget_tag(const lat_loadtargets *ts, unsigned i) {
    return ts->t[i]->tag;
}
const char *lat_loadtarget_pick_name(lat_loadtarget_pick_kind k) {
    return k == LAT_LOADTARGET_RANDOM ? "random" : "round-robin";
}

unsigned lat_loadtarget_pick(const lat_loadtargets *ts, uint64_t seed, uint64_t n) {
    if (ts->pick == LAT_LOADTARGET_ROUND_ROBIN) return ts->rr[n % ts->w];
    /* splitmix64's finalizer over (seed, n): its own stream, apart from the
     * schedule's and the shards' marks (loadsched.c) */
    uint64_t z = (seed ^ 0x243f6a8885a308d3ull) + (n + 1) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return ts->by_weight[(z ^ (z >> 31)) % ts->w];
}

const uint8_t *lat_loadtarget_request(const lat_loadtargets *ts, uint64_t seed, uint64_t n,
                                      unsigned *i, size_t *len) {
    *i = lat_loadtarget_pick(ts, seed, n);
    *len = ts->t[*i]->proto->req_len;
    return ts->t[*i]->proto->req;
}

/* One writer per engine, several engines: relaxed atomic adds. */
void lat_loadtarget_sent(lat_loadtargets *ts, unsigned i) {
    atomic_fetch_add_explicit(&ts->t[i]->sent, 1, memory_order_relaxed);
}

void lat_loadtarget_done(lat_loadtargets *ts, unsigned i, int64_t latency_ns, bool censored,
                         bool error_reply) {
    target *t = ts->t[i];
    atomic_fetch_add_explicit(&t->completed, 1, memory_order_relaxed);
    if (error_reply) atomic_fetch_add_explicit(&t->error_replies, 1, memory_order_relaxed);
    if (censored)
        atomic_fetch_add_explicit(&t->censored, 1, memory_order_relaxed);
    else
        lat_hist_recorder_record(&t->rec, latency_ns);
}

/* ---- the results -------------------------------------------------------------------------- */

void lat_loadtarget_counts_get(const lat_loadtargets *ts, unsigned i, lat_loadtarget_counts *out) {
    const target *t = ts->t[i];
    out->sent = atomic_load_explicit(&t->sent, memory_order_relaxed);
    out->completed = atomic_load_explicit(&t->completed, memory_order_relaxed);
    out->error_replies = atomic_load_explicit(&t->error_replies, memory_order_relaxed);
    out->censored = atomic_load_explicit(&t->censored, memory_order_relaxed);
    out->failed = out->sent > out->completed ? out->sent - out->completed : 0;
}

int lat_loadtarget_tick(lat_loadtargets *ts) {
    for (unsigned i = 0; i < ts->n; i++) {
        int rc = lat_hist_recorder_interval(&ts->t[i]->rec, &ts->t[i]->iv);
        if (rc) return rc;
        lat_hist_add(&ts->t[i]->tot, &ts->t[i]->iv);
    }
    return 0;
}

const lat_hist *lat_loadtarget_hist(const lat_loadtargets *ts, unsigned i, bool total) {
    return total ? &ts->t[i]->tot : &ts->t[i]->iv;
}

int lat_loadtarget_worst(const lat_loadtargets *ts, double p) {
    int worst = -1;
    int64_t wv = -1;
    for (unsigned i = 0; i < ts->n; i++) {
        lat_hist_ci ci;
        const lat_hist *h = &ts->t[i]->tot;
        if (!lat_hist_total(h) || lat_hist_cis_at_percentiles(h, &p, LAT_HIST_CI_DEFAULT, &ci, 1) ||
            ci.max_bound)
            continue;
        if (ci.value > wv) wv = ci.value, worst = (int)i;
    }
    return worst;
}

/* Target i's verdict into buf: the run's when invalid; else valid, or the
 * percentiles whose interval is wider than ci_width of their value. */
static const char *verdict(const lat_hist_ci *ci, const lat_hist *h, const double *ps, size_t nps,
                           bool run_valid, double ci_width, char *buf, size_t n) {
    if (!run_valid) return "invalid (the run's verdict)";
    if (!lat_hist_total(h)) return "no latency (nothing completed)";
    size_t k = (size_t)snprintf(buf, n, "wide:");
    for (size_t j = 0; j < nps && k < n; j++)
        if (!ci[j].max_bound && ci[j].value > 0 &&
            (double)(ci[j].hi - ci[j].lo) > ci_width * (double)ci[j].value)
            k += (size_t)snprintf(buf + k, n - k, " p%g", ps[j]);
    return k > 5 ? buf : "valid";
}

void lat_loadtarget_write(FILE *f, const lat_loadtargets *ts, const double *ps, size_t nps,
                          bool run_valid, double ci_width) {
    if (nps > 8) nps = 8;
    fprintf(f, "\nper target (%s pick; latency us, 95%% intervals):\n%-16s %6s %9s %9s %7s %7s",
            lat_loadtarget_pick_name(ts->pick), "target", "weight", "sent", "completed", "failed",
            "errors");
    for (size_t j = 0; j < nps; j++) {
        char h[16];
        snprintf(h, sizeof h, "p%g", ps[j]);
        fprintf(f, " %24s", h);
    }
    fprintf(f, "  verdict\n");
    for (unsigned i = 0; i < ts->n; i++) {
        const lat_hist *h = &ts->t[i]->tot;
        lat_loadtarget_counts c;
        lat_loadtarget_counts_get(ts, i, &c);
        lat_hist_ci ci[8];
        lat_hist_cis_at_percentiles(h, ps, LAT_HIST_CI_DEFAULT, ci, nps);
        fprintf(f, "%-16s %6u %9llu %9llu %7llu %7llu", ts->t[i]->name, ts->t[i]->weight,
                (unsigned long long)c.sent, (unsigned long long)c.completed,
                (unsigned long long)c.failed, (unsigned long long)c.error_replies);
        for (size_t j = 0; j < nps; j++) {
            char v[64] = "-";
            if (lat_hist_total(h) && !ci[j].max_bound)
                snprintf(v, sizeof v, "%.1f [%.1f, %.1f]", (double)ci[j].value / 1e3,
                         (double)ci[j].lo / 1e3, (double)ci[j].hi / 1e3);
            fprintf(f, " %24s", v);
        }
        char vb[96];
        fprintf(f, "  %s\n", verdict(ci, h, ps, nps, run_valid, ci_width, vb, sizeof vb));
    }
    int w = lat_loadtarget_worst(ts, 99);
    if (w >= 0)
        fprintf(f, "worst tail: %s (p99 %.1f us)\n", ts->t[w]->name,
                (double)lat_hist_value_at_percentile(&ts->t[w]->tot, 99) / 1e3);
    else
        fprintf(f, "worst tail: none has enough samples for p99\n");
}

json_t *lat_loadtarget_json(const lat_loadtargets *ts, const double *ps, size_t nps, bool run_valid,
                            double ci_width) {
    json_t *a = json_array();
    if (nps > 8) nps = 8;
    int w = lat_loadtarget_worst(ts, 99);
    for (unsigned i = 0; i < ts->n; i++) {
        const target *t = ts->t[i];
        lat_loadtarget_counts c;
        lat_loadtarget_counts_get(ts, i, &c);
        lat_hist_ci ci[8];
        lat_hist_cis_at_percentiles(&t->tot, ps, LAT_HIST_CI_DEFAULT, ci, nps);
        char vb[96];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(t->name));
        json_object_set_new(o, "method", json_string(t->method));
        json_object_set_new(o, "path", json_string(t->path));
        json_object_set_new(o, "weight", json_integer(t->weight));
        json_object_set_new(o, "sent", json_integer((json_int_t)c.sent));
        json_object_set_new(o, "completed", json_integer((json_int_t)c.completed));
        json_object_set_new(o, "failed", json_integer((json_int_t)c.failed));
        json_object_set_new(o, "error_replies", json_integer((json_int_t)c.error_replies));
        json_object_set_new(o, "censored", json_integer((json_int_t)c.censored));
        json_object_set_new(o, "latency", lat_load_hist_json(&t->tot, ps, nps));
        json_object_set_new(
            o, "verdict",
            json_string(verdict(ci, &t->tot, ps, nps, run_valid, ci_width, vb, sizeof vb)));
        json_object_set_new(o, "worst_tail", json_boolean(w == (int)i));
        json_array_append_new(a, o);
    }
    return a;
}
