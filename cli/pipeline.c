/* pipeline.c - `latlab pipeline`: one run of the stamped pipeline (the seed's
 * capstone) with its experiments, placement through the planner, per-stage
 * tables, interval logs, JSON, counters and the flight recorder. */
#include "cli.h"
#include "labrun.h"
#include "pipeline_replay.h"
#include "promcli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "latlab/json.h"
#include "latlab/atomicfile.h"
#include "latlab/budget.h"
#include "latlab/error.h"
#include "latlab/pipeline.h"
#include "latlab/ring.h"
#include "latlab/topo.h"

const char cmd_pipeline_usage[] =
    "usage: latlab pipeline [OPTIONS]\n"
    "\n"
    "One run of the stamped pipeline: an open-loop producer paced on intended send\n"
    "times, SPSC queues, a transformer doing fixed work, a consumer, and a cold\n"
    "aggregator that records q1+wake, work, q2+wake and e2e into HdrHistograms.\n"
    "\n"
    "shape and placement:\n"
    "  --shape full|compact|auto  full: producer -> q1 -> transformer -> q2 -> consumer\n"
    "                             (3 hot threads); compact: the consumer merged into the\n"
    "                             worker (2 hot threads); auto (default): full when three\n"
    "                             hot threads can be pinned apart, else compact\n"
    "  --cpus LIST                plan hot threads within these CPUs (e.g. 1-3)\n"
    "  --oversubscribe            too few CPUs: share them, backoff idle, and stamp every\n"
    "                             table \"" LAB_OVERSUB_STAMP "\"\n"
    "  --idle spin|yield|backoff  how hot threads wait (default spin)\n"
    "sizes:\n"
    "  --events N                 events (default 2000000)\n"
    "  --rate HZ                  offered rate, events/s (default 200000)\n"
    "  --queue N                  q1/q2 capacity (default 4096)\n"
    "  --sample-ring N            aggregation ring capacity (default 65536)\n"
    "  --work-iters N             LCG rounds of work per event (default 40)\n"
    "experiments:\n"
    "  --alloc                    a 32 x u64 heap vector per event in the work stage\n"
    "  --no-pin                   let the scheduler place the hot threads\n"
    "  --share-line               the two stage counters on one 64-byte line\n"
    "  --split-q1                 stamp as the producer pushes: send delay vs queue+wake\n"
    "output:\n"
    "  --json FILE                JSON summary (run conditions, config, placement,\n"
    "                             percentiles, counters, drops)\n"
    "  --hlog-dir DIR             per-stage interval logs DIR/<stage>.hlog\n"
    "  --hlog-interval DUR        interval length (default 1s)\n"
    "  --no-counters              do not open performance counters in the hot threads\n"
    "flight recorder:\n"
    "  --flight-threshold NS|auto freeze the last 4096 samples around the first e2e above\n"
    "                             NS (a duration: 5us); auto: the e2e p99.9 of\n"
    "                             --flight-baseline FILE (a pipeline JSON) or of a short\n"
    "                             baseline run made first\n"
    "  --flight-baseline FILE     JSON of an earlier `latlab pipeline` run\n"
    "  --flight-out FILE          write the whole window there (default: the verdict and\n"
    "                             20 neighbours either side on stderr)\n"
    "  --inject-stall [STAGE:]SEQ:US  test hook: stall STAGE (work, q1, or q2 in the full\n"
    "                             shape) for US microseconds at event SEQ\n" PIPELINE_REPLAY_USAGE
        CLI_PROM_USAGE_HEADER CLI_PROM_SERVE_USAGE CLI_PROM_PUSH_USAGE "\n"
    "exit: 0 ok, 1 runtime error (e.g. too few CPUs), 2 usage error.\n";

enum {
    O_SHAPE = 256,
    O_CPUS,
    O_OVERSUB,
    O_IDLE,
    O_EVENTS,
    O_RATE,
    O_QUEUE,
    O_SRING,
    O_WORK,
    O_ALLOC,
    O_NOPIN,
    O_SHARE,
    O_SPLIT,
    O_JSON,
    O_HLOG,
    O_HLOGIV,
    O_NOCNT,
    O_FTHR,
    O_FBASE,
    O_FOUT,
    O_STALL,
    O_REPLAY,
    O_SPEED,
    O_LOOP,
    O_MAXGAP,
    O_WSTEADY,
};

