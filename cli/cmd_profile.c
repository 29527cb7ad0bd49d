/* cmd_profile.c - `latlab profile`: sample a command's call stacks with perf and
 * draw them (flamegraph, folded stacks, top frames), compare two profiles, or
 * fold a `perf script` text made elsewhere.
 *
 * The sampling is perf's (`perf record -g`, then `perf script`); the folding,
 * the flamegraph and the comparison are latlab's (flame.h, profile.h), since
 * Debian has no flamegraph package.  Exit codes: 0 ok, 1 runtime error (perf
 * missing or not permitted, perf failed, the command failed - its profile is
 * still written), 2 usage error. */
#include "cli.h"
#include "cliopts.h"

#include "latlab/atomicfile.h"
#include "latlab/clock.h"
#include "latlab/error.h"
#include "latlab/flame.h"
#include "latlab/profile.h"
#include "latlab/topo.h"
#include "latlab/lab_profile.h"

#include <errno.h>
#include <string.h>
#include <math.h>
#include <stdio.h>
#include <signal.h>

#define CMD "profile"

static void print_top(const lat_flame *f, size_t limit) {
    lat_flame_share *s;
    size_t n;
    if (lat_flame_shares(f, &s, &n)) return;
    size_t shown = 0;
    for (size_t i = 0; i < n && shown < limit; i++) {
        if (s[i].kind == LAT_FLAME_THREAD) continue;
        if (!shown) printf("  %7s %7s  %s\n", "total", "self", "frame");
        printf("  %6.2f%% %6.2f%%  %s\n", s[i].total_pct, s[i].self_pct, s[i].name);
        shown++;
    }
    lat_flame_shares_destroy(s);
}

static int finish_stdout(void) {
    if (fflush(stdout) || ferror(stdout))
        return cli_error(CMD, "writing to stdout failed: %s", strerror(errno ? errno : EIO));
    return CLI_OK;
}

static int write_outputs(const lat_flame *f, const char *dir, const char *title, const char *note) {
    int rc = lat_profile_write(f, dir, title, note);
    if (rc) return cli_lib_error(CMD, dir, rc);
    printf("wrote %s/flame.svg %s/folded.txt %s/top.txt %s/report.html\n", dir, dir, dir, dir);
    return CLI_OK;
}

/* ---- options: one table per form (profile, diff, fold, lab) ------------------------ */

/* The options of the form that runs (one per process); each form sets its
 * defaults before parsing. */
static struct prof_args {
    uint64_t hz, limit, events, rate;
    const char *event, *out, *title, *perf;
    bool user_only, folded, no_threads, oversub;
} pa;

static int opt_event(const char *cmd, const char *flag, const char *v, void *dest) {
    if (!*v) return cli_usage_error(cmd, "%s: empty event name", flag);
    *(const char **)dest = v;
    return 0;
}

#define FREQ_ROW                                                                                   \
    {                                                                                              \
        .name = "freq", .short_name = 'F', .kind = CLI_U64, .dest = &pa.hz, .metavar = "HZ",       \
        .help = "sampling frequency, 1..100000 (default 999)", .min = 1, .max = 100000             \
    }
#define OUT_ROW(deflt)                                                                             \
    {                                                                                              \
        .name = "out", .short_name = 'o', .kind = CLI_PATH, .dest = &pa.out, .metavar = "DIR",     \
        .help = "output folder (default " deflt ")"                                                \
    }

static const cli_opt record_opts[] = {
    FREQ_ROW,
    {.name = "event",
     .short_name = 'e',
     .kind = CLI_CUSTOM,
     .dest = &pa.event,
     .metavar = "E",
     .help = "perf event to sample (default: cycles, or cpu-clock without a PMU)",
     .parse = opt_event},
    CLI_FLAG_OPT("user-only", &pa.user_only,
                 "sample user space only (what perf_event_paranoid 2 allows a user)"),
    OUT_ROW("profile"),
    CLI_STR_OPT("title", CLI_STRING, &pa.title, "T", "flamegraph title (default: the command)"),
    CLI_STR_OPT("perf", CLI_PATH, &pa.perf, "PATH",
                "the perf tool to run (default: perf from PATH)"),
    CLI_END,
};

