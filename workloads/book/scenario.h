/* scenario.h - the seven order-book tail-latency scenarios (see README),
 * with generators that do what their names say, and their measurement.
 *
 *   add_only            passive limit submits only; buys below a fixed mid,
 *                       sells above it, so no submit can ever cross
 *   cancel_only         a book held at `depth` resting orders; every measured op
 *                       cancels a live order (untimed refill adds one back)
 *   aggressive_walk     IOC limits that sweep 2..6 levels of a `depth`-order
 *                       ladder; every consumed maker is re-added at its price
 *                       (untimed), so the ladder never runs dry
 *   mixed_70_20_10      70% limit submits (95% passive, 5% marketable), 20%
 *                       cancels of live orders, 10% market orders whose size
 *                       tracks the book so it stays near `depth` orders
 *   thin_book_sweep     3 orders per side near the touch; IOC probes larger than
 *                       the opposite side (partial fill + remainder cancelled);
 *                       untimed refill keeps both sides non-empty
 *   mass_cancel_burst   a `depth`-order book over 32 owners; each op mass-cancels
 *                       one owner (80%) or a 5-level price range (20%); refilled
 *                       (untimed) back to depth
 *   snapshot_capture    a `depth`-order book; snapshot(20) and
 *                       snapshot_package(20) alternately, one untimed book change
 *                       between captures
 *
 * Every run reports workload health: crossing submits %, cancel misses %,
 * empty-book ops % (ops that met an empty book or, for aggressive orders, an
 * empty opposite side) and mean resting depth.
 *
 * Timing: the calibrated cycle counter (clock.h), a fenced read before and
 * after the operation; samples in ns.  Closed loop (default): the next op
 * starts when the previous one and its untimed bookkeeping are done, so
 * samples are pure service time.  Open loop (rate > 0): op i is due at
 * start + i / rate and its sample runs from that intended time, so a stall
 * shows in every op queued behind it.
 *
 * Setup allocates (book, generator, histograms, per-sample arrays); the
 * warm-up and measured windows allocate nothing.  Single threaded. */
#ifndef LATLAB_BOOK_SCENARIO_H
#define LATLAB_BOOK_SCENARIO_H

#include <stdint.h>

#include "latlab/clock.h"
#include "latlab/hist.h"

typedef enum book_scn {
    BOOK_SCN_ADD_ONLY = 0,
    BOOK_SCN_CANCEL_ONLY,
    BOOK_SCN_AGGRESSIVE_WALK,
    BOOK_SCN_MIXED,
    BOOK_SCN_THIN_BOOK_SWEEP,
    BOOK_SCN_MASS_CANCEL_BURST,
    BOOK_SCN_SNAPSHOT_CAPTURE,
    BOOK_SCN_COUNT
} book_scn;

/* Kinds of measured operation (for tail attribution). */
typedef enum book_opk {
    BOOK_OPK_PASSIVE = 0, /* limit submit that rests without crossing */
    BOOK_OPK_CROSSING,    /* limit submit that crossed on arrival (GTC or IOC) */
    BOOK_OPK_CANCEL,
    BOOK_OPK_MARKET,
    BOOK_OPK_MASS_CANCEL,
    BOOK_OPK_SNAPSHOT, /* book_snapshot */
    BOOK_OPK_PACKAGE,  /* book_snapshot_package (snapshot + CRC-32) */
    BOOK_OPK_COUNT
} book_opk;

const char *book_scn_name(book_scn s);
const char *book_scn_describe(book_scn s); /* one line */
const char *book_opk_name(book_opk k);
/* Scenario by name, or -1. */
int book_scn_from_name(const char *name);
/* The resting depth a scenario holds when cfg.depth is 0 (0 for add_only). */
uint32_t book_scn_default_depth(book_scn s);

typedef struct book_bench_cfg {
    uint64_t seed;            /* xorshift seed; 0 means 0xA5A5A5A5 */
    uint64_t warmup;          /* untimed-result ops before the measured window */
    uint64_t measured;        /* recorded ops (>= 1) */
    uint32_t depth;           /* resting orders to hold; 0 = the scenario's default */
    double open_loop_rate;    /* ops/s; 0 = closed loop */
    uint32_t intervals;       /* histogram intervals over the measured window (0 = 10) */
    const lat_clock_cal *cal; /* NULL = lat_clock_default() */
    /* Called with 1 just before the measured window and 0 just after (e.g. to
     * count allocations).  May be NULL. */
    void (*window)(int begin, void *ud);
    void *window_ud;
} book_bench_cfg;

typedef struct book_bench_health {
    uint64_t ops;              /* measured ops */
    uint64_t submits;          /* limit submits */
    uint64_t crossing_submits; /* ... that crossed on arrival */
    uint64_t cancels;          /* single cancels */
    uint64_t cancel_misses;    /* ... that named no live order */
    uint64_t empty_book_ops;
    double mean_depth;       /* mean resting orders seen by measured ops */
    uint64_t events, trades; /* emitted during measured ops */
} book_bench_health;

typedef struct book_bench_result {
    book_scn scn;
    uint32_t depth;
    lat_hist total;                /* every measured sample, ns (1 ns .. 1 s, 3 digits) */
    lat_hist kind[BOOK_OPK_COUNT]; /* per operation kind */
    uint32_t nintervals;
    lat_hist *interval;       /* nintervals histograms, consecutive slices */
    double *interval_start_s; /* seconds from window start */
    double *interval_len_s;
    double start_epoch_s; /* wall clock at the window start */
    double elapsed_s;     /* measured window, wall */
    book_bench_health health;
    /* tail attribution: samples at or above the p99.9 value */
    int64_t tail_threshold_ns;
    uint64_t tail_samples;
    uint64_t tail_by_kind[BOOK_OPK_COUNT];
    uint64_t ops_by_kind[BOOK_OPK_COUNT];
    double mean_events, tail_mean_events; /* events per op: all / tail samples */
    /* what the OS did to this thread during the measured window (getrusage) */
    uint64_t minor_faults, major_faults, vol_switches, invol_switches;
    /* time the hypervisor stole from all CPUs during the window (/proc/stat
     * "steal", 10 ms ticks on most kernels; -1 when unreadable) */
    double steal_ms;
    double cpu_s;      /* CPU time the thread got during the window (user + system) */
    double loadavg1;   /* 1-minute load average at the window's end */
    int ncpus;         /* online CPUs */
    uint64_t late_ops; /* open loop: ops that started > 1 us after due */
    int64_t timer_floor_p50_ns, timer_floor_p99_ns; /* two back-to-back timed reads */
    int open_loop;
    double rate;
} book_bench_result;

/* Run one scenario.  *res must be zeroed; on success it owns histograms and
 * must be released with book_bench_result_fini().  Returns 0, -EINVAL or
 * -ENOMEM (nothing to free then). */
int book_bench_run(book_scn s, const book_bench_cfg *cfg, book_bench_result *res);

/* The plan of `latlab book bench`: pass `pass` runs the pass-th scenario
 * selected in sel (nsel of them) at open_rate, and the pass after them
 * mixed_70_20_10 at also_rate; *rcfg is base with that rate.  Returns the
 * scenario. */
int book_bench_pass(const book_bench_cfg *base, const int sel[BOOK_SCN_COUNT], int nsel,
                    size_t pass, double open_rate, double also_rate, book_bench_cfg *rcfg);
void book_bench_result_fini(book_bench_result *res);

#endif /* LATLAB_BOOK_SCENARIO_H */
