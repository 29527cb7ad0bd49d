/* co.c - `latlab co`: warm-up 2 of the seed, coordinated omission made visible.
 *
 * One toy service (~20 us of busy work per request, one injected stall) is
 * measured closed loop (each request timed from its own start: the harness
 * stops sending while the service is frozen, so the requests that were due
 * never exist) and open loop (requests sent on a timetable and timed from
 * their intended send time, so every request due during the stall carries
 * its share of it).  A third line runs the closed-loop samples through
 * HdrHistogram's coordinated-omission correction (record_corrected with the
 * expected interval) to show how much of the truth it recovers. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "latlab/json.h"
#include "latlab/atomicfile.h"
#include "latlab/budget.h"
#include "latlab/clock.h"
#include "latlab/hist.h"

const char cmd_co_usage[] =
    "usage: latlab co [closed|open|both] [OPTIONS]\n"
    "\n"
    "Coordinated omission: the same service with one injected stall, measured\n"
    "closed loop (wait for the reply, then send) and open loop (send on a\n"
    "timetable, time from the intended send time), plus the closed-loop data\n"
    "corrected with HdrHistogram's record_corrected (expected interval = 1/rate).\n"
    "\n"
    "  --events N        requests (default 20000)\n"
    "  --rate HZ         open-loop send rate (default 10000/s: one every 100 us)\n"
    "  --service DUR     busy work per request (default 20us)\n"
    "  --stall DUR       the injected freeze (default 100ms)\n"
    "  --stall-at N      the request that freezes (default 10000, or --events/2 when\n"
    "                    that is fewer; must be < --events)\n"
    "  --quick           small sizes for tests: 2000 events, stall 10ms at 1000\n"
    "  --json FILE       the figures as JSON\n"
    "\n"
    "Prints per mode: n= p50= p99= p99.9= max=, then the 95% confidence interval of each\n"
    "percentile; last, the error budget (clock step, stamp cost, histogram resolution,\n"
    "the share of samples the correction synthesised).  exit 0 ok, 1 error, 2 usage.\n";

#define CMD "co"

typedef struct co_cfg {
    uint64_t events, rate_hz, service_ns, stall_ns, stall_at;
} co_cfg;

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
static void service(const co_cfg *c, uint64_t seq) {
    if (seq == c->stall_at)
        sleep_ns(c->stall_ns);
    else
        spin_until(lat_mono_ns() + c->service_ns);
}

static void run_closed(const co_cfg *c, lat_hist *h, lat_hist *corr) {
    int64_t interval = (int64_t)(1000000000u / c->rate_hz);
    for (uint64_t seq = 0; seq < c->events; seq++) {
        uint64_t t0 = lat_mono_ns();
        service(c, seq);
        int64_t d = (int64_t)(lat_mono_ns() - t0);
        lat_hist_record(h, d);
        lat_hist_record_corrected(corr, d, interval);
    }
}

static void run_open(const co_cfg *c, lat_hist *h) {
    double period = 1e9 / (double)c->rate_hz;
    uint64_t start = lat_mono_ns() + 1000000;
    for (uint64_t seq = 0; seq < c->events; seq++) {
        uint64_t intended = start + (uint64_t)((double)seq * period);
        uint64_t now = lat_mono_ns();
        if (intended > now + 200000) sleep_ns(intended - now - 100000);
        spin_until(intended);
        service(c, seq);
        lat_hist_record(h, (int64_t)(lat_mono_ns() - intended));
    }
}

static const double mode_ps[] = {50, 99, 99.9};
static const char *const mode_keys[] = {"p50", "p99", "p99.9"};

/* The mode's line, then its 95% intervals (us). */
static void print_line(const char *name, const lat_hist *h) {
    lat_hist_ci v[3];
    lat_hist_cis_at_percentiles(h, mode_ps, LAT_HIST_CI_DEFAULT, v, 3);
    printf("%9s: n=%" PRId64 " p50=%.1fus p99=%.1fus p99.9=%.1fus max=%.1fus\n", name,
           lat_hist_total(h), (double)v[0].value / 1e3, (double)v[1].value / 1e3,
           (double)v[2].value / 1e3, (double)lat_hist_max(h) / 1e3);
    printf("%9s  95%% CI (us)", "");
    for (int k = 0; k < 3; k++) {
        char b[160];
        lat_hist_ci_format(&v[k], 1e3, 1, b, sizeof b);
        printf(" %s %s", mode_keys[k], b);
    }
    printf("\n");
}

