/* flame.c - sampled call stacks: perf-script and folded readers, the call
 * tree, frame shares, the SVG flamegraph and the comparison (see flame.h).
 *
 * The profile is a tree stored as an array of nodes (a node's index is always
 * larger than its parent's, so one forward pass visits parents first) with a
 * hash from (parent, frame) to node, and an interned table of frame names with
 * their kind.  Input is parsed line by line as it is pushed; a sample is added
 * when its blank line (or the next header, or the end) arrives, so memory is
 * the tree plus one line and one stack, whatever the input's size. */
#include "latlab/flame.h"

#include "report/sbuf.h"

#include "alloc_internal.h"
#include "error_internal.h"
#include "latlab/atomicfile.h"
#include "latlab/error.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

typedef struct frame {
    char *name;
    uint32_t kind;
    uint64_t hash;
} frame;

typedef struct node {
    uint32_t frame;   /* NONE for the root */
    uint32_t parent;  /* NONE for the root */
    uint32_t child;   /* first child, NONE when a leaf */
    uint32_t sibling; /* next child of the parent */
    uint64_t self, total;
} node;

struct lat_flame {
    int fmt;
    frame *frames;
    size_t nframes, capframes;
    uint32_t *fslot; /* open addressing: frame index + 1, 0 free */
    size_t fslots;
    node *nodes; /* nodes[0] is the root, "all" */
    size_t nnodes, capnodes;
    uint32_t *nslot; /* (parent, frame) -> node index + 1 */
    size_t nslots;
    uint64_t samples;
    uint64_t unknown_folded; /* [unknown] frames folded into the run's first (stack frames) */
    char event[64];
    /* parse state */
    char *line;
    size_t linelen, linecap;
    size_t lineno, err_line;
    int err;
    const char *why; /* the first format error's reason (static), NULL: none */
    bool in_sample, finished;
    uint32_t thread;
    uint32_t *stk; /* frame ids of the current sample, innermost first */
    size_t nstk, capstk;
};

/* ---- small helpers ------------------------------------------------------------ */

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 16;
    while (c < need) {
        if (c > ((size_t)-1) / 2 / elem) return -ENOMEM;
        c *= 2;
    }
    void *n = lat__alloc(c * elem);
    if (!n) return -ENOMEM;
    if (*cap) memcpy(n, *p, *cap * elem);
    lat__free(*p);
    *p = n;
    *cap = c;
    return 0;
}

