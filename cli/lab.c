/* lab.c - `latlab lab`: the pipeline lab's experiment protocol, from the
 * command line.  The protocol itself (interleaved shuffled rounds, platform
 * accounting, contaminated runs repeated, per-interval figures, verdicts with
 * their confidence) is the library's (latlab/lab.h); this file parses flags,
 * places the hot threads, prints progress and one line per run with its
 * platform account, runs the silence check inside the protocol when root, and
 * hands the result to the writers of LAB.md, lab.json and report.html
 * (labout.c). */
#include "cli.h"
#include "labout.h"
#include "labrun.h"
#include "noisecli.h"
#include "ringlab.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "latlab/atomicfile.h"
#include "latlab/error.h"
#include "latlab/json.h"
#include "latlab/pipeline.h"
#include "latlab/topo.h"

#define CMD "lab"

/* ---- callbacks from the protocol ------------------------------------------------------- */

static double floor_cb(void *ud, int a, int b) {
    (void)ud;
    rl_lat l;
    return rl_pingpong(a, b, 20000, &l) == 0 ? l.p50_ns : NAN;
}

static void remember_flight(lab_ctx *x, const lat_pipe_config *c, const lat_pipe_result *r) {
    lat_flight_verdict fv;
    if (x->flight_done || !r->flight || !r->flight_fired || lat_flight_analyze(r->flight, &fv))
        return;
    if (fv.shape == LAT_FLIGHT_NO_TRIGGER) return;
    x->flight_done = true;
    x->flight_thr = c->flight_threshold_ns;
    snprintf(x->flight_text, sizeof x->flight_text, "%s", fv.text);
    snprintf(x->flight_gap, sizeof x->flight_gap, "%s", r->flight_gap);
    size_t dl = 0;
    FILE *m = open_memstream(&x->flight_dump, &dl);
    if (m) {
        lat_flight_dump(r->flight, m, 10);
        fclose(m);
    }
    char fp[4200];
    snprintf(fp, sizeof fp, "%s/flight-alloc.txt", x->out);
    lat_afile *af = NULL;
    if (lat_afile_open(fp, &af) == 0) {
        FILE *f = lat_afile_stream(af);
        lat_flight_dump(r->flight, f, 0);
        if (r->flight_gap[0]) fprintf(f, "gap: %s\n", r->flight_gap);
        int rc = lat_afile_commit(af);
        if (rc && !x->err) x->err = rc;
    }
}

static void on_run(void *ud, const lat_lab_run_rec *rec, const lat_pipe_config *c,
                   const lat_pipe_result *r) {
    lab_ctx *x = ud;
    cli_progress_done();
    if (!x->stamps_per_event) {
        x->stamp_cost_ns = r->stamp_cost_ns;
        x->stamps_per_event = r->stamps_per_event;
    }
    char plat[1024];
    lab_rec_platform(x, rec, plat, sizeof plat);
    printf("round %2u %-10s work p50 %4.0f p99.9 %6.0f ns | e2e p50 %9.0f p99.9 %10.0f ns | floor "
           "%.0f -> %.0f ns | %s%s%s\n",
           rec->round + 1, lat_lab_conf_name(rec->conf), rec->p50[LAT_PIPE_WORK],
           rec->p999[LAT_PIPE_WORK], rec->p50[LAT_PIPE_E2E], rec->p999[LAT_PIPE_E2E], rec->floor_ns,
           rec->floor_after_ns, plat, rec->contaminated ? " | CONTAMINATED: " : "",
           rec->contaminated ? rec->why : "");
    fflush(stdout);
    json_t *j = lab_run_json(c, r, x->over, x->why);
    if (!j) return;
    json_object_set_new(j, "experiment", json_string(lat_lab_conf_name(rec->conf)));
    json_object_set_new(j, "round", json_integer(rec->round + 1));
    json_object_set_new(j, "attempt", json_integer(rec->attempt + 1));
    json_object_set_new(j, "contaminated", json_boolean(rec->contaminated));
    if (rec->contaminated) json_object_set_new(j, "why", json_string(rec->why));
    json_object_set_new(j, "platform_text", json_string(plat));
    json_object_set_new(j, "floor_before_ns", lat_json_real_or_null(rec->floor_ns));
    json_object_set_new(j, "floor_after_ns", lat_json_real_or_null(rec->floor_after_ns));
    double worst = 0;
    for (int k = 0; k < LAT_PIPE_NHOT; k++)
        if (rec->thr[k].ran && rec->thr[k].lost_share > worst) worst = rec->thr[k].lost_share;
    json_object_set_new(j, "lost_share_max", json_real(worst));
    char name[4300];
    snprintf(name, sizeof name, "%s/%s-r%u%s.json", x->runs_dir, lat_lab_conf_name(rec->conf),
             rec->round + 1, rec->contaminated ? "-contaminated" : "");
    int rc = lat_write_json_atomic(name, j);
    if (rc && !x->err) x->err = rc;
    json_array_append_new(x->jruns, j);
    if (rec->conf == LAT_LAB_ALLOC) remember_flight(x, c, r);
    if ((rec->conf == LAT_LAB_BASE || rec->conf == LAT_LAB_SHARE) && rec->round == 0 &&
        rec->attempt == 0) {
        const lat_pipe_counters *w = &r->thr[LAT_PIPE_WORKER];
        labprof_figures(&x->prof, rec->conf == LAT_LAB_BASE ? LABPROF_BASE : LABPROF_SHARE,
                        rec->p50[LAT_PIPE_WORK], rec->p50[LAT_PIPE_E2E],
                        w->cycles > 0 ? w->instructions / w->cycles : NAN, w->cache_misses);
    }
}

