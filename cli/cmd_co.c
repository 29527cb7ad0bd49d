/* cmd_co.c - `latlab co`: coordinated omission made visible.
 *
 * The engine (latlab/co.h) measures one toy service with one injected stall
 * closed loop, open loop, and closed loop corrected; this prints each loop's
 * line and intervals, what the platform took from the loop (as `pipeline`
 * does, with a warning when the host is busy enough to be the tail), the
 * verdict (how much the closed loop hid) and the error budget, and writes
 * --json. */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "latlab/json.h"
#include "latlab/atomicfile.h"
#include "latlab/budget.h"
#include "latlab/co.h"
#include "latlab/hist.h"

#define CMD "co"

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

/* The loop's platform account under its line; a warning when the host is
 * busy enough that the loop's p99.9 is the host's. */
static void print_platform(const char *name, const lat_co_platform *p, const lat_hist *h,
                           uint64_t events) {
    char t[384], why[256];
    lat_co_platform_text(p, t, sizeof t);
    printf("%9s  platform: %s\n", "", t);
    if (lat_co_host_busy(p, events, lat_hist_value_at_percentile(h, 99.9), why, sizeof why))
        cli_warn(CMD,
                 "busy host during the %s loop: %s; its p99.9 of %.1f us is the host's, not "
                 "the lesson's (rerun on a quiet machine)",
                 name, why, (double)lat_hist_value_at_percentile(h, 99.9) / 1e3);
}

static json_t *platform_json(const lat_co_platform *p, const lat_hist *h, uint64_t events) {
    char why[256];
    bool busy = lat_co_host_busy(p, events, lat_hist_value_at_percentile(h, 99.9), why, sizeof why);
    json_t *o = json_pack("{s:I,s:I,s:f,s:f,s:f,s:I,s:I,s:b}", "gaps", (json_int_t)p->gaps,
                          "requests_slowed", (json_int_t)p->service_gaps, "lost_ns", p->lost_ns,
                          "longest_gap_ns", p->longest_ns, "loop_ns", p->loop_ns,
                          "voluntary_switches", (json_int_t)p->vol, "involuntary_switches",
                          (json_int_t)p->invol, "busy_host", busy);
    if (o && !isnan(p->wait_ns)) json_object_set_new(o, "run_queue_wait_ns", json_real(p->wait_ns));
    if (o && busy) json_object_set_new(o, "busy_why", json_string(why));
    return o;
}

static lat_co_config cfg;
static bool events_set, stall_set, stall_at_set, quick;
static const char *json_path;

static const cli_opt co_opts[] = {
    CLI_SEEN_OPT("events", CLI_U64, &cfg.events, "N", "requests (default 20000)", 1, 100000000,
                 NULL, &events_set),
    CLI_NUM_OPT("rate", CLI_U64, &cfg.rate_hz, "HZ",
                "open-loop send rate (default 10000/s: one every 100 us)", 1, 10000000),
    CLI_NUM_OPT("service", CLI_DURATION, &cfg.service_ns, "DUR",
                "busy work per request (default 20us)", 0, 0),
    CLI_SEEN_OPT("stall", CLI_DURATION, &cfg.stall_ns, "DUR",
                 "the injected freeze (default 100ms, at most 60s)", 0, 0, NULL, &stall_set),
    CLI_SEEN_OPT("stall-at", CLI_U64, &cfg.stall_at, "N",
                 "the request that freezes (default 10000, or --events/2 when\n"
                 "that is fewer; must be < --events)",
                 0, 100000000, NULL, &stall_at_set),
    CLI_FLAG_OPT("quick", &quick, "small sizes for tests: 2000 events, stall 10ms at 1000"),
    CLI_STR_OPT("json", CLI_PATH, &json_path, "FILE", "the figures as JSON"),
    CLI_END,
};

const cli_spec cmd_co_spec = {
    .name = "co",
    .synopsis = "latlab co [closed|open|both] [OPTIONS]",
    .about = "Coordinated omission: the same service with one injected stall, measured\n"
             "closed loop (wait for the reply, then send) and open loop (send on a\n"
             "timetable, time from the intended send time), plus the closed-loop data\n"
             "corrected with HdrHistogram's record_corrected (expected interval = 1/rate).\n",
    .opts = co_opts,
    .epilog =
        "Prints per mode: n= p50= p99= p99.9= max=, then the 95% confidence interval of each\n"
        "percentile, then what the platform took from the loop's thread (gaps >= 10 us in its\n"
        "spin loops, requests they slowed, run-queue wait, switches; a warning on stderr when\n"
        "the host is busy enough to be the p99.9); last, the error budget (clock step, stamp\n"
        "cost, histogram resolution, the share of samples the correction synthesised).\n"
        "exit 0 ok, 1 error, 2 usage.\n",
    .max_args = -1,
};

typedef struct co_modes {
    bool closed, open;
} co_modes;

/* Options and the mode, checked before any work: 0, -1 after --help, or the
 * exit status. */
