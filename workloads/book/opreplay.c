/* opreplay.c - a text op stream through one book (see opreplay.h). */
#include "opreplay.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>

#include "opstream.h"
#include "latlab/clock.h"
#include "latlab/error.h"

static int snapshot(book_opreplay *c, uint32_t depth) {
    size_t need = depth;
    if (!need) {
        need = book_level_count(c->b, BOOK_BUY);
        size_t na = book_level_count(c->b, BOOK_SELL);
        if (na > need) need = na;
    }
    if (need > c->lvcap) { /* grows with the book, outside the book's own operations */
        for (int s = 0; s < 2; s++) {
            book_level_view *nv = realloc(c->lv[s], need * sizeof(book_level_view));
            if (!nv) return -ENOMEM;
            c->lv[s] = nv;
        }
        c->lvcap = need;
    }
    book_level_view one[2];
    book_package pkg = {.bids = c->lv[0] ? c->lv[0] : &one[0],
                        .asks = c->lv[1] ? c->lv[1] : &one[1]};
    book_snapshot_package(c->b, depth, &pkg);
    FILE *f = c->out.f;
    fprintf(f, "S %u %" PRIu64 " %08" PRIx32 " %zu %zu\n", depth, pkg.seq, pkg.crc32, pkg.nbids,
            pkg.nasks);
    for (size_t i = 0; i < pkg.nbids; i++)
        fprintf(f, "SB %" PRId64 " %" PRIu64 " %u\n", pkg.bids[i].price, pkg.bids[i].qty,
                pkg.bids[i].count);
    for (size_t i = 0; i < pkg.nasks; i++)
        fprintf(f, "SA %" PRId64 " %" PRIu64 " %u\n", pkg.asks[i].price, pkg.asks[i].qty,
                pkg.asks[i].count);
    return 0;
}

int book_opreplay_stream(book_opreplay *c, FILE *in, const char *name, int64_t tick, char *msg,
                         size_t msglen) {
    book_lines rd;
    book_lines_init(&rd, in);
    char *line, why[256];
    size_t len;
    int r;
    uint64_t t0 = lat_mono_ns();
    while ((r = book_lines_next(&rd, &line, &len)) == 1) {
        book_op op;
        int err = book_op_parse(line, len, tick, &op, why, sizeof why);
        if (!err && op.kind == BOOK_OP_SNAPSHOT) err = snapshot(c, op.depth);
        if (err == -ENOMEM) snprintf(why, sizeof why, "out of memory for the snapshot");
        if (err) {
            if (c->bad_line) c->bad_line(c->ud, rd.lineno, why);
            c->bad++;
            continue;
        }
        if (op.kind == BOOK_OP_NONE) continue;
        c->ops++;
        if (op.kind != BOOK_OP_SNAPSHOT && (err = book_op_apply(c->b, &op)))
            book_tally_add(&c->rej, err);
    }
    c->wall_s = (double)(lat_mono_ns() - t0) / 1e9;
    c->lines = rd.lineno;
    if (r == LAT_EFORMAT)
        snprintf(msg, msglen, "%s:%" PRIu64 ": line longer than %d bytes (not an op stream?)", name,
                 rd.lineno, BOOK_MAX_LINE);
    else if (r < 0)
        snprintf(msg, msglen, "%s: read error after line %" PRIu64 ": %s", name, rd.lineno,
                 lat_strerror(r));
    return r < 0 ? r : 0;
}

json_t *book_opreplay_json(const book_opreplay *c, const char *path) {
    const uint64_t *n = c->out.n;
    return json_pack(
        "{s:s,s:I,s:I,s:I,s:I,s:o,s:f,s:f,s:{s:I,s:I,s:I,s:I,s:I,s:I},s:{s:I,s:I,s:I,s:I}}", "file",
        path, "lines", (json_int_t)c->lines, "ops", (json_int_t)c->ops, "malformed_lines",
        (json_int_t)c->bad, "rejected_ops", (json_int_t)c->rej.total, "rejected_by_reason",
        book_tally_json(&c->rej), "wall_s", c->wall_s, "ops_per_s",
        c->wall_s > 0 ? (double)c->ops / c->wall_s : 0.0, "events", "accepted",
        (json_int_t)n[BOOK_EV_ACCEPTED], "rejected", (json_int_t)n[BOOK_EV_REJECTED], "trades",
        (json_int_t)n[BOOK_EV_TRADE], "cancelled", (json_int_t)n[BOOK_EV_CANCELLED], "done",
        (json_int_t)n[BOOK_EV_DONE], "level", (json_int_t)n[BOOK_EV_LEVEL], "final", "orders",
        (json_int_t)book_order_count(c->b), "bid_levels",
        (json_int_t)book_level_count(c->b, BOOK_BUY), "ask_levels",
        (json_int_t)book_level_count(c->b, BOOK_SELL), "seq", (json_int_t)book_seq(c->b));
}

void book_opreplay_fini(book_opreplay *c) {
    free(c->lv[0]);
    free(c->lv[1]);
    c->lv[0] = c->lv[1] = NULL;
    c->lvcap = 0;
}