/* The silence check: `latlab silence` traces the hot CPUs while the run goes. */
static void silence_begin(lab_ctx *x, lab_silence *s, const lat_pipe_config *c) {
    char cpus[64] = "", secs[32];
    for (int k = 0, n = 0; k < LAT_PIPE_NHOT; k++)
        if (x->cfg.pipe.cpus[k] >= 0)
            n += snprintf(cpus + n, sizeof cpus - (size_t)n, "%s%d", n ? "," : "",
                          x->cfg.pipe.cpus[k]);
    snprintf(secs, sizeof secs, "%.3f", (double)c->events / (double)c->rate_hz + 0.2);
    /* the tracer writes a .part file; it becomes silence-<conf>.txt once complete */
    snprintf(s->path, sizeof s->path, "%s/silence-%s.txt.part", x->out, lat_lab_conf_name(s->conf));
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        /* plain descriptors, not freopen: stdout is a wrapped stream (main.c)
         * and only async-signal-safe calls belong between fork and exec */
        int fd = open(s->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execl("/proc/self/exe", "latlab", "silence", "--cpus", cpus, "--seconds", secs,
              (char *)NULL);
        _exit(127);
    }
    s->pid = pid;
    s->ran = pid > 0;
    if (s->ran) {
        struct timespec ts = {0, 100000000}; /* let the tracer set up first */
        nanosleep(&ts, NULL);
    }
}

static void silence_end(lab_silence *s) {
    if (!s->ran || s->pid <= 0) return;
    int st = 0;
    waitpid(s->pid, &st, 0);
    s->pid = 0;
    s->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
    FILE *f = fopen(s->path, "r");
    if (!f) return;
    char done[sizeof s->path];
    snprintf(done, sizeof done, "%.*s", (int)(strlen(s->path) - 5), s->path);
    rename(s->path, done);
    size_t cap = 65536, n;
    s->text = calloc(1, cap);
    if (s->text) {
        n = fread(s->text, 1, cap - 1, f);
        s->text[n] = 0;
    }
    fclose(f);
}

static void around_run(void *ud, int conf, unsigned round, unsigned att, int begin,
                       lat_pipe_config *c) {
    lab_ctx *x = ud;
    if (begin)
        cli_progress("round %u: %s%s...", round + 1, lat_lab_conf_name(conf),
                     att ? " (repeat: contaminated)" : "");
    /* step (e): perf attached for round 1 of the baseline and of share-line
     * (inside the silence check's window, so the tracer is not profiled) */
    int side = conf == LAT_LAB_BASE ? LABPROF_BASE : conf == LAT_LAB_SHARE ? LABPROF_SHARE : -1;
    bool prof = side >= 0 && round == 0 && att == 0;
    if (prof && !begin) labprof_end(&x->prof, side);
    if (x->root && round == 0 && att == 0 && (conf == LAT_LAB_BASE || conf == LAT_LAB_NOPIN)) {
        lab_silence *s = &x->sil[conf == LAT_LAB_BASE ? 0 : 1];
        s->conf = conf;
        if (begin)
            silence_begin(x, s, c);
        else
            silence_end(s);
    }
    if (prof && begin) labprof_begin(&x->prof, side);
}

