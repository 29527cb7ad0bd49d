/* replay_report.h - what the book's replays (`latlab book replay`, `book
 * itch`, `book lobster`) print: the event lines of the text op stream, the
 * tally of rejected ops by reason, the latency line and its JSON, and the
 * LOBSTER replay's summary and JSON.  Writes only to the FILE it is given;
 * builds JSON the caller releases; nothing here reads or exits. */
#ifndef LATBOOK_REPLAY_REPORT_H
#define LATBOOK_REPLAY_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "book.h"
#include "itch.h"
#include "lobster.h"
#include "latlab/hist.h"

struct json_t;

/* ---- the op stream's events -------------------------------------------------------- */

/* The text events of book_event callbacks (A, J, T, K, D and, with levels,
 * V lines) into f, with the fees on T lines when fees is set; n counts the
 * events by type & 7.  Pass as on_event's user data. */
typedef struct book_event_out {
    FILE *f;
    int fees, levels;
    uint64_t n[8];
} book_event_out;

/* A book_config on_event callback: ud is a book_event_out. */
void book_event_print(const book_event *ev, void *ud);

/* ---- rejections ----------------------------------------------------------------------- */

/* Rejections by BOOK_E* code. */
typedef struct book_reject_tally {
    uint64_t n[16];
    uint64_t total;
} book_reject_tally;
void book_tally_add(book_reject_tally *t, int err);
/* "2 (would_cross 1, unknown_id 1)" into buf (size n, always terminated). */
void book_tally_format(const book_reject_tally *t, char *buf, size_t n);
/* {"<reason>": N, ...} for the reasons seen; NULL when out of memory. */
struct json_t *book_tally_json(const book_reject_tally *t);

/* ---- latency ---------------------------------------------------------------------------- */

/* "latency ns      p50 .. max (N samples)" into f. */
void book_latency_print(FILE *f, const lat_hist *h);
/* The same figures as JSON (samples, p50, p99, p99_9, p99_99, max). */
struct json_t *book_latency_json(const lat_hist *h);

/* ---- LOBSTER ----------------------------------------------------------------------------- */

/* "P x Q", or "none" for an empty level (px 0), into out. */
void book_level_format(char *out, size_t n, int64_t px, uint64_t q);

/* One LOBSTER replay as reported (nothing is copied). */
typedef struct book_lobster_summary {
    const char *msg_path, *ob_path; /* ob_path NULL: no orderbook file */
    const lobster_counts *c;
    uint64_t bad;                  /* malformed message lines */
    uint64_t levels;               /* levels compared */
    const lobster_mismatch *first; /* the first mismatch (first_kind != 0) */
    int first_kind;
    uint64_t first_line; /* its orderbook row */
    double wall_s, cpu_s;
    const lat_hist *h; /* per-message latency, ns */
} book_lobster_summary;

/* Counts, mismatches, throughput and latency into f. */
void book_lobster_print(FILE *f, const book_lobster_summary *s);
/* The same as JSON; NULL when out of memory. */
struct json_t *book_lobster_json(const book_lobster_summary *s);

/* ---- the ITCH replay ---------------------------------------------------------------- */

/* The message counts by type, the unknown references and the anomalies. */
void itch_counts_print(FILE *f, const itch_counts *cn);
/* The final books, one line per stock (best bid and ask with their
 * quantities, a mark on a crossed or locked book, and a sentence when any
 * is); returns the same as a JSON array (new reference, NULL: no memory). */
struct json_t *itch_books_print(FILE *f, const itch_replay *r);
/* What the passes over a capture added up to. */
typedef struct itch_pass_totals {
    uint64_t passes, total_msgs, total_ns; /* messages applied, wall ns */
    double cpu_s;                          /* the replaying thread's CPU time */
    uint64_t gaps_cut;                     /* paced gaps shortened to max_gap_ns */
} itch_pass_totals;
/* `book itch --json`: the capture (path, len bytes), pacing (speed 0: as
 * fast as possible; max_gap_ns 0: no cap), counts, rates, and the latency
 * and stocks JSON it takes over (both may be NULL).  New reference or NULL. */
struct json_t *itch_run_json(const char *path, size_t len, double speed, uint64_t max_gap_ns,
                             const itch_counts *cn, const itch_pass_totals *t,
                             struct json_t *latency, struct json_t *stocks);

#endif
