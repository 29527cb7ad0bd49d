/* lab.c - `latlab lab`: the experiment protocol of the pipeline lab.
 *
 * 1. calibrate and print the run conditions;
 * 2. baseline three times (the run-to-run spread every comparison needs);
 * 3. --alloc, --share-line, and --no-pin five times;
 * 4. per experiment, compare with the baseline's spread and classify it (tail
 *    disease, median/throughput disease, variance disease, no significant
 *    change) with its counter fingerprint;
 * 5. write an output folder: LAB.md (tables, verdicts, and per experiment the
 *    cause -> measurement -> fix narration filled from this run's numbers),
 *    lab.json, one JSON and per-stage .hlog files per run, report.html.
 * On a 2-CPU machine the compact shape runs pinned (and the banner says so);
 * only a 1-CPU machine falls back to oversubscribed. */
#include "cli.h"
#include "labrun.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "latlab/json.h"
#include "latlab/atomicfile.h"
#include "latlab/error.h"
#include "latlab/hlog.h"
#include "latlab/pipeline.h"
#include "latlab/report.h"
#include "latlab/topo.h"

const char cmd_lab_usage[] =
    "usage: latlab lab [OPTIONS]\n"
    "\n"
    "The pipeline lab's experiment protocol: run conditions, the baseline three\n"
    "times, --alloc, --share-line and --no-pin five times, each compared with the\n"
    "baseline's run-to-run spread and classified (tail disease, median/throughput\n"
    "disease, variance disease, no significant change) with its counter\n"
    "fingerprint.  Writes LAB.md, lab.json, report.html, <stage>.svg per stage, flight-alloc.txt\n"
    "(the flight recorder's window on the alloc run, set at the baseline's p99.9,\n"
    "when it fired) and per run a JSON and per-stage .hlog interval logs into the\n"
    "output folder.\n"
    "\n"
    "  --out DIR         output folder (default lab-out)\n"
    "  --quick           tiny sizes for CI (20000 events per run)\n"
    "  --events N        events per run (default 1000000 in the compact shape,\n"
    "                    2000000 in the full shape: ~1 or ~2 minutes in all)\n"
    "  --rate HZ         offered rate (default 200000/s)\n"
    "  --shape full|compact|auto  (default auto: compact, pinned, on 2 CPUs)\n"
    "  --cpus LIST       plan hot threads within these CPUs\n"
    "  --oversubscribe   run even when the hot threads cannot each have a CPU\n"
    "  --baseline-runs N (default 3)     --no-pin-runs N (default 5)\n"
    "  --json FILE       also write lab.json here\n"
    "\n"
    "Progress goes to stderr when it is a terminal.  exit 0 ok, 1 error, 2 usage.\n";

#define CMD "lab"
#define MAXRUNS 16

enum { EXP_BASE = 0, EXP_ALLOC, EXP_SHARE, EXP_NOPIN, NEXP };
static const char *const exp_name[NEXP] = {"baseline", "alloc", "share-line", "no-pin"};
static const char *const exp_flag[NEXP] = {"no flags", "--alloc", "--share-line", "--no-pin"};

/* Figures of one run. */
typedef struct figs {
    double p50[LAT_PIPE_NSTAGES], p999[LAT_PIPE_NSTAGES], max[LAT_PIPE_NSTAGES];
    double p99[LAT_PIPE_NSTAGES];
    double wall_ns;
    double faults, cs, migr, ipc, cmiss; /* summed over hot threads (NAN unknown) */
    double worker_faults;
    uint64_t dropped, recorded, transformed, consumed;
} figs;

typedef struct exp_runs {
    int n;
    lat_pipe_config cfg;
    lat_pipe_result r[MAXRUNS];
    figs f[MAXRUNS];
} exp_runs;

/* Median / min / max of one figure across an experiment's runs. */
typedef struct agg {
    double med, min, max;
} agg;

typedef struct verdict {
    const char *kind; /* "tail disease", ... */
    double p50_ratio, p999_ratio, max_ratio, wall_ratio;
    double spread_b, spread_e;         /* relative p99.9 spread (max-min)/median */
    double p50_spread_b, p50_spread_e; /* the same for e2e p50 */
    int stage_p50, stage_p999;         /* stage with the largest growth */
    double stage_p50_ratio, stage_p999_ratio;
    int dom_stage; /* stage with the largest significant growth, or -1 */
    double dom_r50, dom_r999;
    char where[96];           /* " in work (p50 x1.40, p99.9 x2.50)" or "" */
    agg b50, e50, b999, e999; /* e2e ranges across runs */
    char fingerprint[320];
} verdict;

static double nan_add(double a, double b) {
    if (isnan(a)) return b;
    if (isnan(b)) return a;
    return a + b;
}