/* ---- options ------------------------------------------------------------------------------ */

typedef struct lab_opts {
    const char *out, *json_out, *replay;
    bool quick, oversub, seed_set, iv_set, no_profile;
    uint64_t events, rate, min_rounds, max_rounds, iv_ms, gap_us, seed;
    double budget, loss_pct;
    int shape;
    lab_cpulist cpus;
    cli_noise noise; /* --noise SPEC */
} lab_opts;

static lab_opts lo; /* the table's destinations */

static int opt_replay(const char *cmd, const char *flag, const char *v, void *dest) {
    if (!v[0]) return cli_usage_error(cmd, "%s: needs auto, none or a capture", flag);
    *(const char **)dest = v;
    return 0;
}

static int opt_json(const char *cmd, const char *flag, const char *v, void *dest) {
    if (!v[0]) return cli_usage_error(cmd, "%s: empty path", flag);
    *(const char **)dest = v;
    return 0;
}

static const cli_opt lab_table[] = {
    CLI_STR_OPT("out", CLI_STRING, &lo.out, "DIR", "output folder (default lab-out)"),
    CLI_FLAG_OPT("quick", &lo.quick, "tiny sizes for CI: a few seconds in all"),
    CLI_NUM_OPT("budget", CLI_DOUBLE, &lo.budget, "S",
                "time budget for the rounds (default 120 s; --quick 6 s)", 0.1, 86400),
    CLI_NUM_OPT("min-rounds", CLI_U64, &lo.min_rounds, "N",
                "rounds before any verdict (default 10)", 2, 1000),
    CLI_NUM_OPT("max-rounds", CLI_U64, &lo.max_rounds, "N", "at most this many rounds (default 80)",
                2, 1000),
    CLI_NUM_OPT("events", CLI_U64, &lo.events, "N",
                "events per run (default 100000 = 0.5 s at the default rate)", 1000, 1e12),
    CLI_NUM_OPT("rate", CLI_U64, &lo.rate, "HZ", "offered rate (default 200000/s)", 1000,
                100000000),
    CLI_SEEN_OPT("interval", CLI_U64, &lo.iv_ms, "MS",
                 "per-interval figures over MS of send time (default 100)", 1, 60000, NULL,
                 &lo.iv_set),
    CLI_NUM_OPT("gap", CLI_U64, &lo.gap_us, "US",
                "a spin-loop gap is at least US microseconds (default 10)", 1, 1000000),
    CLI_NUM_OPT("max-loss", CLI_DOUBLE, &lo.loss_pct, "PCT",
                "a run whose hot thread lost more is contaminated (default 20)", 0.1, 100),
    CLI_SEEN_OPT("seed", CLI_U64, &lo.seed, "N",
                 "order shuffle seed (default: from the clock; printed)", 0, 0, NULL, &lo.seed_set),
    CLI_CUSTOM_OPT("shape", lab_opt_shape, &lo.shape, "full|compact|auto",
                   "(default auto: compact, pinned, on 2 CPUs)"),
    CLI_CUSTOM_OPT("cpus", lab_opt_cpus, &lo.cpus, "LIST", "plan hot threads within these CPUs"),
    CLI_FLAG_OPT("oversubscribe", &lo.oversub,
                 "run even when the hot threads cannot each have a CPU"),
    CLI_CUSTOM_OPT("json", opt_json, &lo.json_out, "FILE", "also write lab.json here"),
    CLI_CUSTOM_OPT("replay", opt_replay, &lo.replay, "auto|none|FILE",
                   "after the rounds, a replay round: the pinned baseline at a\n"
                   "steady rate, then driven by an ITCH 5.0 capture on its own\n"
                   "timestamps (auto: a synthetic bursty one written to\n"
                   "OUT/replay.itch by itch-gen; default auto)"),
    CLI_FLAG_OPT("no-profile", &lo.no_profile,
                 "skip step (e): perf on round 1 of baseline and share-line"),
    CLI_NOISE_ROW(lo.noise), /* the rounds run under it; lab.json "noise" */
    CLI_END,
};