static uint64_t hash_bytes(const char *s, size_t n, uint64_t h) {
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static bool ends_with(const char *s, size_t n, const char *suf) {
    size_t k = strlen(suf);
    return n >= k && !memcmp(s + n - k, suf, k);
}

/* Kind of an annotated folded name. */
static int kind_of(const char *s, size_t n) {
    if (ends_with(s, n, "_[k]")) return LAT_FLAME_KERNEL;
    if (ends_with(s, n, "_[i]")) return LAT_FLAME_INLINED;
    if (n >= 2 && s[0] == '[' && s[n - 1] == ']') return LAT_FLAME_UNKNOWN;
    return LAT_FLAME_USER;
}

/* Length of a valid UTF-8 sequence at s (of at most n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n) {
    if (s[0] < 0x80) return 1;
    size_t k = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (!k || k > n || s[0] > 0xf4) return 0;
    for (size_t i = 1; i < k; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    return k;
}

/* ---- the tables ---------------------------------------------------------------- */

/* Put value in the first free slot from h on (open addressing, linear
 * probing; slots is a power of two with a free slot left). */
static void slot_put(uint32_t *t, size_t slots, uint64_t h, uint32_t value) {
    size_t j = h & (slots - 1);
    while (t[j])
        j = (j + 1) & (slots - 1);
    t[j] = value;
}

/* Replace *table by a table of `slots` slots holding entries first..n-1 (as
 * index + 1), each placed by hash_at(f, index). */
static int rehash(const lat_flame *f, size_t first, size_t n,
                  uint64_t (*hash_at)(const lat_flame *, size_t), size_t slots, uint32_t **table,
                  size_t *nslots) {
    uint32_t *t = lat__calloc(slots, sizeof *t);
    if (!t) return -ENOMEM;
    for (size_t i = first; i < n; i++)
        slot_put(t, slots, hash_at(f, i), (uint32_t)i + 1);
    lat__free(*table);
    *table = t;
    *nslots = slots;
    return 0;
}

static uint64_t frame_hash_at(const lat_flame *f, size_t i) {
    return f->frames[i].hash;
}

static int rehash_frames(lat_flame *f, size_t slots) {
    return rehash(f, 0, f->nframes, frame_hash_at, slots, &f->fslot, &f->fslots);
}

/* Intern name[0..n) of kind, cleaned (';' -> ':', invalid UTF-8 and control
 * characters -> '?', empty -> "[unknown]"). */
static int intern(lat_flame *f, const char *name, size_t n, int kind, uint32_t *id) {
    char small[256];
    char *buf = n < sizeof small ? small : lat__alloc(n + 1);
    if (!buf) return -ENOMEM;
    size_t m = 0;
    for (size_t i = 0; i < n;) {
        size_t k = utf8_len((const unsigned char *)name + i, n - i);
        if (!k || (unsigned char)name[i] < 0x20 || name[i] == 0x7f) {
            buf[m++] = '?';
            i++;
            continue;
        }
        for (size_t j = 0; j < k; j++)
            buf[m++] = name[i + j] == ';' ? ':' : name[i + j];
        i += k;
    }
    if (!m) {
        memcpy(buf, "[unknown]", 9);
        m = 9;
        if (kind != LAT_FLAME_THREAD) kind = LAT_FLAME_UNKNOWN;
    }
    buf[m] = 0;
    uint64_t h = mix(hash_bytes(buf, m, 14695981039346656037ull) + (uint64_t)kind);
    int rc = 0;
    if (f->fslots) {
        for (size_t j = h & (f->fslots - 1); f->fslot[j]; j = (j + 1) & (f->fslots - 1)) {
            frame *fr = &f->frames[f->fslot[j] - 1];
            if (fr->hash == h && fr->kind == (uint32_t)kind && !strcmp(fr->name, buf)) {
                *id = f->fslot[j] - 1;
                goto out;
            }
        }
    }
    if (f->nframes >= NONE - 1) {
        rc = -ENOMEM;
        goto out;
    }
    if ((rc = grow((void **)&f->frames, &f->capframes, f->nframes + 1, sizeof *f->frames)))
        goto out;
    if ((f->nframes + 1) * 2 > f->fslots && (rc = rehash_frames(f, f->fslots ? f->fslots * 2 : 64)))
        goto out;
    char *copy = lat__alloc(m + 1);
    if (!copy) {
        rc = -ENOMEM;
        goto out;
    }
    memcpy(copy, buf, m + 1);
    f->frames[f->nframes] = (frame){copy, (uint32_t)kind, h};
    slot_put(f->fslot, f->fslots, h, (uint32_t)f->nframes + 1);
    *id = (uint32_t)f->nframes++;
out:
    if (buf != small) lat__free(buf);
    return rc;
}

static uint64_t node_hash(uint32_t parent, uint32_t fr) {
    return mix(((uint64_t)parent << 32) ^ fr);
}

static uint64_t node_hash_at(const lat_flame *f, size_t i) {
    return node_hash(f->nodes[i].parent, f->nodes[i].frame);
}

static int rehash_nodes(lat_flame *f, size_t slots) {
    return rehash(f, 1, f->nnodes, node_hash_at, slots, &f->nslot, &f->nslots);
}

/* The child of parent for frame fr, created when missing. */
static int child_of(lat_flame *f, uint32_t parent, uint32_t fr, uint32_t *out) {
    uint64_t h = node_hash(parent, fr);
    if (f->nslots) {
        for (size_t j = h & (f->nslots - 1); f->nslot[j]; j = (j + 1) & (f->nslots - 1)) {
            node *n = &f->nodes[f->nslot[j] - 1];
            if (n->parent == parent && n->frame == fr) {
                *out = f->nslot[j] - 1;
                return 0;
            }
        }
    }
    if (f->nnodes >= NONE - 1) return -ENOMEM;
    int rc = grow((void **)&f->nodes, &f->capnodes, f->nnodes + 1, sizeof *f->nodes);
    if (rc) return rc;
    if ((f->nnodes + 1) * 2 > f->nslots && (rc = rehash_nodes(f, f->nslots ? f->nslots * 2 : 64)))
        return rc;
    uint32_t id = (uint32_t)f->nnodes++;
    f->nodes[id] = (node){fr, parent, NONE, f->nodes[parent].child, 0, 0};
    f->nodes[parent].child = id;
    slot_put(f->nslot, f->nslots, h, id + 1);
    *out = id;
    return 0;
}

/* Add count samples of the stack ids[0..n) (innermost first when
 * inner_first, else outermost first) under thread (NONE: no thread level). */
static int add_ids(lat_flame *f, uint32_t thread, const uint32_t *ids, size_t n, bool inner_first,
                   uint64_t count) {
    if (count > UINT64_MAX - f->samples) return LAT_EFORMAT;
    uint32_t at = 0;
    int rc;
    f->nodes[0].total += count;
    if (thread != NONE) {
        if ((rc = child_of(f, at, thread, &at))) return rc;
        f->nodes[at].total += count;
    }
    uint32_t prev = NONE;
    for (size_t i = 0; i < n; i++) {
        uint32_t id = ids[inner_first ? n - 1 - i : i];
        /* a run of one unknown frame carries nothing more than the frame once */
        if (id == prev && f->frames[id].kind == LAT_FLAME_UNKNOWN) {
            f->unknown_folded++;
            continue;
        }
        prev = id;
        if ((rc = child_of(f, at, id, &at))) return rc;
        f->nodes[at].total += count;
    }
    f->nodes[at].self += count;
    f->samples += count;
    return 0;
}

/* ---- create / destroy ------------------------------------------------------------ */

int lat_flame_create(lat_flame_format fmt, lat_flame **out) {
    if (!out) return -EINVAL;
    *out = NULL;
    if (fmt != LAT_FLAME_PERF_SCRIPT && fmt != LAT_FLAME_FOLDED && fmt != LAT_FLAME_FOLDED_NOTHREAD)
        return -EINVAL;
    lat_flame *f = lat__calloc(1, sizeof *f);
    if (!f) return -ENOMEM;
    f->fmt = fmt;
    f->thread = NONE;
    if (grow((void **)&f->nodes, &f->capnodes, 1, sizeof *f->nodes)) {
        lat__free(f);
        return -ENOMEM;
    }
    f->nodes[0] = (node){NONE, NONE, NONE, NONE, 0, 0};
    f->nnodes = 1;
    *out = f;
    return 0;
}

void lat_flame_destroy(lat_flame *f) {
    if (!f) return;
    for (size_t i = 0; i < f->nframes; i++)
        lat__free(f->frames[i].name);
    lat__free(f->frames);
    lat__free(f->fslot);
    lat__free(f->nodes);
    lat__free(f->nslot);
    lat__free(f->line);
    lat__free(f->stk);
    lat__free(f);
}

/* ---- perf script ------------------------------------------------------------------ */

static bool is_ws(char c) {
    return c == ' ' || c == '\t';
}

static bool is_hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool all_of(const char *s, size_t n, const char *set) {
    if (!n) return false;
    for (size_t i = 0; i < n; i++)
        if (!strchr(set, s[i])) return false;
    return true;
}

/* A format error with its reason (the first one is kept). */
static int bad(lat_flame *f, const char *why) {
    if (!f->why) f->why = why;
    return LAT_EFORMAT;
}

/* Push one frame "ADDR SYM[+0xOFF] (DSO)" or "ADDR SYM (inlined)", s[0..n)
 * starting at the address. */
static int perf_frame(lat_flame *f, const char *s, size_t n) {
    size_t a = 0;
    while (a < n && is_hex(s[a]))
        a++;
    if (!a || (a < n && !is_ws(s[a])))
        return bad(f, "a frame line is not 'ADDRESS SYMBOL (DSO)' (perf script output)");
    bool kaddr = a == 16 && strchr("fF", s[0]) && strchr("fF", s[1]) && strchr("fF", s[2]) &&
                 strchr("fF", s[3]);
    const char *sym = s + a;
    size_t len = n - a;
    while (len && is_ws(*sym))
        sym++, len--;
    while (len && is_ws(sym[len - 1]))
        len--;
    bool inlined = false;
    const char *dso = NULL;
    size_t dlen = 0;
    if (ends_with(sym, len, " (inlined)")) {
        inlined = true;
        len -= 10;
    } else if (len && sym[len - 1] == ')') {
        for (size_t i = len - 1; i-- > 0;) {
            if (sym[i] == '(' && (i == 0 || sym[i - 1] == ' ')) {
                dso = sym + i + 1;
                dlen = len - i - 2;
                len = i ? i - 1 : 0;
                break;
            }
        }
    }
    while (len && is_ws(sym[len - 1]))
        len--;
    bool kernel = dso ? (dlen >= 7 && !memcmp(dso, "[kernel", 7)) || ends_with(dso, dlen, ".ko") ||
                            ends_with(dso, dlen, ".ko]")
                      : kaddr;
    if (dso && dlen == 9 && !memcmp(dso, "[unknown]", 9)) kernel = kaddr;
    char buf[LAT_FLAME_MAX_LINE + 16];
    size_t m = 0;
    int kind;
    if (!len || (len == 9 && !memcmp(sym, "[unknown]", 9))) {
        kind = LAT_FLAME_UNKNOWN;
        if (dso && dlen && !(dlen == 9 && !memcmp(dso, "[unknown]", 9))) {
            const char *base = dso;
            size_t blen = dlen;
            if (dso[0] != '[') {
                for (size_t i = 0; i < dlen; i++)
                    if (dso[i] == '/') base = dso + i + 1;
                blen = (size_t)(dso + dlen - base);
            }
            if (base[0] == '[') {
                memcpy(buf, base, blen);
                m = blen;
            } else {
                buf[m++] = '[';
                memcpy(buf + m, base, blen);
                m += blen;
                buf[m++] = ']';
            }
        } else {
            memcpy(buf, "[unknown]", 9);
            m = 9;
        }
    } else {
        /* strip "+0x1f" */
        for (size_t i = len; i-- > 2;) {
            if (sym[i] == 'x' && sym[i - 1] == '0' && sym[i - 2] == '+' && i + 1 < len &&
                all_of(sym + i + 1, len - i - 1, "0123456789abcdefABCDEF")) {
                len = i - 2;
                break;
            }
            if (!is_hex(sym[i])) break;
        }
        memcpy(buf, sym, len);
        m = len;
        kind = LAT_FLAME_USER;
        if (inlined) {
            memcpy(buf + m, "_[i]", 4);
            m += 4;
            kind = LAT_FLAME_INLINED;
        } else if (kernel) {
            memcpy(buf + m, "_[k]", 4);
            m += 4;
            kind = LAT_FLAME_KERNEL;
        }
    }
    if (f->nstk >= LAT_FLAME_MAX_DEPTH) return LAT_EFORMAT;
    int rc = grow((void **)&f->stk, &f->capstk, f->nstk + 1, sizeof *f->stk);
    if (rc) return rc;
    return intern(f, buf, m, kind, &f->stk[f->nstk++]);
}

static int end_sample(lat_flame *f) {
    if (!f->in_sample) return 0;
    f->in_sample = false;
    int rc = add_ids(f, f->thread, f->stk, f->nstk, true, 1);
    f->nstk = 0;
    return rc;
}

/* "COMM TID [CPU] TIME: [PERIOD] EVENT: [ADDR SYM (DSO)]" */
static int perf_header(lat_flame *f, const char *s, size_t n) {
    int rc = end_sample(f);
    if (rc) return rc;
    enum { MAXTOK = 64 };
    size_t ts[MAXTOK], te[MAXTOK];
    int nt = 0;
    for (size_t i = 0; i < n && nt < MAXTOK;) {
        while (i < n && is_ws(s[i]))
            i++;
        if (i >= n) break;
        ts[nt] = i;
        while (i < n && !is_ws(s[i]))
            i++;
        te[nt++] = i;
    }
    size_t comm_end = nt ? te[0] : 0;
    int ti = -1;
    for (int k = 1; k < nt; k++) {
        size_t len = te[k] - ts[k];
        const char *t = s + ts[k];
        const char *dot = memchr(t, '.', len);
        if (len >= 4 && t[len - 1] == ':' && dot && all_of(t, (size_t)(dot - t), "0123456789") &&
            all_of(dot + 1, len - 2 - (size_t)(dot - t), "0123456789")) {
            ti = k;
            break;
        }
    }
    /* perf script's sample header: COMM [TID] [CPU] TIME: [PERIOD] EVENT: ... */
    int ev = ti + 1;
    if (ti > 0 && ev < nt && all_of(s + ts[ev], te[ev] - ts[ev], "0123456789")) ev++;
    if (ti <= 0 || ev >= nt || s[te[ev] - 1] != ':')
        return bad(f, "not a perf script sample header ('COMM TID TIME: EVENT:')");
    if (ti > 0) {
        int k = ti - 1;
        if (k >= 1 && s[ts[k]] == '[') k--;
        if (k >= 1 && all_of(s + ts[k], te[k] - ts[k], "0123456789/")) {
            comm_end = ts[k];
            while (comm_end && is_ws(s[comm_end - 1]))
                comm_end--;
        }
        int ei = ti + 1;
        if (ei < nt && all_of(s + ts[ei], te[ei] - ts[ei], "0123456789")) ei++;
        if (ei < nt && s[te[ei] - 1] == ':') {
            if (!f->event[0]) {
                size_t len = te[ei] - ts[ei] - 1;
                if (len >= sizeof f->event) len = sizeof f->event - 1;
                memcpy(f->event, s + ts[ei], len);
                f->event[len] = 0;
            }
            if (ei + 1 < nt && is_hex(s[ts[ei + 1]]) &&
                (rc = perf_frame(f, s + ts[ei + 1], n - ts[ei + 1])))
                return rc;
        }
    }
    if ((rc = intern(f, s, comm_end, LAT_FLAME_THREAD, &f->thread))) return rc;
    f->in_sample = true;
    return 0;
}

static int perf_line(lat_flame *f, const char *s, size_t n) {
    size_t i = 0;
    while (i < n && is_ws(s[i]))
        i++;
    if (i == n) return end_sample(f);
    if (i == 0) return perf_header(f, s, n);
    if (!f->in_sample) return bad(f, "an indented frame line before any sample header");
    return perf_frame(f, s + i, n - i);
}

/* ---- folded ----------------------------------------------------------------------- */

/* "a;b;c COUNT" (the first frame is the thread in LAT_FLAME_FOLDED). */
static int folded_line(lat_flame *f, const char *s, size_t n) {
    while (n && is_ws(s[n - 1]))
        n--;
    if (!n) return 0;
    size_t sp = n;
    while (sp && !is_ws(s[sp - 1]))
        sp--;
    if (!sp || !all_of(s + sp, n - sp, "0123456789") || n - sp > 20) return LAT_EFORMAT;
    uint64_t count = 0;
    for (size_t i = sp; i < n; i++) {
        uint64_t d = (uint64_t)(s[i] - '0');
        if (count > (UINT64_MAX - d) / 10) return LAT_EFORMAT;
        count = count * 10 + d;
    }
    size_t end = sp;
    while (end && is_ws(s[end - 1]))
        end--;
    if (!end) return LAT_EFORMAT;
    f->nstk = 0;
    uint32_t thread = NONE;
    bool first = f->fmt == LAT_FLAME_FOLDED;
    for (size_t a = 0; a <= end;) {
        const char *semi = memchr(s + a, ';', end - a);
        size_t b = semi ? (size_t)(semi - s) : end;
        if (b == a) return LAT_EFORMAT; /* empty frame */
        int rc;
        if (first) {
            if ((rc = intern(f, s + a, b - a, LAT_FLAME_THREAD, &thread))) return rc;
            first = false;
        } else {
            if (f->nstk >= LAT_FLAME_MAX_DEPTH) return LAT_EFORMAT;
            if ((rc = grow((void **)&f->stk, &f->capstk, f->nstk + 1, sizeof *f->stk))) return rc;
            if ((rc = intern(f, s + a, b - a, kind_of(s + a, b - a), &f->stk[f->nstk]))) return rc;
            f->nstk++;
        }
        a = b + 1;
    }
    int rc = add_ids(f, thread, f->stk, f->nstk, false, count);
    f->nstk = 0;
    return rc;
}

/* ---- feeding ---------------------------------------------------------------------- */

static int one_line(lat_flame *f, const char *s, size_t n) {
    f->lineno++;
    if (n && s[n - 1] == '\r') n--;
    int rc = f->fmt == LAT_FLAME_PERF_SCRIPT ? perf_line(f, s, n) : folded_line(f, s, n);
    if (rc) {
        f->err = rc;
        if (!f->err_line) f->err_line = f->lineno;
        if (rc == LAT_EFORMAT && !f->why)
            f->why = f->fmt == LAT_FLAME_PERF_SCRIPT
                         ? "not perf script output (more frames than the cap?)"
                         : "not a folded stack line (\"a;b;c COUNT\")";
    }
    return rc;
}

int lat_flame_feed(lat_flame *f, const char *data, size_t len) {
    if (!f || (len && !data)) return -EINVAL;
    if (f->err) return f->err;
    if (f->finished) return -EINVAL;
    while (len) {
        const char *nl = memchr(data, '\n', len);
        size_t take = nl ? (size_t)(nl - data) : len;
        if (f->linelen + take > LAT_FLAME_MAX_LINE) {
            f->lineno++;
            f->err_line = f->lineno;
            bad(f, "line longer than the cap (LAT_FLAME_MAX_LINE)");
            return f->err = LAT_EFORMAT;
        }
        int rc;
        if (nl && !f->linelen) {
            rc = one_line(f, data, take); /* the common case: no copy */
        } else {
            if ((rc = grow((void **)&f->line, &f->linecap, f->linelen + take + 1, 1)))
                return f->err = rc;
            memcpy(f->line + f->linelen, data, take);
            f->linelen += take;
            rc = 0;
            if (nl) {
                rc = one_line(f, f->line, f->linelen);
                f->linelen = 0;
            }
        }
        if (rc) return rc;
        if (!nl) break;
        data = nl + 1;
        len -= take + 1;
    }
    return 0;
}

int lat_flame_finish(lat_flame *f) {
    if (!f) return -EINVAL;
    if (f->err) return f->err;
    if (f->finished) return 0;
    int rc = 0;
    if (f->linelen) {
        rc = one_line(f, f->line, f->linelen);
        f->linelen = 0;
    }
    if (!rc && f->fmt == LAT_FLAME_PERF_SCRIPT) rc = end_sample(f);
    if (rc) return f->err = rc;
    f->finished = true;
    return 0;
}

int lat_flame_read(lat_flame *f, FILE *in) {
    if (!f || !in) return -EINVAL;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
        int rc = lat_flame_feed(f, buf, n);
        if (rc) return rc;
    }
    if (ferror(in)) return errno ? -errno : -EIO;
    return lat_flame_finish(f);
}

