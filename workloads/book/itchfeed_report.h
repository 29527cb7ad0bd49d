/* itchfeed_report.h - a replay feed (itchfeed.h) as the tools show it: the
 * capture loaded with file-and-offset errors, the replay's own output (work
 * per message kind, arrival figures, final books) after the pipeline's stage
 * table, its JSON, and the steady-vs-replay round that `latlab pipeline
 * --replay --with-steady` and the lab's replay round (lab_replay.h) run.
 * Writes only to the FILE it is given; errors are returned with a message. */
#ifndef LATBOOK_ITCHFEED_REPORT_H
#define LATBOOK_ITCHFEED_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "itchfeed.h"
#include "latlab/pipeline.h"

struct json_t;

/* Read and frame the capture, build the books, point c at the feed.  0 and
 * *out, or a negative errno with the message in err (len bytes): the file
 * and offset of a truncated or foreign message, an empty capture, or the
 * file's error. */
int itchfeed_load(const char *path, const itchfeed_options *o, lat_pipe_config *c, itchfeed **out,
                  char *err, size_t len);

/* One line: the capture, passes, speed and what the work stage is. */
void itchfeed_report_header(FILE *f, const char *path, const itchfeed *feed, double speed);

/* Work per kind, arrival figures, itch anomalies, final top of book per stock
 * (the same table as `latlab book itch`). */
void itchfeed_report_print(FILE *f, const itchfeed *feed, double speed, const lat_pipe_result *r);

/* The same as a JSON object (new reference). */
struct json_t *itchfeed_report_json(const itchfeed *feed, double speed, const lat_pipe_result *r);
/* The mark a book table puts after a crossed (2) or locked (1) book's row
 * (book_crossed), "" otherwise; and the sentence under the table (to f)
 * when n books are: a replayed feed never crosses a book of its own. */
const char *book_cross_mark(int crossed);
void book_say_crossed(FILE *f, unsigned n);

/* The same pipeline (base: placed, e.g. the lab's pinned baseline config)
 * fed first at a steady rate equal to the capture's mean offered rate, then
 * by the capture on its own timestamps (o: speed, loops, max gap).  Prints
 * both stage tables (titled) and the replay's figures to out; *json, when
 * json is non-NULL, gets {"steady": run, "replay": run with its "replay"
 * figures}.  Returns 0, or a negative errno with the message in err (an
 * unreadable or bad capture, a failed run). */
int itchfeed_steady_vs_replay(FILE *out, const char *path, const itchfeed_options *o,
                              const lat_pipe_config *base, bool over, struct json_t **json,
                              char *err, size_t len);

#endif
