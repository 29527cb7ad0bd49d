/* pipecensor.h - the pipeline's per-sample censoring (internal to the
 * pipeline workload; the rules are censor.h's, the results pipeline.h's).
 *
 * The aggregator (cold thread) appends each sample's stamps to a buffer
 * allocated before the run; after the hot threads are joined and the tracer
 * stopped, lat__pipe_censor_finish joins the buffer to the hot threads' gap
 * lists and fills r->censor[] and the intervals' kept counts.  Why after the
 * run and not online: a gap is recorded when its thread runs again, so the
 * aggregator could judge a sample only once every hot thread had published
 * progress past it (a store per spin, read across cores); after the run
 * every gap is in.  Memory bound: 24 bytes per buffered sample, min(events,
 * censor_cap) of them (at most LAT_PIPE_CENSOR_CAP by default: 48 MiB; the
 * lab's 100,000-event runs 2.4 MB), plus 16 bytes per gap list entry (room
 * for 10,000 gaps per second of run per hot thread) and two histograms per
 * stage.  Only the aggregator writes the buffer; it is read after
 * lat_trace_stop joined that thread. */
#ifndef LATLAB_PIPECENSOR_H
#define LATLAB_PIPECENSOR_H

#include <stddef.h>
#include <stdint.h>

#include "latlab/pipeline.h"

struct json_t;

/* One sample's stamps: t0, then tp - t0, t1 - tp, t2 - t1, t3 - t2 in cycles
 * (clamped at 0; UINT32_MAX: too long to hold, the sample is not judged). */
typedef struct lat__pipe_stamp {
    uint64_t t0;
    uint32_t d[4];
} lat__pipe_stamp;

typedef struct lat__pipe_cbuf {
    lat__pipe_stamp *v;
    size_t n, cap;
    uint64_t beyond; /* samples that found the buffer full */
} lat__pipe_cbuf;

/* Allocate room for cap samples (0: none).  Returns 0 or -ENOMEM. */
int lat__pipe_cbuf_init(lat__pipe_cbuf *b, size_t cap);
void lat__pipe_cbuf_fini(lat__pipe_cbuf *b);

/* Append one sample (the aggregator thread; no allocation). */
static inline void lat__pipe_cbuf_add(lat__pipe_cbuf *b, uint64_t t0, uint64_t tp, uint64_t t1,
                                      uint64_t t2, uint64_t t3) {
    if (b->n >= b->cap) {
        b->beyond++;
        return;
    }
    const uint64_t at[5] = {t0, tp, t1, t2, t3};
    lat__pipe_stamp *s = &b->v[b->n++];
    s->t0 = t0;
    uint64_t prev = t0;
    for (int i = 0; i < 4; i++) {
        uint64_t x = at[i + 1] > prev ? at[i + 1] : prev; /* clamp: never backwards */
        s->d[i] = x - prev >= UINT32_MAX ? UINT32_MAX : (uint32_t)(x - prev);
        prev = x;
    }
}

/* After the run: join b to r->gaps and fill r->censor[], r->censor_judged,
 * r->censor_unjudged and r->iv[i].kept.  start/ivc: the run's first intended
 * send and interval length in cycles (ivc 0: no intervals).  Returns 0 or
 * -ENOMEM. */
int lat__pipe_censor_finish(const lat_pipe_config *c, const lat_clock_cal *cal,
                            const lat__pipe_cbuf *b, uint64_t start, uint64_t ivc,
                            lat_pipe_result *r);
/* Release the censoring histograms of r. */
void lat__pipe_censor_fini(lat_pipe_result *r);

/* The "censoring" object of the run's JSON (NULL when nothing was judged). */
struct json_t *lat__pipe_censor_json(const lat_pipe_result *r);

#endif /* LATLAB_PIPECENSOR_H */
