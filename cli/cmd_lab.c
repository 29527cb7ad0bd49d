/* cmd_lab.c - `latlab lab`: the pipeline lab from the command line.  The lab is
 * the library's (lab/: the protocol, the verdicts, the placement, the
 * session's files); this file parses the flags, places the hot threads,
 * prints progress (and with --verbose one line per run), runs the silence
 * check inside the protocol when root (the silence engine, in a thread), and
 * has the session write LAB.md, lab.json and report.html. */
#include "cli.h"
#include "noisecli.h"
#include "pipeplace.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "latlab/alloccount.h"
#include "latlab/atomicfile.h"
#include "latlab/error.h"
#include "latlab/lab_report.h"

#define CMD "lab"

/* ---- callbacks from the protocol ------------------------------------------------------- */

static void on_run(void *ud, const lat_lab_run_rec *rec, const lat_pipe_config *c,
                   const lat_pipe_result *r) {
    lat_lab_session *x = ud;
    char account[1024];
    if (x->verbose) {
        cli_progress_done();
        lat_lab_print_run(stdout, x, rec);
    }
    lat_lab_rec_account(x, rec, account, sizeof account);
    lat_lab_session_record(x, rec, c, r, account);
}

/* Progress, and the silence check: the engine (latlab/silence.h) traces the
 * hot CPUs while the run goes and writes what `latlab silence` would print. */
static void around_run(void *ud, int conf, unsigned round, unsigned att, int begin,
                       lat_pipe_config *c) {
    lat_lab_session *x = ud;
    lat_lab_silence *s = lat_lab_session_silence(x, conf, round, att);
    if (begin) {
        lat_lab_others_sample(&x->others); /* between runs: what else runs */
        char line[200];
        cli_progress("%s", lat_lab_progress_line(x, conf, round, att, c, line, sizeof line));
        if (s) lat_lab_silence_start(x, s, c);
        lat_lab_session_around(x, conf, round, att, 1); /* inside the tracer's window */
    } else {
        lat_lab_session_around(x, conf, round, att, 0);
        if (s) lat_lab_silence_stop(s);
    }
}

/* ---- options ------------------------------------------------------------------------------ */

typedef struct lab_opts {
    const char *out, *json_out, *replay;
    bool quick, oversub, seed_set, iv_set, no_profile, verbose;
    uint64_t events, rate, min_rounds, max_rounds, iv_ms, gap_us, seed;
    double budget, lost_pct;
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
    CLI_FLAG_OPT("verbose", &lo.verbose, "print every run and table (else in LAB.md)"),
    CLI_NUM_OPT("budget", CLI_DOUBLE, &lo.budget, "S",
                "time budget for the rounds (default 120 s; --quick 6 s)", 0.1, 86400),
    CLI_NUM_OPT("min-rounds", CLI_U64, &lo.min_rounds, "N",
                "rounds before any verdict (default 10)", 2, 1000),
    CLI_NUM_OPT("max-rounds", CLI_U64, &lo.max_rounds, "N", "at most this many rounds (default 80)",
                2, 1000),
    CLI_NUM_OPT("events", CLI_U64, &lo.events, "N",
                "events per run (default 30000 = 0.15 s at the default rate)", 1000, 1e12),
    CLI_NUM_OPT("rate", CLI_U64, &lo.rate, "HZ", "offered rate (default 200000/s)", 1000,
                100000000),
    CLI_SEEN_OPT("interval", CLI_U64, &lo.iv_ms, "MS",
                 "per-interval figures over MS of send time (default 100)", 1, 60000, NULL,
                 &lo.iv_set),
    CLI_NUM_OPT("gap", CLI_U64, &lo.gap_us, "US",
                "a spin-loop gap is at least US microseconds (default 10)", 1, 1000000),
    CLI_NUM_OPT("max-loss", CLI_DOUBLE, &lo.lost_pct, "PCT",
                "runs whose hot thread lost more are counted in the report (default 20)", 0.1, 100),
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
                 "skip the profiling step: perf on round 1 of baseline and share-line"),
    CLI_NOISE_ROW(lo.noise), /* the rounds run under it; lab.json "noise" */
    CLI_END,
};

