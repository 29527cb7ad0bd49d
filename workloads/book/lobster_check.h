/* lobster_check.h - a LOBSTER message file replayed through the book
 * (lobster.h) and checked row by row against its orderbook file: each
 * message parsed and applied (timed into a latency histogram), each row
 * compared; malformed lines, unappliable messages and mismatches reported
 * on a diagnostics stream up to a budget, the first mismatch kept, the wall
 * and CPU time of the loop measured.  `latlab book lobster` is its command
 * line.  Prints only into the FILE the caller passes (diag). */
#ifndef LATBOOK_LOBSTER_CHECK_H
#define LATBOOK_LOBSTER_CHECK_H

#include <stdint.h>
#include <stdio.h>

#include "lobster.h"
#include "opstream.h"
#include "latlab/hist.h"

/* Set the first block (and r, h, the readers) before the run. */
typedef struct lobster_check {
    const char *msg_path, *ob_path; /* for messages; ob NULL: no orderbook */
    int64_t tick;                   /* the book's tick in input units */
    uint64_t show;                  /* reports per budget (problems; outside the depth) */
    FILE *diag;                     /* where reports go, each prefixed "WHO: " */
    FILE *flush;                    /* flushed before each report (NULL: none) */
    const char *who;
    FILE *msg, *ob;
    lobster_replay *r;
    book_lines lm, lo; /* over msg and ob */
    lat_hist h;        /* per-message latency, ns */
    lobster_row row;   /* the orderbook row last read */
    uint32_t nlevels;  /* of the orderbook file (its first row) */
    uint64_t bad, shown, shown_depth, first_mismatch_line;
    lobster_mismatch first;
    int first_kind;
    double wall_s, cpu_s;
    char err[512]; /* the message of a -1 */
} lobster_check;

/* The next orderbook row into c->row: 1, 0 at the end, -1 with c->err. */
int lobster_check_next_row(lobster_check *c);

/* Every message to the end (the first one, with an orderbook, seeds the book
 * from the first row, which must have been read).  0, or -1 with c->err: an
 * unreadable line, files of different lengths, no messages. */
int lobster_check_run(lobster_check *c);

#endif
