/* fuzz_hlog_merge.c - libFuzzer target for the log merge path (`hist merge`,
 * `summary`, `percentiles`): every interval a log yields is decoded fitted to
 * its values and must answer exactly as the declared geometry does; merging
 * the intervals with lat_hist_add_resize never drops a count (or says
 * -EOVERFLOW), and the merged log written from the encoded columns reads
 * back to the same intervals. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/hist.h"
#include "latlab/hlog.h"

/* Fitted and declared decodes agree on every query the tool makes. */
static void same_answers(const lat_hlog_interval *iv) {
    lat_hist g;
    if (lat__hist_geometry(&g, iv->hist.lowest, iv->declared_highest, iv->hist.sig_figs) != 0)
        abort();
    if (g.counts_len > (1 << 20)) return; /* the declared copy would be too slow to fuzz */
    lat_hist d;
    if (lat_hist_decode_base64(iv->encoded, iv->encoded_len, &d) != 0) abort();
    static const double ps[] = {0, 50, 90, 99, 99.9, 100};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        if (lat_hist_value_at_percentile(&d, ps[i]) !=
            lat_hist_value_at_percentile(&iv->hist, ps[i]))
            abort();
    if (lat_hist_total(&d) != lat_hist_total(&iv->hist) ||
        lat_hist_max(&d) != lat_hist_max(&iv->hist) ||
        lat_hist_min(&d) != lat_hist_min(&iv->hist) ||
        lat_hist_mean(&d) != lat_hist_mean(&iv->hist))
        abort();
    lat_hist_fini(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    lat_hlog_reader *r;
    if (lat_hlog_reader_open_mem((const char *)data, size, &r) != 0) return 0;
    lat_hlog_reader_fit(r, true);
    char *text = NULL;
    size_t text_len = 0;
    FILE *out = open_memstream(&text, &text_len);
    if (!out) abort();
    lat_hlog_writer w;
    if (lat_hlog_writer_init(&w, out, 0, 0, 0) != 0) abort();
    lat_hist acc = {0};
    bool have = false, overflow = false;
    int64_t total = 0;
    int n = 0, rc;
    lat_hlog_interval *iv;
    while ((rc = lat_hlog_next(r, &iv)) == 1) {
        same_answers(iv);
        if (!have) {
            if (lat_hist_init(&acc, iv->hist.lowest, 2 * iv->hist.lowest, iv->hist.sig_figs) != 0)
                abort();
            have = true;
        }
        int m = overflow ? 0 : lat_hist_add_resize(&acc, &iv->hist);
        if (m == -EOVERFLOW)
            overflow = true;
        else if (m == 0 && !overflow &&
                 !__builtin_add_overflow(total, lat_hist_total(&iv->hist), &total)) {
            if (lat_hist_total(&acc) != total) abort(); /* nothing dropped */
            if (lat_hist_total(&iv->hist) && lat_hist_max(&acc) < lat_hist_max(&iv->hist)) abort();
        } else if (m != 0 && m != -ENOMEM) {
            abort();
        }
        if (lat_hlog_write_interval_encoded(&w, iv->tag[0] ? iv->tag : NULL, iv->start_s,
                                            iv->length_s, lat_hist_max(&iv->hist), iv->encoded,
                                            iv->encoded_len) != 0)
            abort();
        n++;
    }
    fclose(out);
    lat_hlog_reader_destroy(r);
    lat_hist_fini(&acc);
    /* the merged log reads back to as many intervals */
    if (lat_hlog_reader_open_mem(text, text_len, &r) != 0) abort();
    int back = 0;
    while (lat_hlog_next(r, &iv) == 1)
        back++;
    if (back != n) abort();
    lat_hlog_reader_destroy(r);
    free(text);
    return 0;
}
