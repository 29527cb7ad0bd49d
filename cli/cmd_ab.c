/* cmd_ab.c - `latlab ab`: is B slower than A?  Runs the two programs (or
 * commands) in paired rounds, each round A, B and A again (the A/A control)
 * in a random order, until every benchmark is decided, out of reach, or the
 * budget is spent; prints the verdicts with their intervals and the smallest
 * change each figure could have seen, and writes JSON, Markdown and SVG.
 * The decision is the library's (latlab/ab.h), the runs abrun.h's. */
#include "cli.h"
#include "cliopts.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "latlab/ab.h"
#include "latlab/abrun.h"
#include "latlab/atomicfile.h"
#include "latlab/clock.h"
#include "latlab/error.h"

#define CMD "ab"

typedef struct ab_opts {
    int kind; /* 0 auto, then LAT_AB_* + 1 */
    const char *args, *filter, *json, *md, *svg;
    uint64_t budget_ns, timeout_ns, seed;
    double band, tail_band, alpha;
    int min_rounds, max_rounds, cpu, reps;
    bool gate, quick, full, whole_runs;
} ab_opts;

static ab_opts ao;

static int opt_pct(const char *cmd, const char *flag, const char *v, void *dest) {
    char *end;
    double x = strtod(v, &end);
    bool pc = *end == '%';
    if (end == v || (pc ? end[1] != 0 : *end != 0) || !isfinite(x))
        return cli_usage_error(cmd, "%s: '%s' is not a share (1%% or 0.01)", flag, v);
    if (pc) x /= 100;
    if (!(x > 0 && x < 1))
        return cli_usage_error(cmd, "%s: '%s' must lie between 0 and 100%%", flag, v);
    *(double *)dest = x;
    return 0;
}

/* --pin: a CPU, or none; ao.cpu -2 (not given) leaves the choice to the run */
static int opt_cpu(const char *cmd, const char *flag, const char *v, void *dest) {
    if (strcmp(v, "none")) return cli_parse_int(cmd, flag, v, 0, 4095, dest);
    *(int *)dest = -1;
    return 0;
}

static const cli_opt ab_table[] = {
    CLI_CHOICE_OPT("kind", &ao.kind, "auto|harness|gbench|command",
                   "what A and B are (default auto: a harness or Google Benchmark\n"
                   "program, from its bytes; command: shell commands)"),
    CLI_STR_OPT("args", CLI_STRING, &ao.args, "STR",
                "arguments given to both programs (split at spaces)"),
    CLI_STR_OPT("filter", CLI_STRING, &ao.filter, "PAT", "only the benchmarks matching PAT"),
    CLI_NUM_OPT("budget", CLI_DURATION, &ao.budget_ns, "DUR",
                "wall time for the rounds (default 60s); the run stops earlier\n"
                "once every benchmark is decided or out of reach",
                0, 0),
    CLI_CUSTOM_OPT("band", opt_pct, &ao.band, "PCT",
                   "no change: B/A within this of 1 (default 1%)"),
    CLI_CUSTOM_OPT("tail-band", opt_pct, &ao.tail_band, "PCT",
                   "the band of tail figures p99, p99.9 (default 5%)"),
    CLI_CUSTOM_OPT("alpha", opt_pct, &ao.alpha, "P",
                   "false discovery rate over the suite's figures and looks (default 0.01)"),
    CLI_NUM_OPT("min-rounds", CLI_INT, &ao.min_rounds, "N",
                "paired rounds before any verdict (default 10)", 3, 100000),
    CLI_NUM_OPT("max-rounds", CLI_INT, &ao.max_rounds, "N", "at most this many rounds (1000)", 3,
                LAT_STATS_HL_MAX),
    CLI_CUSTOM_OPT("pin", opt_cpu, &ao.cpu, "CPU|none",
                   "run every program on this CPU, or none: where it starts\n"
                   "(default: harness programs measure, and commands that keep\n"
                   "one CPU busy run, on the CPU idle the longest over 0.2 s)"),
    CLI_NUM_OPT("timeout", CLI_DURATION, &ao.timeout_ns, "DUR",
                "a run still going after this is killed (default 120s)", 0, 0),
    CLI_NUM_OPT("reps", CLI_INT, &ao.reps, "N", "Google Benchmark repetitions per run (default 5)",
                1, 1000),
    CLI_NUM_OPT("seed", CLI_U64, &ao.seed, "N", "seed of the order within rounds (default: time)",
                0, 0),
    CLI_FLAG_OPT("full", &ao.full, "harness programs: full-length runs (default --quick runs)"),
    CLI_FLAG_OPT("whole-runs", &ao.whole_runs,
                 "harness programs: runs one after another, not in turns"),
    CLI_FLAG_OPT("quick", &ao.quick,
                 "a 20 s budget and 8 rounds before a verdict: decides only\n"
                 "large changes; says so"),
    CLI_FLAG_OPT("gate", &ao.gate, "exit 1 when any benchmark is slower"),
    CLI_STR_OPT("json", CLI_PATH, &ao.json, "FILE", "write the verdicts as JSON"),
    CLI_STR_OPT("md", CLI_PATH, &ao.md, "FILE", "write a Markdown summary (for a CI comment)"),
    CLI_STR_OPT("svg", CLI_PATH, &ao.svg, "DIR", "write one SVG shift function per benchmark"),
    CLI_END,
};