static const struct option opts[] = {
    {"shape", required_argument, NULL, O_SHAPE},
    {"cpus", required_argument, NULL, O_CPUS},
    {"oversubscribe", no_argument, NULL, O_OVERSUB},
    {"idle", required_argument, NULL, O_IDLE},
    {"events", required_argument, NULL, O_EVENTS},
    {"rate", required_argument, NULL, O_RATE},
    {"queue", required_argument, NULL, O_QUEUE},
    {"sample-ring", required_argument, NULL, O_SRING},
    {"work-iters", required_argument, NULL, O_WORK},
    {"alloc", no_argument, NULL, O_ALLOC},
    {"no-pin", no_argument, NULL, O_NOPIN},
    {"share-line", no_argument, NULL, O_SHARE},
    {"split-q1", no_argument, NULL, O_SPLIT},
    {"json", required_argument, NULL, O_JSON},
    {"hlog-dir", required_argument, NULL, O_HLOG},
    {"hlog-interval", required_argument, NULL, O_HLOGIV},
    {"no-counters", no_argument, NULL, O_NOCNT},
    {"flight-threshold", required_argument, NULL, O_FTHR},
    {"flight-baseline", required_argument, NULL, O_FBASE},
    {"flight-out", required_argument, NULL, O_FOUT},
    {"inject-stall", required_argument, NULL, O_STALL},
    {"replay", required_argument, NULL, O_REPLAY},
    {"speed", required_argument, NULL, O_SPEED},
    {"loop", required_argument, NULL, O_LOOP},
    {"max-gap", required_argument, NULL, O_MAXGAP},
    {"with-steady", no_argument, NULL, O_WSTEADY},
    CLI_PROM_SERVE_OPTIONS,
    CLI_PROM_PUSH_OPTIONS,
    {NULL, 0, NULL, 0},
};

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
    int site = LAT_PIPE_STALL_WORK, i = 0;
    if (n == 3) {
        if (!strcmp(parts[0], "work"))
            site = LAT_PIPE_STALL_WORK;
        else if (!strcmp(parts[0], "q1"))
            site = LAT_PIPE_STALL_Q1;
        else if (!strcmp(parts[0], "q2"))
            site = LAT_PIPE_STALL_Q2;
        else
            return cli_usage_error(CMD, "--inject-stall: unknown stage '%s' (work, q1, q2)",
                                   parts[0]);
        i = 1;
    }
    uint64_t seq, us;
    if (cli_parse_u64(CMD, "--inject-stall", parts[i], 0, UINT64_MAX - 1, &seq)) return CLI_USAGE;
    if (cli_parse_u64(CMD, "--inject-stall", parts[i + 1], 1, 60000000, &us)) return CLI_USAGE;
    c->stall_site = site;
    c->stall_seq = seq;
    c->stall_ns = us * 1000;
    return 0;
}

static int baseline_p999(const char *path, uint64_t *out) {
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    if (!j && e.line < 1) /* jansson says line -1 when the file cannot be read */
        return cli_error(CMD, "--flight-baseline: %s: %s", path, e.text);
    if (!j) return cli_error(CMD, "--flight-baseline: %s: line %d: %s", path, e.line, e.text);
    json_t *v = json_object_get(json_object_get(json_object_get(j, "stages_ns"), "e2e"), "p99.9");
    if (!json_is_integer(v) || json_integer_value(v) <= 0) {
        json_decref(j);
        return cli_error(CMD, "--flight-baseline: %s has no stages_ns.e2e.p99.9", path);
    }
    *out = (uint64_t)json_integer_value(v);
    json_decref(j);
    return 0;
}

/* ---- Prometheus: the stages a run has, serving while it runs, pushing at its end ---- */

typedef struct pipe_prom {
    int n;
    int stage[LAT_PIPE_NSTAGES];        /* series -> LAT_PIPE_* stage */
    const char *name[LAT_PIPE_NSTAGES]; /* series -> stage label */
    lat_prom_server *srv;
} pipe_prom;

static void pipe_prom_stages(pipe_prom *pp, const lat_pipe_config *c) {
    pp->n = 0;
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        if (s == LAT_PIPE_SEND && !c->split_q1) continue;
        if (s == LAT_PIPE_Q2 && c->shape != LAT_PIPE_FULL) continue;
        pp->stage[pp->n] = s;
        pp->name[pp->n++] = lat_pipe_stage_name(s);
    }
}

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

