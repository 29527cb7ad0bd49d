/* cmd_pipeline.c - `latlab pipeline`: one run of the stamped pipeline with its
 * experiments, placement, tables, logs, JSON, counters and flight recorder. */
#include "cli.h"
#include "cliopts.h"
#include "noisecli.h"
#include "pipeplace.h"
#include "pipeline_replay.h"
#include "promcli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "latlab/pipeline_report.h"
#include "latlab/lab_account.h"
#include "latlab/json.h"
#include "latlab/atomicfile.h"
#include "latlab/budget.h"
#include "latlab/error.h"
#include "latlab/pipeline.h"
#include "latlab/ring.h"
#include "latlab/topo.h"

#define CMD "pipeline"

/* [STAGE:]SEQ:US */
static int parse_stall(const char *s, lat_pipe_config *c) {
    char buf[128];
    if (strlen(s) >= sizeof buf) return cli_usage_error(CMD, "--inject-stall: '%s' is too long", s);
    strcpy(buf, s);
    char *parts[4];
    int n = 0;
    for (char *p = buf, *tok; n < 4 && (tok = strsep(&p, ":")) != NULL;)
        parts[n++] = tok;
    if (n < 2 || n > 3)
        return cli_usage_error(CMD, "--inject-stall: '%s' is not [STAGE:]SEQ:US", s);
    int site = LAT_PIPE_STALL_WORK, i = 0, sleeper = -1;
    if (n == 3) {
        if (!strcmp(parts[0], "producer"))
            sleeper = LAT_PIPE_PRODUCER;
        else if (!strcmp(parts[0], "worker"))
            sleeper = LAT_PIPE_WORKER;
        else if (!strcmp(parts[0], "work"))
            site = LAT_PIPE_STALL_WORK;
        else if (!strcmp(parts[0], "q1"))
            site = LAT_PIPE_STALL_Q1;
        else if (!strcmp(parts[0], "q2"))
            site = LAT_PIPE_STALL_Q2;
        else
            return cli_usage_error(
                CMD, "--inject-stall: unknown stage '%s' (work, q1, q2, producer, worker)",
                parts[0]);
        i = 1;
    }
    uint64_t seq, us;
    if (cli_parse_u64(CMD, "--inject-stall", parts[i], 0, UINT64_MAX - 1, &seq)) return CLI_USAGE;
    if (cli_parse_u64(CMD, "--inject-stall", parts[i + 1], 1, 60000000, &us)) return CLI_USAGE;
    if (sleeper >= 0) { /* the thread sleeps off-CPU in its spin loop: a platform-like gap */
        c->sleep_role = sleeper;
        c->sleep_seq = seq;
        c->sleep_count = 1;
        c->sleep_ns = us * 1000;
        return 0;
    }
    c->stall_site = site;
    c->stall_seq = seq;
    c->stall_ns = us * 1000;
    return 0;
}

static int baseline_p999(const char *path, uint64_t *out) {
    char why[256];
    int rc = lat_pipe_json_e2e_p999(path, out, why, sizeof why);
    if (rc == -ENODATA)
        return cli_error(CMD, "--flight-baseline: %s has no stages_ns.e2e.p99.9", path);
    return rc ? cli_error(CMD, "--flight-baseline: %s: %s", path, why) : 0;
}

/* ---- Prometheus: the stages a run has, serving while it runs, pushing at its end ---- */

typedef struct pipe_prom {
    int n;
    int stage[LAT_PIPE_NSTAGES];        /* series -> LAT_PIPE_* stage */
    const char *name[LAT_PIPE_NSTAGES]; /* series -> stage label */
    lat_prom_server *srv;
} pipe_prom;

static void pipe_prom_pick(const pipe_prom *pp, const lat_hist *const *h, const lat_hist **out) {
    for (int i = 0; i < pp->n; i++)
        out[i] = h[pp->stage[i]];
}

/* On the aggregator thread: never waits (a scrape holding the state means
 * this snapshot is skipped; the next comes a second later). */
static void pipe_prom_publish(void *ud, const lat_hist *const *h) {
    pipe_prom *pp = ud;
    const lat_hist *v[LAT_PIPE_NSTAGES];
    pipe_prom_pick(pp, h, v);
    lat_prom_server_try_update(pp->srv, v, pp->n);
}

