/* lobster.h - LOBSTER files (reconstructed NASDAQ order flow, the format most
 * order-book research uses): the reader of message and orderbook lines, a
 * replay through latlab's book that checks it against the orderbook file,
 * and a writer of LOBSTER-format fixtures from latlab's own book.
 *
 * Message file, one line per event: time (seconds after midnight, decimal),
 * type, order id, size, price (USD x 10,000), direction (1 buy, -1 sell).
 * Types: 1 new limit order, 2 partial cancel, 3 delete, 4 visible execution,
 * 5 hidden execution, 6 cross trade, 7 trading halt (price -1 halt, 0 quote
 * resumption, 1 trade resumption).  Orderbook file, one row per message (the
 * state after it): ask price, ask size, bid price, bid size for levels 1..N;
 * an empty level is ask 9999999999 / bid -9999999999 with size 0.
 *
 * LOBSTER's blind spot: a file holds only events within the top N levels, so
 * an order beyond level N can be added or cancelled unseen.  The replay marks
 * prices that have been outside the window (worse than level N of a full
 * side in some row, or beyond the first row's window) as in doubt, and a
 * mismatch at such a price is "outside the file's depth", not a book error.
 * A side that matches the file on all N levels clears the doubt up to its
 * level N (when every level is compared, --levels = N); the labelling is
 * otherwise conservative: a book error at a price in doubt is labelled too.
 *
 * Nothing here prints or exits; the parsers check every field (fuzz target:
 * tests/fuzz/fuzz_lobster.c). */
#ifndef LATLAB_BOOK_LOBSTER_H
#define LATLAB_BOOK_LOBSTER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "book.h"

#define LOBSTER_MAX_LEVELS                                                                         \
    50 /* levels per orderbook row (rows are read as lines of at most                              \
          BOOK_MAX_LINE bytes) */
#define LOBSTER_BAND_TICKS (1u << 26) /* the replay's band: tick .. 2^26 ticks */
#define LOBSTER_EMPTY_ASK 9999999999ll
#define LOBSTER_EMPTY_BID (-9999999999ll)

typedef struct lobster_msg {
    uint64_t time_ns; /* after midnight */
    int type;         /* 1..7 */
    uint64_t id;
    uint32_t size;
    int64_t price;
    book_side side; /* direction 1 -> BOOK_BUY, -1 -> BOOK_SELL */
} lobster_msg;

typedef struct lobster_level {
    int64_t price; /* 0 when the level is empty */
    uint64_t qty;
} lobster_level;

typedef struct lobster_row {
    uint32_t nlevels; /* N: columns / 4 */
    lobster_level ask[LOBSTER_MAX_LEVELS], bid[LOBSTER_MAX_LEVELS];
} lobster_row;

/* Parse one message line (modified in place).  tick > 0: prices of types 1-4
 * must be positive multiples of it.  0, or LAT_EFORMAT with the reason in why
 * (NUL byte, column count, a non-numeric or out-of-range field, type,
 * direction, a price off the tick). */
int lobster_parse_msg(char *line, size_t len, int64_t tick, lobster_msg *m, char *why,
                      size_t why_len);
/* Parse one orderbook row.  want_levels 0: any 4N columns (N <= max);
 * otherwise exactly 4 * want_levels.  0 or LAT_EFORMAT with why. */
int lobster_parse_row(char *line, size_t len, int64_t tick, uint32_t want_levels, lobster_row *r,
                      char *why, size_t why_len);

/* ---- replay ------------------------------------------------------------------------ */

typedef struct lobster_counts {
    uint64_t messages;
    uint64_t by_type[8];
    uint64_t prewindow;         /* applied to a level because the order rested before the window */
    uint64_t unappliable;       /* reported, not applied */
    uint64_t unappliable_depth; /* of which: at a price outside the file's depth */
    uint64_t rows_compared, rows_mismatch, rows_depth_only;
    /* The file disagreeing with itself (LOBSTER never does): */
    uint64_t crossing;       /* type 1 at or through the opposite best: refused, not applied */
    uint64_t wrong_price;    /* types 2-4 whose price or direction is not the order's: applied */
    uint64_t time_backwards; /* a time before the previous message's: applied */
} lobster_counts;

