/* itchfeed.h - production replay: an ITCH 5.0 capture drives the stamped
 * pipeline (latlab/pipeline.h) on its own timestamps, and the order books of
 * itch.h are the worker stage.
 *
 * Schedule: message i of the capture is due at (ts_i - ts_0) / speed after
 * the run's start (ts: the 6-byte nanoseconds since midnight); speed 0 means
 * "max": every message is due at the start, so the producer sends back to
 * back.  A timestamp lower than an earlier one is due with its predecessor
 * (sent at once) and counted in `backwards`.  With max_gap_ns, a gap between
 * two due times longer than that (after scaling) is cut to it (counted in
 * `gaps_cut`): a day-long capture then replays its bursts at their own pace
 * without waiting through the quiet hours.  With loops > 1 pass k starts
 * k x (span + mean gap) after the start; the first message of each later pass
 * empties every book first (itch_replay_reset) and is counted under the kind
 * "pass reset" instead of its own, so the per-kind rows stay clean (the
 * generic work stage includes those resets).
 *
 * Hot path: the producer's callback looks the schedule up (one division, two
 * loads); the worker's callback frames the message again from the capture
 * (itch_next on the stored offset), applies it to its stock's book
 * (itch_replay_apply: no allocation, locks or system calls), counts a late
 * send and stores the event's t0/tp/t1 stamps in a preallocated record.  All
 * allocation happens in itchfeed_create(): the frame offsets and schedule
 * (16 bytes per message), the books, and the stamp record (24 bytes per event
 * for the first ITCHFEED_RECORD_CAP events; the depth figures cover those).
 *
 * After a run, itchfeed_arrival() computes the arrival figures from the
 * schedule (offered rate, busiest 1 ms and 100 us windows, longest burst) and
 * from the record: q1 depth at its peak (events pushed but not yet taken by
 * the worker, counted as each event is pushed; at most the queue capacity
 * plus one) and the open-loop backlog at its peak (events due but not yet
 * taken, including those the producer had not pushed yet: what a queue
 * without a bound would have held).  One run at a time per feed; itchfeed_pipe_config() rewinds it.
 */
#ifndef LATLAB_ITCHFEED_H
#define LATLAB_ITCHFEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "itch.h"
#include "latlab/pipeline.h"

#define ITCHFEED_RECORD_CAP (1u << 23)
#define ITCHFEED_BURST_GAP_NS 1000 /* a burst: consecutive sends less than 1 us apart */
#define ITCHFEED_LATE_NS 1000      /* a late send: more than 1 us after its due time */

/* Kinds of the per-kind work histograms (lat_pipe_result.h_kind). */
enum {
    ITCHFEED_ADD = 0,     /* A, F */
    ITCHFEED_EXECUTE = 1, /* E, C */
    ITCHFEED_CANCEL = 2,  /* X */
    ITCHFEED_DELETE = 3,  /* D */
    ITCHFEED_REPLACE = 4, /* U */
    ITCHFEED_OTHER = 5,   /* everything else (S, R, H, P, ...): framing and counting only */
    ITCHFEED_RESET = 6,   /* first message of a later pass (books emptied first) */
    ITCHFEED_NKINDS = 7
};
const char *itchfeed_kind_name(int kind);

typedef struct itchfeed_options {
    double speed;        /* 0 = max; 1 = original; N = N times faster (> 0) */
    uint64_t loops;      /* passes over the capture, >= 1 */
    uint64_t max_gap_ns; /* 0: keep every gap; else cut longer gaps to this */
    uint32_t max_levels; /* each book's band cap (itch_replay_create; 0 = its default) */
} itchfeed_options;

typedef struct itchfeed itchfeed;

/* Frame the capture (caller keeps buf alive until destroy), build the
 * schedule and the books.  0 and *out; LAT_ETRUNCATED / LAT_EFORMAT with
 * *err_off (framing: truncated or unknown message type); -ENODATA (no
 * messages); -EINVAL; -E2BIG (more than 2^40 events); -ENOMEM. */
int itchfeed_create(const uint8_t *buf, size_t len, const itchfeed_options *o, itchfeed **out,
                    size_t *err_off);
/* The same from a file (the feed owns the bytes); -errno when unreadable. */
int itchfeed_create_file(const char *path, const itchfeed_options *o, itchfeed **out,
                         size_t *err_off);
void itchfeed_destroy(itchfeed *f); /* NULL is fine */

/* Point a pipeline config at the feed: source, events = messages x loops,
 * rate_hz = the mean offered rate (for display), split_q1 on (the producer's
 * own lateness is the send stage).  Rewinds the feed (books emptied, counts
 * and record cleared; no allocation).  This is the lab's replay hook. */
int itchfeed_pipe_config(itchfeed *f, lat_pipe_config *c);

uint64_t itchfeed_messages(const itchfeed *f); /* per pass */
uint64_t itchfeed_events(const itchfeed *f);   /* messages x loops */
/* Due time of event seq, ns after the start. */
uint64_t itchfeed_due_ns(const itchfeed *f, uint64_t seq);
/* The books after the run (last pass). */
const itch_replay *itchfeed_books(const itchfeed *f);
/* Recorded stamps (raw cycles) of the first *n events; t1[i] == 0 when event
 * i never reached the worker. */
void itchfeed_record(const itchfeed *f, const uint64_t **t0, const uint64_t **t1, uint64_t *n);

typedef struct itchfeed_arrival {
    uint64_t events;                      /* due in the run */
    uint64_t span_ns;                     /* first to last due time */
    double mean_rate_hz;                  /* events / span; 0 when back to back */
    uint64_t busiest_1ms, busiest_1ms_at; /* most events due in any 1 ms window, its start */
    uint64_t busiest_100us, busiest_100us_at;
    uint64_t burst_events, burst_ns, burst_at; /* longest run of gaps < 1 us */
    uint64_t q1_peak_depth, q1_peak_seq;       /* in q1 (pushed, not taken) at its peak */
    uint64_t backlog_peak, backlog_peak_seq;   /* due, not taken (incl. not yet pushed) */
    bool depth_partial;                        /* record covered only the first events */
    uint64_t late;                             /* sent more than 1 us after due */
    uint64_t backwards;                        /* timestamps lower than an earlier one (per pass) */
    uint64_t gaps_cut;                         /* gaps shortened to max_gap_ns (per pass) */
    uint64_t applied;                          /* events the worker applied */
    uint64_t applied_twice;                    /* events seen twice (must be 0) */
    uint64_t reframe_errors;                   /* must be 0 */
} itchfeed_arrival;

/* Figures of the last run. */
void itchfeed_arrival_get(const itchfeed *f, itchfeed_arrival *a);

#endif /* LATLAB_ITCHFEED_H */