size_t lat_flame_error_line(const lat_flame *f) {
    return f ? f->err_line : 0;
}

const char *lat_flame_error_reason(const lat_flame *f) {
    return f && f->why ? f->why : "";
}

int lat_flame_add_stack(lat_flame *f, const char *thread, const char *const *frames, size_t n,
                        uint64_t count) {
    if (!f || (n && !frames)) return -EINVAL;
    if (n > LAT_FLAME_MAX_DEPTH) return LAT_EFORMAT;
    uint32_t t = NONE;
    int rc;
    if (f->fmt != LAT_FLAME_FOLDED_NOTHREAD &&
        (rc = intern(f, thread ? thread : "", thread ? strlen(thread) : 0, LAT_FLAME_THREAD, &t)))
        return rc;
    if ((rc = grow((void **)&f->stk, &f->capstk, n + 1, sizeof *f->stk))) return rc;
    for (size_t i = 0; i < n; i++) {
        if (!frames[i]) return -EINVAL;
        size_t len = strlen(frames[i]);
        if ((rc = intern(f, frames[i], len, kind_of(frames[i], len), &f->stk[i]))) return rc;
    }
    rc = add_ids(f, t, f->stk, n, false, count);
    return rc;
}

int lat_flame_merge_threads(const lat_flame *f, lat_flame **out) {
    if (!f || !out) return -EINVAL;
    int rc = lat_flame_create(LAT_FLAME_FOLDED_NOTHREAD, out);
    if (rc) return rc;
    lat_flame *m = *out;
    uint32_t *map = lat__calloc(f->nnodes, sizeof *map);
    if (!map) {
        rc = -ENOMEM;
        goto fail;
    }
    map[0] = 0;
    for (size_t i = 1; i < f->nnodes; i++) {
        const node *n = &f->nodes[i];
        const frame *fr = &f->frames[n->frame];
        if (fr->kind == LAT_FLAME_THREAD && n->parent == 0) {
            map[i] = 0;
        } else {
            uint32_t id;
            if ((rc = intern(m, fr->name, strlen(fr->name), (int)fr->kind, &id))) goto fail;
            if ((rc = child_of(m, map[n->parent], id, &map[i]))) goto fail;
        }
        m->nodes[map[i]].self += n->self;
        if (map[i]) m->nodes[map[i]].total += n->total;
    }
    m->nodes[0].total = f->nodes[0].total;
    m->nodes[0].self += 0;
    m->samples = f->samples;
    m->unknown_folded = f->unknown_folded;
    memcpy(m->event, f->event, sizeof m->event);
    m->finished = true;
    lat__free(map);
    return 0;
fail:
    lat__free(map);
    lat_flame_destroy(m);
    *out = NULL;
    return rc;
}