/* ---- options ------------------------------------------------------------------------ */

/* What the options say (the table's destinations). */
typedef struct pipe_opts {
    lat_pipe_config c;
    int shape;
    lab_cpulist cpus;
    bool oversub, flight_auto, idle_set, with_steady, hlog_iv_set, no_counters, allow_drops;
    bool events_set, rate_set, work_set, speed_set, loop_set, gap_set;
    uint64_t queue, sample_ring, work_iters;
    const char *json_path, *hlog_dir, *fbase, *fout, *replay;
    itchfeed_options ro;
    cli_prom prom;
    cli_noise noise; /* --noise SPEC */
} pipe_opts;

static pipe_opts o;

static int opt_idle(const char *cmd, const char *flag, const char *v, void *dest) {
    lat_idle *idle = dest;
    if (lat_idle_parse(v, idle) || idle->kind == LAT_IDLE_BLOCK)
        return cli_usage_error(cmd, "%s: '%s' is not spin, yield or backoff%s", flag, v,
                               idle->kind == LAT_IDLE_BLOCK
                                   ? " (block needs wakeable rings; the pipeline's are not)"
                                   : "");
    return 0;
}

static int opt_flight_threshold(const char *cmd, const char *flag, const char *v, void *dest) {
    if (!strcmp(v, "auto")) {
        o.flight_auto = true;
        return 0;
    }
    return cli_parse_duration_ns(cmd, flag, v, dest);
}

static int opt_stall(const char *cmd, const char *flag, const char *v, void *dest) {
    (void)cmd, (void)flag;
    return parse_stall(v, dest);
}

static int opt_replay(const char *cmd, const char *flag, const char *v, void *dest) {
    if (!v[0]) return cli_usage_error(cmd, "%s: the capture path is empty", flag);
    *(const char **)dest = v;
    return 0;
}

static int opt_speed(const char *cmd, const char *flag, const char *v, void *dest) {
    (void)flag;
    return pipeline_replay_speed(cmd, v, dest);
}