const cli_spec cmd_lab_spec = {
    .name = CMD,
    .synopsis = "latlab lab [OPTIONS]",
    .about =
        "The pipeline lab's experiment protocol.  The baseline and the three experiments\n"
        "(--alloc, --share-line, --no-pin) run interleaved in rounds, in an order shuffled by\n"
        "a printed seed, so a change of the host's placement hits them alike; the cache-line\n"
        "floor between the hot CPUs is measured every round.  Each run is cut into intervals\n"
        "(per-interval p50, p99, p99.9, max, throughput per stage); the hot threads' platform\n"
        "losses (gaps in their own spin loops, run-queue wait, switches, steal/irq/softirq) are\n"
        "accounted; intervals and runs that lost too much are set aside (runs are repeated).\n"
        "Each experiment is compared with the baseline of the same round on the work stage\n"
        "(rank test, confidence interval on the ratio); rounds continue until every verdict\n"
        "is decided or the budget is spent: tail disease, median/throughput disease, variance\n"
        "disease, no significant change, or inconclusive on this machine with the reason.\n"
        "As root the silence check traces one pinned baseline and one no-pin run.\n"
        "Step (e): where perf may sample (root, or perf_event_paranoid <= 1), perf record is\n"
        "attached for round 1 of the baseline and of share-line; both flamegraphs, their diff\n"
        "and the narration go to LAB.md, report.html and profile-*/ (otherwise it says why).\n"
        "Writes LAB.md, lab.json, report.html, <stage>.svg, intervals-*.svg, flight-alloc.txt\n"
        "(when the flight recorder fired), runs/<experiment>-r<round>.json and\n"
        "runs/<experiment>-1-<stage>.hlog (round 1) into the output folder.\n",
    .opts = lab_table,
    .epilog = "Progress goes to stderr when it is a terminal.  exit 0 ok, 1 error, 2 usage.\n",
};

static int parse_opts(int argc, char **argv, lab_opts *o) {
    memset(&lo, 0, sizeof lo);
    lo.out = "lab-out";
    lo.replay = "auto";
    lo.rate = 200000;
    lo.iv_ms = 100;
    lo.gap_us = 10;
    lo.loss_pct = 20;
    lo.shape = LAT_PIPE_AUTO;
    int first, rc = cli_parse(&cmd_lab_spec, argc, argv, &first);
    if (rc) return rc;
    *o = lo;
    if (first < argc) return cli_usage_error(CMD, "unexpected argument '%s'", argv[first]);
    if (!o->out[0]) return cli_usage_error(CMD, "--out: empty path");
    if (strcmp(o->replay, "auto") && strcmp(o->replay, "none") && access(o->replay, R_OK) != 0)
        return cli_usage_error(CMD, "--replay: cannot read '%s': %s", o->replay, strerror(errno));
    if (o->min_rounds && o->max_rounds && o->min_rounds > o->max_rounds)
        return cli_usage_error(CMD, "--min-rounds: %" PRIu64 " is above --max-rounds %" PRIu64,
                               o->min_rounds, o->max_rounds);
    return 0;
}

/* ---- the run ------------------------------------------------------------------------------- */

