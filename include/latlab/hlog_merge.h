/* hlog_merge.h - merging HdrHistogram interval logs: per tag (the tags of a
 * log, their interval and value counts, their values merged as the recorded
 * slots only) and across logs (the intervals of several logs ordered by start
 * time, written as one 1.3 log without re-encoding).
 *
 * Memory follows the data present, not the geometry the intervals declare (a
 * 5-figure 1..2^62 interval is 48 MB as a histogram, a few slots here).  Not
 * hot; not thread-safe (one object per thread). */
#ifndef LATLAB_HLOG_MERGE_H
#define LATLAB_HLOG_MERGE_H

#include "latlab/compiler.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/hist.h"
#include "latlab/hlog.h"

/* ---- per tag ------------------------------------------------------------------------ */

/* A value and its count: one recorded slot of an interval's histogram. */
typedef struct lat_hlog_slot {
    int64_t value; /* the slot's lowest value */
    int64_t count;
} lat_hlog_slot;

/* One tag: its intervals, total count, the first interval's geometry (as
 * Java's add() keeps it) and (when asked) its slots sorted by value. */
typedef struct lat_hlog_tag {
    char tag[LAT_HLOG_TAG_MAX]; /* "" for the untagged intervals */
    int intervals;
    int64_t count;
    int64_t lowest;
    int sig_figs;
    lat_hlog_slot *slots;
    size_t nslots;
} lat_hlog_tag;

/* The tags seen, in order of first appearance.  Zeroed storage is a valid
 * empty set (or lat_hlog_tags_init). */
typedef struct lat_hlog_tags {
    lat_hlog_tag *tag;
    int n, cap;
    bool slots; /* keep the slots (a summary) or only the counts (a list) */
} lat_hlog_tags;

LAT_API void lat_hlog_tags_init(lat_hlog_tags *t, bool slots);
/* Add one interval to its tag.  0, -ENOMEM, or -EOVERFLOW when the tag's
 * total count would pass INT64_MAX (nothing added then). */
LAT_API int lat_hlog_tags_add(lat_hlog_tags *t, const lat_hlog_interval *iv);
/* The merged histogram of one tag (slots kept), as narrow as its values: h
 * is initialised here (lat_hist_fini it).  0 or -ENOMEM / -EINVAL. */
LAT_API int lat_hlog_tag_hist(const lat_hlog_tag *a, lat_hist *h);
LAT_API void lat_hlog_tags_fini(lat_hlog_tags *t); /* NULL is fine; leaves an empty set */

/* Add iv to *total as Java's HistogramLogProcessor does: the first interval
 * (*have false) makes total with the geometry it declares (its own values'
 * when that is too large to allocate) and sets *have; every interval is then
 * added auto-resizing, so no count is dropped.  0, -ENOMEM, or -EOVERFLOW
 * when total's count would pass INT64_MAX.  lat_hist_fini total when *have. */
LAT_API int lat_hlog_total_add(lat_hist *total, bool *have, const lat_hlog_interval *iv);

/* Merged histograms by key (a tag, or any name the caller gives intervals):
 * each key's first interval copied as it was decoded (its geometry: fitted
 * when the reader fits), every later one added auto-resizing, so no count is
 * dropped.  Zeroed storage is a valid empty set. */
typedef struct lat_hlog_keyed {
    char key[LAT_HLOG_TAG_MAX];
    lat_hist h;
} lat_hlog_keyed;

typedef struct lat_hlog_hists {
    lat_hlog_keyed *v; /* in order of first appearance */
    int n, cap;
} lat_hlog_hists;

/* The index of key, or -1. */
LAT_API int lat_hlog_hists_find(const lat_hlog_hists *s, const char *key);
/* Add iv's histogram under key (shorter than LAT_HLOG_TAG_MAX).  Returns the
 * key's index, or -ENOMEM / -EOVERFLOW (the merged count would pass
 * INT64_MAX) / -EINVAL; a new key is kept only once its copy is made. */
LAT_API int lat_hlog_hists_add(lat_hlog_hists *s, const char *key, const lat_hist *h);
LAT_API void lat_hlog_hists_fini(lat_hlog_hists *s); /* NULL is fine; leaves an empty set */

/* Every interval of the log at path (only those tagged tag when tag is not
 * NULL) added under its tag or, untagged, under the file's name without
 * .hlog ("all" when that leaves nothing; q1-wake and q2-wake, latlab
 * pipeline's file names, read as q1+wake and q2+wake); at most max keys.
 * 0, or a negative errno with the message (file and line named) in err. */
LAT_API int lat_hlog_hists_read(lat_hlog_hists *s, const char *path, const char *tag, int max,
                                char *err, size_t errlen);

/* ---- across logs ---------------------------------------------------------------------- */

typedef struct lat_hlog_merge lat_hlog_merge;

/* 0 and *out, or -ENOMEM. */
LAT_API int lat_hlog_merge_create(lat_hlog_merge **out);
LAT_API void lat_hlog_merge_destroy(lat_hlog_merge *m); /* NULL is fine */
/* Read every interval of r (which must stay open until lat_hlog_merge_write:
 * the encoded columns are not copied) and note its StartTime.  Returns 0, a
 * lat_hlog_next error (lat_hlog_reader_line/_reason tell where) or -ENOMEM. */
LAT_API int lat_hlog_merge_add(lat_hlog_merge *m, lat_hlog_reader *r);
/* The intervals added so far. */
LAT_API size_t lat_hlog_merge_count(const lat_hlog_merge *m);
/* Write them to f as one 1.3 log ordered by start time (ties: the order
 * added), timestamps re-based on the earliest StartTime or interval.
 * 0, -ENODATA when none was added, or the writer's error. */
LAT_API int lat_hlog_merge_write(lat_hlog_merge *m, FILE *f);

#endif /* LATLAB_HLOG_MERGE_H */
