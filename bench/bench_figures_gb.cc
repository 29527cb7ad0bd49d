// bench_figures_gb.cc - the peer half of the harness-accuracy figures: Google
// Benchmark timing the same three operations as bench_figures.c (a 64-bit
// hash, a 1 KiB memcpy, a histogram record), from the same compiled code
// (bench/support/figure_ops.c).  scripts/bench-vs-gbench.sh runs both with
// 10 repetitions and prints them side by side.  UseRealTime(): Google
// Benchmark then sizes each run by wall time (its default is CPU time, which
// on a busy machine stretches a 0.5 s run to several seconds of wall time),
// so both harnesses measure the same ~0.5 s wall window per repetition.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>

#include "support/figure_ops.h"

static void BM_hash64(benchmark::State &state) {
    uint64_t acc = 1;
    for (auto _ : state)
        acc = fig_hash64(acc);
    benchmark::DoNotOptimize(acc);
}
BENCHMARK(BM_hash64)->UseRealTime();

static void BM_memcpy1k(benchmark::State &state) {
    alignas(64) static unsigned char src[1024], dst[1024];
    std::memset(src, 7, sizeof src);
    for (auto _ : state)
        fig_copy1k(dst, src);
    benchmark::DoNotOptimize(dst[0]);
}
BENCHMARK(BM_memcpy1k)->UseRealTime();

static void BM_hist_record(benchmark::State &state) {
    void *h = fig_hist_new();
    uint64_t i = 0;
    for (auto _ : state)
        fig_hist_record(h, i++);
    fig_hist_free(h);
}
BENCHMARK(BM_hist_record)->UseRealTime();

BENCHMARK_MAIN();