static json_t *mode_json(const lat_hist *h) {
    lat_hist_ci v[3];
    lat_hist_cis_at_percentiles(h, mode_ps, LAT_HIST_CI_DEFAULT, v, 3);
    json_t *o = json_object();
    json_object_set_new(o, "n", json_integer(lat_hist_total(h)));
    for (int k = 0; k < 3; k++)
        lat_json_set_ci(o, mode_keys[k], "_ns", &v[k]);
    json_object_set_new(o, "max_ns", json_integer(lat_hist_max(h)));
    return o;
}

enum { O_EVENTS = 256, O_RATE, O_SERVICE, O_STALL, O_STALLAT, O_QUICK, O_JSON };

static const struct option opts[] = {
    {"events", required_argument, NULL, O_EVENTS},    {"rate", required_argument, NULL, O_RATE},
    {"service", required_argument, NULL, O_SERVICE},  {"stall", required_argument, NULL, O_STALL},
    {"stall-at", required_argument, NULL, O_STALLAT}, {"quick", no_argument, NULL, O_QUICK},
    {"json", required_argument, NULL, O_JSON},        {NULL, 0, NULL, 0},
};

int cmd_co(int argc, char **argv) {
    co_cfg c = {20000, 10000, 20000, 100000000, 10000};
    bool ev_set = false, stall_set = false, at_set = false, quick = false;
    const char *json_path = NULL;
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (ch) {
        case O_EVENTS:
            if (cli_parse_u64(CMD, "--events", optarg, 1, 100000000, &c.events)) return CLI_USAGE;
            ev_set = true;
            break;
        case O_RATE:
            if (cli_parse_u64(CMD, "--rate", optarg, 1, 10000000, &c.rate_hz)) return CLI_USAGE;
            break;
        case O_SERVICE:
            if (cli_parse_duration_ns(CMD, "--service", optarg, &c.service_ns)) return CLI_USAGE;
            break;
        case O_STALL:
            if (cli_parse_duration_ns(CMD, "--stall", optarg, &c.stall_ns)) return CLI_USAGE;
            if (c.stall_ns > 60000000000ull) return cli_usage_error(CMD, "--stall: at most 60s");
            stall_set = true;
            break;
        case O_STALLAT:
            if (cli_parse_u64(CMD, "--stall-at", optarg, 0, 100000000, &c.stall_at))
                return CLI_USAGE;
            at_set = true;
            break;
        case O_QUICK:
            quick = true;
            break;
        case O_JSON:
            json_path = optarg;
            break;
        default:
            return cli_getopt_fail(CMD, ch, argv);
        }
    }
    if (quick) {
        if (!ev_set) c.events = 2000;
        if (!stall_set) c.stall_ns = 10000000;
        if (!at_set) c.stall_at = 1000;
    }
    bool do_closed = true, do_open = true;
    if (optind < argc) {
        if (!strcmp(argv[optind], "closed"))
            do_open = false;
        else if (!strcmp(argv[optind], "open"))
            do_closed = false;
        else if (strcmp(argv[optind], "both"))
            return cli_usage_error(CMD, "mode '%s' is not closed, open or both", argv[optind]);
        if (optind + 1 < argc)
            return cli_usage_error(CMD, "unexpected argument '%s'", argv[optind + 1]);
    }
    if (!at_set && c.stall_at >= c.events) c.stall_at = c.events / 2; /* a default: move it */
    if (c.stall_at >= c.events)
        return cli_usage_error(CMD, "--stall-at: request %" PRIu64 " is beyond --events %" PRIu64,
                               c.stall_at, c.events);
    if (c.service_ns >= 1000000000u / c.rate_hz)
        cli_warn(CMD,
                 "--service %" PRIu64 " ns is not below the send interval %" PRIu64
                 " ns: the open loop can never catch up",
                 c.service_ns, 1000000000u / c.rate_hz);

    lat_hist closed = {0}, corr = {0}, open = {0};
    int rc;
    if ((rc = lat_hist_init(&closed, 1, 3600000000000ll, 3)) ||
        (rc = lat_hist_init(&corr, 1, 3600000000000ll, 3)) ||
        (rc = lat_hist_init(&open, 1, 3600000000000ll, 3))) {
        lat_hist_free(&closed);
        lat_hist_free(&corr);
        return cli_lib_error(CMD, "histogram", rc);
    }
    printf("service %.1fus per request, one %.1fms stall at request %" PRIu64 ", %" PRIu64
           " requests, open loop at %" PRIu64 "/s\n",
           (double)c.service_ns / 1e3, (double)c.stall_ns / 1e6, c.stall_at, c.events, c.rate_hz);
    if (do_closed) {
        cli_progress("closed loop...");
        run_closed(&c, &closed, &corr);
        cli_progress_done();
        print_line("closed", &closed);
    }
    if (do_open) {
        cli_progress("open loop...");
        run_open(&c, &open);
        cli_progress_done();
        print_line("open", &open);
    }
    if (do_closed) print_line("corrected", &corr);
    /* Figures are CLOCK_MONOTONIC differences: one stamp at each end. */
    lat_budget budget;
    lat_budget_measure(&budget, NULL, 0, 2, closed.sig_figs);
    if (do_closed) lat_budget_set_co(&budget, lat_hist_total(&closed), lat_hist_total(&corr));
    if (do_closed && do_open) {
        int64_t cp = lat_hist_value_at_percentile(&closed, 99.9);
        int64_t op = lat_hist_value_at_percentile(&open, 99.9);
        int64_t kp = lat_hist_value_at_percentile(&corr, 99.9);
        char ratio[96];
        lat_budget_change(&budget, (double)cp, (double)op, ratio, sizeof ratio);
        printf("closed loop hid the stall: its p99.9 is %.1fus against the open loop's %.1fus "
               "(%s); only its max (%.1fms) betrays it.  The correction puts p99.9 back at "
               "%.1fus.\n",
               (double)cp / 1e3, (double)op / 1e3, ratio, (double)lat_hist_max(&closed) / 1e6,
               (double)kp / 1e3);
    }
    char bline[512];
    lat_budget_format(&budget, bline, sizeof bline);
    printf("%s%s\n", bline, do_closed ? " (in the corrected line)" : "");
    int ret = CLI_OK;
    if (json_path) {
        json_t *o = json_object();
        json_t *cf = json_object();
        json_object_set_new(cf, "events", json_integer((json_int_t)c.events));
        json_object_set_new(cf, "rate_hz", json_integer((json_int_t)c.rate_hz));
        json_object_set_new(cf, "service_ns", json_integer((json_int_t)c.service_ns));
        json_object_set_new(cf, "stall_ns", json_integer((json_int_t)c.stall_ns));
        json_object_set_new(cf, "stall_at", json_integer((json_int_t)c.stall_at));
        json_object_set_new(o, "config", cf);
        if (do_closed) json_object_set_new(o, "closed", mode_json(&closed));
        if (do_open) json_object_set_new(o, "open", mode_json(&open));
        if (do_closed) json_object_set_new(o, "corrected", mode_json(&corr));
        json_object_set_new(o, "percentile_confidence", json_real(LAT_HIST_CI_DEFAULT));
        json_object_set_new(o, "error_budget", lat_budget_json(&budget));
        rc = lat_write_json_atomic(json_path, o);
        json_decref(o);
        if (rc) ret = cli_lib_error(CMD, json_path, rc);
    }
    lat_hist_free(&closed);
    lat_hist_free(&corr);
    lat_hist_free(&open);
    return ret;
}
