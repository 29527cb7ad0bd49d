// abtarget_gb.cc - the Google Benchmark twin of abtarget.c, for `latlab ab`'s
// Google Benchmark mode and for compare.py, its peer: the name says what it
// does, so copies of one binary are the builds compared: abtgb-w<W>
//   W  dependent multiply-adds per iteration.
// One benchmark, BM_chain.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

static unsigned work = 100;

static void BM_chain(benchmark::State &state) {
    uint64_t x = 1;
    for (auto _ : state) {
        for (unsigned i = 0; i < work; i++)
            x = x * 6364136223846793005ull + 1442695040888963407ull;
        benchmark::DoNotOptimize(x);
    }
}
BENCHMARK(BM_chain);

int main(int argc, char **argv) {
    const char *base = std::strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    if (std::sscanf(base, "abtgb-w%u", &work) != 1) {
        std::fprintf(stderr, "%s: name it abtgb-w<W>\n", base);
        return 2;
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
