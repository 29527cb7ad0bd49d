/* opstream.h - the text op stream of `latlab book replay` as a library: a
 * bounded line reader, the strict parser of one op line, the application of
 * a parsed op to a book, and the --tick/--price-scale arithmetic shared by
 * the book commands.
 *
 * Why here and not in cli/: the parser reads external input, so it has a fuzz
 * target (tests/fuzz/fuzz_opstream.c), and the LOBSTER reader shares the line
 * reader.  Nothing here prints or exits.
 *
 * Op lines (integers only; prices in the file's own unit; '#' starts a comment):
 *   L <id> <owner> <B|S> <price> <qty> <GTC|IOC|FOK|POST>   limit order
 *   M <id> <owner> <B|S> <qty>                              market order
 *   C <id>                                                  cancel
 *   R <id> <new_qty>                                        set the open quantity
 *   P <id> <price> <qty>                                    replace (loses priority)
 *   E <id> <qty>                                            execution of a resting order
 *   X ALL | X SIDE <B|S> | X OWNER <owner> | X RANGE <lo> <hi>   mass cancel
 *   S <depth>                                               snapshot */
#ifndef LATLAB_BOOK_OPSTREAM_H
#define LATLAB_BOOK_OPSTREAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "book.h"

/* ---- bounded line reader ------------------------------------------------------------ */

/* Longest line the readers accept (bytes, newline excluded). */
#define BOOK_MAX_LINE 4096

typedef struct book_lines {
    FILE *f;
    char buf[BOOK_MAX_LINE + 2];
    size_t start, end;
    uint64_t lineno; /* of the line last returned */
    int eof;
} book_lines;

void book_lines_init(book_lines *r, FILE *f);
/* 1 with *line (NUL-terminated, newline and a trailing CR removed; it may
 * hold NUL bytes: *len is the true length) and r->lineno; 0 at the end of the
 * input; LAT_EFORMAT for a line longer than BOOK_MAX_LINE (r->lineno is that
 * line; reading stops there); a negative errno when reading fails (never taken for the end).
 * Memory is the fixed buffer whatever the input (/dev/zero included). */
int book_lines_next(book_lines *r, char **line, size_t *len);

/* ---- prices: --tick and --price-scale --------------------------------------------------- */

/* Input prices are integers in units of 1/scale; the tick is a decimal in
 * the scaled unit (e.g. scale 10000, tick 0.01: one tick is 100 input units).
 * Sets *units to tick * scale, which must be a whole number >= 1.  0 or
 * LAT_EFORMAT (not a decimal, not positive, or not whole in input units). */
int book_tick_units(const char *tick, uint64_t scale, int64_t *units);

/* Round a band [lo, hi] in input units inward to multiples of the tick and
 * check it holds at most BOOK_MAX_LEVELS levels.  0 or -EINVAL. */
int book_band_on_tick(int64_t *lo, int64_t *hi, int64_t tick_units);

/* ---- op lines ------------------------------------------------------------------------- */

typedef enum book_op_kind {
    BOOK_OP_NONE = 0, /* blank or comment line */
    BOOK_OP_LIMIT,
    BOOK_OP_MARKET,
    BOOK_OP_CANCEL,
    BOOK_OP_MODIFY,
    BOOK_OP_REPLACE,
    BOOK_OP_EXEC,
    BOOK_OP_MASS,
    BOOK_OP_SNAPSHOT,
} book_op_kind;

typedef struct book_op {
    book_op_kind kind;
    uint64_t id;
    uint32_t owner;
    book_side side;
    int64_t price;
    uint32_t qty;
    book_tif tif;
    unsigned flags;
    book_filter filter; /* MASS */
    uint32_t depth;     /* SNAPSHOT */
} book_op;

/* Parse one line of len bytes (modified in place).  tick_units > 0: every
 * price must be a multiple of it.  Returns 0 (op->kind set; BOOK_OP_NONE for
 * a blank line) or LAT_EFORMAT with a reason in why (a NUL byte, a wrong
 * field count, a non-numeric or out-of-range field, a price off the tick). */
int book_op_parse(char *line, size_t len, int64_t tick_units, book_op *op, char *why,
                  size_t why_len);

/* Run a parsed op (not SNAPSHOT or NONE, which the caller handles) on b.
 * Returns the book's result: 0, or the BOOK_E* code it was rejected with
 * (mass cancel: 0 whatever the count). */
int book_op_apply(book *b, const book_op *op);

#endif /* LATLAB_BOOK_OPSTREAM_H */