uint64_t lat_flame_samples(const lat_flame *f) {
    return f ? f->samples : 0;
}

size_t lat_flame_stacks(const lat_flame *f) {
    size_t n = 0;
    if (f)
        for (size_t i = 0; i < f->nnodes; i++)
            n += f->nodes[i].self > 0;
    return n;
}

const char *lat_flame_event(const lat_flame *f) {
    return f ? f->event : "";
}

/* ---- ordering ---------------------------------------------------------------------- */

typedef struct ord {
    uint32_t parent, idx;
    const char *name;
    uint32_t kind;
} ord;

static int cmp_ord(const void *a, const void *b) {
    const ord *x = a, *y = b;
    if (x->parent != y->parent) return x->parent < y->parent ? -1 : 1;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    return (x->kind > y->kind) - (x->kind < y->kind);
}

/* Children lists sorted by name: first[i] and next[i] (NONE terminated). */
static int sorted_links(const lat_flame *f, uint32_t **first, uint32_t **next) {
    size_t n = f->nnodes;
    ord *o = n > 1 ? lat__calloc(n - 1, sizeof *o) : NULL;
    *first = lat__calloc(n, sizeof **first);
    *next = lat__calloc(n, sizeof **next);
    if ((n > 1 && !o) || !*first || !*next) {
        lat__free(o);
        lat__free(*first);
        lat__free(*next);
        *first = *next = NULL;
        return -ENOMEM;
    }
    for (size_t i = 1; i < n; i++) {
        const node *nd = &f->nodes[i];
        o[i - 1] =
            (ord){nd->parent, (uint32_t)i, f->frames[nd->frame].name, f->frames[nd->frame].kind};
    }
    if (n > 1) qsort(o, n - 1, sizeof *o, cmp_ord);
    for (size_t i = 0; i < n; i++)
        (*first)[i] = (*next)[i] = NONE;
    for (size_t i = n - 1; i-- > 0;) { /* backwards: prepend keeps the order */
        (*next)[o[i].idx] = (*first)[o[i].parent];
        (*first)[o[i].parent] = o[i].idx;
    }
    lat__free(o);
    return 0;
}