static const cli_opt diff_opts[] = {
    CLI_NUM_OPT("limit", CLI_U64, &pa.limit, "N", "rows shown (default 30)", 1, 100000),
    CLI_FLAG_OPT("no-threads", &pa.no_threads, "the first frame of a line is not its thread"),
    CLI_END,
};

static const cli_opt fold_opts[] = {
    CLI_FLAG_OPT("folded", &pa.folded, "FILE holds folded stacks, not `perf script` output"),
    OUT_ROW("profile"),
    CLI_STR_OPT("title", CLI_STRING, &pa.title, "T", "flamegraph title (default: FILE)"),
    CLI_END,
};

static const cli_opt lab_opts[] = {
    FREQ_ROW,
    OUT_ROW("profile-lab"),
    CLI_NUM_OPT("events", CLI_U64, &pa.events, "N", "events per round (default 400000)", 1000,
                100000000),
    CLI_NUM_OPT("rate", CLI_U64, &pa.rate, "HZ", "events per second (default 200000)", 1, 10000000),
    CLI_FLAG_OPT("oversubscribe", &pa.oversub,
                 "run even when the hot threads cannot each have a CPU"),
    CLI_END,
};

extern const cli_spec cmd_profile_spec;
static const cli_spec diff_spec, fold_spec, lab_spec;
/* An option of one form given to another is refused as "not with this form". */
static const cli_spec *const profile_forms[] = {&cmd_profile_spec, &diff_spec, &fold_spec,
                                                &lab_spec, NULL};

static const cli_spec diff_spec = {
    .name = CMD,
    .synopsis = "latlab profile diff [--limit N] [--no-threads] A B",
    .about = "Two folded files (folded.txt; the first frame of a line is its thread unless\n"
             "--no-threads): every frame's total share in A and in B and the difference, sorted\n"
             "by |difference| (--limit rows), then the verdict line \"profiles differ by at\n"
             "most X points of share in any frame\".\n",
    .opts = diff_opts,
    .max_args = -1,
    .forms = profile_forms,
};

static const cli_spec fold_spec = {
    .name = CMD,
    .synopsis = "latlab profile fold [--folded] [-o DIR] [--title T] FILE",
    .about = "Read FILE, the output of `perf script` (or folded stacks with --folded), and\n"
             "write the same files as `latlab profile` without running anything.\n",
    .opts = fold_opts,
    .max_args = -1,
    .forms = profile_forms,
};

static const cli_spec lab_spec = {
    .name = CMD,
    .synopsis = "latlab profile lab [-F HZ] [-o DIR] [--events N] [--rate HZ] [--oversubscribe]",
    .about = "The lab's profiling step on its own: one baseline round without perf, then one\n"
             "baseline and one --share-line round of the pipeline (threads producer, worker)\n"
             "with perf attached to this process for exactly that round; prints both profiles'\n"
             "top frames, the largest share difference, the work p50 ratio of the same rounds,\n"
             "the narration and the profiling overhead (e2e p50 with and without perf); writes\n"
             "DIR/profile-{baseline,share-line}/, profile-diff.txt, PROFILES.md and report.html.\n",
    .opts = lab_opts,
    .forms = profile_forms,
};

static int cmd_diff(int argc, char **argv);
static int cmd_fold(int argc, char **argv);
static int cmd_profile_lab(int argc, char **argv);

static const cli_sub profile_subs[] = {
    {"diff", cmd_diff, &diff_spec, "compare two folded profiles frame by frame"},
    {"fold", cmd_fold, &fold_spec, "draw a `perf script` text (or folded stacks) made elsewhere"},
    {"lab", cmd_profile_lab, &lab_spec,
     "the lab's profiling step: profiles of baseline and share-line"},
    {NULL, NULL, NULL, NULL},
};

