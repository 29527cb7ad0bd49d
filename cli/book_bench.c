/* book_bench.c - `latlab book bench SCENARIO|all`: the order-book HDR
 * scenarios (book/scenario.h), their tables, workload health, histograms
 * (.hlog + .hgrm per scenario), BENCH.md and report.html.
 *
 * Allocation counting: the latlab binary links the counting allocator
 * (latlab/alloccount.h), which counts calls made by the benchmark thread while
 * the measured window is open, so the report states the number instead of
 * assuming it.  Under sanitizers (which own the allocator) the count is
 * reported as unavailable. */
#include "cli.h"
#include "cliopts.h"
#include "book_bench.h"
#include "promcli.h"

#include "latlab/pipeline_report.h"
#include "latlab/json.h"
#include "latlab/alloccount.h"

#include "bench_report.h"
#include "book.h"
#include "scenario.h"
#include "latlab/atomicfile.h"
#include "latlab/budget.h"
#include "latlab/clock.h"
#include "latlab/error.h"
#include "latlab/hist.h"
#include "latlab/topo.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>

static uint64_t window_allocs; /* allocation calls in the last measured window */

static void window_cb(int begin, void *ud) {
    (void)ud;
    if (begin)
        lat_alloccount_begin();
    else
        window_allocs = lat_alloccount_end();
}

/* ---- usage --------------------------------------------------------------------------------- */

static const char *CMD = "book";

typedef book_bench_outcome run;

static int parse_seed(const char *s, uint64_t *out) {
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ') return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10); /* decimal: "010" is ten, not eight */
    if (*end || errno) return -1;
    *out = v;
    return 0;
}

static int opt_seed(const char *cmd, const char *flag, const char *v, void *dest) {
    if (parse_seed(v, dest) || *(uint64_t *)dest == 0)
        return cli_usage_error(cmd, "%s: '%s' is not a non-zero integer", flag, v);
    return 0;
}

/* What the options say (the table's destinations). */
typedef struct bb_opts {
    book_bench_cfg cfg;
    uint64_t depth, intervals;
    double open_rate, also_rate;
    int cpu;
    bool quick, warmup_set, measured_set;
    const char *out, *json, *which;
    cli_prom prom; /* --push: the scenarios' histograms as stage=<scenario> */
} bb_opts;

static bb_opts bo;

static const cli_opt bb_table[] = {
    CLI_SEEN_OPT("warmup", CLI_U64, &bo.cfg.warmup, "N",
                 "ops run before the measured window (default 200000)", 0, 1000000000, NULL,
                 &bo.warmup_set),
    CLI_SEEN_OPT("measured", CLI_U64, &bo.cfg.measured, "N", "recorded ops (default 1000000)", 1,
                 200000000, NULL, &bo.measured_set),
    CLI_CUSTOM_OPT("seed", opt_seed, &bo.cfg.seed, "N",
                   "xorshift seed (default 0xA5A5A5A5 = 2779096485; decimal)"),
    CLI_NUM_OPT("depth", CLI_U64, &bo.depth, "N",
                "resting orders the scenario holds (default per scenario)", 2, 10000000),
    CLI_NUM_OPT("open-loop", CLI_DOUBLE, &bo.open_rate, "RATE",
                "ops/s: each op is due at start + i/RATE and its latency runs\n"
                "from that intended time (coordinated omission handled by\n"
                "construction); default closed loop = pure service time",
                1, 1e9),
    CLI_NUM_OPT("also-open-loop", CLI_DOUBLE, &bo.also_rate, "RATE",
                "after the closed-loop runs, run mixed_70_20_10 open loop\n"
                "at RATE too (reported in its own table)",
                1, 1e9),
    CLI_FLAG_OPT("quick", &bo.quick, "2000 warm-up and 20000 measured ops (tests)"),
    CLI_NUM_OPT("cpu", CLI_INT, &bo.cpu, "N", "pin the benchmark thread to CPU N", 0, 4095),
    CLI_STR_OPT("out", CLI_STRING, &bo.out, "DIR",
                "output folder (default book-bench): <scenario>.hlog/.hgrm,\n"
                "BENCH.md, report.html, bench.json"),
    CLI_NUM_OPT("intervals", CLI_U64, &bo.intervals, "N",
                "interval histograms per scenario in the .hlog (default 10)", 1, 1000),
    CLI_STR_OPT("json", CLI_STRING, &bo.json, "FILE", "also write the results as JSON to FILE"),
    CLI_PROM_PUSH_ROWS(bo.prom),
    CLI_END,
};