const cli_spec cmd_lab_spec = {
    .name = CMD,
    .synopsis = "latlab lab [OPTIONS]",
    .about =
        "The pipeline lab.  The baseline, three experiments (--alloc, --share-line, --no-pin)\n"
        "and an A/A control (the baseline again) run interleaved in rounds, in an order\n"
        "shuffled by a printed seed; the cache-line floor between the hot CPUs is measured\n"
        "around every run.  Each sample that a platform gap touched (or the backlog it built)\n"
        "is censored; a run is repeated only when too few samples are kept for its p99.9.\n"
        "Each experiment is read against the baseline of the same round as a shift function:\n"
        "tail, median/throughput or variance disease, no significant change, or inconclusive\n"
        "with the reason.  Rounds stop once every verdict has repeated, or at the budget.  As\n"
        "root the silence check traces two runs; where perf may sample, two runs are profiled.\n"
        "Prints one line per verdict; writes LAB.md, lab.json, report.html, plots and runs/.\n",
    .opts = lab_table,
    .epilog = "Progress goes to stderr when it is a terminal.  exit 0 ok, 1 error, 2 usage.\n",
};

static int parse_opts(int argc, char **argv, lab_opts *o) {
    lo = (lab_opts){.out = "lab-out",
                    .replay = "auto",
                    .rate = 200000,
                    .iv_ms = 100,
                    .gap_us = 10,
                    .lost_pct = 20,
                    .shape = LAT_PIPE_AUTO};
    int first, rc = cli_parse(&cmd_lab_spec, argc, argv, &first);
    if (rc) return rc;
    *o = lo;
    if (first < argc) return cli_usage_error(CMD, "unexpected argument '%s'", argv[first]);
    if (!o->out[0]) return cli_usage_error(CMD, "--out: empty path");
    if (strcmp(o->replay, "auto") && strcmp(o->replay, "none") && access(o->replay, R_OK) != 0)
        return cli_error(CMD, "--replay: cannot read '%s': %s", o->replay, strerror(errno));
    if (o->min_rounds && o->max_rounds && o->min_rounds > o->max_rounds)
        return cli_usage_error(CMD, "--min-rounds: %" PRIu64 " is above --max-rounds %" PRIu64,
                               o->min_rounds, o->max_rounds);
    return 0;
}

/* ---- the run ------------------------------------------------------------------------------- */

static int setup(lat_lab_session *x, const lab_opts *o) {
    lat_lab_config *c = &x->cfg;
    cli_progress("calibrating the cycle counter...");
    lat_lab_config_default(c); /* calibrates and measures the counter's tick */
    cli_progress_done();
    bool over;
    char why[sizeof x->why];
    int rc = lab_place(CMD, &c->pipe, o->shape, o->cpus.cpus, o->cpus.n, o->oversub, &over, why,
                       sizeof why);
    if (rc) return rc;
    c->pipe.rate_hz = o->rate;
    if (o->events || o->quick) c->pipe.events = o->events ? o->events : 20000;
    c->pipe.interval_ns = (o->quick && !o->iv_set ? 20 : o->iv_ms) * 1000000ull;
    c->pipe.gap_threshold_ns = o->gap_us * 1000;
    c->max_run_lost = o->lost_pct / 100;
    if (o->quick) c->max_repeats = 1;
    if (lat_alloccount_available()) { /* LAB.md's allocations per event */
        c->pipe.alloc_count_begin = lat_alloccount_begin;
        c->pipe.alloc_count_end = lat_alloccount_end;
    }
    c->budget_s = o->budget > 0 ? o->budget : o->quick ? 6 : c->budget_s;
    c->min_rounds = o->min_rounds ? (unsigned)o->min_rounds : 10;
    c->max_rounds = o->max_rounds ? (unsigned)o->max_rounds : o->quick ? c->min_rounds : 80;
    if (c->max_rounds < c->min_rounds) c->max_rounds = c->min_rounds;
    c->seed = o->seed_set ? o->seed : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    lat_lab_config_derive(c); /* backlog rule, hot threads, CPUs, min rounds */
    if (over) c->floor_round_trips = 0;
    c->on_run = on_run;
    c->around_run = around_run;
    c->ud = x;
    x->quick = o->quick;
    x->verbose = o->verbose;
    rc = lat_lab_session_setup(x, over, why, geteuid() == 0, o->no_profile ? "--no-profile" : NULL);
    return rc ? cli_lib_error(CMD, "run conditions", rc) : 0;
}

