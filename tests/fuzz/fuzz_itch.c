/* fuzz_itch.c - libFuzzer target for the ITCH 5.0 reader and book replay.
 *
 * Any input must either frame cleanly and replay (books built from the first
 * pass, every message applied) or stop with an error whose offset lies inside
 * the input; never read out of bounds, crash or leak.  Bands are capped at
 * 256 levels so each input builds its books quickly.
 *
 * Seed corpus (corpus/fuzz_itch/): slices of ../shared/data/ritch_ex.itch -
 * the first 120 messages, 400 book messages, 80 messages with real length
 * prefixes, and a truncated slice; plus `generated`, a synthetic capture
 * (latlab book itch-gen --messages 80 --stocks 3 --seed 18 --rate 1000000).
 * That capture comes from the R package
 * RITCH (inst/extdata/ex20101224.TEST_ITCH_50), MIT License, Copyright (c)
 * 2022 David Zimmermann-Kollenda. */
#include "itch.h"
#include "latlab/error.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    itch_replay *r = NULL;
    size_t off = 0;
    int rc = itch_replay_create(data, size, 256, &r, &off);
    if (rc) {
        if ((rc == LAT_ETRUNCATED || rc == LAT_EFORMAT) && off >= size) abort();
        return 0;
    }
    itch_reader rd;
    itch_msg m;
    itch_reader_init(&rd, data, size);
    while ((rc = itch_next(&rd, &m)) == 1)
        itch_replay_apply(r, &m);
    if (rc != 0) abort(); /* the first pass accepted it, so must the second */
    itch_replay_destroy(r);
    return 0;
}