static int parse(int argc, char **argv, co_modes *m) {
    lat_co_config_default(&cfg);
    int first, rc = cli_parse(&cmd_co_spec, argc, argv, &first);
    if (rc) return rc;
    if (cfg.stall_ns > 60000000000ull) return cli_usage_error(CMD, "--stall: at most 60s");
    if (quick) {
        if (!events_set) cfg.events = 2000;
        if (!stall_set) cfg.stall_ns = 10000000;
        if (!stall_at_set) cfg.stall_at = 1000;
    }
    *m = (co_modes){true, true};
    if (first < argc) {
        if (!strcmp(argv[first], "closed"))
            m->open = false;
        else if (!strcmp(argv[first], "open"))
            m->closed = false;
        else if (strcmp(argv[first], "both"))
            return cli_usage_error(CMD, "mode '%s' is not closed, open or both", argv[first]);
        if (first + 1 < argc)
            return cli_usage_error(CMD, "unexpected argument '%s'", argv[first + 1]);
    }
    if (!stall_at_set && cfg.stall_at >= cfg.events)
        cfg.stall_at = cfg.events / 2; /* a default: move it */
    if (cfg.stall_at >= cfg.events)
        return cli_usage_error(CMD, "--stall-at: request %" PRIu64 " is beyond --events %" PRIu64,
                               cfg.stall_at, cfg.events);
    if (cfg.service_ns >= 1000000000u / cfg.rate_hz)
        cli_warn(CMD,
                 "--service %" PRIu64 " ns is not below the send interval %" PRIu64
                 " ns: the open loop can never catch up",
                 cfg.service_ns, 1000000000u / cfg.rate_hz);
    return 0;
}

/* The closing paragraph: how much the closed loop hid, if anything. */
static void print_verdict(const lat_hist *closed, const lat_hist *open, const lat_hist *corr,
                          const lat_budget *budget) {
    int64_t cp = lat_hist_value_at_percentile(closed, 99.9);
    int64_t op = lat_hist_value_at_percentile(open, 99.9);
    int64_t kp = lat_hist_value_at_percentile(corr, 99.9);
    char ratio[96];
    lat_budget_change(budget, (double)cp, (double)op, ratio, sizeof ratio);
    char text[512];
    lat_co_verdict_text(cp, op, lat_hist_max(closed), kp, ratio, text, sizeof text);
    printf("%s\n", text);
}

static int write_json(const lat_co_config *c, co_modes m, const lat_co_result *h,
                      const lat_budget *budget) {
    json_t *o = json_object();
    json_object_set_new(o, "config", lat_co_config_json(c));
    if (m.closed) json_object_set_new(o, "closed", mode_json(&h->closed));
    if (m.open) json_object_set_new(o, "open", mode_json(&h->open));
    json_t *plat = json_object();
    if (m.closed)
        json_object_set_new(plat, "closed", platform_json(&h->plat_closed, &h->closed, c->events));
    if (m.open)
        json_object_set_new(plat, "open", platform_json(&h->plat_open, &h->open, c->events));
    json_object_set_new(o, "platform", plat);
    if (m.closed) json_object_set_new(o, "corrected", mode_json(&h->corr));
    json_object_set_new(o, "percentile_confidence", json_real(LAT_HIST_CI_DEFAULT));
    json_object_set_new(o, "error_budget", lat_budget_json(budget));
    int rc = lat_write_json_atomic(json_path, o);
    json_decref(o);
    return rc ? cli_lib_error(CMD, json_path, rc) : CLI_OK;
}

/* The runs the mode asks for, each printed as it ends. */
static void run_modes(const lat_co_config *c, co_modes m, lat_co_result *h) {
    printf("service %.1fus per request, one %.1fms stall at request %" PRIu64 ", %" PRIu64
           " requests, open loop at %" PRIu64 "/s\n",
           (double)c->service_ns / 1e3, (double)c->stall_ns / 1e6, c->stall_at, c->events,
           c->rate_hz);
    if (m.closed) {
        cli_progress("closed loop...");
        lat_co_run_closed(c, h);
        cli_progress_done();
        print_line("closed", &h->closed);
        print_platform("closed", &h->plat_closed, &h->closed, c->events);
    }
    if (m.open) {
        cli_progress("open loop...");
        lat_co_run_open(c, h);
        cli_progress_done();
        print_line("open", &h->open);
        print_platform("open", &h->plat_open, &h->open, c->events);
    }
    if (m.closed) print_line("corrected", &h->corr);
}

int cmd_co(int argc, char **argv) {
    co_modes m = {true, true};
    int rc = parse(argc, argv, &m);
    if (rc) return rc < 0 ? CLI_OK : rc;
    const lat_co_config c = cfg;
    lat_co_result h;
    if ((rc = lat_co_result_init(&h))) return cli_lib_error(CMD, "histogram", rc);
    run_modes(&c, m, &h);
    /* Figures are CLOCK_MONOTONIC differences: one stamp at each end. */
    lat_budget budget;
    lat_budget_measure(&budget, NULL, 0, 2, h.closed.sig_figs);
    if (m.closed) lat_budget_set_co(&budget, lat_hist_total(&h.closed), lat_hist_total(&h.corr));
    if (m.closed && m.open) print_verdict(&h.closed, &h.open, &h.corr, &budget);
    char bline[512];
    lat_budget_format(&budget, bline, sizeof bline);
    printf("%s%s\n", bline, m.closed ? " (in the corrected line)" : "");
    int ret = json_path ? write_json(&c, m, &h, &budget) : CLI_OK;
    lat_co_result_fini(&h);
    return ret;
}