static const cli_opt pipe_table[] = {
    CLI_HEADING_ROW("shape and placement"),
    CLI_CUSTOM_OPT("shape", lab_opt_shape, &o.shape, "full|compact|auto",
                   "full: producer -> q1 -> transformer -> q2 -> consumer\n"
                   "(3 hot threads); compact: the consumer merged into the\n"
                   "worker (2 hot threads); auto (default): full when three\n"
                   "hot threads can be pinned apart, else compact"),
    CLI_CUSTOM_OPT("cpus", lab_opt_cpus, &o.cpus, "LIST",
                   "plan hot threads within these CPUs (e.g. 1-3)"),
    CLI_FLAG_OPT("oversubscribe", &o.oversub,
                 "too few CPUs: share them, backoff idle, and stamp every\n"
                 "table \"" LAT_PIPE_OVERSUB_STAMP "\""),
    CLI_SEEN_OPT("idle", CLI_CUSTOM, &o.c.idle, "spin|yield|backoff",
                 "how hot threads wait (default spin)", 0, 0, opt_idle, &o.idle_set),
    CLI_HEADING_ROW("sizes"),
    CLI_SEEN_OPT("events", CLI_U64, &o.c.events, "N", "events (default 2000000)", 1, 1e12, NULL,
                 &o.events_set),
    CLI_SEEN_OPT("rate", CLI_U64, &o.c.rate_hz, "HZ", "offered rate, events/s (default 200000)", 1,
                 100000000, NULL, &o.rate_set),
    CLI_NUM_OPT("queue", CLI_U64, &o.queue, "N", "q1/q2 capacity (default 4096)", 2, 1u << 24),
    CLI_NUM_OPT("sample-ring", CLI_U64, &o.sample_ring, "N",
                "aggregation ring capacity (default 65536)", 2, 1u << 26),
    CLI_FLAG_OPT("allow-drops", &o.allow_drops,
                 "exit 0 even when the ring dropped more than 1% of the samples"),
    CLI_SEEN_OPT("work-iters", CLI_U64, &o.work_iters, "N",
                 "LCG rounds of work per event (default 40)", 0, 1000000, NULL, &o.work_set),
    CLI_HEADING_ROW("experiments"),
    CLI_FLAG_OPT("alloc", &o.c.alloc, "a 32 x u64 heap vector per event in the work stage"),
    CLI_FLAG_OPT("no-pin", &o.c.no_pin, "let the scheduler place the hot threads"),
    CLI_FLAG_OPT("share-line", &o.c.share_line, "the two stage counters on one 64-byte line"),
    CLI_FLAG_OPT("split-q1", &o.c.split_q1,
                 "stamp as the producer pushes: send delay vs queue+wake"),
    CLI_NOISE_ROW(o.noise),
    CLI_HEADING_ROW("output"),
    CLI_STR_OPT("json", CLI_STRING, &o.json_path, "FILE",
                "JSON summary (run conditions, config, placement,\n"
                "percentiles, counters, drops)"),
    CLI_STR_OPT("hlog-dir", CLI_STRING, &o.hlog_dir, "DIR",
                "per-stage interval logs DIR/<stage>.hlog"),
    CLI_SEEN_OPT("hlog-interval", CLI_DURATION, &o.c.hlog_interval_ns, "DUR",
                 "interval length (default 1s)", 0, 0, NULL, &o.hlog_iv_set),
    CLI_FLAG_OPT("no-counters", &o.no_counters,
                 "do not open performance counters in the hot threads"),
    CLI_HEADING_ROW("flight recorder"),
    CLI_CUSTOM_OPT("flight-threshold", opt_flight_threshold, &o.c.flight_threshold_ns, "NS|auto",
                   "freeze the last 4096 samples around the first e2e above\n"
                   "NS (a duration: 5us); auto: the e2e p99.9 of\n"
                   "--flight-baseline FILE (a pipeline JSON) or of a short\n"
                   "baseline run made first"),
    CLI_STR_OPT("flight-baseline", CLI_STRING, &o.fbase, "FILE",
                "JSON of an earlier `latlab pipeline` run"),
    CLI_STR_OPT("flight-out", CLI_STRING, &o.fout, "FILE",
                "write the whole window there (default: the verdict and\n"
                "20 neighbours either side on stderr)"),
    CLI_CUSTOM_OPT("inject-stall", opt_stall, &o.c, "[STAGE:]SEQ:US",
                   "test hook: stall STAGE (work, q1, or q2 in the full\n"
                   "shape) for US microseconds at event SEQ (busy: the\n"
                   "program's time); producer or worker: that thread\n"
                   "sleeps off-CPU in its spin loop (a platform-like gap)"),
    CLI_HEADING_ROW("replay (production-like arrivals; the order books are the work stage)"),
    CLI_CUSTOM_OPT("replay", opt_replay, &o.replay, "FILE",
                   "drive the pipeline with an ITCH 5.0 capture: message i is\n"
                   "due at its capture time (ns since midnight, relative to the\n"
                   "first) / speed, open loop (t0 = due time; the producer's\n"
                   "lateness is the send stage); the worker applies it to its\n"
                   "stock's book.  Timestamps going backwards are sent at once\n"
                   "and counted.  Not with --events, --rate, --work-iters."),
    CLI_SEEN_OPT("speed", CLI_CUSTOM, &o.ro.speed, "original|xN|max",
                 "time scale (default original; max: back to back)", 0, 0, opt_speed, &o.speed_set),
    CLI_SEEN_OPT("max-gap", CLI_DURATION, &o.ro.max_gap_ns, "DUR",
                 "cut gaps longer than DUR (after --speed) to DUR, so a\n"
                 "day-long capture replays its bursts without the quiet hours",
                 0, 0, NULL, &o.gap_set),
    CLI_FLAG_OPT("with-steady", &o.with_steady,
                 "first run the same pipeline at a steady rate equal to the\n"
                 "capture's mean (same events), then the replay: both tables"),
    CLI_SEEN_OPT("loop", CLI_U64, &o.ro.loops, "N",
                 "replay the capture N times (books emptied at the start of\n"
                 "each later pass, counted as kind 'pass reset')",
                 1, 1000000, NULL, &o.loop_set),
    CLI_HEADING_ROW("Prometheus (see README, \"Fleet percentiles\")"),
    CLI_PROM_SERVE_ROWS(o.prom),
    CLI_PROM_PUSH_ROWS(o.prom),
    CLI_END,
};

