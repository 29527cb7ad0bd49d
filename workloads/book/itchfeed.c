/* itchfeed.c - the replay source and order-book work stage of itchfeed.h:
 * schedule building at setup, two hot callbacks for the pipeline, and the
 * arrival figures computed after the run. */
#include "itchfeed.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "alloc_internal.h"
#include "latlab/error.h"

struct itchfeed {
    /* read-only during the run (both hot threads) */
    const uint8_t *buf;
    size_t len;
    uint8_t *owned; /* itchfeed_create_file's bytes */
    uint64_t n, loops, events;
    uint64_t *frame; /* n frame offsets */
    uint64_t *due;   /* n due times in ns, non-decreasing */
    uint64_t pass_ns;
    uint64_t backwards, gaps_cut;
    uint64_t late_cycles;
    uint64_t rec_cap;
    uint64_t *rec_t0, *rec_tp, *rec_t1;
    lat_pipe_source src;
    /* the worker's (written only by its callback), on lines of their own */
    _Alignas(128) itch_replay *books;
    uint64_t applied, twice, late, reframe_errors;
    char pad_[128];
};

static const char *const kind_names[ITCHFEED_NKINDS] = {"add",     "execute", "cancel",    "delete",
                                                        "replace", "other",   "pass reset"};

const char *itchfeed_kind_name(int kind) {
    return kind >= 0 && kind < ITCHFEED_NKINDS ? kind_names[kind] : "?";
}

static unsigned kind_of(uint8_t type) {
    switch (type) {
    case 'A':
    case 'F':
        return ITCHFEED_ADD;
    case 'E':
    case 'C':
        return ITCHFEED_EXECUTE;
    case 'X':
        return ITCHFEED_CANCEL;
    case 'D':
        return ITCHFEED_DELETE;
    case 'U':
        return ITCHFEED_REPLACE;
    default:
        return ITCHFEED_OTHER;
    }
}

/* ---- hot callbacks ------------------------------------------------------------------- */

static inline uint64_t due_of(const itchfeed *f, uint64_t seq, uint64_t *index) {
    uint64_t pass = seq / f->n, i = seq - pass * f->n;
    if (index) *index = i;
    return pass * f->pass_ns + f->due[i];
}

static uint64_t feed_send(void *ud, uint64_t seq, uint64_t *payload) {
    return due_of(ud, seq, payload);
}

static unsigned feed_work(void *ud, uint64_t seq, uint64_t payload, uint64_t t0, uint64_t tp,
                          uint64_t t1) {
    itchfeed *f = ud;
    unsigned kind = ITCHFEED_OTHER;
    bool reset = payload == 0 && seq > 0;
    if (reset) itch_replay_reset(f->books);
    itch_reader rd;
    itch_msg m;
    itch_reader_init(&rd, f->buf, f->len);
    rd.off = payload < f->n ? f->frame[payload] : f->len;
    if (itch_next(&rd, &m) == 1) {
        itch_replay_apply(f->books, &m);
        kind = kind_of(m.type);
    } else {
        f->reframe_errors++;
    }
    f->applied++;
    if (tp > t0 + f->late_cycles) f->late++;
    if (seq < f->rec_cap) {
        if (f->rec_t1[seq]) f->twice++;
        f->rec_t0[seq] = t0;
        f->rec_tp[seq] = tp;
        f->rec_t1[seq] = t1;
    }
    return reset ? ITCHFEED_RESET : kind;
}

/* ---- setup --------------------------------------------------------------------------- */

