/* figure_ops.h - the three operations measured by both latlab's harness
 * (bench_figures.c) and Google Benchmark (bench_figures_gb.cc) for the
 * harness-accuracy figures.  They are compiled once, in C, into a support
 * library both programs link, and are never inlined, so both harnesses time
 * exactly the same machine code: one call per operation. */
#ifndef LATLAB_BENCH_FIGURE_OPS_H
#define LATLAB_BENCH_FIGURE_OPS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A 64-bit hash (MurmurHash3's fmix64 finalizer over x + a constant). */
uint64_t fig_hash64(uint64_t x);
/* Copy 1 KiB from src to dst (both >= 1024 bytes). */
void fig_copy1k(void *dst, const void *src);
/* A latlab histogram (1 ns .. 1 h, 3 digits), or NULL. */
void *fig_hist_new(void);
void fig_hist_free(void *h);
/* Record a value derived from i (spread over 1 .. ~1M) into h. */
void fig_hist_record(void *h, uint64_t i);

#ifdef __cplusplus
}
#endif

#endif
