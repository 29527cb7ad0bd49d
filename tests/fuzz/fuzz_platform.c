/* fuzz_platform.c - the /proc readers (lat_schedstat_parse, lat_cpustat_parse)
 * on arbitrary bytes: never crash, never read past len (the input is not
 * NUL-terminated), and accepted values are consistent. */
#include "latlab/platform.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    char *s = malloc(size ? size : 1); /* exactly size bytes: overreads trip ASan */
    if (!s) return 0;
    memcpy(s, data, size);
    lat_schedstat st;
    lat_schedstat_parse(s, size, &st);
    lat_cpustat c;
    for (int cpu = -1; cpu < 3; cpu++)
        if (lat_cpustat_parse(s, size, cpu, &c) == 0 && lat_cpustat_total(&c) < c.steal) abort();
    free(s);
    return 0;
}
