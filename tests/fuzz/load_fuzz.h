/* load_fuzz.h - the body shared by the fuzz targets of `latlab load`'s
 * response parsers (fuzz_load_http.c, fuzz_load_redis.c,
 * fuzz_load_memcached.c): the input, copied to exactly its size so ASan sees
 * any read past the end, is fed whole and then in pieces of a size taken from
 * the first byte.  The parser must never crash, never claim more bytes than it
 * was given, and give the same responses and the same error whatever the
 * split. */
#ifndef LAT_LOAD_FUZZ_H
#define LAT_LOAD_FUZZ_H

#include "latlab/loadproto.h"

#include <stdlib.h>
#include <string.h>

typedef struct load_fuzz_out {
    int done, errs, rc;
} load_fuzz_out;

static load_fuzz_out load_fuzz_feed(const lat_loadproto *p, const unsigned char *b, size_t n,
                                    size_t step) {
    lat_loadproto_state s;
    memset(&s, 0, sizeof s);
    load_fuzz_out o = {0, 0, 0};
    size_t off = 0;
    while (off < n) {
        size_t k = step && n - off > step ? step : n - off, used = 0;
        int rc = lat_loadproto_feed(p, &s, b + off, k, &used);
        if (used > k) abort();
        if (rc < 0) {
            o.rc = rc;
            return o;
        }
        off += used;
        if (rc == LAT_LOADPROTO_DONE) {
            o.done++;
            o.errs += s.error_reply;
        }
    }
    return o;
}

static int load_fuzz_one(const lat_loadproto_opts *opts, const unsigned char *data, size_t size) {
    if (size < 1 || size > 1 << 16) return 0;
    static lat_loadproto p;
    lat_loadproto_opts o = *opts;
    o.max_response = 4096; /* small, so oversized replies are reachable */
    if (lat_loadproto_init(&p, &o)) abort();
    size_t step = data[0] % 17 + 1, n = size - 1;
    unsigned char *b = malloc(n ? n : 1);
    if (!b) return 0;
    memcpy(b, data + 1, n);
    load_fuzz_out whole = load_fuzz_feed(&p, b, n, 0), cut = load_fuzz_feed(&p, b, n, step);
    if (whole.done != cut.done || whole.errs != cut.errs || whole.rc != cut.rc) abort();
    free(b);
    return 0;
}

#endif /* LAT_LOAD_FUZZ_H */
