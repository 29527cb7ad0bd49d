/* flame.h - sampled call stacks: read `perf script` output or folded stacks,
 * fold them, rank frames, draw a flamegraph, compare two profiles. */

/* A profile (lat_flame) is a call tree of sample counts.  Its first level is
 * the thread name (perf's comm, e.g. "producer", "worker" once a thread calls
 * pthread_setname_np), below it the frames from the outermost caller to the
 * sampled instruction.  Memory grows with the number of distinct stacks, not
 * with the input: a 50 MB `perf script` text of a few hundred stacks needs a
 * few hundred tree nodes.  Input is pushed in chunks of any size (streaming). */

/* Frame names follow the common folded format of stackcollapse-perf: the
 * symbol without its +0x offset; an unknown symbol is "[dso]" (basename) or
 * "[unknown]"; kernel frames end in "_[k]" and inlined frames in "_[i]"; ';'
 * inside a name becomes ':'.  The folded text is one stack per line,
 * "thread;outer;...;inner COUNT", sorted, so other flamegraph tools read it. */

/* Shares are in percent of all samples of the profile.  A frame's total share
 * counts the samples whose stack holds it (once per sample, also when it
 * recurses); its self share the samples where it is the sampled frame. */

/* Objects are not thread-safe; nothing here is a hot path.  Allocation goes
 * through the library's allocator (hooks: alloc.h).  Functions taking an object return -EINVAL for
 * NULL; destroy functions accept NULL.  The library never prints: writers take
 * a FILE or a path (written atomically). */
#ifndef LATLAB_FLAME_H
#define LATLAB_FLAME_H

/* Experimental: its API may change in any release (see latlab.h). */
#ifndef LATLAB_EXPERIMENTAL
#error "latlab/flame.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include "latlab/report.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Input formats for lat_flame_feed. */
typedef enum lat_flame_format {
    LAT_FLAME_PERF_SCRIPT = 0, /* `perf script` default output (header, frame lines, blank) */
    LAT_FLAME_FOLDED,          /* "thread;a;b;c N" lines (first frame is the thread) */
    LAT_FLAME_FOLDED_NOTHREAD, /* "a;b;c N" lines with no thread level */
} lat_flame_format;

/* Documented caps: a longer input line, or a sample with more frames, is
 * LAT_EFORMAT (with the line number) rather than unbounded memory. */
#define LAT_FLAME_MAX_LINE 65536
#define LAT_FLAME_MAX_DEPTH 65536

/* Frame kinds, derived from the name annotations above. */
typedef enum lat_flame_kind {
    LAT_FLAME_USER = 0,
    LAT_FLAME_KERNEL,  /* "_[k]" */
    LAT_FLAME_INLINED, /* "_[i]" */
    LAT_FLAME_UNKNOWN, /* "[...]": no symbol */
    LAT_FLAME_THREAD,  /* the thread level */
} lat_flame_kind;

typedef struct lat_flame lat_flame;

/* New empty profile reading fmt.  Returns 0 and *out, -EINVAL, -ENOMEM. */
int lat_flame_create(lat_flame_format fmt, lat_flame **out);
void lat_flame_destroy(lat_flame *f);

/* Push len bytes of input (any split, including mid-line).  Returns 0, or
 * LAT_EFORMAT for malformed input (lat_flame_error_line says where; the
 * profile keeps what was complete before it), -ENOMEM.  After an error every
 * later feed returns the same error. */
int lat_flame_feed(lat_flame *f, const char *data, size_t len);
/* End of input: completes the last line and sample.  Returns 0 or the error. */
int lat_flame_finish(lat_flame *f);
/* Convenience: feed the whole stream, then finish.  A read error is the
 * stream's errno (-EISDIR for a directory), -EIO when it has none. */