/* After the rounds: the summary, the profiling step, the replay round, the files. */
static int finish(lat_lab_session *x, const lat_lab_result *res, const lab_opts *o) {
    lat_lab_print_summary(stdout, x, res);
    if (x->verbose || !lat_lab_prof_ready(&x->prof)) lat_lab_prof_print(&x->prof, stdout);
    int rc = lat_lab_prof_write(&x->prof);
    if (rc) cli_warn(CMD, "writing the profiles: %s", lat_strerror(rc));
    char failed[4400], rfailed[4400];
    int rrc = lat_lab_replay_round(o->replay, x->out, &x->cfg.pipe, x->over, &x->replay, rfailed,
                                   sizeof rfailed);
    lat_lab_print_replay(stdout, x);
    /* a failed replay round loses nothing else: the rounds' files are written */
    if ((rc = lat_lab_write_all(x, res, o->json_out, failed, sizeof failed)) != 0)
        return cli_lib_error(CMD, failed, rc);
    if (rrc) return cli_error(CMD, "%s (the rounds' files were written)", rfailed);
    printf("wrote %s/LAB.md (every run), lab.json, report.html, plots, runs/\n", x->out);
    return fflush(stdout) == 0 && !ferror(stdout)
               ? CLI_OK
               : cli_error(CMD, "writing stdout: %s", strerror(errno ? errno : EIO));
}

static int lab_run(int argc, char **argv) {
    lab_opts o;
    int rc = parse_opts(argc, argv, &o);
    if (rc) return rc < 0 ? CLI_OK : rc;
    static lat_lab_session x;
    if ((rc = lat_lab_session_init(&x, o.out)) != 0) return cli_lib_error(CMD, "memory", rc);
    if ((rc = setup(&x, &o)) != 0) goto out;
    char bad[4400]; /* inputs are read before the first measurement */
    if (lat_lab_replay_check(o.replay, &x.cfg.pipe, bad, sizeof bad) != 0) {
        rc = cli_error(CMD, "--replay: %s", bad);
        goto out;
    }
    if ((rc = lat_mkdir_p(x.out)) != 0 || (rc = lat_mkdir_p(x.runs_dir)) != 0) {
        rc = cli_lib_error(CMD, x.out, rc);
        goto out;
    }
    lat_lab_print_header(stdout, &x);
    fflush(stdout);
    if ((rc = cli_noise_begin(&o.noise, CMD, x.cfg.pipe.cpus, LAT_PIPE_NHOT)) != 0) goto out;
    lat_lab_result res;
    lat_lab_others_begin(&x.others); /* none: the advice names no process */
    rc = lat_lab_run(&x.cfg, &res);
    lat_lab_others_end(&x.others, x.others_text, sizeof x.others_text, &x.others_cpus);
    cli_progress_done();
    cli_noise_end(&o.noise, stdout); /* --noise: what it took, printed and in lab.json */
    x.noise = cli_noise_json(&o.noise);
    if (rc) {
        rc = cli_lib_error(CMD, res.log_error_path[0] ? res.log_error_path : "running the protocol",
                           rc);
    } else {
        rc = finish(&x, &res, &o);
        lat_lab_result_fini(&res);
    }
out:
    cli_noise_free(&o.noise);
    lat_lab_session_fini(&x);
    return rc;
}

/* stdout wrapped at 100 characters (cli_wrapped): the run lines, verdicts
 * and tables read in a narrow terminal. */
int cmd_lab(int argc, char **argv) {
    return cli_wrapped(lab_run, argc, argv);
}
