/* fuzz_http_request.c - lat_http_parse_request() on arbitrary bytes (the
 * /metrics server reads them from any client on the network).  It must never
 * crash or read past len; a complete head it accepts must report a length
 * within the input, a non-empty token method, a path without spaces, and
 * NUL-terminated fields.  Every prefix of an accepted head must be either
 * "incomplete" or refused, never accepted with another length. */
#include "latlab/http.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    if (size > 2 * LAT_HTTP_MAX_REQUEST) return 0;
    /* A copy of exactly size bytes so ASan catches any read past the end. */
    char *buf = malloc(size ? size : 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    lat_http_request r;
    int n = lat_http_parse_request(buf, size, &r);
    if (n > 0) {
        if ((size_t)n > size) abort();
        if (!r.method[0] || memchr(r.method, 0, sizeof r.method) == NULL) abort();
        if (!r.path[0] || strchr(r.path, ' ')) abort();
        if (memchr(r.accept, 0, sizeof r.accept) == NULL) abort();
        if (r.version_minor < 0 || r.version_minor > 9) abort();
        for (size_t k = 0; k < (size_t)n; k++) {
            int m = lat_http_parse_request(buf, k, &r);
            if (m > 0 && m != n) abort();
        }
    }
    free(buf);
    return 0;
}