int lat_flame_read(lat_flame *f, FILE *in);
/* 1-based line of the first format error (0 when none). */
size_t lat_flame_error_line(const lat_flame *f);
/* Why the input stopped being the format there (a static sentence; "" when
 * no format error).  perf script input must be sample headers "COMM [TID]
 * [CPU] TIME: [PERIOD] EVENT: ..." each followed by indented "ADDRESS SYMBOL
 * (DSO)" frames and a blank line.  NULL is fine. */
const char *lat_flame_error_reason(const lat_flame *f);

/* Add count samples of one stack directly: frames[0] is the outermost caller,
 * frames[n-1] the sampled frame, names as described above (annotations give
 * the kind).  thread may be NULL ("[unknown]").  n may be 0 (a sample with no
 * frames counts for its thread).  Returns 0, -EINVAL, -ENOMEM, LAT_EFORMAT
 * (n > LAT_FLAME_MAX_DEPTH). */
int lat_flame_add_stack(lat_flame *f, const char *thread, const char *const *frames, size_t n,
                        uint64_t count);

/* A new profile with the thread level dropped: the same stacks of every thread
 * merged.  Returns 0 and *out, or -EINVAL / -ENOMEM. */
int lat_flame_merge_threads(const lat_flame *f, lat_flame **out);

/* Samples in the profile; distinct stacks (tree leaves with samples); the
 * event perf named in the sample headers ("" when none, e.g. folded input). */
uint64_t lat_flame_samples(const lat_flame *f);
size_t lat_flame_stacks(const lat_flame *f);
const char *lat_flame_event(const lat_flame *f);

/* Write the folded text (sorted stacks, see above) to out.  threads: include
 * the thread level.  Returns 0, -EIO on a stream error, -ENOMEM. */
int lat_flame_write_folded(const lat_flame *f, bool threads, FILE *out);

/* One frame's share of the profile. */
typedef struct lat_flame_share {
    const char *name; /* valid while the profile lives */
    int kind;         /* lat_flame_kind */
    uint64_t self, total;
    double self_pct, total_pct; /* of all samples */
} lat_flame_share;

/* Every distinct frame (threads included, as LAT_FLAME_THREAD), sorted by
 * total share, then self share, then name.  *out is an array of *n entries;
 * free it with lat_flame_shares_destroy.  An empty profile
 * gives n == 0 and *out == NULL.  Returns 0, -EINVAL, -ENOMEM. */
int lat_flame_shares(const lat_flame *f, lat_flame_share **out, size_t *n);
void lat_flame_shares_destroy(lat_flame_share *s);
/* Sort shares (from lat_flame_shares) by self share, largest first, then
 * name: the order of a "top frames by self share" table. */
void lat_flame_shares_sort_self(lat_flame_share *s, size_t n);
/* The share of the frame called name of kind (e.g. the thread "worker"),
 * or NAN when absent or the profile is empty. */
double lat_flame_total_pct(const lat_flame *f, const char *name, lat_flame_kind kind);

/* Text table of the top frames by self and by total share (at most limit of
 * each; 0 means 20), the threads' shares and the sample count.  Returns 0,
 * -EIO, -ENOMEM. */
int lat_flame_write_top(const lat_flame *f, size_t limit, FILE *out);

/* ---- flamegraph ---------------------------------------------------------- */

typedef struct lat_flame_svg_opts {
    const char *title; /* NULL: "Flame graph" */
    const char *note;  /* a line under the title (e.g. the event and rate); may be NULL */
    int width_px;      /* 0: 1200; 400..4000 */
    lat_theme theme;   /* colours: light, dark, or following the viewer */
} lat_flame_svg_opts;

/* Frames drawn no deeper than this (deeper ones are summed into the row's
 * frames and the note says so: the image stays under ~1,200 px tall) and none
 * narrower than LAT_FLAME_MIN_PX.  A run of one unknown frame ("[unknown]"
 * repeated) is kept as one frame when stacks are added (every output), and the
 * flamegraph's note says how many were folded. */
#define LAT_FLAME_MAX_ROWS 64
#define LAT_FLAME_MIN_PX 0.1