const cli_spec cmd_pipeline_spec = {
    .name = CMD,
    .synopsis = "latlab pipeline [OPTIONS]",
    .about = "One run of the stamped pipeline: an open-loop producer paced on intended send\n"
             "times, SPSC queues, a transformer doing fixed work, a consumer, and a cold\n"
             "aggregator that records q1+wake, work, q2+wake and e2e into HdrHistograms.\n",
    .opts = pipe_table,
    .epilog = "exit: 0 ok, 1 runtime error (e.g. too few CPUs), 2 usage error.\n",
};

/* The flag that makes a steady run (refused with --replay), and the replay
 * flags (refused without it); NULL when none was given. */
static const char *steady_flag(void) {
    return o.work_set ? "--work-iters" : o.rate_set ? "--rate" : o.events_set ? "--events" : NULL;
}

static const char *replay_flag(void) {
    return o.with_steady ? "--with-steady"
           : o.gap_set   ? "--max-gap"
           : o.loop_set  ? "--loop"
           : o.speed_set ? "--speed"
                         : NULL;
}

/* Combinations, checked before any work: 0 or CLI_USAGE. */
static int pipe_check(void) {
    const lat_pipe_config *c = &o.c;
    if (o.hlog_iv_set && c->hlog_interval_ns < 1000000)
        return cli_usage_error(CMD, "--hlog-interval: must be at least 1ms");
    if (o.gap_set && !o.ro.max_gap_ns) return cli_usage_error(CMD, "--max-gap: must be above 0");
    if (o.hlog_iv_set && !o.hlog_dir)
        return cli_usage_error(CMD, "--hlog-interval: only with --hlog-dir");
    if (o.hlog_dir && !*o.hlog_dir) return cli_usage_error(CMD, "--hlog-dir: empty path");
    if (cli_prom_check(&o.prom, CMD)) return CLI_USAGE;
    const char *run_flag = steady_flag() ? steady_flag() : o.json_path ? "--json" : replay_flag();
    if (o.prom.push_delete) /* the group is job/run/host: no run, so no run options */
        return run_flag ? cli_usage_error(CMD, "%s: not with --push-delete", run_flag) : 0;
    if (replay_flag() && !o.replay)
        return cli_usage_error(CMD, "%s: only with --replay", replay_flag());
    if (o.replay && steady_flag())
        return cli_usage_error(CMD, "%s: not with --replay (the capture sets it)", steady_flag());
    if (o.with_steady && (o.hlog_dir || o.fout || o.fbase || o.flight_auto ||
                          c->flight_threshold_ns != LAT_FLIGHT_NONE))
        return cli_usage_error(CMD, "--with-steady: only with --json among the output options");
    if (o.replay && c->stall_site) return cli_usage_error(CMD, "--inject-stall: not with --replay");
    if (o.with_steady && o.noise.text)
        return cli_usage_error(CMD, "--noise: not with --with-steady");
    if (o.with_steady && (o.prom.metrics_addr || o.prom.push_url))
        return cli_usage_error(CMD, "--with-steady: not with --metrics or --push");
    if (o.fbase && !o.flight_auto)
        return cli_usage_error(CMD, "--flight-baseline: only with --flight-threshold auto");
    if (o.fout && !o.flight_auto && c->flight_threshold_ns == LAT_FLIGHT_NONE)
        return cli_usage_error(CMD, "--flight-out: needs --flight-threshold");
    if ((c->stall_site && c->stall_seq >= c->events) ||
        (c->sleep_count && c->sleep_seq >= c->events))
        return cli_usage_error(CMD, "--inject-stall: event %" PRIu64 " is beyond --events %" PRIu64,
                               c->stall_site ? c->stall_seq : c->sleep_seq, c->events);
    return 0;
}

/* Parse and check: 0, -1 after --help, or the exit status. */
static int pipe_parse(int argc, char **argv) {
    memset(&o, 0, sizeof o);
    lat_pipe_config_default(&o.c);
    o.shape = LAT_PIPE_AUTO;
    o.queue = o.c.queue_cap, o.sample_ring = o.c.sample_cap, o.work_iters = o.c.work_iters;
    o.ro = (itchfeed_options){.speed = 1, .loops = 1};
    cli_prom_init(&o.prom);
    int first, rc = cli_parse(&cmd_pipeline_spec, argc, argv, &first);
    if (rc) return rc;
    o.c.queue_cap = (uint32_t)o.queue;
    o.c.sample_cap = (uint32_t)o.sample_ring;
    o.c.work_iters = (unsigned)o.work_iters;
    if (o.no_counters) o.c.perf = false;
    return pipe_check();
}