/* The command's own form (record) and, through subs, the others. */
const cli_spec cmd_profile_spec = {
    .name = CMD,
    .synopsis =
        "latlab profile [-F HZ] [--event E] [--user-only] [-o DIR] [--title T] -- CMD [ARGS]",
    .about = "Run CMD under `perf record -g` (cycles where a hardware PMU exists, the cpu-clock\n"
             "software timer otherwise; it says which) and read `perf script`: stacks are folded\n"
             "per thread name and written to DIR (default ./profile), each atomically:\n"
             "  flame.svg    a static flamegraph: width = share of samples, a tooltip per frame\n"
             "               with its share and sample count, readable on light and dark pages\n"
             "  folded.txt   the common folded format \"thread;outer;...;inner COUNT\"\n"
             "  top.txt      frames by total and by self share, threads' shares\n"
             "  report.html  the flamegraph and the top frames on one page\n"
             "  perf.data, perf.log, perf-script.log  perf's own files\n",
    .opts = record_opts,
    .epilog = "exit: 0 ok; 1 perf missing, not permitted (perf_event_paranoid), perf failed, a\n"
              "malformed input (named with its line), or CMD failed (its status is printed; the\n"
              "profile is still written); 2 usage error.\n",
    .max_args = -1,
    .stop_at_args = true,
    .subs = profile_subs,
    .forms = profile_forms,
};

/* Parse argv against the form sp with the defaults d: 0 with *first the first
 * operand, CLI_USAGE, or -1 after --help. */
static int parse_form(const cli_spec *sp, struct prof_args d, int argc, char **argv, int *first) {
    pa = d;
    return cli_parse(sp, argc, argv, first);
}

/* ---- diff and fold ------------------------------------------------------------------- */

/* Read path in format fmt into *out; a profile without samples (an empty
 * input) is an error, the same for fold and diff.  0, or the exit status
 * after the message (a malformed line is named with the file, line and why). */
static int load_profile(const char *path, lat_flame_format fmt, lat_flame **out) {
    *out = NULL;
    FILE *in = fopen(path, "r");
    if (!in) return cli_error(CMD, "%s: cannot open: %s", path, strerror(errno));
    int rc = lat_flame_create(fmt, out);
    if (!rc) rc = lat_flame_read(*out, in);
    fclose(in);
    int status = CLI_OK;
    if (rc == LAT_EFORMAT)
        status = cli_error(CMD, "%s:%zu: %s", path, lat_flame_error_line(*out),
                           lat_flame_error_reason(*out));
    else if (rc)
        status = cli_lib_error(CMD, path, rc);
    else if (!lat_flame_samples(*out))
        status = cli_error(CMD, "%s: no samples", path);
    if (status) {
        lat_flame_destroy(*out);
        *out = NULL;
    }
    return status;
}

static int cmd_diff(int argc, char **argv) {
    int first, rc = parse_form(&diff_spec, (struct prof_args){.limit = 30}, argc, argv, &first);
    if (rc) return rc < 0 ? CLI_OK : rc;
    if (argc - first != 2) return cli_usage_error(CMD, "diff needs two folded files, A and B");
    const char *path_a = argv[first], *path_b = argv[first + 1];
    if (!*path_a || !*path_b) return cli_usage_error(CMD, "diff: empty file name");
    lat_flame *a = NULL, *b = NULL;
    lat_flame_format fmt = pa.no_threads ? LAT_FLAME_FOLDED_NOTHREAD : LAT_FLAME_FOLDED;
    rc = load_profile(path_a, fmt, &a);
    if (!rc) rc = load_profile(path_b, fmt, &b);
    if (!rc) {
        int e = lat_flame_write_diff(a, b, path_a, path_b, (size_t)pa.limit, stdout);
        rc = e ? cli_lib_error(CMD, "diff", e) : finish_stdout();
    }
    lat_flame_destroy(a);
    lat_flame_destroy(b);
    return rc;
}