const cli_spec cmd_ab_spec = {
    .name = CMD,
    .synopsis = "latlab ab [OPTIONS] A B",
    .about = "Is B slower than A?  Runs A and B (two builds of a benchmark program, or two\n"
             "commands with --kind command) in paired rounds: each round runs A, B and A once\n"
             "more (the A/A control) in a random order, so the host's drift is common to\n"
             "both sides of a round and cancels in the round's B/A ratio.  Per benchmark and\n"
             "figure: the ratio's Hodges-Lehmann estimate, its 99% interval, the signed-rank\n"
             "p, and the smallest change the rounds could have seen.  Verdicts: slower,\n"
             "faster, no change (within --band), inconclusive (with the reason); a change\n"
             "read by the A/A control voids them all.  Benjamini-Hochberg controls false\n"
             "discoveries, the stop rule's looks sharing --alpha.  Method: docs/ab-method.md.\n",
    .opts = ab_table,
    .epilog = "exit: 0 done (whatever the verdicts, unless --gate), 1 a runtime error (a run\n"
              "that failed or timed out, benchmark sets that differ; partial results are\n"
              "still written, marked incomplete) or, with --gate, a benchmark slower,\n"
              "2 usage error.\n",
    .min_args = 2,
    .max_args = 2,
};

/* Output paths are checked before any run: a folder that exists and takes files. */
static int check_out(const char *flag, const char *path, bool is_dir) {
    if (!path) return 0;
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    const char *dir = is_dir ? buf : dirname(buf);
    struct stat st;
    if (stat(dir, &st) || !S_ISDIR(st.st_mode))
        return cli_usage_error(CMD, "%s: %s: no such folder", flag, dir);
    if (access(dir, W_OK | X_OK)) return cli_usage_error(CMD, "%s: %s: not writable", flag, dir);
    return 0;
}

/* The options' last word, before any run: --quick's limits, the rounds'
 * range, the timeout, the outputs.  0, or CLI_USAGE after the message. */
static int check_opts(void) {
    if (ao.quick) {
        ao.budget_ns = ao.budget_ns < 20000000000ull ? ao.budget_ns : 20000000000ull;
        ao.min_rounds = ao.min_rounds < 8 ? ao.min_rounds : 8;
    }
    if (ao.min_rounds > ao.max_rounds)
        return cli_usage_error(CMD, "--min-rounds: %d is above --max-rounds %d", ao.min_rounds,
                               ao.max_rounds);
    if (ao.timeout_ns == 0) return cli_usage_error(CMD, "--timeout: must be above 0");
    int rc = check_out("--json", ao.json, false);
    return rc ? rc : (rc = check_out("--md", ao.md, false)) ? rc : check_out("--svg", ao.svg, true);
}