/* ---- folded writer --------------------------------------------------------------- */

static int write_folded(const lat_flame *f, FILE *out) {
    uint32_t *first, *next;
    int rc = sorted_links(f, &first, &next);
    if (rc) return rc;
    uint32_t *stack = lat__calloc(f->nnodes + 1, sizeof *stack);
    size_t *mark = lat__calloc(f->nnodes + 1, sizeof *mark);
    lat__sbuf path;
    lat__sb_init(&path);
    if (!stack || !mark) {
        rc = -ENOMEM;
        goto out;
    }
    /* Depth-first in sorted order: stack holds the next node to visit at each
     * depth; path holds the names of the current node's ancestors. */
    size_t depth = 0;
    stack[0] = first[0];
    errno = 0; /* a failed write's cause: lat__write_status */
    while (true) {
        uint32_t i = stack[depth];
        if (i == NONE) {
            if (!depth) break;
            depth--;
            path.len = mark[depth];
            if (path.buf) path.buf[path.len] = 0;
            stack[depth] = next[stack[depth]];
            continue;
        }
        const node *nd = &f->nodes[i];
        const frame *fr = &f->frames[nd->frame];
        mark[depth] = path.len;
        if (path.len) lat__sb_putn(&path, ";", 1);
        lat__sb_puts(&path, fr->name);
        if (nd->self) {
            const char *p = path.len ? lat__sb_str(&path) : "[unknown]";
            if (fprintf(out, "%s %llu\n", p, (unsigned long long)nd->self) < 0) {
                rc = errno > 0 ? -errno : -EIO;
                goto out;
            }
        }
        if (path.err) {
            rc = path.err;
            goto out;
        }
        depth++;
        stack[depth] = first[i];
    }
    rc = lat__write_status(out, 1);
out:
    lat__sb_release(&path);
    lat__free(stack);
    lat__free(mark);
    lat__free(first);
    lat__free(next);
    return rc;
}

int lat_flame_write_folded(const lat_flame *f, bool threads, FILE *out) {
    if (!f || !out) return -EINVAL;
    if (threads || f->fmt == LAT_FLAME_FOLDED_NOTHREAD) return write_folded(f, out);
    lat_flame *m;
    int rc = lat_flame_merge_threads(f, &m);
    if (rc) return rc;
    rc = write_folded(m, out);
    lat_flame_destroy(m);
    return rc;
}

/* ---- shares ------------------------------------------------------------------------- */

static int cmp_share(const void *a, const void *b) {
    const lat_flame_share *x = a, *y = b;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    if (x->self != y->self) return x->self > y->self ? -1 : 1;
    int c = strcmp(x->name, y->name);
    return c ? c : x->kind - y->kind;
}

int lat_flame_shares(const lat_flame *f, lat_flame_share **out, size_t *n) {
    if (!f || !out || !n) return -EINVAL;
    *out = NULL;
    *n = 0;
    if (!f->nframes) return 0;
    lat_flame_share *s = lat__calloc(f->nframes, sizeof *s);
    uint32_t *onpath = lat__calloc(f->nframes, sizeof *onpath);
    uint32_t *stack = lat__calloc(f->nnodes * 2 + 1, sizeof *stack);
    int rc = 0;
    if (!s || !onpath || !stack) {
        rc = -ENOMEM;
        goto out;
    }
    /* Iterative depth-first walk; the high bit marks "leave this node". A
     * frame's total counts a node only when no ancestor is the same frame. */
    size_t sp = 0;
    for (uint32_t c = f->nodes[0].child; c != NONE; c = f->nodes[c].sibling)
        stack[sp++] = c;
    while (sp) {
        uint32_t v = stack[--sp];
        if (v & 0x80000000u) {
            onpath[f->nodes[v & 0x7fffffffu].frame]--;
            continue;
        }
        const node *nd = &f->nodes[v];
        s[nd->frame].self += nd->self;
        if (!onpath[nd->frame]++) s[nd->frame].total += nd->total;
        stack[sp++] = v | 0x80000000u;
        for (uint32_t c = nd->child; c != NONE; c = f->nodes[c].sibling)
            stack[sp++] = c;
    }
    size_t m = 0;
    for (size_t i = 0; i < f->nframes; i++) {
        if (!s[i].total) continue;
        lat_flame_share x = s[i];
        x.name = f->frames[i].name;
        x.kind = (int)f->frames[i].kind;
        x.self_pct = f->samples ? 100.0 * (double)x.self / (double)f->samples : 0;
        x.total_pct = f->samples ? 100.0 * (double)x.total / (double)f->samples : 0;
        s[m++] = x;
    }
    qsort(s, m, sizeof *s, cmp_share);
    if (!m) {
        lat__free(s);
        s = NULL;
    }
    *out = s;
    *n = m;
    s = NULL;
out:
    lat__free(s);
    lat__free(onpath);
    lat__free(stack);
    return rc;
}

void lat_flame_shares_destroy(lat_flame_share *s) {
    lat__free(s);
}

double lat_flame_total_pct(const lat_flame *f, const char *name, lat_flame_kind kind) {
    if (!f || !name || !f->samples) return NAN;
    lat_flame_share *s;
    size_t n;
    if (lat_flame_shares(f, &s, &n)) return NAN;
    double r = NAN;
    for (size_t i = 0; i < n; i++)
        if (s[i].kind == (int)kind && !strcmp(s[i].name, name)) r = s[i].total_pct;
    lat_flame_shares_destroy(s);
    return r;
}

static int cmp_self(const void *a, const void *b) {
    const lat_flame_share *x = a, *y = b;
    if (x->self != y->self) return x->self > y->self ? -1 : 1;
    return strcmp(x->name, y->name);
}

void lat_flame_shares_sort_self(lat_flame_share *s, size_t n) {
    if (s && n > 1) qsort(s, n, sizeof *s, cmp_self);
}