static void fill_figs(const lat_pipe_result *r, figs *f) {
    memset(f, 0, sizeof *f);
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        if (!r->h[s]) {
            f->p50[s] = f->p99[s] = f->p999[s] = f->max[s] = NAN;
            continue;
        }
        static const double ps[] = {50, 99, 99.9};
        int64_t v[3];
        lat_hist_values_at_percentiles(r->h[s], ps, v, 3);
        f->p50[s] = (double)v[0];
        f->p99[s] = (double)v[1];
        f->p999[s] = (double)v[2];
        f->max[s] = (double)lat_hist_max(r->h[s]);
    }
    f->wall_ns = (double)r->wall_ns;
    f->faults = f->cs = f->migr = f->cmiss = NAN;
    double cyc = NAN, ins = NAN;
    for (int k = 0; k < LAT_PIPE_NHOT; k++) {
        const lat_pipe_counters *t = &r->thr[k];
        if (!t->ran) continue;
        f->faults = nan_add(f->faults, t->page_faults);
        f->cs = nan_add(f->cs, t->ctx_switches);
        f->migr = nan_add(f->migr, t->migrations);
        f->cmiss = nan_add(f->cmiss, t->cache_misses);
        cyc = nan_add(cyc, t->cycles);
        ins = nan_add(ins, t->instructions);
    }
    f->ipc = !isnan(cyc) && cyc > 0 && !isnan(ins) ? ins / cyc : NAN;
    f->worker_faults = r->thr[LAT_PIPE_WORKER].page_faults;
    f->dropped = r->dropped;
    f->recorded = r->recorded;
    f->transformed = r->transformed;
    f->consumed = r->consumed;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static agg aggregate(const exp_runs *e, size_t off, int stage) {
    double v[MAXRUNS];
    int n = 0;
    for (int i = 0; i < e->n; i++) {
        const double *p = (const double *)((const char *)&e->f[i] + off);
        double x = stage >= 0 ? p[stage] : *p;
        if (!isnan(x)) v[n++] = x;
    }
    agg a = {NAN, NAN, NAN};
    if (!n) return a;
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    a.med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    a.min = v[0];
    a.max = v[n - 1];
    return a;
}
#define AGG(e, field, stage) aggregate((e), offsetof(figs, field), (stage))

static double spread(agg a) {
    return a.med > 0 ? (a.max - a.min) / a.med : 0;
}
static double ratio(double a, double b) {
    return b > 0 ? a / b : NAN;
}

static void fmt_count(char *buf, size_t len, double v) {
    if (isnan(v))
        snprintf(buf, len, "n/a");
    else
        snprintf(buf, len, "%.0f", v);
}

static void classify(const exp_runs *b, const exp_runs *e, int expi, verdict *v) {
    memset(v, 0, sizeof *v);
    agg bp50 = AGG(b, p50, LAT_PIPE_E2E), ep50 = AGG(e, p50, LAT_PIPE_E2E);
    agg bp999 = AGG(b, p999, LAT_PIPE_E2E), ep999 = AGG(e, p999, LAT_PIPE_E2E);
    agg bmax = AGG(b, max, LAT_PIPE_E2E), emax = AGG(e, max, LAT_PIPE_E2E);
    agg bwall = AGG(b, wall_ns, -1), ewall = AGG(e, wall_ns, -1);
    v->p50_ratio = ratio(ep50.med, bp50.med);
    v->p999_ratio = ratio(ep999.med, bp999.med);
    v->max_ratio = ratio(emax.med, bmax.med);
    v->wall_ratio = ratio(ewall.med, bwall.med);
    v->spread_b = spread(bp999);
    v->spread_e = spread(ep999);
    v->b50 = bp50, v->e50 = ep50, v->b999 = bp999, v->e999 = ep999;
    /* Significant means: outside the baseline's range and beyond its spread. */
    double sp50 = spread(bp50);
    v->p50_spread_b = sp50;
    v->p50_spread_e = spread(ep50);
    bool p50_sig = ep50.med > bp50.max && v->p50_ratio > 1 + fmax(0.05, sp50);
    bool tail_sig = ep999.med > bp999.max && v->p999_ratio > 1 + fmax(0.25, v->spread_b);
    bool wall_sig = ewall.med > bwall.max && v->wall_ratio > 1 + fmax(0.02, spread(bwall));
    /* Variance: the experiment's own run-to-run spread (p50 or p99.9) explodes
     * past the baseline's. */
    bool var_sig =
        e->n >= 3 && ((v->spread_e > fmax(3 * v->spread_b, 0.5) && ep999.max > bp999.max * 1.5) ||
                      (v->p50_spread_e > fmax(3 * sp50, 0.5) && ep50.max > bp50.max * 1.5));
    /* Where it grew most, and the stage with the largest significant growth:
     * an e2e tail can be drowned by platform noise that a stage's is not. */
    v->stage_p50 = v->stage_p999 = v->dom_stage = -1;
    double best = 1;
    bool dom50 = false, dom9 = false;
    for (int s = LAT_PIPE_SEND; s < LAT_PIPE_E2E; s++) {
        agg b50 = aggregate(b, offsetof(figs, p50), s), e50 = aggregate(e, offsetof(figs, p50), s);
        agg b9 = aggregate(b, offsetof(figs, p999), s), e9 = aggregate(e, offsetof(figs, p999), s);
        if (isnan(b50.med)) continue;
        double r50 = ratio(e50.med, b50.med), r9 = ratio(e9.med, b9.med);
        if (!isnan(r50) && (v->stage_p50 < 0 || r50 > v->stage_p50_ratio))
            v->stage_p50 = s, v->stage_p50_ratio = r50;
        if (!isnan(r9) && (v->stage_p999 < 0 || r9 > v->stage_p999_ratio))
            v->stage_p999 = s, v->stage_p999_ratio = r9;
        bool s50 = !isnan(r50) && e50.med > b50.max && r50 > 1 + fmax(0.10, spread(b50));
        bool s9 = !isnan(r9) && e9.med > b9.max && r9 > 1 + fmax(0.5, 2 * spread(b9));
        double g = fmax(s50 ? r50 : 1, s9 ? r9 : 1);
        if (g > best) {
            best = g, v->dom_stage = s, v->dom_r50 = r50, v->dom_r999 = r9;
            dom50 = s50, dom9 = s9;
        }
    }
    if (var_sig)
        v->kind = "variance disease";
    else if (v->dom_stage >= 0)
        v->kind = dom9 && (!dom50 || v->dom_r999 - 1 > 3 * (v->dom_r50 - 1))
                      ? "tail disease"
                      : "median/throughput disease";
    else if (tail_sig && (!p50_sig || v->p999_ratio - 1 > 3 * (v->p50_ratio - 1)))
        v->kind = "tail disease";
    else if (p50_sig || wall_sig)
        v->kind = "median/throughput disease";
    else if (tail_sig)
        v->kind = "tail disease";
    else
        v->kind = "no significant change";
    if (v->dom_stage >= 0 && !var_sig)
        snprintf(v->where, sizeof v->where, " in %s (p50 x%.2f, p99.9 x%.2f)",
                 lat_pipe_stage_name(v->dom_stage), v->dom_r50, v->dom_r999);
    /* Counter fingerprint: the experiment's medians against the baseline's. */
    char a[32], c[32], d[32], f[32], g[32], h[32], i[32], j[32];
    agg bf = AGG(b, faults, -1), ef = AGG(e, faults, -1), bcs = AGG(b, cs, -1),
        ecs = AGG(e, cs, -1), bm = AGG(b, migr, -1), em = AGG(e, migr, -1), bi = AGG(b, ipc, -1),
        ei = AGG(e, ipc, -1);
    fmt_count(a, sizeof a, bf.med);
    fmt_count(c, sizeof c, ef.med);
    fmt_count(d, sizeof d, bcs.med);
    fmt_count(f, sizeof f, ecs.med);
    fmt_count(g, sizeof g, bm.med);
    fmt_count(h, sizeof h, em.med);
    if (isnan(bi.med))
        snprintf(i, sizeof i, "n/a"), snprintf(j, sizeof j, "n/a (no hardware PMU here)");
    else
        snprintf(i, sizeof i, "%.2f", bi.med), snprintf(j, sizeof j, "%.2f", ei.med);
    snprintf(v->fingerprint, sizeof v->fingerprint,
             "page-faults %s -> %s, context-switches %s -> %s, migrations %s -> %s, IPC %s -> %s",
             a, c, d, f, g, h, i, j);
    (void)expi;
}

