/* fuzz_lobster.c - libFuzzer target for the LOBSTER reader and replay
 * (workloads/book/lobster.h).
 *
 * The input is split at its first 0xff byte: the part before is a message
 * file, the part after an orderbook file (absent: replay without one).  Each
 * line must parse or be refused with a reason; parsed messages are applied
 * and rows compared like `latlab book lobster` does.  Never crash, read out
 * of bounds or leak; an unappliable message must leave a reason.
 *
 * Seed corpus (corpus/fuzz_lobster/): slices of a `latlab book lobster-synth`
 * fixture (messages of every type with their orderbook rows) and malformed
 * lines. */
#include "latlab/error.h"
#include "lobster.h"
#include "opstream.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int next_line(const uint8_t **p, const uint8_t *end, char *buf, size_t cap, size_t *len) {
    if (*p >= end) return 0;
    const uint8_t *nl = memchr(*p, '\n', (size_t)(end - *p));
    size_t n = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
    *len = n < cap - 1 ? n : cap - 1;
    memcpy(buf, *p, *len);
    buf[*len] = 0;
    *p += n + (nl ? 1 : 0);
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t *split = memchr(data, 0xff, size);
    const uint8_t *m = data, *mend = split ? split : data + size;
    const uint8_t *o = split ? split + 1 : NULL, *oend = data + size;
    static lobster_row row;
    static char line[BOOK_MAX_LINE + 1], why[256];
    size_t len;
    uint32_t nlevels = 0;
    if (o) {
        if (!next_line(&o, oend, line, sizeof line, &len)) return 0;
        if (lobster_parse_row(line, len, 100, 0, &row, why, sizeof why)) {
            if (!why[0]) abort();
            return 0;
        }
        nlevels = row.nlevels;
    }
    lobster_replay *r;
    if (lobster_replay_create(100, 100 << 16, nlevels, nlevels, &r)) return 0;
    if (o && lobster_replay_start(r, &row) != 0) goto done;
    int first = 1;
    while (next_line(&m, mend, line, sizeof line, &len)) {
        lobster_msg msg;
        why[0] = 0;
        if (lobster_parse_msg(line, len, 100, &msg, why, sizeof why)) {
            if (!why[0]) abort();
            continue;
        }
        if (first && o) {
            first = 0;
            continue;
        }
        const char *reason = NULL;
        if (lobster_replay_apply(r, &msg, &reason) < 0 && (!reason || !reason[0])) abort();
        if (o) {
            if (!next_line(&o, oend, line, sizeof line, &len)) break;
            if (lobster_parse_row(line, len, 100, nlevels, &row, why, sizeof why)) continue;
            lobster_mismatch mm;
            lobster_replay_compare(r, &row, &mm);
        }
    }
done:
    lobster_replay_destroy(r);
    return 0;
}
