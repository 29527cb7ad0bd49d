/* fuzz_silence.c - the silence check's parsers (latlab/silence.h) on
 * arbitrary bytes, as trace, fork and stats text of one CPU: they must never
 * crash, keep their tables within bounds, and the report must render. */
#include "latlab/silence.h"

#include <stdlib.h>
#include <string.h>

static lat_silence_report R;

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    char *s = malloc(size + 1);
    if (!s) return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    int cpu = size ? data[0] % 4 : 0;
    if (lat_silence_report_init(&R, &cpu, 1)) abort();
    R.child = 100;
    lat_silence_parse_forks(&R, s);
    lat_silence_build_workload(&R);
    lat_silence_parse_trace(&R, cpu, s);
    lat_silence_parse_stats(&R, cpu, s);
    if (R.ntasks > LAT_SILENCE_MAXTASK || R.nirqs > LAT_SILENCE_MAXIRQ ||
        R.nwl > LAT_SILENCE_MAXWL || R.nforks > LAT_SILENCE_MAXWL)
        abort();
    FILE *f = fopen("/dev/null", "w");
    if (f) {
        lat_silence_report_print(&R, f, 10);
        fclose(f);
    }
    lat_silence_report_fini(&R);
    free(s);
    return 0;
}