const cli_spec book_bench_spec = {
    .name = "book",
    .synopsis =
        "latlab book bench SCENARIO|all [--warmup N] [--measured N] [--seed N] [--depth N]\n"
        "                         [--open-loop RATE] [--also-open-loop RATE] [--quick]\n"
        "                         [--cpu N] [--out DIR] [--intervals N] [--json FILE]",
    .about = "The HDR tail-latency scenarios on latlab's order book, closed loop (service\n"
             "time) or open loop (latency from the intended arrival time); writes per\n"
             "scenario .hlog/.hgrm and BENCH.md, report.html, bench.json in --out.\n"
             "scenarios: add_only cancel_only aggressive_walk mixed_70_20_10 thin_book_sweep\n"
             "           mass_cancel_burst snapshot_capture (or all)\n",
    .opts = bb_table,
    .max_args = -1,
};

/* Options and the scenario, checked before any work: 0, -1 after --help, or
 * the exit status.  sel[]: the scenarios chosen, *nsel how many. */
static int bb_parse(int argc, char **argv, int sel[BOOK_SCN_COUNT], int *nsel) {
    memset(&bo, 0, sizeof bo);
    bo.cfg = (book_bench_cfg){.seed = 0xA5A5A5A5ull,
                              .warmup = 200000,
                              .measured = 1000000,
                              .intervals = 10,
                              .window = window_cb};
    bo.cpu = -1, bo.out = "book-bench", bo.intervals = 10;
    cli_prom_init(&bo.prom);
    bo.prom.metric = "latlab_book_latency_seconds";
    int rc = cli_parse_one(&book_bench_spec, argc, argv,
                           "bench needs one SCENARIO (or all); see 'latlab book bench --help'",
                           &bo.which);
    if (rc) return rc;
    bo.cfg.depth = (uint32_t)bo.depth;
    bo.cfg.intervals = (uint32_t)bo.intervals;
    if (bo.quick) {
        if (!bo.warmup_set) bo.cfg.warmup = 2000;
        if (!bo.measured_set) bo.cfg.measured = 20000;
    }
    if (cli_prom_check(&bo.prom, CMD)) return CLI_USAGE;
    if (!strcmp(bo.which, "all")) {
        for (int i = 0; i < BOOK_SCN_COUNT; i++)
            sel[i] = 1;
        *nsel = BOOK_SCN_COUNT;
        return 0;
    }
    int s = book_scn_from_name(bo.which);
    if (s < 0 && !bo.prom.push_delete)
        return cli_usage_error(CMD,
                               "unknown scenario '%s' (add_only, cancel_only, "
                               "aggressive_walk, mixed_70_20_10, thin_book_sweep, "
                               "mass_cancel_burst, snapshot_capture or all)",
                               bo.which);
    if (s >= 0) sel[s] = 1, *nsel = 1;
    return 0;
}

/* Every pass: run, print, write its histograms.  *done: the runs that
 * finished.  CLI_OK or the exit status after a message. */
static int run_passes(run *runs, size_t nruns, const int sel[BOOK_SCN_COUNT], int nsel,
                      size_t *done) {
    char errbuf[4400];
    book_bench_print_head(stdout);
    for (size_t pass = 0; pass < nruns; pass++) {
        book_bench_cfg rcfg;
        int s = book_bench_pass(&bo.cfg, sel, nsel, pass, bo.open_rate, bo.also_rate, &rcfg);
        cli_progress("running %s...", book_scn_name((book_scn)s));
        run *rn = &runs[*done];
        int e = book_bench_run((book_scn)s, &rcfg, &rn->r);
        cli_progress_done();
        if (e) return cli_lib_error(CMD, book_scn_name((book_scn)s), e);
        rn->allocs = window_allocs;
        rn->open_loop = rcfg.open_loop_rate > 0;
        rn->counted = lat_alloccount_available();
        (*done)++;
        book_bench_print_run(stdout, rn);
        fflush(stdout);
        char stem[64];
        snprintf(stem, sizeof stem, "%s%s", book_scn_name(rn->r.scn), rn->open_loop ? ".open" : "");
        if (book_bench_write_hist(bo.out, stem, rn, errbuf, sizeof errbuf))
            return cli_error(CMD, "%s", errbuf);
    }
    return CLI_OK;
}

