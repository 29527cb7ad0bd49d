/* co.c - the coordinated-omission demonstration's engine (co.h): the toy
 * service and its closed and open loops. */
#include "latlab/co.h"

#include <errno.h>
#include <time.h>

#include <jansson.h>

#include "latlab/clock.h"

#define CO_HIGHEST_NS 3600000000000ll

void lat_co_config_default(lat_co_config *c) {
    *c = (lat_co_config){20000, 10000, 20000, 100000000, 10000};
}

int lat_co_result_init(lat_co_result *r) {
    *r = (lat_co_result){.closed = {0}};
    int rc;
    if ((rc = lat_hist_init(&r->closed, 1, CO_HIGHEST_NS, 3)) ||
        (rc = lat_hist_init(&r->corr, 1, CO_HIGHEST_NS, 3)) ||
        (rc = lat_hist_init(&r->open, 1, CO_HIGHEST_NS, 3))) {
        lat_co_result_fini(r);
        return rc;
    }
    return 0;
}

void lat_co_result_fini(lat_co_result *r) {
    lat_hist_fini(&r->closed);
    lat_hist_fini(&r->corr);
    lat_hist_fini(&r->open);
}

static void spin_until(uint64_t t_ns) {
    while (lat_mono_ns() < t_ns) {
    }
}

static void sleep_ns(uint64_t ns) {
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
    }
}

/* The system under test: busy work, except the one freeze. */
static void service(const lat_co_config *c, uint64_t seq) {
    if (seq == c->stall_at)
        sleep_ns(c->stall_ns);
    else
        spin_until(lat_mono_ns() + c->service_ns);
}

static bool bad(const lat_co_config *c, const lat_co_result *r) {
    return !c || !r || c->events == 0 || c->rate_hz == 0 || c->rate_hz > 1000000000u;
}

int lat_co_run_closed(const lat_co_config *c, lat_co_result *r) {
    if (bad(c, r)) return -EINVAL;
    int64_t interval = (int64_t)(1000000000u / c->rate_hz);
    for (uint64_t seq = 0; seq < c->events; seq++) {
        uint64_t t0 = lat_mono_ns();
        service(c, seq);
        int64_t d = (int64_t)(lat_mono_ns() - t0);
        lat_hist_record(&r->closed, d);
        lat_hist_record_corrected(&r->corr, d, interval);
    }
    return 0;
}

int lat_co_run_open(const lat_co_config *c, lat_co_result *r) {
    if (bad(c, r)) return -EINVAL;
    double period = 1e9 / (double)c->rate_hz;
    uint64_t start = lat_mono_ns() + 1000000;
    for (uint64_t seq = 0; seq < c->events; seq++) {
        uint64_t intended = start + (uint64_t)((double)seq * period);
        uint64_t now = lat_mono_ns();
        if (intended > now + 200000) sleep_ns(intended - now - 100000);
        spin_until(intended);
        service(c, seq);
        lat_hist_record(&r->open, (int64_t)(lat_mono_ns() - intended));
    }
    return 0;
}

json_t *lat_co_config_json(const lat_co_config *c) {
    return json_pack("{s:I, s:I, s:I, s:I, s:I}", "events", (json_int_t)c->events, "rate_hz",
                     (json_int_t)c->rate_hz, "service_ns", (json_int_t)c->service_ns, "stall_ns",
                     (json_int_t)c->stall_ns, "stall_at", (json_int_t)c->stall_at);
}
