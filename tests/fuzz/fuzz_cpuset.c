/* fuzz_cpuset.c - lat_cpuset_parse() on arbitrary bytes (sysfs CPU lists and
 * the CLI's --root trees are outside input): it must never crash, and any
 * list it accepts must format and parse back to the same set. */
#include "latlab/topo.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    char *s = malloc(size + 1);
    if (!s) return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    lat_cpuset a, b;
    if (lat_cpuset_parse(s, &a) == 0) {
        char buf[8192];
        size_t need = lat_cpuset_format(&a, buf, sizeof buf);
        if (need < sizeof buf) {
            if (lat_cpuset_parse(buf, &b) != 0 || memcmp(&a, &b, sizeof a) != 0) abort();
        }
    }
    free(s);
    return 0;
}
