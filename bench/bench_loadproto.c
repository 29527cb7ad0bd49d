/* bench_loadproto.c - what `latlab load`'s response parsers cost per
 * response, fed whole as a read gives them: an nginx-like HTTP/1.1 reply
 * (five headers, Content-Length), a chunked one, a Redis bulk string and a
 * memcached VALUE.  Median ns per response of REPS passes of N responses
 * each.  Figures only; never pass/fail.
 *
 *   bench_loadproto [--n N] [--reps R] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/clock.h"
#include "latlab/loadproto.h"

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median ns per response; -1 when the parser did not take every response. */
static double run(lat_loadproto_kind kind, const char *text, long n, int reps) {
    lat_loadproto p;
    lat_loadproto_opts o = {.kind = kind};
    if (lat_loadproto_init(&p, &o)) return -1;
    double v[64];
    size_t len = strlen(text);
    for (int r = 0; r < reps; r++) {
        lat_loadproto_state s;
        lat_loadproto_reset(&s);
        long ok = 0;
        uint64_t t0 = lat_clock_ns(CLOCK_MONOTONIC);
        for (long k = 0; k < n; k++) {
            size_t used;
            ok +=
                lat_loadproto_feed(&p, &s, (const uint8_t *)text, len, &used) == LAT_LOADPROTO_DONE;
        }
        v[r] = (double)(lat_clock_ns(CLOCK_MONOTONIC) - t0) / (double)n;
        if (ok != n) return -1;
    }
    qsort(v, (size_t)reps, sizeof *v, cmp_d);
    return v[reps / 2];
}

int main(int argc, char **argv) {
    long n = 1000000;
    int reps = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--n"))
            n = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
    }
    if (n < 1 || reps < 1 || reps > 64) {
        fprintf(stderr, "usage: bench_loadproto [--n N >= 1] [--reps 1..64]\n");
        return 2;
    }
    static const struct {
        const char *name;
        lat_loadproto_kind kind;
        const char *text;
    } c[] = {
        {"http nginx-like", LAT_LOADPROTO_HTTP,
         "HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Wed, 02 Dec 2026 04:20:00 GMT\r\n"
         "Content-Type: application/octet-stream\r\nContent-Length: 2\r\n"
         "Connection: keep-alive\r\n\r\nok"},
        {"http chunked", LAT_LOADPROTO_HTTP,
         "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"},
        {"redis bulk", LAT_LOADPROTO_REDIS, "$5\r\nhello\r\n"},
        {"memcached VALUE", LAT_LOADPROTO_MEMCACHED,
         "VALUE key:0000000000 0 5\r\nhello\r\nEND\r\n"},
    };
    printf("%-18s %12s   (%ld responses, median of %d passes)\n", "response", "ns/response", n,
           reps);
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        double ns = run(c[i].kind, c[i].text, n, reps);
        if (ns < 0) {
            printf("%-18s %12s\n", c[i].name, "not parsed");
            continue;
        }
        printf("%-18s %12.1f\n", c[i].name, ns);
    }
    return 0;
}