/* ---- output helpers ------------------------------------------------------------------- */

static void md_table(FILE *f, const exp_runs *e, bool over) {
    fprintf(f,
            "| run | stage | p50 ns | p99 ns | p99.9 ns | max ns |\n|---|---|--:|--:|--:|--:|\n");
    for (int i = 0; i < e->n; i++)
        for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
            if (isnan(e->f[i].p50[s])) continue;
            fprintf(f, "| %d | %s | %.0f | %.0f | %.0f | %.0f |\n", i + 1, lat_pipe_stage_name(s),
                    e->f[i].p50[s], e->f[i].p99[s], e->f[i].p999[s], e->f[i].max[s]);
        }
    fprintf(f, "\n");
    for (int i = 0; i < e->n; i++) {
        char a[32], b[32], c[32];
        fmt_count(a, sizeof a, e->f[i].faults);
        fmt_count(b, sizeof b, e->f[i].cs);
        fmt_count(c, sizeof c, e->f[i].migr);
        fprintf(f,
                "run %d: wall %.3f s; transform=%" PRIu64 " consume=%" PRIu64 " dropped=%" PRIu64
                "; hot threads: page-faults %s, context-switches %s, migrations %s\n\n",
                i + 1, e->f[i].wall_ns / 1e9, e->f[i].transformed, e->f[i].consumed,
                e->f[i].dropped, a, b, c);
    }
    if (over) fprintf(f, "**%s**\n\n", LAB_OVERSUB_STAMP);
}

static void report_table(lat_report *rep, const char *caption, const exp_runs *e) {
    static const char *const hdr[] = {"run", "stage", "p50 ns", "p99 ns", "p99.9 ns", "max ns"};
    lat_report_table_begin(rep, caption, 6, hdr);
    for (int i = 0; i < e->n; i++)
        for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
            if (isnan(e->f[i].p50[s])) continue;
            char c[6][32];
            snprintf(c[0], 32, "%d", i + 1);
            snprintf(c[1], 32, "%s", lat_pipe_stage_name(s));
            snprintf(c[2], 32, "%.0f", e->f[i].p50[s]);
            snprintf(c[3], 32, "%.0f", e->f[i].p99[s]);
            snprintf(c[4], 32, "%.0f", e->f[i].p999[s]);
            snprintf(c[5], 32, "%.0f", e->f[i].max[s]);
            const char *cells[6] = {c[0], c[1], c[2], c[3], c[4], c[5]};
            lat_report_table_row(rep, cells);
        }
}

static const char *stage_or(int s) {
    return s >= 0 ? lat_pipe_stage_name(s) : "?";
}