int lat_flame_write_top(const lat_flame *f, size_t limit, FILE *out) {
    if (!f || !out) return -EINVAL;
    if (!limit) limit = 20;
    lat_flame_share *s;
    size_t n;
    int rc = lat_flame_shares(f, &s, &n);
    if (rc) return rc;
    errno = 0;
    fprintf(out, "samples: %llu%s%s%s, distinct stacks: %zu\n", (unsigned long long)f->samples,
            f->event[0] ? " (event " : "", f->event, f->event[0] ? ")" : "", lat_flame_stacks(f));
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        if (s[i].kind != LAT_FLAME_THREAD) continue;
        if (!any) fprintf(out, "\nthreads:\n  %7s %9s  %s\n", "share", "samples", "thread");
        any = true;
        fprintf(out, "  %6.2f%% %9llu  %s\n", s[i].total_pct, (unsigned long long)s[i].total,
                s[i].name);
    }
    fprintf(out,
            "\ntop frames by total share (the frame or its callees on the stack):\n"
            "  %7s %7s %9s  %s\n",
            "total", "self", "samples", "frame");
    size_t shown = 0;
    for (size_t i = 0; i < n && shown < limit; i++) {
        if (s[i].kind == LAT_FLAME_THREAD) continue;
        fprintf(out, "  %6.2f%% %6.2f%% %9llu  %s\n", s[i].total_pct, s[i].self_pct,
                (unsigned long long)s[i].total, s[i].name);
        shown++;
    }
    lat_flame_shares_sort_self(s, n);
    fprintf(out, "\ntop frames by self share (the sampled frame itself):\n  %7s %7s %9s  %s\n",
            "self", "total", "samples", "frame");
    shown = 0;
    for (size_t i = 0; i < n && shown < limit && s[i].self; i++) {
        if (s[i].kind == LAT_FLAME_THREAD) continue;
        fprintf(out, "  %6.2f%% %6.2f%% %9llu  %s\n", s[i].self_pct, s[i].total_pct,
                (unsigned long long)s[i].self, s[i].name);
        shown++;
    }
    lat_flame_shares_destroy(s);
    return lat__write_status(out, 1);
}

/* ---- the flamegraph ----------------------------------------------------------------- */

#define ROW_PX 17.0
#define PAD_PX 10.0
#define TOP_PX 58.0
#define NWARM 6

typedef struct flame_palette {
    const char *bg, *fg, *label, *edge;
    const char *warm[NWARM];
    const char *kernel, *inlined, *unknown, *thread, *root;
} flame_palette;

/* Warm hues for user code (flamegraph.pl's convention), blue for the kernel,
 * green for inlined frames, grey for unknown ones, violet for threads; pale
 * fills with dark labels on a light page, deep fills with light labels on a
 * dark one. */
static const flame_palette flame_light = {
    "#ffffff",
    "#1f2328",
    "#1f2328",
    "#ffffff",
    {"#f8b26a", "#f59b5b", "#fbc469", "#ee8a52", "#f6d06f", "#f2a07b"},
    "#8fc1e3",
    "#86d3b5",
    "#c9ced4",
    "#c3b3ec",
    "#d0d7de"};
static const flame_palette flame_dark = {
    "#0d1117",
    "#e6edf3",
    "#f0f3f6",
    "#0d1117",
    {"#9a4f1f", "#a65a27", "#8f5a16", "#a2441f", "#8a6a1a", "#93391f"},
    "#2f6690",
    "#2e7d62",
    "#5a6270",
    "#5b4a99",
    "#3d444d"};

static void flame_colors(lat__sbuf *b, const flame_palette *c) {
    lat__sb_printf(b, ".lat-flame{color:%s}.lat-flame .lat-fl-bg{fill:%s}", c->fg, c->bg);
    lat__sb_printf(b, ".lat-flame .lat-fl-f rect{stroke:%s}.lat-flame .lat-fl-f text{fill:%s}",
                   c->edge, c->label);
    for (int i = 0; i < NWARM; i++)
        lat__sb_printf(b, ".lat-flame .lat-fl-u%d rect{fill:%s}", i, c->warm[i]);
    lat__sb_printf(b,
                   ".lat-flame .lat-fl-k rect{fill:%s}.lat-flame .lat-fl-i rect{fill:%s}"
                   ".lat-flame .lat-fl-x rect{fill:%s}.lat-flame .lat-fl-t rect{fill:%s}"
                   ".lat-flame .lat-fl-r rect{fill:%s}\n",
                   c->kernel, c->inlined, c->unknown, c->thread, c->root);
}

static void flame_css(lat__sbuf *b, lat_theme theme) {
    lat__sb_puts(b, ".lat-flame{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu "
                    "Sans',Arial,sans-serif}\n"
                    ".lat-flame .lat-fl-title{font-size:16px;font-weight:600;fill:currentColor}\n"
                    ".lat-flame .lat-fl-note{font-size:12px;opacity:.8;fill:currentColor}\n"
                    ".lat-flame .lat-fl-f text{font-size:11.5px;pointer-events:none}\n"
                    ".lat-flame .lat-fl-f rect{stroke-width:.6}\n"
                    ".lat-flame .lat-fl-f:hover rect{stroke:currentColor;stroke-width:1.2}\n");
    flame_colors(b, theme == LAT_THEME_DARK ? &flame_dark : &flame_light);
    if (theme == LAT_THEME_AUTO) {
        lat__sb_puts(b, "@media (prefers-color-scheme:dark){\n");
        flame_colors(b, &flame_dark);
        lat__sb_puts(b, "}\n");
    }
}

static const char *kind_class(const lat_flame *f, uint32_t i, char *buf, size_t len) {
    if (i == 0) return "lat-fl-r";
    const frame *fr = &f->frames[f->nodes[i].frame];
    switch (fr->kind) {
    case LAT_FLAME_KERNEL:
        return "lat-fl-k";
    case LAT_FLAME_INLINED:
        return "lat-fl-i";
    case LAT_FLAME_UNKNOWN:
        return "lat-fl-x";
    case LAT_FLAME_THREAD:
        return "lat-fl-t";
    default:
        snprintf(buf, len, "lat-fl-u%d", (int)(fr->hash % NWARM));
        return buf;
    }
}

/* Append at most max_chars characters of s (whole UTF-8 sequences), with ".."
 * when cut; escaped. */
static void put_label(lat__sbuf *b, const char *s, size_t max_chars) {
    size_t n = strlen(s), chars = 0, i = 0;
    for (size_t k = 0; k < n; k++)
        chars += ((unsigned char)s[k] & 0xc0) != 0x80;
    if (chars <= max_chars) {
        lat__sb_escape(b, s);
        return;
    }
    size_t keep = max_chars > 2 ? max_chars - 2 : 0;
    for (chars = 0; i < n; i++) {
        if (((unsigned char)s[i] & 0xc0) != 0x80) {
            if (chars == keep) break;
            chars++;
        }
    }
    char small[512];
    char *t = i < sizeof small ? small : lat__alloc(i + 1);
    if (!t) {
        b->err = b->err ? b->err : -ENOMEM;
        return;
    }
    memcpy(t, s, i);
    t[i] = 0;
    lat__sb_escape(b, t);
    lat__sb_puts(b, "..");
    if (t != small) lat__free(t);
}

