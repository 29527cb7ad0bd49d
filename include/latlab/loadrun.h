/* loadrun.h - several load engines (load.h) run as one: the sending threads
 * of `latlab load`.
 *
 * Engine k of T gets its share of the rate and of the connections, its own
 * Poisson stream (seed + k), CPU (cpu + k) and, for constant arrivals, a
 * phase, so that the threads' sends interleave into one evenly spaced
 * timetable; several engines share one start 200 ms ahead (time for every
 * connection to open), or cfg->start_cycles when set. */

/* With a rate plan or a share of one schedule (cfg->plan not FIXED, or
 * cfg->stride > 1: a shard, loadsched.h) the threads instead split that one
 * schedule: every engine keeps the seed and takes the arrivals marked
 * phase + k * stride of stride * threads, so the threads' sends together are
 * exactly the shard's.  cfg->plan.from_hz is then the whole schedule's rate
 * (FIXED) and cfg->rate_hz the shard's mean. */

/* lat_loadrun_run starts one thread per engine.  On the calling thread it
 * hands the caller each second's interval (every engine's histograms added)
 * and the summed counters.  lat_loadrun_judge pools the engines' samples for
 * the validity verdict (loadverdict.h).
 *
 * Threading: create, run, judge and destroy on one thread; lat_loadrun_stop
 * from any (a signal handler included).  Allocation in create and judge. */
#ifndef LATLAB_LOADRUN_H
#define LATLAB_LOADRUN_H

#ifndef LATLAB_EXPERIMENTAL
#error "latlab/loadrun.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include "latlab/hist.h"
#include "latlab/load.h"
#include "latlab/loadverdict.h"

#define LAT_LOADRUN_MAX_THREADS 64

typedef struct lat_loadrun lat_loadrun;

/* One tick: the interval [start_s, end_s) in wall-clock seconds
 * (CLOCK_REALTIME), its histograms (ns; valid during the call only) and
 * every engine's counters summed (the maxima as the largest; gap_ns as the
 * mean per sending thread, so it compares with the run's length). */
typedef struct lat_loadrun_tick {
    double start_s, end_s;
    const lat_hist *h[LAT_LOAD_NSERIES]; /* by lat_load_series */
    const lat_load_counts *counts;
    bool last; /* the last part-second, after every engine ended */
} lat_loadrun_tick;

typedef void (*lat_loadrun_tick_fn)(void *ud, const lat_loadrun_tick *t);

/* threads engines (1 .. LAT_LOADRUN_MAX_THREADS, at most cfg->connections)
 * sharing cfg as above.  0, -EINVAL (bad cfg or threads; replay with more
 * than one thread) or -ENOMEM. */
int lat_loadrun_create(const lat_load_cfg *cfg, unsigned threads, lat_loadrun **out);
void lat_loadrun_destroy(lat_loadrun *r); /* NULL is fine; not while running */

/* Run every engine on its own thread to its end; meanwhile call tick on
 * this thread about once per wall-clock second from t0_s (CLOCK_REALTIME
 * seconds), and once more for the last part-second.  tick may be NULL.
 * Returns 0, or a negative errno when a thread could not start (the
 * engines that had started are stopped first).  The engines' own results:
 * lat_loadrun_result.  Call once. */
int lat_loadrun_run(lat_loadrun *r, double t0_s, lat_loadrun_tick_fn tick, void *ud);

/* Ask every engine to stop, as lat_load_stop (async-signal-safe; NULL is fine). */
void lat_loadrun_stop(lat_loadrun *r);

/* After the run: the first engine's failure (lat_load_run's result) or 0. */
int lat_loadrun_result(const lat_loadrun *r);

/* Every engine's counters summed as in lat_loadrun_tick. */
void lat_loadrun_counts(const lat_loadrun *r, lat_load_counts *out);

/* The verdict on the run just ended: in's arrivals are the run's, its inter-arrivals and latency
 * pairs are replaced by every engine's, pooled (each thread's Poisson stream has the same rate, so
 * their gaps share one law); the rest of in is the caller's.  0, or -ENOMEM (out is then judged on
 * no samples). */
int lat_loadrun_judge(const lat_loadrun *r, const lat_load_verdict_in *in, lat_load_verdict *out);

/* After the run: every engine's steps added into out (created by the
 * caller with lat_loadsched_steps_create for cfg's plan and duration).  0 or
 * -EINVAL. */
int lat_loadrun_steps(const lat_loadrun *r, lat_loadsched_steps *out);

/* Before the run: host and port (a name or a numeric address; digits)
 * looked up within timeout_ms (lat_http_resolve) into cfg->addr and
 * addr_len.  0, -ETIMEDOUT, or the lookup's error (lat_strerror: the
 * resolver's words for a name that does not resolve). */
int lat_loadrun_resolve(lat_load_cfg *cfg, const char *host, const char *port, int timeout_ms);

/* Whether the sending threads' CPUs cpu .. cpu + threads - 1 are all ones
 * this process may run on: 0, k + 1 for the first thread k whose CPU is
 * not, or a negative errno when the process's CPUs cannot be read. */
int lat_loadrun_cpus_check(int cpu, unsigned threads);

/* The run's settings as a JSON object: "arrivals", "rate_hz", "duration_ns",
 * "seed", "connections", "threads", "inflight", "shard_index" and "shards"
 * (null without --shard): a new reference. */
struct json_t *lat_loadrun_cfg_json(const lat_load_cfg *cfg, unsigned threads);

#endif /* LATLAB_LOADRUN_H */