/* ---- the run ------------------------------------------------------------------------ */

/* --flight-threshold auto: the baseline's e2e p99.9, from --flight-baseline
 * or a short steady run made first.  0 or the exit status. */
static int flight_auto_threshold(lat_pipe_config *c) {
    if (o.fbase) return baseline_p999(o.fbase, &c->flight_threshold_ns);
    uint64_t events;
    int rc = lat_pipe_baseline_p999(c, &c->flight_threshold_ns, &events);
    if (rc != 0) return cli_lib_error(CMD, "baseline run", rc);
    fprintf(stderr,
            "latlab pipeline: flight threshold auto: baseline e2e p99.9 = %" PRIu64
            " ns (from a %" PRIu64 "-event run made first)\n",
            c->flight_threshold_ns, events);
    return 0;
}

static void print_header(const lat_pipe_config *c, const char *why, const itchfeed *feed) {
    lat_pipe_print_header(stdout, c, why, feed != NULL);
    if (feed) itchfeed_report_header(stdout, o.replay, feed, o.ro.speed);
    fflush(stdout);
}

static int write_json(const lat_pipe_config *c, const lat_pipe_result *r, bool over,
                      const char *why, const itchfeed *feed, const lat_budget *budget) {
    json_t *doc = lat_pipe_run_json(c, r, over, why);
    lat_runcond rcnd;
    if (doc && lat_runcond_collect(&rcnd, NULL) == 0)
        json_object_set_new(doc, "run_conditions", lat_runcond_json(&rcnd));
    if (doc) json_object_set_new(doc, "tool", json_string("latlab pipeline"));
    if (doc && feed) json_object_set_new(doc, "replay", itchfeed_report_json(feed, o.ro.speed, r));
    if (doc) json_object_set_new(doc, "error_budget", lat_budget_json(budget));
    json_t *noise = cli_noise_json(&o.noise); /* --noise: what it took */
    if (doc && noise)
        json_object_set_new(doc, "noise", noise);
    else
        json_decref(noise);
    return cli_write_json(CMD, o.json_path, doc);
}

/* The tables and figures of a finished run, the flight recorder, JSON and
 * the push.  CLI_OK or CLI_ERR. */
static int report_run(const lat_pipe_config *c, lat_pipe_result *r, bool over, const char *why,
                      const itchfeed *feed, pipe_prom *pp) {
    const lat_hist *ph[LAT_PIPE_NSTAGES];
    pipe_prom_pick(pp, (const lat_hist *const *)r->h, ph);
    if (pp->srv) lat_prom_server_update(pp->srv, ph, pp->n);
    lat_pipe_print_table(stdout, c, r, over, NULL);
    lat_budget budget;
    lat_pipe_budget(c, r, &budget);
    lat_pipe_print_budget(stdout, &budget);
    lat_pipe_print_details(stdout, c, r, over);
    lat_lab_print_account(stdout, c, r);
    lat_pipe_print_censoring(stdout, r);
    if (feed) itchfeed_report_print(stdout, feed, o.ro.speed, r);
    int ret = CLI_OK;
    if (r->log_error) ret = cli_lib_error(CMD, r->log_error_path, r->log_error);
    int rc = r->flight ? lat_pipe_report_flight(stdout, stderr, r->flight, o.fout) : 0;
    if (rc) ret = cli_lib_error(CMD, o.fout, rc);
    if (o.json_path && write_json(c, r, over, why, feed, &budget)) ret = CLI_ERR;
    /* Local results are written first: an unreachable gateway still exits 1. */
    if (o.prom.push_url && cli_prom_push(&o.prom, CMD, pp->n, pp->name, ph)) ret = CLI_ERR;
    return ret;
}

/* --hlog-dir: created, and the prefix the run writes DIR/<stage>.hlog with. */
static int hlog_prefix(lat_pipe_config *c, char **prefix) {
    int rc = lat_mkdir_p(o.hlog_dir);
    if (rc != 0) return cli_lib_error(CMD, o.hlog_dir, rc);
    size_t len = strlen(o.hlog_dir) + 2;
    if (!(*prefix = malloc(len))) return cli_lib_error(CMD, "memory", -ENOMEM);
    snprintf(*prefix, len, "%s/", o.hlog_dir);
    c->hlog_prefix = *prefix;
    return 0;
}