typedef struct lobster_mismatch {
    uint32_t level; /* 1-based */
    book_side side;
    int64_t book_price, file_price; /* 0: no level */
    uint64_t book_qty, file_qty;
    int outside_depth; /* explained by the file's depth window */
} lobster_mismatch;

typedef struct lobster_replay lobster_replay;

/* tick: the book's tick in input units; price_hi: the highest price the
 * book must hold (the band is tick .. price_hi, at most LOBSTER_BAND_TICKS
 * ticks; <= 0: the most); levels: N of the file (0 when there is no
 * orderbook file); compare: L <= N levels compared.  A message priced above
 * the band is unappliable (reason: outside the book's band). */
int lobster_replay_create(int64_t tick, int64_t price_hi, uint32_t levels, uint32_t compare,
                          lobster_replay **out);
/* The highest price of types 1-4 in a message file (lines that do not parse
 * are skipped), and the file rewound; 0 when it has none, or a negative
 * errno (not seekable, read error). */
int64_t lobster_scan_max_price(FILE *msg, int64_t tick);
void lobster_replay_destroy(lobster_replay *r);
/* Seed the book from the first orderbook row: one synthetic order per
 * visible level.  0 or a BOOK_E* code. */
int lobster_replay_start(lobster_replay *r, const lobster_row *row);
/* Apply one message.  0 applied; 1 applied to a pre-window level; or a
 * negative BOOK_E* code with *reason set (a static sentence) when it could
 * not be applied (nothing changed; a crossing add is BOOK_EARG, counted in
 * crossing, not unappliable).  An applied message the file contradicts (a
 * wrong price or direction, time going backwards) returns 0 or 1 with
 * *reason set and counted; otherwise *reason is "". */
int lobster_replay_apply(lobster_replay *r, const lobster_msg *m, const char **reason);
/* Count a message without applying it (the first one, whose effect the
 * first orderbook row already holds). */
void lobster_replay_note(lobster_replay *r, const lobster_msg *m);
/* Compare the book's top L levels with a row, then widen the untrusted
 * ranges by it.  0 equal; 1 a book mismatch; 2 only mismatches outside the
 * file's depth.  *first gets the first mismatch (bids level 1.., then asks). */
int lobster_replay_compare(lobster_replay *r, const lobster_row *row, lobster_mismatch *first);
const lobster_counts *lobster_replay_counts(const lobster_replay *r);
book *lobster_replay_book(lobster_replay *r);

/* ---- fixtures ---------------------------------------------------------------------- */

typedef struct lobster_synth_cfg {
    uint64_t seed;
    uint32_t messages;  /* lines written */
    uint32_t levels;    /* N of the orderbook file */
    uint32_t hidden_pm; /* per mille of events placed beyond level N (not written) */
} lobster_synth_cfg;

typedef struct lobster_synth_stats {
    uint64_t written, unseen; /* messages written; events beyond the depth left out */
    uint64_t by_type[8];
    uint64_t prewindow_refs; /* messages naming an order added before message 1 */
} lobster_synth_stats;

/* Drive latlab's book with a seeded random order flow (prices USD x 10,000 on
 * a cent tick around $58.50) and write what LOBSTER would: a message line
 * per event within the top N levels and the orderbook row after it.  Orders
 * rest before the first message (pre-window), and a few events are placed
 * beyond level N and left out of the files (the blind spot).  0 or an error
 * (-errno of a write, -ENOMEM). */
int lobster_synth_write(const lobster_synth_cfg *cfg, FILE *msg, FILE *ob, lobster_synth_stats *st);

#endif /* LATLAB_BOOK_LOBSTER_H */