int itchfeed_create(const uint8_t *buf, size_t len, const itchfeed_options *o, itchfeed **out,
                    size_t *err_off) {
    if (!out || !o || (!buf && len) || o->speed < 0 || o->loops < 1) return -EINVAL;
    *out = NULL;
    itchfeed *f = lat__calloc_aligned(1, sizeof *f, 128);
    if (!f) return -ENOMEM;
    f->buf = buf;
    f->len = len;
    f->loops = o->loops;
    int rc = itch_replay_create(buf, len, o->max_levels, &f->books, err_off);
    if (rc) goto fail;
    itch_reader rd;
    itch_msg m;
    itch_reader_init(&rd, buf, len);
    while (itch_next(&rd, &m) == 1)
        f->n++;
    rc = -ENODATA;
    if (f->n == 0) goto fail;
    rc = -E2BIG;
    if (f->n > (1ull << 40) / f->loops) goto fail;
    f->events = f->n * f->loops;
    rc = -ENOMEM;
    f->frame = lat__alloc(f->n * sizeof *f->frame);
    f->due = lat__alloc(f->n * sizeof *f->due);
    f->rec_cap = f->events < ITCHFEED_RECORD_CAP ? f->events : ITCHFEED_RECORD_CAP;
    f->rec_t0 = lat__calloc(f->rec_cap, sizeof *f->rec_t0);
    f->rec_tp = lat__calloc(f->rec_cap, sizeof *f->rec_tp);
    f->rec_t1 = lat__calloc(f->rec_cap, sizeof *f->rec_t1);
    if (!f->frame || !f->due || !f->rec_t0 || !f->rec_tp || !f->rec_t1) goto fail;
    itch_reader_init(&rd, buf, len);
    uint64_t ts0 = 0, hi = 0, cut = 0; /* cut: ns taken out of long gaps so far */
    for (uint64_t i = 0; itch_next(&rd, &m) == 1; i++) {
        if (i == 0) ts0 = hi = m.ts_ns;
        if (m.ts_ns < hi)
            f->backwards++; /* due with its predecessor: sent at once */
        else
            hi = m.ts_ns;
        uint64_t rel = hi - ts0;
        f->frame[i] = m.offset;
        f->due[i] = o->speed > 0 ? (uint64_t)((double)rel / o->speed) - cut : 0;
        if (i > 0 && o->max_gap_ns && f->due[i] - f->due[i - 1] > o->max_gap_ns) {
            uint64_t extra = f->due[i] - f->due[i - 1] - o->max_gap_ns;
            cut += extra;
            f->due[i] -= extra;
            f->gaps_cut++;
        }
    }
    uint64_t span = f->due[f->n - 1];
    f->pass_ns = f->n > 1 ? span + span / (f->n - 1) : 0;
    if (o->speed > 0 && f->pass_ns == 0) f->pass_ns = 1;
    f->src = (lat_pipe_source){.send_offset_ns = feed_send,
                               .work = feed_work,
                               .ud = f,
                               .nkinds = f->loops > 1 ? ITCHFEED_NKINDS : ITCHFEED_RESET,
                               .kind_names = kind_names};
    *out = f;
    return 0;
fail:
    itchfeed_destroy(f);
    return rc;
}

int itchfeed_create_file(const char *path, const itchfeed_options *o, itchfeed **out,
                         size_t *err_off) {
    if (!path || !out) return -EINVAL;
    FILE *fp = fopen(path, "rb");
    if (!fp) return -errno;
    errno = 0; /* a read error's cause (EISDIR for a folder), not a stale one */
    size_t cap = 1 << 16, n = 0;
    uint8_t *b = lat__alloc(cap);
    int rc = b ? 0 : -ENOMEM;
    while (!rc) {
        if (n == cap) {
            uint8_t *nb = lat__alloc(cap * 2);
            if (!nb) {
                rc = -ENOMEM;
                break;
            }
            memcpy(nb, b, n);
            lat__free(b);
            b = nb;
            cap *= 2;
        }
        size_t r = fread(b + n, 1, cap - n, fp);
        n += r;
        if (r == 0) break;
    }
    if (!rc && ferror(fp)) rc = errno ? -errno : -EIO;
    fclose(fp);
    if (!rc) rc = itchfeed_create(b, n, o, out, err_off);
    if (rc) {
        lat__free(b);
        return rc;
    }
    (*out)->owned = b;
    return 0;
}

void itchfeed_destroy(itchfeed *f) {
    if (!f) return;
    itch_replay_destroy(f->books);
    lat__free(f->frame);
    lat__free(f->due);
    lat__free(f->rec_t0);
    lat__free(f->rec_tp);
    lat__free(f->rec_t1);
    lat__free(f->owned);
    lat__free(f);
}

