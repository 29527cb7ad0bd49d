/* opreplay.h - the text op stream (opstream.h) run through one book: every
 * line parsed and applied, snapshots (S lines) written with the events, the
 * rejected ops counted by reason, malformed lines handed to a callback and
 * skipped; the totals as JSON.  `latlab book replay` is its command line.
 * Writes only into the event FILE the caller sets (out.f). */
#ifndef LATBOOK_OPREPLAY_H
#define LATBOOK_OPREPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "book.h"
#include "replay_report.h"

struct json_t;

/* Set b (the book, whose on_event is book_event_print with &out), out, and
 * bad_line/ud; the rest is zero before the run and the run's after. */
typedef struct book_opreplay {
    book *b;
    book_event_out out;
    void (*bad_line)(void *ud, uint64_t lineno, const char *why); /* NULL: not told */
    void *ud;
    book_level_view *lv[2]; /* snapshot buffers, grown with the book */
    size_t lvcap;
    uint64_t lines, ops, bad;
    book_reject_tally rej;
    double wall_s;
} book_opreplay;

/* Read in to its end (name: for messages), prices in units with tick.  0,
 * or LAT_EFORMAT (a line over BOOK_MAX_LINE) or the read's negative errno with
 * the message in msg; malformed lines are counted in c->bad, not errors. */
int book_opreplay_stream(book_opreplay *c, FILE *in, const char *name, int64_t tick, char *msg,
                         size_t msglen);

/* file, lines, ops, malformed and rejected ops (by reason), wall time, events
 * by kind and the final book; NULL when out of memory. */
struct json_t *book_opreplay_json(const book_opreplay *c, const char *path);

/* Free the snapshot buffers (the book is the caller's). */
void book_opreplay_fini(book_opreplay *c);

#endif