/* "a b c" -> argv after prog (at most max - 1 words). */
static int split_args(char *prog, char *s, char **argv, int max) {
    int n = 0;
    argv[n++] = prog;
    for (char *t = s ? strtok(s, " ") : NULL; t && n < max - 1; t = strtok(NULL, " "))
        argv[n++] = t;
    argv[n] = NULL;
    return n;
}

static int write_outputs(const lat_ab_params *p, const lat_ab_result *r, const char *a,
                         const char *b, bool complete, const char *stopped, bool turns) {
    int rc = CLI_OK;
    if (ao.json) {
        json_t *doc = lat_ab_json(p, r);
        if (doc) {
            json_object_update_new(doc,
                                   json_pack("{s:s,s:s,s:b,s:s,s:b}", "a", a, "b", b, "complete",
                                             complete, "stopped", stopped, "turns", turns));
        }
        rc = cli_write_json(CMD, ao.json, doc);
    }
    if (ao.md) {
        cli_out o;
        int r2 = cli_out_open(&o, CMD, ao.md);
        if (r2 == CLI_OK) {
            if (!complete) fprintf(o.f, "**Incomplete run: %s.**\n\n", stopped);
            r2 = lat_ab_markdown(o.f, p, r, a, b) ? CLI_ERR : CLI_OK;
            r2 = cli_out_close(&o, CMD, ao.md, r2);
        }
        if (r2) rc = r2;
    }
    for (size_t i = 0; ao.svg && i < r->nbench; i++) {
        char path[4096], name[256];
        snprintf(name, sizeof name, "%s", r->bench[i].bench);
        for (char *c = name; *c; c++)
            if (*c == '/' || *c == ' ' || *c == ':') *c = '_';
        snprintf(path, sizeof path, "%s/%s.svg", ao.svg, name);
        cli_out o;
        int r2 = cli_out_open(&o, CMD, path);
        if (r2 == CLI_OK) r2 = cli_out_close(&o, CMD, path, lat_ab_svg(o.f, p, r, i) ? CLI_ERR : 0);
        if (r2) rc = r2;
    }
    return rc;
}

/* The kind of both programs, from their bytes: 0, or CLI_USAGE after the
 * message (neither kind, unreadable, or A and B of different kinds). */
static int detect_kind(char *const label[2], int *mode) {
    *mode = -1;
    for (int s = 0; s < 2; s++) {
        int m = lat_ab_detect(label[s]);
        if (m == LAT_EFORMAT)
            return cli_usage_error(CMD,
                                   "%s: neither a latlab harness nor a Google Benchmark "
                                   "program; give --kind (command for shell commands)",
                                   label[s]);
        if (m < 0) return cli_usage_error(CMD, "%s: %s", label[s], lat_strerror(m));
        if (*mode >= 0 && m != *mode)
            return cli_usage_error(CMD, "A is a %s program, B a %s one: compare like with like",
                                   lat_ab_mode_name(*mode), lat_ab_mode_name(m));
        *mode = m;
    }
    return 0;
}

/* Before the first round: what the run will do (stderr); commands' warm-up
 * runs, unrecorded (CPU over wall time: the CPUs they keep busy); unless --pin
 * said, where runs go (lat_ab_place).  false, why in stopped: a warm-up failed. */
