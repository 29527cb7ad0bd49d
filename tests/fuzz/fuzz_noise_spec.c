/* fuzz_noise_spec.c - lat_noise_parse() on arbitrary bytes (the --noise SPEC
 * of `latlab pipeline` and `latlab lab` is outside input): it must never
 * crash, an error always names a field (ends in text, starts "FIELD:"), and
 * an accepted spec's text form parses back to itself (format is a fixed
 * point after one round). */
#include "latlab/noise.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    char *s = malloc(size + 1);
    if (!s) return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    lat_noise_spec a, b;
    char why[256], t1[8192], t2[8192];
    if (lat_noise_parse(s, &a, why, sizeof why) != 0) {
        if (!strchr(why, ':') || strlen(why) >= sizeof why) abort();
    } else {
        if (lat_noise_spec_format(&a, t1, sizeof t1) >= sizeof t1) abort();
        if (lat_noise_parse(t1, &b, why, sizeof why) != 0) abort();
        lat_noise_spec_format(&b, t2, sizeof t2);
        if (lat_noise_parse(t2, &a, why, sizeof why) != 0) abort();
        lat_noise_spec_format(&a, t1, sizeof t1);
        if (strcmp(t1, t2) != 0 || b.burst_ns != a.burst_ns || b.seed != a.seed) abort();
    }
    free(s);
    return 0;
}