/* bench.json in --out, and --json. */
static int write_results_json(const book_bench_doc *doc) {
    json_t *o = book_bench_doc_json(doc);
    char path[4096];
    snprintf(path, sizeof path, "%s/bench.json", bo.out);
    int rc = CLI_OK, e;
    if (!o || (e = lat_write_json_atomic(path, o))) rc = cli_lib_error(CMD, path, o ? e : -ENOMEM);
    if (bo.json && o && (e = lat_write_json_atomic(bo.json, o)))
        rc = cli_lib_error(CMD, bo.json, e);
    json_decref(o);
    return rc;
}

/* BENCH.md, report.html and the JSON for the runs that finished. */
static int write_results(const run *runs, size_t done, int argc, char **argv) {
    char errbuf[4400];
    int rc = CLI_OK;
    printf("values in ns; closed loop = pure service time; open loop = latency from the "
           "intended arrival time\n");
    lat_budget bud;
    lat_budget_measure(&bud, bo.cfg.cal, (double)runs[0].r.timer_floor_p50_ns, 2,
                       runs[0].r.total.sig_figs);
    lat_pipe_print_budget(stdout, &bud);
    lat_runcond cond;
    lat_runcond_collect(&cond, NULL);
    char cmdline[1024] = "latlab book";
    for (int i = 0; i < argc; i++) {
        size_t l = strlen(cmdline);
        snprintf(cmdline + l, sizeof cmdline - l, " %s", argv[i]);
    }
    book_bench_doc doc = {.runs = runs,
                          .n = done,
                          .rc = &cond,
                          .cfg = &bo.cfg,
                          .bud = &bud,
                          .cpu = bo.cpu,
                          .cmdline = cmdline,
                          .alloc_counted = lat_alloccount_available(),
                          .no_pmu = book_bench_no_pmu(&cond)};
    if (book_bench_write_md(bo.out, &doc, errbuf, sizeof errbuf)) rc = cli_error(CMD, "%s", errbuf);
    if (book_bench_write_html(bo.out, &doc, errbuf, sizeof errbuf))
        rc = cli_error(CMD, "%s", errbuf);
    if (write_results_json(&doc)) rc = CLI_ERR;
    printf("wrote %s/BENCH.md, %s/report.html, %s/bench.json and .hlog/.hgrm per scenario\n",
           bo.out, bo.out, bo.out);
    return rc;
}

/* After the local results: an unreachable gateway exits 1. */
static int push_runs(const run *runs, size_t done) {
    const char *names[LAT_PROM_MAX_SERIES];
    const lat_hist *hs[LAT_PROM_MAX_SERIES];
    char stems[LAT_PROM_MAX_SERIES][64];
    size_t n = done < LAT_PROM_MAX_SERIES ? done : LAT_PROM_MAX_SERIES;
    for (size_t i = 0; i < n; i++) {
        snprintf(stems[i], sizeof stems[i], "%s%s", book_scn_name(runs[i].r.scn),
                 runs[i].open_loop ? ".open" : "");
        names[i] = stems[i];
        hs[i] = &runs[i].r.total;
    }
    return cli_prom_push(&bo.prom, CMD, (int)n, names, hs) ? CLI_ERR : CLI_OK;
}

int book_bench_main(int argc, char **argv) {
    int sel[BOOK_SCN_COUNT] = {0}, nsel = 0;
    int rc = bb_parse(argc, argv, sel, &nsel);
    if (rc) return rc < 0 ? CLI_OK : rc;
    if (bo.prom.push_delete) { /* the group is job/run/host: no run needed */
        static const char *const any[1] = {"all"};
        return cli_prom_push(&bo.prom, CMD, 1, any, NULL);
    }
    if (bo.cpu >= 0) {
        int e = lat_pin_thread(bo.cpu);
        if (e) return cli_lib_error(CMD, "--cpu", e);
    }
    int e = lat_mkdir_p(bo.out);
    if (e) return cli_lib_error(CMD, bo.out, e);
    bo.cfg.cal = lat_clock_default();
    size_t nruns = (size_t)nsel + (bo.also_rate > 0 ? 1 : 0), done = 0;
    run *runs = calloc(nruns, sizeof(run));
    if (!runs) return cli_error(CMD, "out of memory");
    rc = run_passes(runs, nruns, sel, nsel, &done);
    if (done && write_results(runs, done, argc, argv)) rc = CLI_ERR;
    if (bo.prom.push_url && done && push_runs(runs, done)) rc = CLI_ERR;
    for (size_t i = 0; i < done; i++)
        book_bench_result_fini(&runs[i].r);
    free(runs);
    return rc;
}