static int setup(lab_ctx *x, const lab_opts *o) {
    lat_lab_config *c = &x->cfg;
    lat_lab_config_default(c);
    int rc = lab_place(CMD, &c->pipe, o->shape, o->cpus.cpus, o->cpus.n, o->oversub, &x->over,
                       x->why, sizeof x->why);
    if (rc) return rc;
    cli_progress("calibrating the cycle counter...");
    c->pipe.cal = lat_clock_default();
    cli_progress_done();
    c->pipe.rate_hz = o->rate;
    c->pipe.events = o->events ? o->events : o->quick ? 20000 : 100000;
    c->pipe.interval_ns = o->iv_ms * 1000000ull;
    if (o->quick && !o->iv_set) c->pipe.interval_ns = 20000000ull;
    c->pipe.gap_threshold_ns = o->gap_us * 1000;
    c->max_run_lost = o->loss_pct / 100;
    if (o->quick) c->max_repeats = 1;
    c->budget_s = o->budget > 0 ? o->budget : o->quick ? 6 : c->budget_s;
    c->min_rounds = o->min_rounds ? (unsigned)o->min_rounds : 10;
    c->max_rounds = o->max_rounds ? (unsigned)o->max_rounds : o->quick ? c->min_rounds : 80;
    if (c->max_rounds < c->min_rounds) c->max_rounds = c->min_rounds;
    c->params.min_rounds = c->min_rounds;
    c->seed = o->seed_set ? o->seed : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    /* the tick of a stage figure: the counter's step, the spacing of the
     * values a stamped duration can take.  Not the stamp's cost: that is a
     * constant inside both sides of a comparison, not a resolution. */
    uint64_t g = lat_clock_granularity_cycles(4000);
    double tick = (double)g / c->pipe.cal->cycles_per_ns;
    c->params.tick_ns = tick > 0 ? tick : 0.1;
    c->params.nhot = c->pipe.shape == LAT_PIPE_FULL ? 3 : 2;
    lat_cpuset mine;
    c->params.ncpus = lat_thread_affinity(&mine) == 0 ? lat_cpuset_count(&mine) : 2;
    c->params.backlog_ns = 20e9 / (double)o->rate; /* 20 send intervals */
    c->floor_ns = x->over ? NULL : floor_cb;
    c->on_run = on_run;
    c->around_run = around_run;
    c->ud = x;
    c->hlog_dir = x->runs_dir;
    x->gap_us = (double)o->gap_us;
    x->quick = o->quick;
    x->root = geteuid() == 0;
    labprof_init(&x->prof, x->out, 999, o->no_profile ? "--no-profile" : NULL);
    if (!x->root)
        snprintf(x->silence_note, sizeof x->silence_note,
                 "not root: the silence check (ftrace) needs root; run `sudo latlab lab` for it");
    if ((rc = lat_runcond_collect(&x->rcnd, NULL)) != 0)
        return cli_lib_error(CMD, "run conditions", rc);
    snprintf(x->banner, sizeof x->banner, "latlab lab: %s shape, %s; %s",
             lat_pipe_shape_name(c->pipe.shape), x->over ? "oversubscribed" : "pinned", x->why);
    return 0;
}

static void print_header(const lab_ctx *x) {
    const lat_lab_config *c = &x->cfg;
    printf("%s\n", x->banner);
    if (c->pipe.shape == LAT_PIPE_COMPACT && !x->over)
        printf("note: the compact shape measures q1+wake, work and e2e with two pinned hot "
               "threads (the consumer runs inside the worker); q2+wake is not measured.\n");
    if (x->over) printf("[%s]\n", LAB_OVERSUB_STAMP);
    printf("calibrated %.4f cycles/ns, counter tick %.1f ns; %" PRIu64 " events per run at %" PRIu64
           "/s, %.0f ms intervals; rounds %u..%u, budget %.0f s; order seed %" PRIu64
           " (replay: --seed %" PRIu64 ")\n",
           c->pipe.cal->cycles_per_ns, c->params.tick_ns, c->pipe.events, c->pipe.rate_hz,
           (double)c->pipe.interval_ns / 1e6, c->min_rounds, c->max_rounds, c->budget_s, c->seed,
           c->seed);
    printf("a run is contaminated (and repeated) when a hot thread loses more than %.0f%% of its "
           "loop; an interval is set aside above %.0f%% or in backlog (e2e p50 > %.0f us)\n",
           100 * c->max_run_lost, 100 * c->params.max_interval_lost, c->params.backlog_ns / 1e3);
    if (x->silence_note[0]) printf("silence check: %s\n", x->silence_note);
    printf("\nrun conditions:\n");
    lat_runcond_write_text(&x->rcnd, stdout);
    printf("\n");
    fflush(stdout);
}

static void print_summary(const lab_ctx *x, const lat_lab_result *res) {
    char loss[300];
    lab_loss_summary(x, res, loss, sizeof loss);
    char place[200];
    lat_lab_placement_text(&res->placement, place, sizeof place);
    printf("\n%u rounds in %.1f s; stopped: %s\nplatform: %s\nplacement: %s\n", res->rounds,
           res->wall_s, res->stop, loss, place);
    for (int cf = 0; cf < LAT_LAB_NCONF; cf++) {
        char title[160];
        snprintf(title, sizeof title, "== %s (%s), usable runs merged", lat_lab_conf_name(cf),
                 lat_lab_conf_flag(cf));
        lat_pipe_result m;
        memset(&m, 0, sizeof m);
        for (int s = 0; s < LAT_PIPE_NSTAGES; s++)
            m.h[s] = res->merged[cf][s];
        if (m.h[LAT_PIPE_E2E])
            lab_print_table(stdout, &x->cfg.pipe, &m, x->over, title);
        else
            printf("%s: no usable run\n", title);
        char t[1400];
        lab_conf_platform(x, res, cf, t, sizeof t);
        printf("platform: %s\n", t);
        if (cf == LAT_LAB_BASE) continue;
        lat_lab_verdict_text(&res->verdict[cf], t, sizeof t);
        printf("verdict %s: %s\n", lat_lab_conf_name(cf), t);
    }
    if (x->flight_done) {
        printf("\nflight recorder (alloc, threshold = baseline e2e p99.9 = %" PRIu64 " ns): %s\n",
               x->flight_thr, x->flight_text);
        if (x->flight_gap[0]) printf("flight recorder: %s\n", x->flight_gap);
    }
}

