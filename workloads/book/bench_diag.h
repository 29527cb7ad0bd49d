/* bench_diag.h - where the tail of an order-book scenario run comes from:
 * the diagnosis rules of `latlab book bench` as a pure function of measured
 * figures, returning which rules fired and the figures they used.  The
 * renderer (bench_report.h) turns the result into prose; the rules hold no
 * host-specific knowledge, only these thresholds:
 *
 * - KIND: an operation kind is at least BOOK_DIAG_TAIL_SHARE of the samples at
 *   or above p99.9 and BOOK_DIAG_OVERREP times its share of all ops (the most
 *   over-represented such kind is named).
 * - MORE_WORK: tail samples emitted at least BOOK_DIAG_MORE_WORK times the
 *   mean events per op.
 * - WAITED: the thread had a CPU for less than BOOK_DIAG_WAIT_SHARE of the
 *   window's wall time; OFF_CPU (explains the tail): less than
 *   BOOK_DIAG_OFFCPU_SHARE, with the p99.9 value more than
 *   BOOK_DIAG_TAIL_OVER_P50 times the median.
 * - STALL: switches, faults or stolen time were seen and the max is more
 *   than BOOK_DIAG_MAX_OVER_TAIL times the p99.9 value.
 * - BACKLOG (open loop): more than BOOK_DIAG_LATE_PCT percent of the ops
 *   started late: the percentiles measure the queue.
 * The tail is identified when KIND, MORE_WORK, OFF_CPU or BACKLOG fired. */
#ifndef LATBOOK_BENCH_DIAG_H
#define LATBOOK_BENCH_DIAG_H

#include <stdbool.h>
#include <stdint.h>

#include "scenario.h"

#define BOOK_DIAG_TAIL_SHARE 0.5
#define BOOK_DIAG_OVERREP 1.5
#define BOOK_DIAG_MORE_WORK 1.5
#define BOOK_DIAG_WAIT_SHARE 0.9
#define BOOK_DIAG_OFFCPU_SHARE 0.5
#define BOOK_DIAG_TAIL_OVER_P50 20
#define BOOK_DIAG_MAX_OVER_TAIL 20
#define BOOK_DIAG_LATE_PCT 10

/* The rules' inputs (from a book_bench_result: book_diag_inputs). */
typedef struct book_diag_in {
    uint64_t ops; /* measured ops */
    uint64_t ops_by_kind[BOOK_OPK_COUNT], tail_by_kind[BOOK_OPK_COUNT];
    uint64_t tail_samples;                /* samples at or above p99.9 */
    double mean_events, tail_mean_events; /* events per op: all, tail */
    double elapsed_s, cpu_s;              /* window wall time, CPU time the thread got */
    int64_t p50_ns, tail_threshold_ns, max_ns;
    uint64_t minor_faults, major_faults, vol_switches, invol_switches;
    double steal_ms; /* -1: unknown */
    int open_loop;
    uint64_t late_ops; /* open loop: started > 1 us after due */
} book_diag_in;

/* Which rules fired, and their figures. */
typedef struct book_diag {
    int kind;          /* KIND: the op kind (book_opk), or -1 */
    double kind_ratio; /* its tail share over its share of all ops */
    bool more_work;    /* MORE_WORK */
    bool cpu_known;    /* elapsed_s and cpu_s both > 0 */
    double cpu_share;  /* cpu_s / elapsed_s, at most 1 */
    bool waited;       /* WAITED */
    bool off_cpu;      /* OFF_CPU */
    double tail_over_p50;
    uint64_t interruptions; /* faults + switches */
    bool stall;             /* STALL */
    double max_over_tail;   /* max / p99.9 value (0 when that is 0) */
    double late_pct;        /* open loop: % of ops late */
    bool backlog;           /* BACKLOG */
    bool identified;
} book_diag;

/* The inputs of r's rules.  r and in must not be NULL. */
void book_diag_inputs(const book_bench_result *r, book_diag_in *in);
/* Apply the rules to in.  Pure; in and d must not be NULL. */
void book_diagnose(const book_diag_in *in, book_diag *d);

#endif /* LATBOOK_BENCH_DIAG_H */