/* Render a static SVG flamegraph: the root "all" at the bottom, callers below
 * callees, each frame's width its share of the samples (children sorted by
 * name, as flamegraph.pl), a <title> tooltip per frame with its share and
 * sample count, colours by kind from CSS classes (light, dark or
 * prefers-color-scheme), no script.  opts may be NULL.  An empty profile
 * renders a "no samples" note.  write_svg: -EIO on a stream error; save_svg
 * writes path atomically.  Returns 0 or a negative errno. */
int lat_flame_write_svg(const lat_flame *f, const lat_flame_svg_opts *opts, FILE *out);
int lat_flame_save_svg(const lat_flame *f, const lat_flame_svg_opts *opts, const char *path);
/* The same document in a string (*out_len bytes, NUL-terminated); free it with
 * lat_flame_svg_destroy.  For lat_report_svg. */
int lat_flame_render_svg(const lat_flame *f, const lat_flame_svg_opts *opts, char **out,
                         size_t *out_len);
void lat_flame_svg_destroy(char *svg); /* NULL is fine */

/* ---- comparing two profiles ------------------------------------------------ */

typedef struct lat_flame_diff_row {
    const char *name; /* valid while both profiles live */
    int kind;
    double a_pct, b_pct; /* total share in A and in B (0 when absent) */
    double diff_pts;     /* b_pct - a_pct, percentage points */
    double a_self_pct, b_self_pct;
} lat_flame_diff_row;

/* Every frame of A or B with its total share in each, sorted by |diff_pts|
 * (largest first), then name.  *max_abs_pts (may be NULL) gets the largest
 * |diff_pts| (0 when the profiles match).  Free *rows with
 * lat_flame_shares_destroy-alike lat_flame_diff_destroy.  Both profiles must have
 * samples (else -EINVAL).  Returns 0, -EINVAL, -ENOMEM. */
int lat_flame_diff(const lat_flame *a, const lat_flame *b, lat_flame_diff_row **rows, size_t *n,
                   double *max_abs_pts);
void lat_flame_diff_destroy(lat_flame_diff_row *rows);
/* Text: the rows (at most limit; 0 means 30) as a table with names of A and B,
 * then the verdict line "profiles differ by at most X points of share in any
 * frame (F)".  Returns 0, -EINVAL, -EIO, -ENOMEM. */
int lat_flame_write_diff(const lat_flame *a, const lat_flame *b, const char *name_a,
                         const char *name_b, size_t limit, FILE *out);

/* ---- narration (the lab's step e) --------------------------------------------- */

/* What the comparison says about a slowdown. */
typedef enum lat_flame_finding {
    LAT_FLAME_NO_SLOWDOWN = 0,  /* the work p50 ratio is below 1.25: nothing to find */
    LAT_FLAME_SAME_CODE_SLOWER, /* slower, yet no frame's share moved 10 points or more:
                                   the profiler points at the same code */
    LAT_FLAME_PROFILE_MOVED,    /* slower and some frame moved >= 10 points */
} lat_flame_finding;

#define LAT_FLAME_SLOWER_RATIO 1.25
#define LAT_FLAME_MOVED_PTS 10.0

/* Compare base and exp for the thread called thread (its total share in each)
 * given the work p50 ratio exp/base measured in the same rounds, and write the
 * sentence into buf (always NUL-terminated when len > 0), e.g. "the worker's
 * frames hold 71% vs 70% of samples while its work p50 rose x2.7: the sampling
 * profiler points at the same code; the cost moved into memory stalls".
 * Returns the lat_flame_finding (>= 0), -EINVAL (NULL, ratio not finite and
 * > 0, empty profiles), -ENOENT (thread in neither profile), -ENOMEM. */
int lat_flame_narrate(const lat_flame *base, const lat_flame *exp, const char *thread,
                      double work_p50_ratio, char *buf, size_t len);

#endif /* LATLAB_FLAME_H */