static int cmd_fold(int argc, char **argv) {
    int first,
        rc = parse_form(&fold_spec, (struct prof_args){.out = "profile"}, argc, argv, &first);
    if (rc) return rc < 0 ? CLI_OK : rc;
    const struct prof_args a = pa;
    if (argc - first != 1) return cli_usage_error(CMD, "fold needs one input file");
    const char *path = argv[first];
    if (!*path) return cli_usage_error(CMD, "fold: empty file name");
    lat_flame *f;
    rc = load_profile(path, a.folded ? LAT_FLAME_FOLDED : LAT_FLAME_PERF_SCRIPT, &f);
    if (rc) return rc;
    printf("%s: %llu samples, %zu distinct stacks\n", path,
           (unsigned long long)lat_flame_samples(f), lat_flame_stacks(f));
    print_top(f, 10);
    rc = write_outputs(f, a.out, a.title ? a.title : path, NULL);
    lat_flame_destroy(f);
    return rc ? rc : finish_stdout();
}

/* A SIGTERM or SIGHUP came while perf ran: it was passed on to perf and the
 * command, which stopped; their profile is written.  End as the signal
 * would have ended us (status 128 + sig). */
static void end_by_signal(int sig, bool written) {
    fflush(stdout);
    fprintf(stderr,
            "latlab profile: %s: passed on to perf record and the command, which stopped%s\n",
            strsignal(sig),
            written ? "; the profile of what ran until then is written"
                    : " before a profile was recorded");
    signal(sig, SIG_DFL);
    raise(sig);
}

static int cmd_record(int argc, char **argv) {
    int first, rc = parse_form(&cmd_profile_spec, (struct prof_args){.out = "profile", .hz = 999},
                               argc, argv, &first);
    if (rc) return rc < 0 ? CLI_OK : rc;
    const struct prof_args a = pa;
    if (first >= argc) return cli_usage_error(CMD, "needs a command to run: latlab profile -- CMD");
    if (!*argv[first]) return cli_usage_error(CMD, "empty command name");
    char **cmdv = argv + first;

    char title[256];
    if (a.title) {
        snprintf(title, sizeof title, "%s", a.title);
    } else {
        size_t k = 0;
        title[0] = 0;
        for (char **p = cmdv; *p && k + 2 < sizeof title; p++)
            k += (size_t)snprintf(title + k, sizeof title - k, "%s%s", p == cmdv ? "" : " ", *p);
    }
    lat_profile_opts o = {
        .hz = (unsigned)a.hz, .event = a.event, .perf = a.perf, .user_only = a.user_only};
    lat_profile_result r;
    rc = lat_profile_run(cmdv, a.out, &o, &r);
    if (rc && r.signal) end_by_signal(r.signal, false);
    if (rc) {
        if (r.failure == LAT_PROFILE_OK) return cli_lib_error(CMD, "profile", rc);
        return cli_error(CMD, "%s", r.message);
    }
    fprintf(stderr, "latlab profile: event %s at %u Hz: %s\n", r.event, r.hz, r.event_why);
    char note[200];
    snprintf(note, sizeof note, "perf record -e %s -F %u -g", r.event, r.hz);
    printf("%s: %llu samples of %s at %u Hz, %zu distinct stacks, %.2f s\n", title,
           (unsigned long long)lat_flame_samples(r.flame), r.event, r.hz, lat_flame_stacks(r.flame),
           r.wall_s);
    print_top(r.flame, 10);
    int wrc = write_outputs(r.flame, a.out, title, note);
    int failure = r.failure, status = r.cmd_status, sig = r.signal;
    char msg[sizeof r.message];
    snprintf(msg, sizeof msg, "%s", r.message);
    lat_profile_result_fini(&r);
    if (wrc) return wrc;
    if (sig) end_by_signal(sig, true);
    if (failure == LAT_PROFILE_CMD_FAILED)
        return cli_error(CMD, "%s (status %d); the profile was written anyway", msg, status);
    return finish_stdout();
}