int itchfeed_pipe_config(itchfeed *f, lat_pipe_config *c) {
    if (!f || !c) return -EINVAL;
    itch_replay_reset(f->books);
    memset(f->rec_t0, 0, f->rec_cap * sizeof *f->rec_t0);
    memset(f->rec_tp, 0, f->rec_cap * sizeof *f->rec_tp);
    memset(f->rec_t1, 0, f->rec_cap * sizeof *f->rec_t1);
    f->applied = f->twice = f->late = f->reframe_errors = 0;
    const lat_clock_cal *cal = c->cal ? c->cal : lat_clock_default();
    f->late_cycles = lat_clock_from_ns(cal, ITCHFEED_LATE_NS);
    c->source = &f->src;
    c->events = f->events;
    uint64_t span = due_of(f, f->events - 1, NULL);
    double rate = span ? (double)(f->events - 1) * 1e9 / (double)span : 1e9;
    c->rate_hz = rate < 1 ? 1 : rate > 1e9 ? 1000000000ull : (uint64_t)(rate + 0.5);
    c->split_q1 = true;
    return 0;
}

/* ---- queries and figures --------------------------------------------------------------- */

uint64_t itchfeed_messages(const itchfeed *f) {
    return f->n;
}
uint64_t itchfeed_events(const itchfeed *f) {
    return f->events;
}
uint64_t itchfeed_due_ns(const itchfeed *f, uint64_t seq) {
    return due_of(f, seq, NULL);
}
const itch_replay *itchfeed_books(const itchfeed *f) {
    return f->books;
}
void itchfeed_record(const itchfeed *f, const uint64_t **t0, const uint64_t **t1, uint64_t *n) {
    *t0 = f->rec_t0;
    *t1 = f->rec_t1;
    *n = f->rec_cap;
}

/* Most events due within any window of w ns, and where that window starts. */
static uint64_t busiest(const itchfeed *f, uint64_t w, uint64_t *at) {
    uint64_t best = 0, lo = 0, lo_t = due_of(f, 0, NULL);
    *at = lo_t;
    for (uint64_t j = 0; j < f->events; j++) {
        uint64_t t = due_of(f, j, NULL);
        while (t - lo_t >= w)
            lo_t = due_of(f, ++lo, NULL);
        if (j - lo + 1 > best) {
            best = j - lo + 1;
            *at = lo_t;
        }
    }
    return best;
}

void itchfeed_arrival_get(const itchfeed *f, itchfeed_arrival *a) {
    memset(a, 0, sizeof *a);
    a->events = f->events;
    a->span_ns = due_of(f, f->events - 1, NULL) - due_of(f, 0, NULL);
    a->mean_rate_hz = a->span_ns ? (double)(f->events - 1) * 1e9 / (double)a->span_ns : 0;
    a->busiest_1ms = busiest(f, 1000000, &a->busiest_1ms_at);
    a->busiest_100us = busiest(f, 100000, &a->busiest_100us_at);
    uint64_t run_start = 0, prev = due_of(f, 0, NULL);
    a->burst_events = 1;
    for (uint64_t j = 1; j < f->events; j++) {
        uint64_t t = due_of(f, j, NULL);
        if (t - prev >= ITCHFEED_BURST_GAP_NS) run_start = j;
        if (j - run_start + 1 > a->burst_events) {
            a->burst_events = j - run_start + 1;
            a->burst_at = due_of(f, run_start, NULL);
            a->burst_ns = t - a->burst_at;
        }
        prev = t;
    }
    /* When event i is due (t0) or pushed (tp): the events j <= i not yet
     * taken by the worker (t1 later).  t0, tp and t1 are non-decreasing, so
     * the oldest untaken event only moves forward. */
    uint64_t p = 0, q = 0, nrec = 0;
    for (uint64_t i = 0; i < f->rec_cap && f->rec_t1[i]; i++, nrec++) {
        while (p < i && f->rec_t1[p] <= f->rec_t0[i])
            p++;
        while (q < i && f->rec_t1[q] <= f->rec_tp[i])
            q++;
        if (i - p + 1 > a->backlog_peak) {
            a->backlog_peak = i - p + 1;
            a->backlog_peak_seq = i;
        }
        if (i - q + 1 > a->q1_peak_depth) {
            a->q1_peak_depth = i - q + 1;
            a->q1_peak_seq = i;
        }
    }
    a->depth_partial = nrec < f->events;
    a->late = f->late;
    a->backwards = f->backwards;
    a->gaps_cut = f->gaps_cut;
    a->applied = f->applied;
    a->applied_twice = f->twice;
    a->reframe_errors = f->reframe_errors;
}
