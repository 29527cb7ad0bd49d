/* bakeoff.h - the SPSC ring bake-off behind `latlab bakeoff ring`: rounds that
 * interleave latlab's two rings, ck_ring and a mutex queue (bakeoff_rings.h's
 * measurements) with the cache-line ping-pong floor, the medians over the
 * rounds, the winner, and the result as a table (into a FILE*) and as JSON.
 * Internal to latlab (not installed); nothing here prints on its own. */
#ifndef LATLAB_BAKEOFF_H
#define LATLAB_BAKEOFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Most rounds one bake-off holds. */
#define LAT_BAKEOFF_MAX_ROUNDS 101

/* What to run: rounds (1..LAT_BAKEOFF_MAX_ROUNDS); same-thread pairs per
 * measurement; items per throughput run and round trips per latency run (the
 * mutex queue runs 1/20 of them); the throughput runs' capacity (a power of
 * two); same_thread_only: no second CPU (cpus unused). */
typedef struct lat__bakeoff_config {
    int rounds;
    uint64_t ops, items, samples;
    size_t cap;
    bool same_thread_only;
    int cpus[2];
} lat__bakeoff_config;

/* The figures of every round and their medians (about 30 KiB: allocate it). */
typedef struct lat__bakeoff lat__bakeoff;

/* Size of a lat__bakeoff, for the caller's allocation (zeroed). */
size_t lat__bakeoff_size(void);

/* Run the rounds of cfg into r (caller storage of lat__bakeoff_size() bytes),
 * calling progress(ud, round, rounds) before each (progress may be NULL), then
 * take the medians.  0 or the first measurement's negative errno.  Not
 * thread-safe (pins the calling thread's helpers to cfg->cpus). */
int lat__bakeoff_run(lat__bakeoff *r, const lat__bakeoff_config *cfg,
                     void (*progress)(void *ud, int round, int rounds), void *ud);

/* The tables and, with two CPUs, the winner line, into f. */
void lat__bakeoff_print(const lat__bakeoff *r, FILE *f);

/* Every figure (medians and each round) as JSON, written atomically to path.
 * 0 or a negative errno. */
int lat__bakeoff_write_json(const lat__bakeoff *r, const char *path);

#endif