/* ---- lab: the profiling step on its own
 * ------------------------------------------------------------ */

/* One pipeline round (profiled as side unless side < 0); its line on
 * stdout.  0, or a CLI exit code after a message. */
static int lab_round(const lat_pipe_config *base, lat_lab_prof *lp, int side, bool share,
                     const char *name, double *e2e) {
    char err[600];
    int rc = lat_lab_prof_round(lp, base, side, share, name, stdout, e2e, err, sizeof err);
    return rc ? cli_error(CMD, "%s: %s", name, err) : 0;
}

static int cmd_profile_lab(int argc, char **argv) {
    int first,
        rc = parse_form(
            &lab_spec,
            (struct prof_args){.hz = 999, .events = 400000, .rate = 200000, .out = "profile-lab"},
            argc, argv, &first);
    if (rc) return rc < 0 ? CLI_OK : rc;
    const struct prof_args a = pa;
    static lat_lab_prof lp; /* large; one per process */
    lat_lab_prof_init(&lp, a.out, (unsigned)a.hz, NULL);
    if (!lp.enabled) return cli_error(CMD, "lab: %s", lp.why);

    lat_pipe_config base;
    lat_pipe_config_default(&base);
    base.events = a.events;
    base.rate_hz = a.rate;
    base.cal = lat_clock_default();
    lat_topo *t = NULL;
    if ((rc = lat_topo_load(NULL, &t))) return cli_lib_error(CMD, "topology", rc);
    bool over = false;
    char why[512];
    rc = lat_pipe_place(&base, LAT_PIPE_AUTO, t, a.oversub, &over, why, sizeof why);
    lat_topo_destroy(t);
    if (rc == LAT_ETOOFEW_CPUS) return cli_error(CMD, "lab: %s", why);
    if (rc) return cli_lib_error(CMD, "placement", rc);
    if ((rc = lat_mkdir_p(a.out))) return cli_lib_error(CMD, a.out, rc);
    printf("latlab profile lab: %s shape; %s%s\n%llu events at %llu/s per round; perf at %llu Hz\n",
           lat_pipe_shape_name(base.shape), why, over ? " [oversubscribed]" : "",
           (unsigned long long)a.events, (unsigned long long)a.rate, (unsigned long long)a.hz);
    double e2e_plain = NAN, e2e_prof = NAN, e2e_share = NAN;
    rc = lab_round(&base, &lp, -1, false, "baseline, no perf", &e2e_plain);
    if (!rc) rc = lab_round(&base, &lp, LAT_LAB_PROF_BASE, false, "baseline, profiled", &e2e_prof);
    if (!rc)
        rc = lab_round(&base, &lp, LAT_LAB_PROF_SHARE, true, "share-line, profiled", &e2e_share);
    if (!rc && !lat_lab_prof_ready(&lp))
        rc = cli_error(CMD, "lab: a profiled round has no samples");
    if (!rc) {
        lat_lab_prof_print(&lp, stdout);
        printf("  profiling overhead: baseline e2e p50 %.0f ns without perf, %.0f ns with perf "
               "record at %llu Hz (x%.2f; one round each, this session)\n",
               e2e_plain, e2e_prof, (unsigned long long)a.hz, e2e_prof / e2e_plain);
        rc = lat_lab_prof_write_all(&lp);
        if (rc)
            rc = cli_lib_error(CMD, a.out, rc);
        else
            printf("wrote %s/profile-{baseline,share-line}/, profile-diff.txt, PROFILES.md, "
                   "report.html\n",
                   a.out);
    }
    lat_lab_prof_fini(&lp);
    return rc ? rc : finish_stdout();
}

int cmd_profile(int argc, char **argv) {
    const cli_sub *sub = argc >= 2 ? cli_group_find(&cmd_profile_spec, argv[1]) : NULL;
    if (sub) return sub->fn(argc - 1, argv + 1);
    return cmd_record(argc, argv);
}