static bool start(const lat_ab_prog *prog, char *const label[2], int mode, bool turns,
                  lat_ab_run_opts *ro, char *stopped, size_t len) {
    fprintf(stderr,
            "latlab ab: A = %s, B = %s (%s); rounds of A, B, A again %s in a random order "
            "(seed %llu), budget %.0f s\n",
            label[0], label[1], lat_ab_mode_name(mode),
            turns ? "taking turns sample by sample" : "one after another",
            (unsigned long long)ao.seed, (double)ao.budget_ns / 1e9);
    if (ao.quick)
        fprintf(stderr,
                "latlab ab: --quick: %d rounds before a verdict and a 20 s budget decide "
                "only large changes; the default settings decide 1-2%% ones\n",
                ao.min_rounds);
    double idle = NAN, cpus = 0;
    char err[400];
    for (int s = 0; mode == LAT_AB_COMMAND && s < 2 && !cli_stop_sig; s++) {
        lat_ab_account acct;
        if (lat_ab_run(&prog[s], ro, NULL, 0, s, &acct, err, sizeof err)) {
            snprintf(stopped, len, "%s (%s) in its warm-up run %s", lat_ab_side_name(s), label[s],
                     err);
            return false;
        }
        if (acct.wall_ns > 0) cpus = fmax(cpus, acct.cpu_ns / acct.wall_ns);
    }
    int at = ao.cpu == -2 ? lat_ab_place(mode, cpus, ro, &idle) : -1;
    if (at >= 0)
        fprintf(stderr, "latlab ab: every run %s CPU %d (%.0f%% idle over 0.2 s)\n",
                mode == LAT_AB_HARNESS ? "measures on" : "is pinned to", at, 100 * idle);
    else if (mode == LAT_AB_COMMAND && ao.cpu == -2)
        fprintf(stderr, "latlab ab: not pinned: a warm-up run kept %.1f CPUs busy\n", cpus);
    return true;
}

