/* loadtarget.h - what `latlab load` aims at: its TARGET argument split into
 * host, port, path and whether the connection speaks TLS (https://); and,
 * with --targets FILE, many endpoints of one service, each a request of its
 * own, picked request by request, with results per target. */

/* Kept apart from the engine (load.c), which connects to an address already
 * looked up and sends what it is handed, and from TLS (loadtls.h), which
 * needs the host name the target gave: both read what this one parses.
 * lat_loadtarget_split is pure string work: no allocation, no syscall. */

/* The targets file (--targets FILE): blocks separated by blank lines.
 *
 *     # the catalogue: 3 reads for each write
 *     GET http://shop:8080/items name=items weight=3
 *     Accept: application/json
 *
 *     POST /cart name=cart
 *     Content-Type: application/json
 *     @cart.json
 *
 *   - a block's first line: METHOD URL, then optionally name=NAME and
 *     weight=N (1..LAT_LOADTARGET_WEIGHT_MAX, default 1);
 *   - then "Header: value" lines and at most one @PATH: the body, read from
 *     PATH (relative to the file's folder) at load time, at most
 *     LAT_LOADTARGET_BODY_MAX bytes, no NUL;
 *   - '#' starts a comment line. */

/* URL is http(s)://HOST[:PORT]/PATH on the run's origin (scheme, host and
 * port: the run's connections go there), or /PATH on it.  NAME: letters,
 * digits and _-./ (at most LAT_LOADTARGET_NAME_MAX - 1 bytes; default the
 * path, other characters as '_'), one per target.  HEAD is refused (one
 * response parser reads every target's replies).  At most
 * LAT_LOADTARGETS_MAX targets.  A fault reads "FILE line N: why". */

/* The pick: request n of the one schedule (its arrival number, kept or not,
 * loadsched.h) goes to lat_loadtarget_pick(ts, seed, n), a pure function of
 * n and the run's seed, so the shards of one schedule together send exactly
 * the mix one generator sends.  Round robin: smooth weighted round robin
 * (weights 3 and 1: a a b a, a a b a...); random: target i with probability
 * weight_i / the sum of the weights, from a hash of seed and n.  Sending
 * threads with streams of their own (loadrun.h) each pick from their seed and
 * arrival numbers; a replay picks by the request's sequence number. */

/* Results: the engines record, for the target each request went to, its
 * send, its completion (an error reply counted apart, a censored one too:
 * load.h) and the latency of the kept ones in a recorder shared by the
 * engines (lat_hist_recorder: any number of writers, wait-free); one reader
 * thread takes each interval (lat_loadtarget_tick) into the totals.
 * Memory: about 1 MiB of histograms per target, most never touched.
 * Threading: parse and destroy on one thread; sent/done from any number of
 * sending threads; tick, the counts and the writers from one reader. */
#ifndef LATLAB_LOADTARGET_H
#define LATLAB_LOADTARGET_H

#ifndef LATLAB_EXPERIMENTAL
#error "latlab/loadtarget.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/hist.h"
#include "latlab/loadproto.h"

/* A target: HOST:PORT, [IPV6]:PORT, http://HOST[:PORT][/PATH] (port 80) or
 * https://HOST[:PORT][/PATH] (port 443; *tls set, NULL-able).  host gets
 * the host (hn bytes with its NUL), port the port's digits (8 bytes), *path
 * the URL's path inside t (NULL without one).  0, or -EINVAL with *why the
 * fault as the end of a sentence ("target 'x'" + why: ": no host", " is not
 * HOST:PORT", ": bad port", ": port out of range (1-65535)", ": no ']'"). */
int lat_loadtarget_split(const char *t, char *host, size_t hn, char *port, const char **path,
                         const char **why, bool *tls);

/* ---- the targets file (--targets) ------------------------------------------------------- */

#define LAT_LOADTARGETS_MAX 64           /* targets in one file at most */
#define LAT_LOADTARGET_WEIGHT_MAX 1000   /* weight=N at most */
#define LAT_LOADTARGET_NAME_MAX 48       /* a name's bytes with its NUL */
#define LAT_LOADTARGET_BODY_MAX 61440    /* a body file's bytes at most (60 KiB) */
#define LAT_LOADTARGET_HEADERS_MAX 8192  /* a target's header lines together */
#define LAT_LOADTARGETS_FILE_MAX 1048576 /* the targets file's bytes at most */

typedef enum lat_loadtarget_pick_kind {
    LAT_LOADTARGET_ROUND_ROBIN, /* smooth weighted round robin over n */
    LAT_LOADTARGET_RANDOM       /* by weight, from a hash of the seed and n */
} lat_loadtarget_pick_kind;