/* Serve while running (--metrics), run, report. */
static int run_and_report(lat_pipe_config *c, bool over, const char *why, itchfeed *feed) {
    pipe_prom pp = {0};
    pp.n = lat_pipe_stages_of(c, pp.stage, pp.name);
    if (o.prom.metrics_addr) {
        if (cli_prom_serve(&o.prom, CMD, pp.n, pp.name, NULL, &pp.srv)) return CLI_ERR;
        c->publish = pipe_prom_publish;
        c->publish_ud = &pp;
    }
    lat_pipe_result r = {0}; /* its error path is read even when the run fails at once */
    int rc = cli_noise_begin(&o.noise, CMD, c->cpus, LAT_PIPE_NHOT); /* --noise */
    if (rc) {
        cli_prom_serve_finish(&o.prom, pp.srv, NULL, 0);
        return rc;
    }
    rc = lat_pipe_run(c, &r);
    cli_noise_end(&o.noise, stdout);
    if (rc) { /* an output that could not be opened is named: the kernel's errno is about it */
        cli_noise_free(&o.noise);
        cli_prom_serve_finish(&o.prom, pp.srv, NULL, 0);
        return cli_lib_error(CMD, r.log_error_path[0] ? r.log_error_path : "run", rc);
    }
    int ret = report_run(c, &r, over, why, feed, &pp);
    char drop[256]; /* tables of a minority of the events: an error unless asked */
    if (!ret && !o.allow_drops && lat_pipe_drops_note(&r, LAT_PIPE_MAX_DROP_SHARE, drop, 256))
        ret = cli_error(CMD, "%s (--sample-ring N larger, or --allow-drops)", drop);
    cli_noise_free(&o.noise);
    cli_prom_serve_finish(&o.prom, pp.srv, NULL, 0);
    lat_pipe_result_fini(&r);
    return ret;
}

static int pipeline_run(int argc, char **argv) {
    int rc = pipe_parse(argc, argv);
    if (rc) return rc < 0 ? CLI_OK : rc;
    if (o.prom.push_delete) {
        static const char *const any[1] = {"e2e"};
        return cli_prom_push(&o.prom, CMD, 1, any, NULL);
    }
    lat_pipe_config c = o.c;
    bool over = false;
    char why[512];
    lat_idle_kind idle_req = c.idle.kind;
    if ((rc = lab_place(CMD, &c, o.shape, o.cpus.cpus, o.cpus.n, o.oversub, &over, why,
                        sizeof why)) != 0)
        return rc;
    if (over && o.idle_set && idle_req != LAT_IDLE_BACKOFF)
        cli_warn(CMD, "--idle %s replaced by backoff: hot threads share CPUs",
                 lat_idle_name(idle_req));
    if (c.stall_site == LAT_PIPE_STALL_Q2 && c.shape != LAT_PIPE_FULL)
        return cli_usage_error(CMD, "--inject-stall: q2 exists only in the full shape");
    c.cal = lat_clock_default();
    if (o.with_steady) {
        printf("latlab pipeline: %s\n", why);
        return pipeline_replay_run_with_steady(CMD, o.replay, &o.ro, &c, over, o.json_path);
    }
    itchfeed *feed = NULL;
    if (o.replay && (rc = pipeline_replay_setup(CMD, o.replay, &o.ro, &c, &feed)) != 0) return rc;
    char *prefix = NULL; /* the directory is made (or refused) before the plan prints */
    if (o.hlog_dir && (rc = hlog_prefix(&c, &prefix)) != 0) goto out;
    print_header(&c, why, feed);
    if (o.flight_auto && (rc = flight_auto_threshold(&c)) != 0) goto out;
    rc = run_and_report(&c, over, why, feed);
out:
    itchfeed_destroy(feed);
    free(prefix);
    return rc;
}

/* Lines of 200-400 characters (figures, accounting, CIs) read in a
 * 100-column terminal: every line of the run is wrapped there. */
int cmd_pipeline(int argc, char **argv) {
    return cli_wrapped(pipeline_run, argc, argv);
}