static int write_outputs(lab_ctx *x, const lat_lab_result *res, const char *json_out) {
    char p[4200];
    int rc;
    snprintf(p, sizeof p, "%s/LAB.md", x->out);
    if ((rc = lab_write_md(x, res, p)) != 0) return cli_lib_error(CMD, p, rc);
    snprintf(p, sizeof p, "%s/lab.json", x->out);
    if ((rc = lab_write_json(x, res, p)) != 0) return cli_lib_error(CMD, p, rc);
    if (json_out && (rc = lab_write_json(x, res, json_out)) != 0)
        return cli_lib_error(CMD, json_out, rc);
    lab_write_svgs(x, res);
    snprintf(p, sizeof p, "%s/report.html", x->out);
    if ((rc = lab_write_html(x, res, p)) != 0) return cli_lib_error(CMD, p, rc);
    if (x->err) return cli_lib_error(CMD, "writing a run file", x->err);
    printf("wrote %s/LAB.md, lab.json, report.html, <stage>.svg, intervals-*.svg, runs/\n", x->out);
    return fflush(stdout) == 0 && !ferror(stdout) ? CLI_OK : cli_error(CMD, "writing stdout");
}

int cmd_lab(int argc, char **argv) {
    lab_opts o;
    int rc = parse_opts(argc, argv, &o);
    if (rc) return rc < 0 ? CLI_OK : rc;
    static lab_ctx x;
    memset(&x, 0, sizeof x);
    x.out = o.out;
    snprintf(x.runs_dir, sizeof x.runs_dir, "%s/runs", o.out);
    if ((rc = setup(&x, &o)) != 0) return rc;
    if ((rc = lat_mkdir_p(x.out)) != 0 || (rc = lat_mkdir_p(x.runs_dir)) != 0)
        return cli_lib_error(CMD, x.out, rc);
    char fp[4200]; /* a window from an earlier run must not pass for this one's */
    snprintf(fp, sizeof fp, "%s/flight-alloc.txt", x.out);
    unlink(fp);
    print_header(&x);
    if ((rc = cli_noise_begin(&o.noise, CMD, x.cfg.pipe.cpus, LAT_PIPE_NHOT)) != 0) return rc;
    x.jruns = json_array();
    lat_lab_result res;
    rc = lat_lab_run(&x.cfg, &res);
    cli_progress_done();
    cli_noise_end(&o.noise, stdout); /* --noise: what it took, printed and in lab.json */
    x.noise = cli_noise_json(&o.noise);
    cli_noise_free(&o.noise);
    int ret = CLI_OK;
    if (rc) {
        ret = cli_lib_error(
            CMD, res.log_error_path[0] ? res.log_error_path : "running the protocol", rc);
    } else {
        print_summary(&x, &res);
        labprof_print(&x.prof, stdout);
        int prc = labprof_write(&x.prof);
        if (prc) cli_warn(CMD, "writing the profiles: %s", lat_strerror(prc));
        ret = lab_replay_round(CMD, o.replay, x.out, &x.cfg.pipe, x.over, &x.replay);
        if (x.replay.ran) printf("\nreplay round (%s):\n%s", x.replay.capture, x.replay.text);
        if (ret == CLI_OK) ret = write_outputs(&x, &res, o.json_out);
        lat_lab_result_fini(&res);
    }
    json_decref(x.jruns);
    json_decref(x.noise);
    lab_replay_free(&x.replay);
    free(x.flight_dump);
    for (int i = 0; i < 2; i++)
        free(x.sil[i].text);
    labprof_fini(&x.prof);
    return ret;
}
