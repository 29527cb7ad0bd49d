/* hlog_follow.h - following an interval log as it is written (tail -F), or a
 * tracer's unix socket streaming the same format.
 *
 * Only complete lines are consumed: a line still being written waits for its
 * newline.  Each batch of new lines is parsed by the reader (hlog.h) together
 * with the source's header lines, so StartTime/BaseTime and tags follow the
 * reference's rules. */

/* A file is followed by name:
 *   - one replaced (renamed over), truncated or rewritten in place is read
 *     again from its start;
 *   - a missing one is waited for;
 *   - a run that writes NAME.tmp.* to rename it over NAME at its end
 *     (atomicfile.h) is followed as it grows.
 * Each switch is told to the caller; the library prints nothing.
 * Not hot (a poll reads and allocates); one follower per thread. */
#ifndef LATLAB_HLOG_FOLLOW_H
#define LATLAB_HLOG_FOLLOW_H

#include "latlab/compiler.h"

#include <stdbool.h>

#include "latlab/hlog.h"

#define LAT_HLOG_FOLLOW_LINE_MAX (16u << 20) /* longest line accepted (corrupt input's guard) */
#define LAT_HLOG_FOLLOW_HEADER_MAX (1u << 20) /* header lines ("#[...]", legend) kept, bytes */
#define LAT_HLOG_FOLLOW_HEADER_MAX (1u << 20) /* header lines ("#[...]", legend) kept, bytes */

/* What happened to a followed name (path: the file read from now on). */
typedef enum lat_hlog_follow_event {
    LAT_HLOG_FOLLOW_WAITING,   /* the name does not exist (yet): waited for */
    LAT_HLOG_FOLLOW_APPEARED,  /* it exists now: read from its start */
    LAT_HLOG_FOLLOW_REPLACED,  /* another file has the name: read from its start */
    LAT_HLOG_FOLLOW_TRUNCATED, /* path was truncated: read again from its start */
    LAT_HLOG_FOLLOW_REWRITTEN, /* path was rewritten in place (its first bytes differ): same */
    LAT_HLOG_FOLLOW_RUN,       /* a run in progress writes path (NAME.tmp.*): followed */
    LAT_HLOG_FOLLOW_RUN_ENDED, /* that run ended without replacing the name: read the name */
} lat_hlog_follow_event;

typedef struct lat_hlog_follow_ops {
    /* Each interval as it is parsed (owned by the reader, valid during the
     * call).  Nonzero stops the poll, which returns that value. */
    int (*interval)(void *ud, const lat_hlog_interval *iv);
    /* A switch of the file followed (may be NULL). */
    void (*event)(void *ud, lat_hlog_follow_event ev, const char *name, const char *path);
    void *ud;
} lat_hlog_follow_ops;

typedef struct lat_hlog_follow lat_hlog_follow;

/* A follower of name (a path, or with sock a unix socket's path; copied),
 * calling ops (copied; interval required).  Opens nothing.  0 and *out, or
 * -EINVAL / -ENOMEM. */
LAT_API int lat_hlog_follow_create(const char *name, bool sock, const lat_hlog_follow_ops *ops,
                           lat_hlog_follow **out);
LAT_API void lat_hlog_follow_destroy(lat_hlog_follow *f); /* NULL is fine; closes what is open */

/* Open the file from its start, or connect to the socket (non-blocking).
 * 0 or -errno (-ENOENT: a file not there yet, which polls wait for). */
LAT_API int lat_hlog_follow_open(lat_hlog_follow *f);

/* Read what the source has now and consume its complete lines, calling
 * ops.interval per interval; at_end (the last read of a file not followed)
 * also takes an unterminated last line and does not follow the name.
 * Returns 0, the callback's nonzero value, or a negative error: -errno of a
 * read, -ENOMEM, -E2BIG (a line longer than LAT_HLOG_FOLLOW_LINE_MAX, header
 * lines past LAT_HLOG_FOLLOW_HEADER_MAX) or the reader's error (its decoding
 * cap included); then lat_hlog_follow_line/_offset/_reason say where and why.
 * Memory is bounded whatever the input: at most 1 MiB is read before the
 * complete lines it holds are consumed (an endless source is read in such
 * steps until it pauses). */
LAT_API int lat_hlog_follow_poll(lat_hlog_follow *f, bool at_end);

/* After an error: its 1-based line in the source (0: none) and the reader's
 * reason ("" when it gave none: lat_strerror of the error says it). */
LAT_API int lat_hlog_follow_line(const lat_hlog_follow *f);
/* The byte offset in the file read now (or the socket's stream) of the line
 * of the error, or, inside ops.interval, of the interval's line. */
LAT_API long long lat_hlog_follow_offset(const lat_hlog_follow *f);
LAT_API const char *lat_hlog_follow_reason(const lat_hlog_follow *f);

/* The socket's peer closed its stream (never for a file). */
LAT_API bool lat_hlog_follow_eof(const lat_hlog_follow *f);

#endif /* LATLAB_HLOG_FOLLOW_H */