static int render_svg(const lat_flame *f, const lat_flame_svg_opts *o, lat__sbuf *b) {
    lat_flame_svg_opts d = {0};
    if (o) d = *o;
    if (!d.width_px) d.width_px = 1200;
    if (d.width_px < 400 || d.width_px > 4000) return -EINVAL;
    if (d.theme != LAT_THEME_AUTO && d.theme != LAT_THEME_LIGHT && d.theme != LAT_THEME_DARK)
        return -EINVAL;
    const char *title = d.title ? d.title : "Flame graph";
    uint32_t *first = NULL, *next = NULL, *depth = NULL;
    double *x = NULL;
    int rc = sorted_links(f, &first, &next);
    if (rc) return rc;
    depth = lat__calloc(f->nnodes, sizeof *depth);
    x = lat__calloc(f->nnodes, sizeof *x);
    if (!depth || !x) {
        rc = -ENOMEM;
        goto out;
    }
    /* x in samples from the left edge: children laid side by side from their
     * parent's left edge, in name order.  Parents come before children. */
    const double total = (double)f->samples;
    const double W = (double)d.width_px - 2 * PAD_PX;
    const double px = total > 0 ? W / total : 0;
    uint32_t rows = 1;
    bool cut = false;
    for (size_t p = 0; p < f->nnodes; p++) {
        double acc = x[p];
        for (uint32_t c = first[p]; c != NONE; c = next[c]) {
            x[c] = acc;
            acc += (double)f->nodes[c].total;
            depth[c] = depth[p] + 1;
            if ((double)f->nodes[c].total * px >= LAT_FLAME_MIN_PX) {
                if (depth[c] >= LAT_FLAME_MAX_ROWS)
                    cut = true;
                else if (depth[c] + 1 > rows)
                    rows = depth[c] + 1;
            }
        }
    }
    double H = TOP_PX + rows * ROW_PX + PAD_PX;
    if (H < 200) H = 200;
    const double base_y = H - PAD_PX - ROW_PX; /* the root's row */
    lat__sb_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    lat__sb_printf(b,
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"lat-flame\" width=\"%d\" "
                   "height=\"%.0f\" viewBox=\"0 0 %d %.0f\" role=\"img\" aria-label=\"",
                   d.width_px, H, d.width_px, H);
    lat__sb_escape(b, title);
    lat__sb_puts(b, "\">\n<style>\n");
    flame_css(b, d.theme);
    lat__sb_puts(b, "</style>\n");
    lat__sb_printf(b, "<rect class=\"lat-fl-bg\" x=\"0\" y=\"0\" width=\"%d\" height=\"%.0f\"/>\n",
                   d.width_px, H);
    lat__sb_printf(b, "<text class=\"lat-fl-title\" x=\"%.1f\" y=\"24\" text-anchor=\"middle\">",
                   d.width_px / 2.0);
    lat__sb_escape(b, title);
    lat__sb_puts(b, "</text>\n");
    char note[320], folded[96] = "", cutnote[64] = "";
    if (f->unknown_folded)
        snprintf(folded, sizeof folded, "; %llu repeated [unknown] frames folded into one per run",
                 (unsigned long long)f->unknown_folded);
    if (cut) snprintf(cutnote, sizeof cutnote, "; stacks drawn to %d rows", LAT_FLAME_MAX_ROWS);
    snprintf(note, sizeof note,
             "%llu samples%s%s, %zu distinct stacks; width = share of samples%s%s",
             (unsigned long long)f->samples, f->event[0] ? " of " : "", f->event,
             lat_flame_stacks(f), folded, cutnote);
    lat__sb_printf(b, "<text class=\"lat-fl-note\" x=\"%.1f\" y=\"42\" text-anchor=\"middle\">",
                   d.width_px / 2.0);
    if (d.note) {
        lat__sb_escape(b, d.note);
        lat__sb_puts(b, " \xe2\x80\x94 ");
    }
    lat__sb_escape(b, note);
    lat__sb_puts(b, "</text>\n");
    if (!f->samples) {
        lat__sb_printf(b,
                       "<text class=\"lat-fl-note\" x=\"%.1f\" y=\"%.1f\" "
                       "text-anchor=\"middle\">no samples</text>\n",
                       d.width_px / 2.0, H / 2 + 20);
    }
    lat__sb_puts(b, "<g class=\"lat-fl-frames\">\n");
    char cls[16];
    for (size_t i = 0; f->samples && i < f->nnodes; i++) {
        const node *nd = &f->nodes[i];
        double w = (double)nd->total * px;
        if (w < LAT_FLAME_MIN_PX || depth[i] >= LAT_FLAME_MAX_ROWS) continue;
        const char *name = i ? f->frames[nd->frame].name : "all";
        double pct = 100.0 * (double)nd->total / total;
        double rx = PAD_PX + x[i] * px, ry = base_y - depth[i] * ROW_PX;
        lat__sb_printf(b, "<g class=\"lat-fl-f %s\" data-depth=\"%u\" data-samples=\"%llu\">",
                       kind_class(f, (uint32_t)i, cls, sizeof cls), depth[i],
                       (unsigned long long)nd->total);
        lat__sb_puts(b, "<title>");
        lat__sb_escape(b, name);
        if (i && f->frames[nd->frame].kind == LAT_FLAME_THREAD) lat__sb_puts(b, " (thread)");
        lat__sb_printf(b, ": %.2f%% of samples (%llu of %llu", pct, (unsigned long long)nd->total,
                       (unsigned long long)f->samples);
        if (nd->self) lat__sb_printf(b, "; %llu here", (unsigned long long)nd->self);
        lat__sb_puts(b, ")</title>");
        lat__sb_printf(b, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" rx=\"2\"/>",
                       rx, ry, w, ROW_PX - 1);
        size_t chars = w > 8 ? (size_t)((w - 6) / 6.6) : 0;
        if (chars >= 3) {
            lat__sb_printf(b, "<text x=\"%.2f\" y=\"%.1f\">", rx + 3, ry + ROW_PX - 5);
            put_label(b, name, chars);
            lat__sb_puts(b, "</text>");
        }
        lat__sb_puts(b, "</g>\n");
    }
    lat__sb_puts(b, "</g>\n</svg>\n");
    rc = b->err;
out:
    lat__free(first);
    lat__free(next);
    lat__free(depth);
    lat__free(x);
    return rc;
}

int lat_flame_render_svg(const lat_flame *f, const lat_flame_svg_opts *opts, char **out,
                         size_t *out_len) {
    if (!f || !out) return -EINVAL;
    *out = NULL;
    lat__sbuf b;
    lat__sb_init(&b);
    int rc = render_svg(f, opts, &b);
    if (rc) {
        lat__sb_release(&b);
        return rc;
    }
    *out = b.buf;
    if (out_len) *out_len = b.len;
    return 0;
}

void lat_flame_svg_destroy(char *svg) {
    lat__free(svg);
}

int lat_flame_write_svg(const lat_flame *f, const lat_flame_svg_opts *opts, FILE *out) {
    if (!f || !out) return -EINVAL;
    char *s;
    size_t n;
    int rc = lat_flame_render_svg(f, opts, &s, &n);
    if (rc) return rc;
    errno = 0;
    if (fwrite(s, 1, n, out) != n || fflush(out)) rc = errno > 0 ? -errno : -EIO;
    lat__free(s);
    return rc;
}