/* The run's origin and what every target's request shares. */
typedef struct lat_loadtarget_origin {
    const char *host, *port; /* as lat_loadtarget_split gave them */
    bool tls;                /* https:// */
    const char *host_header; /* Host: (NULL: host) */
    size_t max_response;     /* 0: LAT_LOADPROTO_DEFAULT_MAX_RESPONSE */
} lat_loadtarget_origin;

typedef struct lat_loadtargets lat_loadtargets;

/* Parse text (a targets file's contents; name: the file as the errors name
 * it; dir: where @PATH is relative to, NULL: the working directory) into
 * *out, every target's request built (http, loadproto.h).  0, -EINVAL with
 * err the fault ("FILE line N: why"), or -ENOMEM. */
int lat_loadtarget_parse(const char *text, const char *name, const char *dir,
                         const lat_loadtarget_origin *o, lat_loadtarget_pick_kind pick,
                         lat_loadtargets **out, char *err, size_t errn);
/* The same from the file at path (at most LAT_LOADTARGETS_FILE_MAX bytes):
 * -EINVAL for a fault in it, the open's or read's -errno (err saying so). */
int lat_loadtarget_read_file(const char *path, const lat_loadtarget_origin *o,
                             lat_loadtarget_pick_kind pick, lat_loadtargets **out, char *err,
                             size_t errn);
void lat_loadtarget_destroy(lat_loadtargets *ts); /* NULL is fine */

unsigned lat_loadtarget_count(const lat_loadtargets *ts);
const char *lat_loadtarget_name(const lat_loadtargets *ts, unsigned i);
unsigned lat_loadtarget_weight(const lat_loadtargets *ts, unsigned i);
/* Target i's built request (the template: no key digits for http). */
const lat_loadproto *lat_loadtarget_proto(const lat_loadtargets *ts, unsigned i);
/* The longest target's request, bytes. */
size_t lat_loadtarget_req_max(const lat_loadtargets *ts);
/* "round-robin", "random". */
const char *lat_loadtarget_pick_name(lat_loadtarget_pick_kind k);

/* The target of request n of the schedule of seed: pure, allocation-free. */
unsigned lat_loadtarget_pick(const lat_loadtargets *ts, uint64_t seed, uint64_t n);

/* The engine's side: request n's target (*i) and its bytes (*len of them). */
const uint8_t *lat_loadtarget_request(const lat_loadtargets *ts, uint64_t seed, uint64_t n,
                                      unsigned *i, size_t *len);
/* A request to target i went out; one completed (latency_ns from its
 * intended send; censored: late because of a platform gap, its latency kept
 * out; error_reply: the reply said error).  Any thread; allocation-free. */
void lat_loadtarget_sent(lat_loadtargets *ts, unsigned i);
void lat_loadtarget_done(lat_loadtargets *ts, unsigned i, int64_t latency_ns, bool censored,
                         bool error_reply);

/* ---- the results (one reader thread) ---------------------------------------------------- */

typedef struct lat_loadtarget_counts {
    uint64_t sent, completed, error_replies, censored;
    uint64_t failed; /* sent and never completed (timeout, reset, closed...: sent - completed) */
} lat_loadtarget_counts;

void lat_loadtarget_counts_get(const lat_loadtargets *ts, unsigned i, lat_loadtarget_counts *out);
/* Take every target's interval since the last call into its interval
 * histogram and add it to its totals.  0 or a negative errno. */
int lat_loadtarget_tick(lat_loadtargets *ts);
/* Target i's kept latency, ns: the last interval, or (total) the run's. */
const lat_hist *lat_loadtarget_hist(const lat_loadtargets *ts, unsigned i, bool total);
/* "latency.NAME": target i's tag in an interval log (hlog.h). */
const char *lat_loadtarget_tag(const lat_loadtargets *ts, unsigned i);

/* The worst tail: the target with the highest latency at percentile p among
 * those with a value there whose interval is not max-bound (-1: none). */
int lat_loadtarget_worst(const lat_loadtargets *ts, double p);

/* The per-target table on f: name, weight, sent, completed, failed, error
 * replies, latency at ps (us, with 95% intervals; "-" where too few
 * samples) and a verdict: the run's (run_valid) when it is invalid, else
 * "valid", or "wide" naming the percentiles whose interval spans more than
 * ci_width of their value; then the worst tail.  ps: at most 8. */
void lat_loadtarget_write(FILE *f, const lat_loadtargets *ts, const double *ps, size_t nps,
                          bool run_valid, double ci_width);
/* The same as a JSON array: one object per target ("name", "method",
 * "path", "weight", the counts, "latency" as lat_load_hist_json gives it,
 * "verdict", "worst_tail"). */
struct json_t *lat_loadtarget_json(const lat_loadtargets *ts, const double *ps, size_t nps,
                                   bool run_valid, double ci_width);

#endif /* LATLAB_LOADTARGET_H */