/* The cause -> measurement -> fix narration, from this run's numbers. */
static void narrate(FILE *f, int x, const exp_runs *b, const exp_runs *e, const verdict *v) {
    agg bp50 = AGG(b, p50, LAT_PIPE_E2E), ep50 = AGG(e, p50, LAT_PIPE_E2E);
    agg bp999 = AGG(b, p999, LAT_PIPE_E2E), ep999 = AGG(e, p999, LAT_PIPE_E2E);
    agg bmax = AGG(b, max, LAT_PIPE_E2E), emax = AGG(e, max, LAT_PIPE_E2E);
    agg bw = AGG(b, wall_ns, -1), ew = AGG(e, wall_ns, -1);
    static const char *const expect[NEXP] = {"", "tail disease", "median/throughput disease",
                                             "variance disease"};
    fprintf(f, "### %s (%s)\n\n", exp_name[x], exp_flag[x]);
    switch (x) {
    case EXP_ALLOC:
        fprintf(f,
                "**Cause.** One small heap allocation (a 32 x u64 vector) per event in the work "
                "stage: usually a free-list pop, sometimes a trip into the allocator's slow path "
                "or the kernel.\n\n");
        break;
    case EXP_SHARE:
        fprintf(f, "**Cause.** The two stage counters moved 8 bytes apart onto one 64-byte line "
                   "instead of 128 bytes apart: every relaxed increment drags the line between the "
                   "two cores (false sharing).\n\n");
        break;
    case EXP_NOPIN:
        fprintf(f, "**Cause.** The hot threads were left to the scheduler instead of the planner's "
                   "pinned CPUs; nothing in the code changed, only placement.\n\n");
        break;
    }
    fprintf(f,
            "**Measurement.** e2e p50 %.0f -> %.0f ns (x%.2f), p99.9 %.0f -> %.0f ns (x%.2f), "
            "max %.0f -> %.0f ns (x%.2f), wall %.3f -> %.3f s (x%.3f).  Largest growth: p50 in "
            "%s (x%.2f), p99.9 in %s (x%.2f).  Baseline p99.9 spread across %d runs %.0f%%, this "
            "experiment's across %d run%s %.0f%% (e2e p50 ranges %.0f..%.0f ns vs the baseline's "
            "%.0f..%.0f ns).  Counters: %s.\n\n",
            bp50.med, ep50.med, v->p50_ratio, bp999.med, ep999.med, v->p999_ratio, bmax.med,
            emax.med, v->max_ratio, bw.med / 1e9, ew.med / 1e9, v->wall_ratio,
            stage_or(v->stage_p50), v->stage_p50_ratio, stage_or(v->stage_p999),
            v->stage_p999_ratio, b->n, 100 * v->spread_b, e->n, e->n == 1 ? "" : "s",
            100 * v->spread_e, v->e50.min, v->e50.max, v->b50.min, v->b50.max, v->fingerprint);
    fprintf(f, "**Verdict.** %s%s", v->kind, v->where);
    if (strcmp(v->kind, expect[x]))
        fprintf(f,
                " (the seed's reference machine shows %s; this machine did not reproduce it "
                "above its own noise)",
                expect[x]);
    fprintf(f, ".\n\n");
    switch (x) {
    case EXP_ALLOC:
        fprintf(f, "**Fix.** Keep the hot path allocation-free: preallocate at setup, reuse a pool "
                   "or the message's own storage, and prove it with a counting allocator (latlab's "
                   "tests do) rather than code review.  Medians measure the design, tails measure "
                   "the discipline.\n\n");
        break;
    case EXP_SHARE:
        fprintf(f,
                "**Fix.** Give each writer's counter its own line: pad or align to 128 bytes "
                "(adjacent-line prefetch pulls pairs), which is what the baseline does.  Confirm "
                "with IPC/cache-miss counters and `perf c2c` (HITM on one line) where the "
                "machine has a PMU.\n\n");
        break;
    case EXP_NOPIN:
        fprintf(f, "**Fix.** Pin every hot thread to its own CPU (the planner avoids CPU 0 and SMT "
                   "siblings), keep cold threads off them, and check the hot CPUs are quiet with "
                   "`latlab silence`.  Placement is a variable; pinning removes it.\n\n");
        break;
    }
}

static char *path_join(const char *dir, const char *name) {
    size_t len = strlen(dir) + strlen(name) + 2;
    char *p = malloc(len);
    if (p) snprintf(p, len, "%s/%s", dir, name);
    return p;
}

/* File-name-safe stage names for the per-stage SVGs. */
static const char *const stage_file[LAT_PIPE_NSTAGES] = {"send", "q1", "work", "q2", "e2e"};

/* One plot per stage present, overlaying the first run of every experiment;
 * each is embedded in the report and also saved as OUT/<stage>.svg. */
static void report_stage_plots(lat_report *rep, const char *out, const exp_runs *ex) {
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        if (!ex[EXP_BASE].r[0].h[s]) continue;
        char title[96];
        snprintf(title, sizeof title, "%s latency by percentile", lat_pipe_stage_name(s));
        lat_plot *pl = NULL;
        if (lat_plot_create(title, &pl) != 0) continue;
        lat_plot_set_log_y(pl, true);
        lat_plot_set_note(pl,
                          "first run of each experiment; open loop, from the intended send time");
        for (int x = 0; x < NEXP; x++)
            if (ex[x].n > 0 && ex[x].r[0].h[s])
                lat_plot_add_hist(pl, exp_name[x], ex[x].r[0].h[s], 1.0, 0);
        lat_report_plot(rep, pl);
        char name[32];
        snprintf(name, sizeof name, "%s.svg", stage_file[s]);
        char *svg = path_join(out, name);
        if (svg) lat_plot_save_svg(pl, svg);
        free(svg);
        lat_plot_free(pl);
    }
}