int cmd_ab(int argc, char **argv) {
    memset(&ao, 0, sizeof ao);
    ao.budget_ns = 60000000000ull, ao.timeout_ns = 120000000000ull, ao.cpu = -2;
    lat_ab_params p;
    lat_ab_params_default(&p);
    ao.band = p.band, ao.tail_band = p.tail_band, ao.alpha = p.alpha;
    ao.min_rounds = (int)p.min_rounds, ao.max_rounds = (int)p.max_rounds;
    ao.seed = lat_mono_ns();
    int first, rc = cli_parse(&cmd_ab_spec, argc, argv, &first);
    if (rc) return rc < 0 ? CLI_OK : rc;
    if ((rc = check_opts())) return rc;
    p.band = ao.band, p.tail_band = ao.tail_band, p.alpha = ao.alpha;
    p.min_rounds = (unsigned)ao.min_rounds, p.max_rounds = (unsigned)ao.max_rounds;
    char *label[2] = {argv[first], argv[first + 1]};
    int mode = ao.kind ? ao.kind - 1 : -1;
    if (mode < 0 && (rc = detect_kind(label, &mode))) return rc;
    /* the argv of each side */
    char *args_copy[2] = {ao.args ? strdup(ao.args) : NULL, ao.args ? strdup(ao.args) : NULL};
    char *av[2][260];
    static char sh[] = "/bin/sh", dash_c[] = "-c";
    for (int s = 0; s < 2; s++)
        if (mode == LAT_AB_COMMAND)
            av[s][0] = sh, av[s][1] = dash_c, av[s][2] = label[s], av[s][3] = NULL;
        else
            split_args(label[s], args_copy[s], av[s], 260);
    lat_ab_prog prog[LAT_AB_NSIDES] = {{mode, av[0]}, {mode, av[1]}, {mode, av[0]}};
    const char *tmpdir = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/latlab-ab-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(dir)) {
        free(args_copy[0]), free(args_copy[1]);
        return cli_error(CMD, "a private folder %s: %s", dir, strerror(errno));
    }
    lat_ab_run_opts ro = {
        ao.timeout_ns, ao.cpu < 0 ? -1 : ao.cpu, ao.filter, ao.full, (unsigned)ao.reps, dir, -1};
    lat_ab *ab = NULL;
    if ((rc = lat_ab_create(&p, &ab))) {
        rmdir(dir);
        free(args_copy[0]), free(args_copy[1]);
        return cli_lib_error(CMD, "setting up", rc);
    }
    p = *lat_ab_params_of(ab); /* min_rounds as raised: the looks are decide's */
    static const int sigs[2] = {SIGINT, SIGTERM};
    struct sigaction old[2];
    cli_stop_catch(sigs, 2, old);
    char stopped[1024] = "", err[400], suite[LAT_AB_NSIDES][64];
    bool turns = mode == LAT_AB_HARNESS && !ao.whole_runs && lat_ab_takes_turns(label[0]) &&
                 lat_ab_takes_turns(label[1]);
    bool failed = !start(prog, label, mode, turns, &ro, stopped, sizeof stopped);
    lat_stats_rng rng = {ao.seed};
    uint64_t t0 = lat_mono_ns();
    lat_ab_result res = {.rounds = 0};
    for (unsigned round = 0; !failed; round++) {
        int order[LAT_AB_NSIDES] = {LAT_AB_A, LAT_AB_B, LAT_AB_A2};
        lat_stats_shuffle(&rng, order, LAT_AB_NSIDES);
        lat_ab_account acct[LAT_AB_NSIDES] = {{0}};
        int bad = -1;
        if (!cli_stop_sig && (rc = lat_ab_run_round(prog, &ro, ab, round, order, LAT_AB_NSIDES,
                                                    turns, &rng, acct, &bad, err, sizeof err))) {
            snprintf(stopped, sizeof stopped, "%s (%s) in round %u %s", lat_ab_side_name(bad),
                     label[bad == LAT_AB_B], round + 1, err);
            failed = true;
        }
        for (int k = 0; k < LAT_AB_NSIDES; k++)
            snprintf(suite[order[k]], sizeof suite[order[k]], "%s", acct[k].suite);
        if (cli_stop_sig && !failed) {
            snprintf(stopped, sizeof stopped, "stopped by %s in round %u",
                     cli_stop_sig == SIGINT ? "SIGINT" : "SIGTERM", round + 1);
            failed = true;
        }
        if (!failed && round == 0)
            failed =
                !lat_ab_same_sets(ab, suite[LAT_AB_A], suite[LAT_AB_B], stopped, sizeof stopped);
        double el = (double)(lat_mono_ns() - t0), per = el / (round + 1);
        unsigned more =
            el < (double)ao.budget_ns ? (unsigned)(((double)ao.budget_ns - el) / per) : 0;
        bool look = failed || lat_ab_looks_at(&p, round + 1, more); /* decide there only */
        if (look) lat_ab_result_fini(&res);
        if (look && (rc = lat_ab_decide(ab, more, &res))) {
            snprintf(stopped, sizeof stopped, "deciding: %s", lat_strerror(rc));
            failed = true;
        }
        if (failed) break;
        cli_progress("latlab ab: round %u, %.0f s: %u of %zu decided after %u", round + 1, el / 1e9,
                     res.decided, res.nbench, res.rounds);
        if (look && lat_ab_should_stop(&p, &res, round + 1, more, stopped, sizeof stopped)) break;
    }
    cli_progress_done();
    cli_stop_restore(sigs, 2, old);
    printf("latlab ab: A = %s, B = %s (%s), %u paired rounds in %.1f s: %s\n", label[0], label[1],
           lat_ab_mode_name(mode), res.rounds, (double)(lat_mono_ns() - t0) / 1e9,
           failed ? "INCOMPLETE" : stopped);
    if (res.nbench) lat_ab_print(stdout, &p, &res);
    int wrc = write_outputs(&p, &res, label[0], label[1], !failed, stopped, turns);
    int out = CLI_OK;
    if (failed)
        out = cli_error(CMD, "%s", stopped);
    else if (wrc)
        out = wrc;
    else if (ao.gate && res.slower)
        out = CLI_ERR;
    lat_ab_result_fini(&res);
    lat_ab_destroy(ab);
    rmdir(dir);
    free(args_copy[0]), free(args_copy[1]);
    return out;
}