int lat_flame_save_svg(const lat_flame *f, const lat_flame_svg_opts *opts, const char *path) {
    if (!f || !path) return -EINVAL;
    char *s;
    size_t n;
    int rc = lat_flame_render_svg(f, opts, &s, &n);
    if (rc) return rc;
    rc = lat_write_file_atomic(path, s, n);
    lat__free(s);
    return rc;
}

/* ---- comparing ------------------------------------------------------------------------ */

static int cmp_name_kind(const void *a, const void *b) {
    const lat_flame_share *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : x->kind - y->kind;
}

static int cmp_diff(const void *a, const void *b) {
    const lat_flame_diff_row *x = a, *y = b;
    double dx = fabs(x->diff_pts), dy = fabs(y->diff_pts);
    if (dx != dy) return dx > dy ? -1 : 1;
    int c = strcmp(x->name, y->name);
    return c ? c : x->kind - y->kind;
}

int lat_flame_diff(const lat_flame *a, const lat_flame *b, lat_flame_diff_row **rows, size_t *n,
                   double *max_abs_pts) {
    if (!a || !b || !rows || !n || !a->samples || !b->samples) return -EINVAL;
    *rows = NULL;
    *n = 0;
    lat_flame_share *sa = NULL, *sb = NULL;
    size_t na = 0, nb = 0;
    int rc = lat_flame_shares(a, &sa, &na);
    if (!rc) rc = lat_flame_shares(b, &sb, &nb);
    lat_flame_diff_row *r = NULL;
    if (!rc && !(r = lat__calloc(na + nb, sizeof *r))) rc = -ENOMEM;
    if (rc) goto out;
    if (na) qsort(sa, na, sizeof *sa, cmp_name_kind);
    if (nb) qsort(sb, nb, sizeof *sb, cmp_name_kind);
    size_t i = 0, j = 0, m = 0;
    while (i < na || j < nb) {
        int c = i == na ? 1 : j == nb ? -1 : cmp_name_kind(&sa[i], &sb[j]);
        lat_flame_diff_row x = {0};
        if (c <= 0) {
            x.name = sa[i].name;
            x.kind = sa[i].kind;
            x.a_pct = sa[i].total_pct;
            x.a_self_pct = sa[i].self_pct;
            i++;
        }
        if (c >= 0) {
            x.name = sb[j].name;
            x.kind = sb[j].kind;
            x.b_pct = sb[j].total_pct;
            x.b_self_pct = sb[j].self_pct;
            j++;
        }
        x.diff_pts = x.b_pct - x.a_pct;
        r[m++] = x;
    }
    if (m) qsort(r, m, sizeof *r, cmp_diff);
    if (max_abs_pts) *max_abs_pts = m ? fabs(r[0].diff_pts) : 0;
    *rows = r;
    *n = m;
out:
    lat_flame_shares_destroy(sa);
    lat_flame_shares_destroy(sb);
    return rc;
}

void lat_flame_diff_destroy(lat_flame_diff_row *rows) {
    lat__free(rows);
}

int lat_flame_write_diff(const lat_flame *a, const lat_flame *b, const char *name_a,
                         const char *name_b, size_t limit, FILE *out) {
    if (!a || !b || !out) return -EINVAL;
    if (!limit) limit = 30;
    if (!name_a) name_a = "A";
    if (!name_b) name_b = "B";
    lat_flame_diff_row *r;
    size_t n;
    double max;
    int rc = lat_flame_diff(a, b, &r, &n, &max);
    if (rc) return rc;
    errno = 0;
    fprintf(out, "A: %s (%llu samples)\nB: %s (%llu samples)\n\n", name_a,
            (unsigned long long)a->samples, name_b, (unsigned long long)b->samples);
    fprintf(out, "  %8s %8s %8s  %s\n", "A total", "B total", "B-A pts", "frame");
    for (size_t i = 0; i < n && i < limit; i++)
        fprintf(out, "  %7.2f%% %7.2f%% %+8.2f  %s%s\n", r[i].a_pct, r[i].b_pct, r[i].diff_pts,
                r[i].name, r[i].kind == LAT_FLAME_THREAD ? " (thread)" : "");
    if (n > limit) fprintf(out, "  ... %zu more frames\n", n - limit);
    fprintf(out, "\nprofiles differ by at most %.1f points of share in any frame", max);
    if (n && max > 0) fprintf(out, " (%s)", r[0].name);
    fputc('\n', out);
    lat_flame_diff_destroy(r);
    return lat__write_status(out, 1);
}

int lat_flame_narrate(const lat_flame *base, const lat_flame *exp, const char *thread,
                      double work_p50_ratio, char *buf, size_t len) {
    if (!base || !exp || !thread || !buf || !len || !isfinite(work_p50_ratio) ||
        !(work_p50_ratio > 0) || !base->samples || !exp->samples)
        return -EINVAL;
    buf[0] = 0;
    double pa = lat_flame_total_pct(base, thread, LAT_FLAME_THREAD);
    double pb = lat_flame_total_pct(exp, thread, LAT_FLAME_THREAD);
    if (isnan(pa) && isnan(pb)) return -ENOENT;
    if (isnan(pa)) pa = 0;
    if (isnan(pb)) pb = 0;
    lat_flame_diff_row *r;
    size_t n;
    double max;
    int rc = lat_flame_diff(base, exp, &r, &n, &max);
    if (rc) return rc;
    int finding;
    if (work_p50_ratio < LAT_FLAME_SLOWER_RATIO) {
        finding = LAT_FLAME_NO_SLOWDOWN;
        snprintf(buf, len,
                 "the %s's frames hold %.0f%% vs %.0f%% of samples (baseline vs experiment) and "
                 "its work p50 changed only x%.2f: no slowdown for the profiler to explain",
                 thread, pa, pb, work_p50_ratio);
    } else if (max < LAT_FLAME_MOVED_PTS) {
        finding = LAT_FLAME_SAME_CODE_SLOWER;
        snprintf(buf, len,
                 "the %s's frames hold %.0f%% vs %.0f%% of samples (baseline vs experiment) while "
                 "its work p50 rose x%.1f and no frame's share moved %.0f points or more (at most "
                 "%.1f): the sampling profiler points at the same code; the cost moved into "
                 "memory stalls, which on-CPU sampling charges to the frames that stall",
                 thread, pa, pb, work_p50_ratio, LAT_FLAME_MOVED_PTS, max);
    } else {
        finding = LAT_FLAME_PROFILE_MOVED;
        snprintf(buf, len,
                 "the %s's frames hold %.0f%% vs %.0f%% of samples (baseline vs experiment) while "
                 "its work p50 rose x%.1f, and %s moved %+.1f points of share: here the profile "
                 "does point at different code; read the diff",
                 thread, pa, pb, work_p50_ratio, r[0].name, r[0].diff_pts);
    }
    lat_flame_diff_destroy(r);
    return finding;
}
