/* itch.h - NASDAQ TotalView-ITCH 5.0: message framing, decoding of the
 * book-relevant messages, and a replay that builds one book per stock.
 *
 * Framing: each message in a capture file is preceded by a 2-byte big-endian
 * length.  Some captures (../shared/data/ritch_ex.itch) write 0x0000 there, so
 * a zero length means "frame by the type byte and that type's fixed length";
 * a non-zero length must equal the type's fixed length.  An unknown type, a
 * length that disagrees with the type, or a message cut short by the end of
 * the input stops the reader with an error and the offset of the bad frame.
 *
 * Replay: a first pass validates the framing, counts message types and
 * finds each stock's price range, price granularity (gcd) and number of adds;
 * books are then created to fit (band and capacity: one order slot per add,
 * level pages only where adds rest - a third, untimed pass binds them), so
 * the timed pass never allocates, and memory follows the data: per stock
 * ~64 B per add, 6 KB per 256-level price region used, and a page directory
 * of 8 B per 256 levels of its band.  The total is capped (max_bytes, by
 * default ITCH_DEFAULT_MAX_BYTES): above it creation fails with -ENOMEM and
 * reports the figure.  Executions, cancels, deletes and replaces that
 * name an order the book does not hold are counted, never fatal.  Single
 * threaded; nothing here prints. */
#ifndef LATLAB_ITCH_H
#define LATLAB_ITCH_H

#include <stddef.h>
#include <stdint.h>

#include "book.h"

/* Fixed length of a message type (including the type byte), 0 if unknown. */
size_t itch_msg_len(uint8_t type);

/* One framed message.  p points into the caller's buffer (len bytes, p[0] is
 * the type). */
typedef struct itch_msg {
    uint8_t type;
    uint16_t locate;
    uint64_t ts_ns; /* nanoseconds since midnight (48 bits) */
    const uint8_t *p;
    size_t len;
    size_t offset; /* of the frame (its length prefix) in the input */
} itch_msg;

typedef struct itch_reader {
    const uint8_t *buf;
    size_t len, off;
    size_t err_off; /* after an error: offset of the offending frame */
} itch_reader;

void itch_reader_init(itch_reader *r, const uint8_t *buf, size_t len);
/* 1 and *m for the next message, 0 at a clean end, or an error with
 * r->err_off set: LAT_ETRUNCATED (input ends inside a frame) or LAT_EFORMAT
 * (unknown type, or a length prefix that disagrees with the type). */
int itch_next(itch_reader *r, itch_msg *m);

/* Read a capture file whole into *buf (malloc'd: free() it) and *len,
 * checking its framing as it arrives: input that is not ITCH (/dev/zero, a
 * text file) stops the read at its first bad frame instead of being loaded
 * to the end, so the replay reports that offset at the cost of one buffer.
 * 0, or -errno of the open/read, -EIO, -ENOMEM. */
int itch_read_file(const char *path, uint8_t **buf, size_t *len);

/* Decoded book-relevant fields (A, F, E, C, X, D, U). */
typedef struct itch_order_msg {
    uint64_t ref, new_ref; /* new_ref: U only */
    book_side side;        /* A, F */
    uint32_t shares;       /* A/F: shares; E/C: executed; X: cancelled; U: new shares */
    uint32_t price;        /* A/F/U, 4 implied decimals */
} itch_order_msg;
/* Returns 1 and fills *o for a book-relevant type, 0 otherwise. */
int itch_decode_order(const itch_msg *m, itch_order_msg *o);

/* ---- replay ------------------------------------------------------------------------ */

#define ITCH_NSTOCKS 65536

typedef struct itch_stock {
    char symbol[9]; /* from R, "" if no directory message; trailing blanks removed */
    book *bk;       /* NULL when the stock never had an add */
    int64_t price_lo, price_hi, tick;
    uint32_t adds;
} itch_stock;

typedef struct itch_counts {
    uint64_t messages;
    uint64_t by_type[256];
    uint64_t unknown_ref; /* E/C/X/D/U naming an order that is not in its book */
    uint64_t unknown_by_type[256];
    uint64_t dup_add;      /* A/F whose ref is already resting */
    uint64_t rejected_add; /* A/F/U the book refused otherwise (zero shares, band) */
    uint64_t over_exec;    /* E/C/X for more shares than were open */
} itch_counts;

typedef struct itch_replay itch_replay;

/* Scan buf (first pass) and build the books.  max_levels caps each book's band
 * (0 = 1<<22 levels); prices beyond it are rejected adds.  Returns 0 and *out;
 * LAT_ETRUNCATED / LAT_EFORMAT with *err_off for bad framing; -ENOMEM. */
int itch_replay_create(const uint8_t *buf, size_t len, uint32_t max_levels, itch_replay **out,
                       size_t *err_off);

/* Creation options; zero fields take the defaults. */
#define ITCH_DEFAULT_MAX_BYTES ((size_t)1 << 30)
typedef struct itch_replay_opts {
    uint32_t max_levels; /* band cap per book (0 = 1<<22 levels) */
    int64_t tick;        /* > 0: every book uses this tick (adds off it are rejected
                            adds); 0: each stock's gcd of prices */
    size_t max_bytes;    /* cap on the books' memory (0 = ITCH_DEFAULT_MAX_BYTES) */
} itch_replay_opts;
/* As itch_replay_create; *bytes (may be NULL) gets the books' memory, also
 * when the cap refused them (-ENOMEM: the figure reached when it stopped). */
int itch_replay_create_opts(const uint8_t *buf, size_t len, const itch_replay_opts *opt,
                            itch_replay **out, size_t *err_off, size_t *bytes);
size_t itch_replay_bytes(const itch_replay *r);
void itch_replay_destroy(itch_replay *r);
/* Empty every book and zero the counts (for another loop).  No allocation. */
void itch_replay_reset(itch_replay *r);
/* Apply one framed message.  Never fails; anomalies are counted. */
void itch_replay_apply(itch_replay *r, const itch_msg *m);
const itch_counts *itch_replay_counts(const itch_replay *r);
/* Stock by locate code (NULL for codes never seen); itch_replay_stock_next
 * iterates the seen ones: start with -1, returns -1 at the end. */
const itch_stock *itch_replay_stock(const itch_replay *r, uint16_t locate);
int itch_replay_stock_next(const itch_replay *r, int prev);

#endif /* LATLAB_ITCH_H */
