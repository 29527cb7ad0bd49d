/* fuzz_load_targets.c - `latlab load --targets`'s file parser
 * (lat_loadtarget_parse) on arbitrary bytes: it must never crash or read out
 * of bounds; a refusal names the file (and its line: "FILE line N: why"); an
 * accepted file has 1 to LAT_LOADTARGETS_MAX targets, each with a name and a
 * request no longer than the longest, and its pick stays among them.  @PATH
 * bodies resolve under a folder that does not exist, so no file is read. */
#include "latlab/loadtarget.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    char *s = malloc(size + 1);
    if (!s) return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    const lat_loadtarget_origin o = {"127.0.0.1", "8080", false, NULL, 0};
    lat_loadtargets *ts = NULL;
    char err[512];
    int rc = lat_loadtarget_parse(s, "t.txt", "/nonexistent-fuzz-dir", &o,
                                  (lat_loadtarget_pick_kind)(size & 1), &ts, err, sizeof err);
    if (rc) {
        if (ts || (rc == -EINVAL && strncmp(err, "t.txt", 5) != 0)) abort();
    } else {
        size_t max = lat_loadtarget_req_max(ts);
        unsigned n = lat_loadtarget_count(ts);
        if (n < 1 || n > LAT_LOADTARGETS_MAX) abort();
        for (unsigned i = 0; i < n; i++)
            if (!*lat_loadtarget_name(ts, i) || lat_loadtarget_proto(ts, i)->req_len > max) abort();
        for (uint64_t k = 0; k < 64; k++) {
            unsigned t = n;
            size_t len = 0;
            if (!lat_loadtarget_request(ts, 7, k, &t, &len) || t >= n || len > max) abort();
        }
    }
    lat_loadtarget_destroy(ts);
    free(s);
    return 0;
}
