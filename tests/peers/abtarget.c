/* abtarget.c - a harness program whose truth is known, for `latlab ab`'s
 * tests and benchmark.  Its name says what it does, so that copies of one
 * binary are the "builds" being compared: abt-w<W>-e<E>-x<X>-r<R>
 *   W  dependent multiply-adds per operation (B = A x 1.02 exactly: w100 vs w102)
 *   E  every E-th operation also does X more (a tail-only change; E 0: none)
 *   R  1: record each operation's latency (the per-op p50..p99.9), 0: not.
 * One benchmark, "known/chain"; a name ending "-more" adds "known/more" (a
 * build whose benchmark set differs), "-other" names its suite "abother" (a
 * report of another suite), "-hang" never returns from its 20th call and "-crash"
 * exits 3 in it (a run that fails midway, while taking turns).  Named
 * abcmd-w<W>-n<N> it is a command
 * of known work instead: N operations of W multiply-adds, then exit. */
#include <latlab/bench.h>
#include <latlab/clock.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned work = 100, every, extra, rec;
static int more, fail_at_20; /* 1 hang, 2 exit 3 */
static const lat_clock_cal *cal;
static volatile uint64_t sink;

static inline uint64_t chain(uint64_t x, unsigned n) {
    for (unsigned i = 0; i < n; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}

static void op_chain(void *ctx, uint64_t n, uint64_t idx) {
    (void)ctx;
    static unsigned calls;
    if (fail_at_20 && ++calls == 20) {
        fprintf(stderr, "abtarget: %s in call 20\n", fail_at_20 == 1 ? "hanging" : "exiting");
        if (fail_at_20 == 2) _exit(3); /* no exit handlers: what a crash leaves */
        for (;;)
            pause();
    }
    uint64_t x = sink + idx;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t t0 = rec ? lat_cycles() : 0;
        x = chain(x, work);
        if (every && (i % every) == every - 1) x = chain(x, extra);
        if (rec) lat_bench_record_ns(lat_clock_to_ns(cal, lat_cycles() - t0));
    }
    sink = x;
}

static int reg(lat_bench_runner *r) {
    lat_bench_group *g = lat_bench_group_create(r, "known");
    lat_bench_def d = {.name = "chain", .fn = op_chain}, m = {.name = "more", .fn = op_chain};
    if (!g || lat_bench_add(g, &d)) return -1;
    return more ? lat_bench_add(g, &m) : 0;
}

int main(int argc, char **argv) {
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    unsigned long ops;
    if (sscanf(base, "abcmd-w%u-n%lu", &work, &ops) == 2) {
        uint64_t x = 1;
        for (unsigned long i = 0; i < ops; i++)
            x = chain(x, work);
        sink = x;
        return 0;
    }
    if (sscanf(base, "abt-w%u-e%u-x%u-r%u", &work, &every, &extra, &rec) < 1) {
        fprintf(stderr, "%s: name it abt-w<W>-e<E>-x<X>-r<R>\n", base);
        return 2;
    }
    more = strstr(base, "-more") != NULL;
    fail_at_20 = strstr(base, "-hang") ? 1 : strstr(base, "-crash") ? 2 : 0;
    cal = lat_clock_default();
    const char *suite = strstr(base, "-other") ? "abother" : "abtarget";
    return lat_bench_main(argc, argv, suite, reg, 0, stdout, stderr);
}
