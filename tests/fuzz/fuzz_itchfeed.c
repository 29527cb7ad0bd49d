/* fuzz_itchfeed.c - libFuzzer target for the replay feed (itchfeed.h): its
 * schedule building (backwards timestamps, gap cutting, passes), its two hot
 * callbacks driven serially on every event, and the arrival figures.
 *
 * Any input must either be refused with an error (framing errors with an
 * offset inside the input) or give a non-decreasing schedule that the work
 * callback applies event by event with no reframing error, with every figure
 * within its bounds; never crash, read out of bounds or leak.  Bands are
 * capped at 256 levels so each input builds its books quickly.
 *
 * Seed corpus (corpus/fuzz_itchfeed/): a generated capture (latlab book
 * itch-gen --messages 80 --stocks 3 --seed 18 --rate 1000000), the truncated
 * ritch_ex slice of fuzz_itch, and two system events whose timestamps go
 * backwards. */
#include "itchfeed.h"
#include "latlab/error.h"

#include <stdint.h>
#include <stdlib.h>

static void drive(const uint8_t *data, size_t size, const itchfeed_options *o) {
    itchfeed *f = NULL;
    size_t off = 0;
    int rc = itchfeed_create(data, size, o, &f, &off);
    if (rc) {
        if ((rc == LAT_ETRUNCATED || rc == LAT_EFORMAT) && off >= size) abort();
        if (f) abort();
        return;
    }
    lat_pipe_config c;
    lat_pipe_config_default(&c);
    if (itchfeed_pipe_config(f, &c) != 0 || !c.source) abort();
    uint64_t n = itchfeed_events(f), prev = 0, t = 1000;
    for (uint64_t seq = 0; seq < n; seq++) {
        uint64_t payload = 0, due = c.source->send_offset_ns(c.source->ud, seq, &payload);
        if (due < prev) abort();
        prev = due;
        unsigned kind = c.source->work(c.source->ud, seq, payload, t + due, t + due, t + due + 1);
        if (kind >= c.source->nkinds) abort();
    }
    itchfeed_arrival a;
    itchfeed_arrival_get(f, &a);
    if (a.applied != n || a.applied_twice || a.reframe_errors) abort();
    if (a.busiest_100us > a.busiest_1ms || a.busiest_1ms > n || a.backlog_peak > n) abort();
    itchfeed_destroy(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    itchfeed_options o = {.speed = 1, .loops = 1, .max_levels = 256};
    drive(data, size, &o);
    o = (itchfeed_options){.speed = 7.5, .loops = 3, .max_gap_ns = 1000, .max_levels = 256};
    drive(data, size, &o);
    o = (itchfeed_options){.speed = 0, .loops = 2, .max_levels = 256};
    drive(data, size, &o);
    return 0;
}
