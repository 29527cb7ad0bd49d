/* fuzz_perf_script.c - the perf-script and folded-stack readers on arbitrary
 * bytes (profiles come from other machines' perf and other tools), fed in two
 * pieces split at a point taken from the input.  They must never crash; what
 * they accept must keep the tree's invariants (the root holds every sample,
 * the folded text reads back to the same sample count), and the SVG, the
 * shares and the diff against itself (0 points) must work on it. */
#include "latlab/flame.h"
#include "latlab/alloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(lat_flame *f) {
    uint64_t n = lat_flame_samples(f);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return;
    if (lat_flame_write_folded(f, true, m) != 0) abort();
    fclose(m);
    lat_flame *g = NULL;
    if (lat_flame_create(LAT_FLAME_FOLDED, &g) != 0) abort();
    if (lat_flame_feed(g, buf, len) != 0 || lat_flame_finish(g) != 0) abort();
    if (lat_flame_samples(g) != n) abort();
    lat_flame_destroy(g);
    free(buf);
    char *svg = NULL;
    if (lat_flame_render_svg(f, NULL, &svg, NULL) != 0) abort();
    lat_flame_svg_destroy(svg);
    lat_flame_share *s = NULL;
    size_t ns = 0;
    if (lat_flame_shares(f, &s, &ns) != 0) abort();
    for (size_t i = 0; i < ns; i++)
        if (s[i].total > n || s[i].self > s[i].total) abort();
    lat_flame_shares_destroy(s);
    if (n) {
        lat_flame_diff_row *r = NULL;
        size_t nr = 0;
        double max = -1;
        if (lat_flame_diff(f, f, &r, &nr, &max) != 0 || max != 0) abort();
        lat_flame_diff_destroy(r);
    }
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    if (!size) return 0;
    lat_flame_format fmt = (data[0] & 1) ? LAT_FLAME_FOLDED : LAT_FLAME_PERF_SCRIPT;
    size_t cut = size > 1 ? data[1] % size : 0;
    lat_flame *f = NULL;
    if (lat_flame_create(fmt, &f) != 0) abort();
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    if (cut > len) cut = len;
    int rc = lat_flame_feed(f, text, cut);
    if (!rc) rc = lat_flame_feed(f, text + cut, len - cut);
    if (!rc) rc = lat_flame_finish(f);
    if (!rc) check(f);
    lat_flame_destroy(f);
    return 0;
}