int cmd_pipeline(int argc, char **argv) {
    lat_pipe_config c;
    lat_pipe_config_default(&c);
    int shape = LAT_PIPE_AUTO, ncpus = 0, cpus[LAT_MAX_CPUS];
    bool oversub = false, flight_auto = false, idle_set = false, with_steady = false;
    bool hlog_iv_set = false;
    const char *json_path = NULL, *hlog_dir = NULL, *fbase = NULL, *fout = NULL;
    const char *replay = NULL, *steady_flag = NULL, *speed_flag = NULL;
    itchfeed_options ro = {.speed = 1, .loops = 1};
    uint64_t v;
    int ch, rc;
    cli_prom prom;
    cli_prom_init(&prom);
    optind = 1;
    while ((ch = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if ((rc = cli_prom_option(&prom, CMD, ch, optarg)) != 0) {
            if (rc == 1) continue;
            return rc;
        }
        switch (ch) {
        case O_SHAPE:
            if ((shape = lab_shape(optarg)) < 0)
                return cli_usage_error(CMD, "--shape: '%s' is not full, compact or auto", optarg);
            break;
        case O_CPUS:
            if (cli_parse_cpulist(CMD, "--cpus", optarg, cpus, LAT_MAX_CPUS, &ncpus))
                return CLI_USAGE;
            break;
        case O_OVERSUB:
            oversub = true;
            break;
        case O_IDLE:
            if (lat_idle_parse(optarg, &c.idle) || c.idle.kind == LAT_IDLE_BLOCK)
                return cli_usage_error(CMD, "--idle: '%s' is not spin, yield or backoff%s", optarg,
                                       c.idle.kind == LAT_IDLE_BLOCK
                                           ? " (block needs wakeable rings; the pipeline's are not)"
                                           : "");
            idle_set = true;
            break;
        case O_EVENTS:
            if (cli_parse_u64(CMD, "--events", optarg, 1, 1000000000000ull, &c.events))
                return CLI_USAGE;
            steady_flag = "--events";
            break;
        case O_RATE:
            if (cli_parse_u64(CMD, "--rate", optarg, 1, 100000000, &c.rate_hz)) return CLI_USAGE;
            steady_flag = "--rate";
            break;
        case O_QUEUE:
            if (cli_parse_u64(CMD, "--queue", optarg, 2, 1u << 24, &v)) return CLI_USAGE;
            c.queue_cap = (uint32_t)v;
            break;
        case O_SRING:
            if (cli_parse_u64(CMD, "--sample-ring", optarg, 2, 1u << 26, &v)) return CLI_USAGE;
            c.sample_cap = (uint32_t)v;
            break;
        case O_WORK:
            if (cli_parse_u64(CMD, "--work-iters", optarg, 0, 1000000, &v)) return CLI_USAGE;
            c.work_iters = (unsigned)v;
            steady_flag = "--work-iters";
            break;
        case O_ALLOC:
            c.alloc = true;
            break;
        case O_NOPIN:
            c.no_pin = true;
            break;
        case O_SHARE:
            c.share_line = true;
            break;
        case O_SPLIT:
            c.split_q1 = true;
            break;
        case O_JSON:
            json_path = optarg;
            break;
        case O_HLOG:
            hlog_dir = optarg;
            break;
        case O_HLOGIV:
            hlog_iv_set = true;
            if (cli_parse_duration_ns(CMD, "--hlog-interval", optarg, &c.hlog_interval_ns))
                return CLI_USAGE;
            if (c.hlog_interval_ns < 1000000)
                return cli_usage_error(CMD, "--hlog-interval: must be at least 1ms");
            break;
        case O_NOCNT:
            c.perf = false;
            break;
        case O_FTHR:
            if (!strcmp(optarg, "auto"))
                flight_auto = true;
            else if (cli_parse_duration_ns(CMD, "--flight-threshold", optarg,
                                           &c.flight_threshold_ns))
                return CLI_USAGE;
            break;
        case O_FBASE:
            fbase = optarg;
            break;
        case O_FOUT:
            fout = optarg;
            break;
        case O_STALL:
            if ((rc = parse_stall(optarg, &c)) != 0) return rc;
            break;
        case O_REPLAY:
            if (!optarg[0]) return cli_usage_error(CMD, "--replay: the capture path is empty");
            replay = optarg;
            break;
        case O_SPEED:
            if ((rc = pipeline_replay_speed(CMD, optarg, &ro.speed)) != 0) return rc;
            speed_flag = "--speed";
            break;
        case O_LOOP:
            if (cli_parse_u64(CMD, "--loop", optarg, 1, 1000000, &ro.loops)) return CLI_USAGE;
            speed_flag = "--loop";
            break;
        case O_MAXGAP:
            if (cli_parse_duration_ns(CMD, "--max-gap", optarg, &ro.max_gap_ns)) return CLI_USAGE;
            if (!ro.max_gap_ns) return cli_usage_error(CMD, "--max-gap: must be above 0");
            speed_flag = "--max-gap";
            break;
        case O_WSTEADY:
            with_steady = true;
            speed_flag = "--with-steady";
            break;
        default:
            return cli_getopt_fail(CMD, ch, argv);
        }
    }
    if (optind < argc) return cli_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
    if (hlog_iv_set && !hlog_dir)
        return cli_usage_error(CMD, "--hlog-interval: only with --hlog-dir");
    if (hlog_dir && !*hlog_dir) return cli_usage_error(CMD, "--hlog-dir: empty path");
    if (cli_prom_check(&prom, CMD)) return CLI_USAGE;
    if (prom.push_delete) { /* the group is job/run/host: no run, no stages needed */
        static const char *const any[1] = {"e2e"};
        return cli_prom_push(&prom, CMD, 1, any, NULL);
    }
    if (speed_flag && !replay) return cli_usage_error(CMD, "%s: only with --replay", speed_flag);
    if (replay && steady_flag)
        return cli_usage_error(CMD, "%s: not with --replay (the capture sets it)", steady_flag);
    if (with_steady &&
        (hlog_dir || fout || fbase || flight_auto || c.flight_threshold_ns != LAT_FLIGHT_NONE))
        return cli_usage_error(CMD, "--with-steady: only with --json among the output options");
    if (replay && c.stall_site) return cli_usage_error(CMD, "--inject-stall: not with --replay");
    if (with_steady && (prom.metrics_addr || prom.push_url))
        return cli_usage_error(CMD, "--with-steady: not with --metrics or --push");
    if (fbase && !flight_auto)
        return cli_usage_error(CMD, "--flight-baseline: only with --flight-threshold auto");
    if (fout && !flight_auto && c.flight_threshold_ns == LAT_FLIGHT_NONE)
        return cli_usage_error(CMD, "--flight-out: needs --flight-threshold");
    if (c.stall_site && c.stall_seq >= c.events)
        return cli_usage_error(CMD, "--inject-stall: event %" PRIu64 " is beyond --events %" PRIu64,
                               c.stall_seq, c.events);

    bool over = false;
    char why[512];
    lat_idle_kind idle_req = c.idle.kind;
    if ((rc = lab_place(CMD, &c, shape, cpus, ncpus, oversub, &over, why, sizeof why)) != 0)
        return rc;
    if (over && idle_set && idle_req != LAT_IDLE_BACKOFF)
        cli_warn(CMD, "--idle %s replaced by backoff: hot threads share CPUs",
                 lat_idle_name(idle_req));
    if (c.stall_site == LAT_PIPE_STALL_Q2 && c.shape != LAT_PIPE_FULL)
        return cli_usage_error(CMD, "--inject-stall: q2 exists only in the full shape");

    pipe_prom pp = {0};
    pipe_prom_stages(&pp, &c);

    const lat_clock_cal *cal = lat_clock_default();
    c.cal = cal;
    if (with_steady) {
        printf("latlab pipeline: %s\n", why);
        return pipeline_replay_run_with_steady(CMD, replay, &ro, &c, over, json_path);
    }
    itchfeed *feed = NULL;
    if (replay && (rc = pipeline_replay_setup(CMD, replay, &ro, &c, &feed)) != 0) return rc;
    printf("latlab pipeline: %s%s\n", why,
           c.no_pin ? " (planned only: --no-pin leaves placement to the scheduler)" : "");
    printf("calibrated %.4f cycles/ns; %" PRIu64 " events at %" PRIu64 "/s, queue %u, sample ring "
           "%u, work %u LCG rounds, idle %s%s%s%s%s\n",
           cal->cycles_per_ns, c.events, c.rate_hz, c.queue_cap, c.sample_cap, c.work_iters,
           lat_idle_name(c.idle.kind), c.alloc ? ", --alloc" : "", c.no_pin ? ", --no-pin" : "",
           c.share_line ? ", --share-line" : "", c.split_q1 ? ", --split-q1" : "");
    if (feed) pipeline_replay_header(stdout, replay, feed, ro.speed);
    fflush(stdout);

    if (flight_auto) {
        if (fbase) {
            if ((rc = baseline_p999(fbase, &c.flight_threshold_ns)) != 0) return rc;
        } else {
            lat_pipe_config b = c;
            b.events = c.events < 50000 ? c.events : 50000;
            b.alloc = b.share_line = false;
            b.stall_site = LAT_PIPE_STALL_NONE;
            b.hlog_prefix = NULL;
            b.perf = false;
            b.source = NULL; /* the baseline runs steady at the same mean rate */
            lat_pipe_result br;
            if ((rc = lat_pipe_run(&b, &br)) != 0) return cli_lib_error(CMD, "baseline run", rc);
            c.flight_threshold_ns =
                (uint64_t)lat_hist_value_at_percentile(br.h[LAT_PIPE_E2E], 99.9);
            lat_pipe_result_release(&br);
            fprintf(stderr,
                    "latlab pipeline: flight threshold auto: baseline e2e p99.9 = %" PRIu64
                    " ns (from a %" PRIu64 "-event run made first)\n",
                    c.flight_threshold_ns, b.events);
        }
    }

    char *prefix = NULL;
    if (hlog_dir) {
        if ((rc = lat_mkdir_p(hlog_dir)) != 0) return cli_lib_error(CMD, hlog_dir, rc);
        size_t len = strlen(hlog_dir) + 2;
        prefix = malloc(len);
        if (!prefix) return cli_lib_error(CMD, "memory", -ENOMEM);
        snprintf(prefix, len, "%s/", hlog_dir);
        c.hlog_prefix = prefix;
    }

    if (prom.metrics_addr) {
        if (cli_prom_serve(&prom, CMD, pp.n, pp.name, NULL, &pp.srv)) {
            free(prefix);
            return CLI_ERR;
        }
        c.publish = pipe_prom_publish;
        c.publish_ud = &pp;
    }
    lat_pipe_result r;
    rc = lat_pipe_run(&c, &r);
    if (rc) {
        cli_prom_serve_finish(&prom, pp.srv, NULL, 0);
        free(prefix);
        itchfeed_destroy(feed);
        return cli_lib_error(CMD, "run", rc);
    }
    const lat_hist *ph[LAT_PIPE_NSTAGES];
    pipe_prom_pick(&pp, (const lat_hist *const *)r.h, ph);
    if (pp.srv) lat_prom_server_update(pp.srv, ph, pp.n);
    lab_print_table(stdout, &c, &r, over, NULL);
    lat_budget budget;
    lab_budget(&c, &r, &budget);
    lab_print_budget(stdout, &budget);
    lab_print_details(stdout, &c, &r, over);
    if (feed) pipeline_replay_print(stdout, feed, ro.speed, &r);

    int ret = CLI_OK;
    if (r.log_error) ret = cli_lib_error(CMD, r.log_error_path, r.log_error);
    if (r.flight) {
        lat_flight_verdict fv;
        lat_flight_analyze(r.flight, &fv);
        if (fv.shape == LAT_FLIGHT_NO_TRIGGER) {
            printf("flight recorder: nothing above %" PRIu64 " ns\n", r.flight->threshold_ns);
        } else {
            printf("flight recorder: %s\n", fv.text);
            if (fout) {
                lat_afile *af = NULL;
                if ((rc = lat_afile_open(fout, &af)) == 0) {
                    lat_flight_dump(r.flight, lat_afile_stream(af), 0);
                    rc = lat_afile_commit(af);
                }
                if (rc) ret = cli_lib_error(CMD, fout, rc);
            } else {
                lat_flight_dump(r.flight, stderr, 20);
            }
        }
    }
    if (json_path) {
        json_t *doc = lab_run_json(&c, &r, over, why);
        lat_runcond rcnd;
        if (doc && lat_runcond_collect(&rcnd, NULL) == 0)
            json_object_set_new(doc, "run_conditions", lat_runcond_json(&rcnd));
        if (doc) json_object_set_new(doc, "tool", json_string("latlab pipeline"));
        if (doc && feed)
            json_object_set_new(doc, "replay", pipeline_replay_json(feed, ro.speed, &r));
        if (doc) json_object_set_new(doc, "error_budget", lat_budget_json(&budget));
        rc = doc ? lat_write_json_atomic(json_path, doc) : -ENOMEM;
        json_decref(doc);
        if (rc) ret = cli_lib_error(CMD, json_path, rc);
    }
    /* Local results are written first: an unreachable gateway still exits 1. */
    if (prom.push_url && cli_prom_push(&prom, CMD, pp.n, pp.name, ph)) ret = CLI_ERR;
    cli_prom_serve_finish(&prom, pp.srv, NULL, 0);
    lat_pipe_result_release(&r);
    itchfeed_destroy(feed);
    free(prefix);
    return ret;
}