/* ---- main ---------------------------------------------------------------------------- */

enum { O_OUT = 256, O_QUICK, O_EVENTS, O_RATE, O_SHAPE, O_CPUS, O_OVER, O_BRUNS, O_NRUNS, O_JSON };
static const struct option opts[] = {
    {"out", required_argument, NULL, O_OUT},
    {"quick", no_argument, NULL, O_QUICK},
    {"events", required_argument, NULL, O_EVENTS},
    {"rate", required_argument, NULL, O_RATE},
    {"shape", required_argument, NULL, O_SHAPE},
    {"cpus", required_argument, NULL, O_CPUS},
    {"oversubscribe", no_argument, NULL, O_OVER},
    {"baseline-runs", required_argument, NULL, O_BRUNS},
    {"no-pin-runs", required_argument, NULL, O_NRUNS},
    {"json", required_argument, NULL, O_JSON},
    {NULL, 0, NULL, 0},
};

int cmd_lab(int argc, char **argv) {
    const char *out = "lab-out", *json_out = NULL;
    bool quick = false, oversub = false;
    uint64_t events = 0, rate = 200000, bruns = 3, nruns = 5;
    int shape = LAT_PIPE_AUTO, ncpus = 0, cpus[LAT_MAX_CPUS], ch, rc;
    optind = 1;
    while ((ch = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (ch) {
        case O_OUT:
            out = optarg;
            break;
        case O_QUICK:
            quick = true;
            break;
        case O_EVENTS:
            if (cli_parse_u64(CMD, "--events", optarg, 1000, 1000000000000ull, &events))
                return CLI_USAGE;
            break;
        case O_RATE:
            if (cli_parse_u64(CMD, "--rate", optarg, 1, 100000000, &rate)) return CLI_USAGE;
            break;
        case O_SHAPE:
            if ((shape = lab_shape(optarg)) < 0)
                return cli_usage_error(CMD, "--shape: '%s' is not full, compact or auto", optarg);
            break;
        case O_CPUS:
            if (cli_parse_cpulist(CMD, "--cpus", optarg, cpus, LAT_MAX_CPUS, &ncpus))
                return CLI_USAGE;
            break;
        case O_OVER:
            oversub = true;
            break;
        case O_BRUNS:
            if (cli_parse_u64(CMD, "--baseline-runs", optarg, 2, MAXRUNS, &bruns)) return CLI_USAGE;
            break;
        case O_JSON:
            json_out = optarg;
            break;
        case O_NRUNS:
            if (cli_parse_u64(CMD, "--no-pin-runs", optarg, 1, MAXRUNS, &nruns)) return CLI_USAGE;
            break;
        default:
            return cli_getopt_fail(CMD, ch, argv);
        }
    }
    if (optind < argc) return cli_usage_error(CMD, "unexpected argument '%s'", argv[optind]);

    /* 1. calibrate, place, print the run conditions. */
    lat_pipe_config base;
    lat_pipe_config_default(&base);
    bool over = false;
    char why[512];
    if ((rc = lab_place(CMD, &base, shape, cpus, ncpus, oversub, &over, why, sizeof why)) != 0)
        return rc;
    if (!events) events = quick ? 20000 : base.shape == LAT_PIPE_FULL ? 2000000 : 1000000;
    base.events = events;
    base.rate_hz = rate;
    cli_progress("calibrating the cycle counter...");
    base.cal = lat_clock_default();
    cli_progress_done();
    lat_runcond rcnd;
    if ((rc = lat_runcond_collect(&rcnd, NULL)) != 0)
        return cli_lib_error(CMD, "run conditions", rc);

    char banner[768];
    snprintf(banner, sizeof banner, "latlab lab: %s shape, %s; %s", lat_pipe_shape_name(base.shape),
             over ? "oversubscribed" : "pinned", why);
    printf("%s\n", banner);
    if (base.shape == LAT_PIPE_COMPACT && !over)
        printf("note: the compact shape measures q1+wake, work and e2e with two pinned hot "
               "threads (the consumer runs inside the worker); q2+wake is not measured.\n");
    if (over) printf("[%s]\n", LAB_OVERSUB_STAMP);
    printf("calibrated %.4f cycles/ns; %" PRIu64 " events per run at %" PRIu64
           "/s; baseline x%" PRIu64 ", alloc, share-line, no-pin x%" PRIu64 "\n\n",
           base.cal->cycles_per_ns, events, rate, bruns, nruns);
    printf("run conditions:\n");
    lat_runcond_write_text(&rcnd, stdout);
    printf("\n");
    fflush(stdout);

    if ((rc = lat_mkdir_p(out)) != 0) return cli_lib_error(CMD, out, rc);
    char *runs_dir = path_join(out, "runs");
    if (!runs_dir || (rc = lat_mkdir_p(runs_dir)) != 0) {
        free(runs_dir);
        return cli_lib_error(CMD, "runs folder", rc ? rc : -ENOMEM);
    }

    { /* a window from an earlier run in this folder must not pass for this one's */
        char *fp = path_join(out, "flight-alloc.txt");
        if (fp) unlink(fp);
        free(fp);
    }

    /* 2-3. the runs. */
    exp_runs *ex = calloc(NEXP, sizeof *ex);
    if (!ex) {
        free(runs_dir);
        return cli_lib_error(CMD, "memory", -ENOMEM);
    }
    int nrun[NEXP] = {(int)bruns, 1, 1, (int)nruns};
    char flight_text[320] = "";
    char *flight_dump = NULL;
    bool flight_file = false;
    uint64_t flight_thr = LAT_FLIGHT_NONE;
    int total = 0, done = 0, ret = CLI_OK;
    for (int x = 0; x < NEXP; x++)
        total += nrun[x];
    json_t *jruns = json_array();
    for (int x = 0; x < NEXP && ret == CLI_OK; x++) {
        exp_runs *e = &ex[x];
        e->cfg = base;
        e->cfg.alloc = x == EXP_ALLOC;
        e->cfg.share_line = x == EXP_SHARE;
        e->cfg.no_pin = x == EXP_NOPIN;
        for (int i = 0; i < nrun[x]; i++) {
            char name[64], *prefix = NULL;
            snprintf(name, sizeof name, "%s-%d-", exp_name[x], i + 1);
            prefix = path_join(runs_dir, name);
            if (!prefix) {
                ret = cli_lib_error(CMD, "memory", -ENOMEM);
                break;
            }
            e->cfg.hlog_prefix = prefix;
            e->cfg.hlog_interval_ns = 1000000000ull;
            if (x == EXP_ALLOC) { /* step (f): the flight recorder at the baseline's p99.9 */
                agg b = AGG(&ex[EXP_BASE], p999, LAT_PIPE_E2E);
                flight_thr = isnan(b.med) ? LAT_FLIGHT_NONE : (uint64_t)b.med;
                e->cfg.flight_threshold_ns = flight_thr;
            }
            cli_progress("run %d/%d: %s %d/%d (%" PRIu64 " events)...", done + 1, total,
                         exp_name[x], i + 1, nrun[x], events);
            rc = lat_pipe_run(&e->cfg, &e->r[i]);
            if (rc) {
                cli_progress_done();
                free(prefix);
                ret = cli_lib_error(CMD, exp_name[x], rc);
                break;
            }
            e->n = i + 1;
            fill_figs(&e->r[i], &e->f[i]);
            if (e->r[i].flight) {
                lat_flight_verdict fv;
                bool trig = false;
                if (lat_flight_analyze(e->r[i].flight, &fv) == 0) {
                    snprintf(flight_text, sizeof flight_text, "%s", fv.text);
                    trig = fv.shape != LAT_FLIGHT_NO_TRIGGER;
                }
                size_t dl = 0;
                FILE *m = trig ? open_memstream(&flight_dump, &dl) : NULL;
                if (m) {
                    lat_flight_dump(e->r[i].flight, m, 10);
                    fclose(m);
                    /* the whole frozen window, as the seed's step (f) dumps it */
                    char *fp = path_join(out, "flight-alloc.txt");
                    lat_afile *af = NULL;
                    if (fp && lat_afile_open(fp, &af) == 0) {
                        lat_flight_dump(e->r[i].flight, lat_afile_stream(af), 0);
                        if (lat_afile_commit(af) == 0) flight_file = true;
                    }
                    free(fp);
                }
            }
            json_t *j = lab_run_json(&e->cfg, &e->r[i], over, why);
            json_object_set_new(j, "experiment", json_string(exp_name[x]));
            json_object_set_new(j, "run", json_integer(i + 1));
            snprintf(name, sizeof name, "%s-%d.json", exp_name[x], i + 1);
            char *jp = path_join(runs_dir, name);
            if (jp && (rc = lat_write_json_atomic(jp, j)) != 0) ret = cli_lib_error(CMD, jp, rc);
            free(jp);
            json_array_append_new(jruns, j);
            free(prefix);
            e->cfg.hlog_prefix = NULL;
            done++;
        }
    }
    cli_progress_done();

    /* 4. tables and verdicts. */
    verdict v[NEXP];
    if (ret == CLI_OK) {
        for (int x = 0; x < NEXP; x++) {
            char title[160];
            for (int i = 0; i < ex[x].n; i++) {
                snprintf(title, sizeof title, "== %s (%s), run %d/%d", exp_name[x], exp_flag[x],
                         i + 1, ex[x].n);
                lab_print_table(stdout, &ex[x].cfg, &ex[x].r[i], over, title);
            }
            if (x == EXP_BASE) {
                agg p50 = AGG(&ex[0], p50, LAT_PIPE_E2E), p999 = AGG(&ex[0], p999, LAT_PIPE_E2E);
                printf("baseline e2e: p50 %.0f ns (%.0f..%.0f), p99.9 %.0f ns (%.0f..%.0f) across "
                       "%d runs\n",
                       p50.med, p50.min, p50.max, p999.med, p999.min, p999.max, ex[0].n);
                lab_print_details(stdout, &ex[0].cfg, &ex[0].r[0], over);
                printf("seed reference (full shape, isolated server): e2e p50 ~600 ns, p99.9 "
                       "~3000 ns; here (%s shape): p50 %.0f ns, p99.9 %.0f ns\n",
                       lat_pipe_shape_name(base.shape), p50.med, p999.med);
            } else {
                classify(&ex[0], &ex[x], x, &v[x]);
                printf("verdict %s: %s%s (e2e p50 x%.2f, p99.9 x%.2f, max x%.2f, wall x%.3f)\n"
                       "  e2e across runs: p50 %.0f..%.0f ns, p99.9 %.0f..%.0f ns (baseline "
                       "%.0f..%.0f, %.0f..%.0f)\n  fingerprint: %s\n",
                       exp_name[x], v[x].kind, v[x].where, v[x].p50_ratio, v[x].p999_ratio,
                       v[x].max_ratio, v[x].wall_ratio, v[x].e50.min, v[x].e50.max, v[x].e999.min,
                       v[x].e999.max, v[x].b50.min, v[x].b50.max, v[x].b999.min, v[x].b999.max,
                       v[x].fingerprint);
            }
            printf("\n");
        }
    }

    /* 5. the folder. */
    if (ret == CLI_OK) {
        char *mdp = path_join(out, "LAB.md"), *jsp = path_join(out, "lab.json"),
             *htp = path_join(out, "report.html");
        lat_afile *af = NULL;
        if (!mdp || !jsp || !htp) ret = cli_lib_error(CMD, "memory", -ENOMEM);
        if (ret == CLI_OK && (rc = lat_afile_open(mdp, &af)) == 0) {
            FILE *f = lat_afile_stream(af);
            fprintf(f, "# latlab lab\n\n%s\n\n", banner);
            if (base.shape == LAT_PIPE_COMPACT && !over)
                fprintf(f, "This machine runs the **compact shape, pinned**: producer -> q1 -> "
                           "worker (stamps, works, stamps, ships the sample); q1+wake, work and "
                           "e2e are honest pinned hops, q2+wake does not exist.\n\n");
            if (over) fprintf(f, "**%s**\n\n", LAB_OVERSUB_STAMP);
            fprintf(f,
                    "%" PRIu64 " events per run at %" PRIu64 "/s offered (open loop), "
                    "calibrated %.4f cycles/ns.  Timings on a shared, noisy machine vary; "
                    "every comparison below is against the baseline's own spread measured "
                    "in this run.\n\n## Run conditions\n\n",
                    events, rate, base.cal->cycles_per_ns);
            lat_runcond_write_markdown(&rcnd, f);
            for (int x = 0; x < NEXP; x++) {
                fprintf(f, "\n## %s (%s)\n\n", exp_name[x], exp_flag[x]);
                md_table(f, &ex[x], over);
                if (x != EXP_BASE)
                    fprintf(f,
                            "**Verdict: %s%s.** e2e p50 x%.2f, p99.9 x%.2f, max x%.2f, wall "
                            "x%.3f.  Fingerprint: %s.\n",
                            v[x].kind, v[x].where, v[x].p50_ratio, v[x].p999_ratio, v[x].max_ratio,
                            v[x].wall_ratio, v[x].fingerprint);
            }
            lat_pipe_result *b0 = &ex[0].r[0];
            agg bp50 = AGG(&ex[0], p50, LAT_PIPE_E2E), bp999 = AGG(&ex[0], p999, LAT_PIPE_E2E);
            double p50 = bp50.med;
            fprintf(f,
                    "\n## Against the seed's reference\n\nThe seed's full shape on an isolated "
                    "x86 server: e2e ~600 ns p50, ~3 us p99.9.  This machine, %s shape%s: e2e "
                    "p50 %.0f ns, p99.9 %.0f ns (baseline medians of %d runs).\n",
                    lat_pipe_shape_name(base.shape), over ? " (oversubscribed)" : ", pinned",
                    bp50.med, bp999.med, ex[0].n);
            char note[256];
            if (lab_backlog_note(&ex[0].cfg, b0, note, sizeof note))
                fprintf(f, "\n**Caution:** in baseline run 1 %s.\n", note);
            fprintf(f,
                    "\n## Instrumentation cost\n\nOne fenced stamp costs %" PRIu64
                    " ns = %.2f%% of the baseline e2e p50 (%.0f ns); %u stamps per event = "
                    "%.2f%%.  Goal: < 1%% per stamp.\n",
                    b0->stamp_cost_ns, 100.0 * (double)b0->stamp_cost_ns / p50, p50,
                    b0->stamps_per_event,
                    100.0 * (double)b0->stamp_cost_ns * b0->stamps_per_event / p50);
            if (flight_text[0]) {
                fprintf(f,
                        "\n## Flight recorder (alloc run, threshold = baseline e2e p99.9 = %" PRIu64
                        " ns)\n\n**%s**\n\n",
                        flight_thr, flight_text);
                if (flight_dump) fprintf(f, "```\n%s```\n", flight_dump);
                if (flight_file)
                    fprintf(f,
                            "\nThe whole frozen window (4096 samples) is in flight-alloc.txt.\n");
            }
            fprintf(f, "\n## Cause -> measurement -> fix\n\n");
            for (int x = 1; x < NEXP; x++)
                narrate(f, x, &ex[0], &ex[x], &v[x]);
            fprintf(f, "\nFiles: lab.json (every run), report.html, runs/<experiment>-<n>.json "
                       "and runs/<experiment>-<n>-<stage>.hlog (1 s interval logs).\n");
            rc = lat_afile_commit(af);
        }
        if (ret == CLI_OK && rc) ret = cli_lib_error(CMD, mdp, rc);

        if (ret == CLI_OK) {
            json_t *doc = json_object();
            json_object_set_new(doc, "tool", json_string("latlab lab"));
            json_object_set_new(doc, "banner", json_string(banner));
            json_object_set_new(doc, "shape", json_string(lat_pipe_shape_name(base.shape)));
            json_object_set_new(doc, "oversubscribed", json_boolean(over));
            if (over) json_object_set_new(doc, "warning", json_string(LAB_OVERSUB_STAMP));
            json_object_set_new(doc, "run_conditions", lat_runcond_json(&rcnd));
            json_t *vs = json_object();
            for (int x = 1; x < NEXP; x++) {
                json_t *o = json_object();
                json_object_set_new(o, "verdict", json_string(v[x].kind));
                json_object_set_new(o, "stage",
                                    v[x].dom_stage >= 0
                                        ? json_string(lat_pipe_stage_name(v[x].dom_stage))
                                        : json_null());
                json_object_set_new(o, "e2e_p50_ratio", json_real(v[x].p50_ratio));
                json_object_set_new(o, "e2e_p999_ratio", json_real(v[x].p999_ratio));
                json_object_set_new(o, "e2e_max_ratio", json_real(v[x].max_ratio));
                json_object_set_new(o, "wall_ratio", json_real(v[x].wall_ratio));
                json_object_set_new(o, "p999_spread", json_real(v[x].spread_e));
                json_object_set_new(o, "baseline_p999_spread", json_real(v[x].spread_b));
                json_object_set_new(o, "fingerprint", json_string(v[x].fingerprint));
                json_object_set_new(vs, exp_name[x], o);
            }
            json_object_set_new(doc, "verdicts", vs);
            json_object_set_new(doc, "runs", json_incref(jruns));
            if (flight_text[0]) {
                json_t *fl = json_object();
                json_object_set_new(fl, "experiment", json_string("alloc"));
                json_object_set_new(fl, "threshold_ns", json_integer((json_int_t)flight_thr));
                json_object_set_new(fl, "verdict", json_string(flight_text));
                json_object_set_new(doc, "flight", fl);
            }
            if ((rc = lat_write_json_atomic(jsp, doc)) != 0) ret = cli_lib_error(CMD, jsp, rc);
            if (ret == CLI_OK && json_out && (rc = lat_write_json_atomic(json_out, doc)) != 0)
                ret = cli_lib_error(CMD, json_out, rc);
            json_decref(doc);
        }

        if (ret == CLI_OK) {
            lat_report *rep = NULL;
            if ((rc = lat_report_create("latlab lab: the pipeline experiments", &rep)) == 0) {
                lat_report_text(rep, banner);
                if (over) lat_report_verdict(rep, LAT_VERDICT_WARN, LAB_OVERSUB_STAMP);
                lat_report_section(rep, "Run conditions");
                char buf[64];
                lat_report_kv(rep, "cpu model", rcnd.cpu_model);
                lat_report_kv(rep, "cpus online", rcnd.cpus_online);
                lat_report_kv(rep, "kernel", rcnd.kernel);
                lat_report_kv(rep, "virtualised", rcnd.virt);
                lat_report_kv(rep, "isolated", rcnd.isolated);
                snprintf(buf, sizeof buf, "%.4f", base.cal->cycles_per_ns);
                lat_report_kv(rep, "cycles/ns", buf);
                lat_report_section(rep, "Latency by percentile, per stage");
                report_stage_plots(rep, out, ex);
                for (int x = 0; x < NEXP; x++) {
                    char cap[96];
                    lat_report_section(rep, exp_name[x]);
                    snprintf(cap, sizeof cap, "%s (%s): per-stage latency", exp_name[x],
                             exp_flag[x]);
                    report_table(rep, cap, &ex[x]);
                    if (x != EXP_BASE) {
                        char t[512];
                        snprintf(t, sizeof t,
                                 "%s%s: e2e p50 x%.2f, p99.9 x%.2f, max x%.2f, wall "
                                 "x%.3f; %s",
                                 v[x].kind, v[x].where, v[x].p50_ratio, v[x].p999_ratio,
                                 v[x].max_ratio, v[x].wall_ratio, v[x].fingerprint);
                        lat_report_verdict(rep,
                                           strcmp(v[x].kind, "no significant change")
                                               ? LAT_VERDICT_WARN
                                               : LAT_VERDICT_INFO,
                                           t);
                    }
                }
                if (flight_text[0]) {
                    lat_report_section(rep, "Flight recorder (alloc run)");
                    lat_report_verdict(rep, LAT_VERDICT_INFO, flight_text);
                    if (flight_dump)
                        lat_report_pre(rep, "the frozen window around the outlier", flight_dump);
                }
                rc = lat_report_write(rep, htp);
                lat_report_free(rep);
            }
            if (rc) ret = cli_lib_error(CMD, htp, rc);
        }
        if (ret == CLI_OK)
            printf("wrote %s/LAB.md, lab.json, report.html, <stage>.svg, runs/\n", out);
        free(mdp);
        free(jsp);
        free(htp);
    }
    json_decref(jruns);
    free(flight_dump);
    for (int x = 0; x < NEXP; x++)
        for (int i = 0; i < ex[x].n; i++)
            lat_pipe_result_release(&ex[x].r[i]);
    free(ex);
    free(runs_dir);
    return ret;
}
