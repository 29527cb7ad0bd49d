/* fuzz_opstream.c - libFuzzer target for the op-stream reader of `latlab book
 * replay` (workloads/book/opstream.h): the bounded line reader over the raw
 * input, the parser of each line (tick 1 and 100), and each parsed op applied
 * to a small book.  A refused line must come with a reason; the book must
 * stay consistent (never crash, leak or read out of bounds).
 *
 * Seed corpus (corpus/fuzz_opstream/): the op streams of tests/cli/cli_book.sh
 * (every op, the malformed lines) and lines with NUL bytes. */
#include "latlab/error.h"
#include "opstream.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    FILE *f = fmemopen((void *)data, size, "r");
    if (!f) return 0;
    book_config cfg = {.price_lo = 100,
                       .price_hi = 1000000,
                       .tick = 100,
                       .max_orders = 64,
                       .reserve_orders = 4,
                       .reserve_levels = 1};
    book *b;
    if (book_create(&cfg, &b)) {
        fclose(f);
        return 0;
    }
    static book_lines rd;
    book_lines_init(&rd, f);
    char *line, why[256];
    size_t len;
    int r;
    while ((r = book_lines_next(&rd, &line, &len)) == 1) {
        book_op op;
        why[0] = 0;
        int64_t tick = (data[0] & 1) ? 100 : 1;
        if (book_op_parse(line, len, tick, &op, why, sizeof why)) {
            if (!why[0]) abort();
            continue;
        }
        if (op.kind == BOOK_OP_SNAPSHOT) {
            book_level_view bv[8], av[8];
            book_package pkg = {.bids = bv, .asks = av};
            book_snapshot_package(b, op.depth % 8 + 1, &pkg);
        } else if (op.kind != BOOK_OP_NONE) {
            book_op_apply(b, &op);
        }
    }
    if (r != 0 && r != LAT_EFORMAT) abort(); /* fmemopen never fails to read */
    book_destroy(b);
    fclose(f);
    return 0;
}
