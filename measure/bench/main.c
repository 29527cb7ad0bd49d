/* main.c - lat_bench_main(): the command line every LAT_BENCH_MAIN program
 * gets (--filter --list --json --compare --gate --seed --cooldown-ms --quick,
 * --push to a Prometheus Pushgateway),
 * run, print, save the JSON report and compare with a baseline.
 *
 * It writes only to the FILE*s it is given: tables to `out`, warnings and
 * errors to `err`. */
#include "internal.h"

#include "latlab/json.h"
#include "alloc_internal.h"
#include "latlab/atomicfile.h"
#include "latlab/clock.h"
#include "latlab/error.h"
#include "latlab/http.h"
#include "latlab/prom.h"
#include "latlab/topo.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char usage_fmt[] =
    "usage: %s [options]\n"
    "  --filter PAT        run only benchmarks whose group/name contains PAT (or matches\n"
    "                      it as a glob when PAT has * ? [)\n"
    "  --list              list the benchmarks and exit\n"
    "  --json FILE|auto    write the JSON report (auto: $" LAT_BENCH_ENV_RESULTS
    " or " LAT_BENCH_DEFAULT_RESULTS "/)\n"
    "  --compare [FILE|auto]  compare with FILE or the newest compatible report in the\n"
    "                      results folder (auto also saves this run there)\n"
    "  --gate              exit 1 when a comparison finds a regression\n"
    "  --materiality PCT   smallest change that counts (default 5)\n"
    "  --cpu-time          compare CPU time per op (thread CPU clock) instead of wall\n"
    "                      time (leaves out time spent waiting for a CPU)\n"
    "  --seed N            run benchmarks in a seeded random order\n"
    "  --cooldown-ms N     unmeasured pause between benchmarks\n"
    "  --quick             short run (10 ms chunks, 0.1 s warm-up, 0.5 s budget)\n"
    "  --full              full-length run (50 ms chunks, 1 s warm-up, 5 s budget)\n"
    "  --push URL          at the end, PUT each benchmark's time per operation (one\n"
    "                      histogram of its samples, latlab_bench_op_seconds) to a\n"
    "                      Prometheus Pushgateway (http://HOST:PORT); unreachable: exit 1,\n"
    "                      the report is still written\n"
    "  --push-run NAME     run label of the push (default: SUITE-<UTC time>)\n"
    "  env " LAT_BENCH_ENV_NO_PIN "=1 disables pinning to performance cores\n"
    "  env " LAT_BENCH_ENV_RUNNER_CPU "=N runs the measuring thread on CPU N (default:\n"
    "                      the CPU it starts on)\n";

/* The tool's strict rule: decimal digits only (no sign, no space, no 0x). */
static int parse_u64(const char *s, uint64_t *out) {
    if (!s || *s < '0' || *s > '9') return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end) return -1;
    *out = v;
    return 0;
}

/* The commit the program was built from: $LAT_GIT_COMMIT when set (a CI or a
 * wrapper knows best), else what the build recorded (LAT_BUILD_COMMIT, from
 * CMake at configure time); never a subprocess from inside the library. */
static char *git_commit(void) {
    const char *env = getenv("LAT_GIT_COMMIT");
    if (env && *env) return lat__strdup(env);
#ifdef LAT_BUILD_COMMIT
    if (strlen(LAT_BUILD_COMMIT) >= 7) return lat__strdup(LAT_BUILD_COMMIT);
#endif
    return NULL;
}

static const char *results_dir(void) {
    const char *d = getenv(LAT_BENCH_ENV_RESULTS);
    return d && *d ? d : LAT_BENCH_DEFAULT_RESULTS;
}

/* The machine's run conditions (topo component) plus the harness's own. */
static json_t *run_conditions(const lat_bench_runner *r, FILE *err, const char *prog) {
    lat_runcond *rc = lat__calloc(1, sizeof *rc);
    json_t *c = NULL;
    if (rc && lat_runcond_collect(rc, NULL) == 0) {
        c = lat_runcond_json(rc);
        for (int i = 0; i < rc->nwarnings; i++)
            fprintf(err, "%s: warning: %s\n", prog, rc->warnings[i]);
    }
    lat__free(rc);
    if (!c) c = json_object();
    if (!c) return NULL;
    if (!r->cfg.clock_ns) {
        const lat_clock_cal *cal = lat_clock_default();
        json_object_set_new(c, "cycles_per_ns", json_real(cal->cycles_per_ns));
        json_object_set_new(c, "clock_span_ns", json_integer((json_int_t)cal->span_ns));
    }
    json_t *cpus = json_array();
    for (int i = 0; i < r->ncpus; i++)
        json_array_append_new(cpus, json_integer(r->cpus[i]));
    json_object_set_new(c, "bench_pin", json_boolean(r->cfg.pin));
    json_object_set_new(c, "bench_pin_cpus", cpus);
    json_object_set_new(c, "bench_runner_cpu", json_integer(r->pinned_cpu));
    json_object_set_new(c, "bench_turns", json_boolean(r->turn_started));
    json_object_set_new(c, "bench_counters", json_string(r->pmu_note[0] ? r->pmu_note : "ok"));
    json_object_set_new(c, "bench_config",
                        json_pack("{s:I,s:I,s:I,s:i,s:i,s:I,s:I}", "target_chunk_ns",
                                  (json_int_t)r->cfg.target_chunk_ns, "warm_up_ns",
                                  (json_int_t)r->cfg.warm_up_ns, "budget_ns",
                                  (json_int_t)r->cfg.budget_ns, "min_samples",
                                  (int)r->cfg.min_samples, "max_samples", (int)r->cfg.max_samples,
                                  "sample_duration_ns", (json_int_t)r->cfg.sample_duration_ns,
                                  "cooldown_ns", (json_int_t)r->cfg.cooldown_ns));
    return c;
}

static char *auto_path(const lat_bench_report *rep) {
    const char *dir = results_dir();
    if (lat_mkdir_p(dir) != 0) return NULL;
    time_t t = (time_t)(rep->timestamp_ns / 1000000000);
    struct tm tm;
    gmtime_r(&t, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", &tm);
    size_t n = strlen(dir) + strlen(rep->suite) + 64;
    char *p = lat__alloc(n);
    if (p)
        snprintf(p, n, "%s/%s-%s-%03d.json", dir, rep->suite, stamp,
                 (int)((rep->timestamp_ns / 1000000) % 1000));
    return p;
}

/* What the command line asked for. */
typedef struct main_opts {
    const char *prog, *filter, *json_path, *compare;
    bool list, gate, quick, seeded, cpu_time;
    uint64_t seed, cooldown_ms;
    double materiality;
    const char *push_url;              /* --push */
    char push_run[LAT_PROM_LABEL_MAX]; /* --push-run */
} main_opts;

enum {
    O_FILTER = 1000,
    O_LIST,
    O_JSON,
    O_COMPARE,
    O_GATE,
    O_SEED,
    O_COOL,
    O_QUICK,
    O_FULL,
    O_MAT,
    O_CPU,
    O_PUSH,
    O_PUSH_RUN,
    O_HELP
};

/* One option; returns -1 to go on, else the exit status. */
static int take_option(main_opts *o, int c, int argc, char **argv, FILE *out, FILE *err) {
    switch (c) {
    case O_FILTER:
        o->filter = optarg;
        return -1;
    case O_LIST:
        o->list = true;
        return -1;
    case O_JSON:
        o->json_path = optarg;
        return -1;
    case O_COMPARE:
        if (optarg)
            o->compare = optarg;
        else if (optind < argc && argv[optind][0] != '-')
            o->compare = argv[optind++]; /* "--compare FILE" as well as "--compare=FILE" */
        else
            o->compare = "auto";
        return -1;
    case O_GATE:
        o->gate = true;
        return -1;
    case O_CPU:
        o->cpu_time = true;
        return -1;
    case O_SEED:
        if (parse_u64(optarg, &o->seed)) {
            fprintf(err, "%s: --seed: not a non-negative integer: %s\n", o->prog, optarg);
            return 2;
        }
        o->seeded = true;
        return -1;
    case O_COOL:
        if (parse_u64(optarg, &o->cooldown_ms) || o->cooldown_ms > 3600000) {
            fprintf(err, "%s: --cooldown-ms: not a number of ms (0..3600000): %s\n", o->prog,
                    optarg);
            return 2;
        }
        return -1;
    case O_QUICK:
        o->quick = true;
        return -1;
    case O_FULL:
        o->quick = false;
        return -1;
    case O_MAT: {
        char *end;
        double v = strtod(optarg, &end);
        if (*optarg < '0' || *optarg > '9' || strpbrk(optarg, "xXpP") || *end ||
            !(v >= 0 && v < 100)) {
            fprintf(err, "%s: --materiality: not a percentage in [0,100): %s\n", o->prog, optarg);
            return 2;
        }
        o->materiality = v / 100;
        return -1;
    }
    case O_PUSH: {
        char host[256], prefix[512];
        int port;
        if (lat_http_parse_url(optarg, host, sizeof host, &port, prefix, sizeof prefix) != 0) {
            fprintf(err, "%s: --push: not a URL like http://127.0.0.1:9091: %s\n", o->prog, optarg);
            return 2;
        }
        o->push_url = optarg;
        return -1;
    }
    case O_PUSH_RUN:
        if (!*optarg || strlen(optarg) >= sizeof o->push_run) {
            fprintf(err, "%s: --push-run: empty or longer than %zu bytes\n", o->prog,
                    sizeof o->push_run - 1);
            return 2;
        }
        snprintf(o->push_run, sizeof o->push_run, "%s", optarg);
        return -1;
    case 'h':
    case O_HELP:
        fprintf(out, usage_fmt, o->prog);
        return 0;
    case ':':
        fprintf(err, "%s: option %s needs a value\n", o->prog, argv[optind - 1]);
        return 2;
    default:
        fprintf(err, "%s: unknown option %s\nTry '%s --help'.\n", o->prog, argv[optind - 1],
                o->prog);
        return 2;
    }
}

/* Returns -1 when the run should go on, else the exit status. */
static int parse_args(main_opts *o, int argc, char **argv, FILE *out, FILE *err) {
    static const struct option opts[] = {{"filter", required_argument, 0, O_FILTER},
                                         {"list", no_argument, 0, O_LIST},
                                         {"json", required_argument, 0, O_JSON},
                                         {"compare", optional_argument, 0, O_COMPARE},
                                         {"gate", no_argument, 0, O_GATE},
                                         {"seed", required_argument, 0, O_SEED},
                                         {"cooldown-ms", required_argument, 0, O_COOL},
                                         {"quick", no_argument, 0, O_QUICK},
                                         {"full", no_argument, 0, O_FULL},
                                         {"materiality", required_argument, 0, O_MAT},
                                         {"cpu-time", no_argument, 0, O_CPU},
                                         {"push", required_argument, 0, O_PUSH},
                                         {"push-run", required_argument, 0, O_PUSH_RUN},
                                         {"help", no_argument, 0, O_HELP},
                                         {0, 0, 0, 0}};
    optind = 1;
    opterr = 0;
    int c, st;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1)
        if ((st = take_option(o, c, argc, argv, out, err)) >= 0) return st;
    if (optind < argc) {
        fprintf(err, "%s: unexpected argument %s\n", o->prog, argv[optind]);
        return 2;
    }
    if (o->push_run[0] && !o->push_url) {
        fprintf(err, "%s: --push-run: only with --push\n", o->prog);
        return 2;
    }
    return -1;
}

/* --push: each result's per-sample ns/op as one histogram (in picoseconds, so
 * sub-ns operations keep three digits), stage=GROUP/NAME, to a Pushgateway.
 * Returns 0 or 1 (the error printed). */
static int push_results(const main_opts *o, const lat_bench_report *rep, FILE *err) {
    int n = rep->n_results < LAT_PROM_MAX_SERIES ? (int)rep->n_results : LAT_PROM_MAX_SERIES;
    if (n == 0) return 0;
    if ((uint32_t)n < rep->n_results)
        fprintf(err, "%s: --push: only the first %d benchmarks are pushed\n", o->prog, n);
    char run[LAT_PROM_LABEL_MAX];
    if (o->push_run[0]) {
        snprintf(run, sizeof run, "%s", o->push_run);
    } else {
        char ts[32];
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(ts, sizeof ts, "%Y%m%dT%H%M%SZ", &tm);
        snprintf(run, sizeof run, "%.80s-%s", rep->suite, ts);
    }
    char(*names)[LAT_PROM_LABEL_MAX] = lat__calloc((size_t)n, sizeof *names);
    const char **np = lat__calloc((size_t)n, sizeof *np);
    lat_hist *h = lat__calloc((size_t)n, sizeof *h);
    lat_prom_exporter *e = NULL;
    char host[LAT_PROM_LABEL_MAX] = "localhost", why[512] = "";
    int rc = -ENOMEM;
    if (!names || !np || !h) goto out;
    gethostname(host, sizeof host - 1);
    for (int i = 0; i < n; i++) {
        const lat_bench_result *res = &rep->results[i];
        snprintf(names[i], sizeof names[i], "%s/%s", res->group, res->name);
        np[i] = names[i];
        if ((rc = lat_hist_init(&h[i], 1, INT64_C(1000000000000000), 3)) != 0) goto out;
        for (uint32_t k = 0; k < res->n; k++)
            if (res->ns_per_op[k] >= 0)
                lat_hist_record(&h[i], (int64_t)(res->ns_per_op[k] * 1e3 + 0.5));
    }
    lat_prom_exporter_config c = {.metric = "latlab_bench_op_seconds",
                                  .run = run,
                                  .host = host,
                                  .nseries = n,
                                  .stages = np,
                                  .unit_s = 1e-12};
    if ((rc = lat_prom_exporter_create(&c, &e)) != 0) goto out;
    for (int i = 0; i < n && !rc; i++)
        rc = lat_prom_exporter_set(e, i, &h[i]);
    if (!rc) rc = lat_prom_push(e, o->push_url, "latlab", false, 5000, why, sizeof why);
out:
    if (rc)
        fprintf(err, "%s: --push %s: %s\n", o->prog, o->push_url, why[0] ? why : lat_strerror(rc));
    else
        fprintf(err, "%s: pushed %d benchmark(s) to %s job=latlab run=%s host=%s\n", o->prog, n,
                o->push_url, run, host);
    lat_prom_exporter_destroy(e);
    for (int i = 0; h && i < n; i++)
        lat_hist_fini(&h[i]);
    lat__free(h);
    lat__free(np);
    lat__free(names);
    return rc ? 1 : 0;
}

/* Compare rep with the baseline asked for; returns the exit status so far. */
static int compare_with_baseline(const main_opts *o, const lat_bench_report *rep, FILE *out,
                                 FILE *err) {
    char why[512] = "";
    char *base_path = NULL;
    lat_bench_report *base = NULL;
    lat_bench_comparison *cmp = NULL;
    int status = 0;
    bool is_auto = strcmp(o->compare, "auto") == 0;
    if (is_auto) {
        if (lat_bench_find_baseline(results_dir(), rep, &base_path, why, sizeof why))
            fprintf(err, "%s: no compatible baseline: %s\n", o->prog, why);
    } else {
        base_path = lat__strdup(o->compare);
    }
    if (!base_path) return 0;
    int lrc = lat_bench_report_load(base_path, &base, why, sizeof why);
    if (lrc) {
        fprintf(err, "%s: cannot read %s: %s\n", o->prog, base_path,
                why[0] ? why : lat_strerror(lrc));
        status = 1;
    } else if (lat_bench_compatible(base, rep, why, sizeof why) != 0) {
        fprintf(err, "%s: %s is not comparable: %s\n", o->prog, base_path, why);
    } else {
        lat_bench_compare_opts co = {.alpha = 0.05,
                                     .cpu_time = o->cpu_time,
                                     .materiality = o->materiality,
                                     .noise_mult = 1,
                                     .min_cpu_share = 0.9,
                                     .drift_mult = 3};
        /* auto: the newest report is the baseline and up to 10 recent
         * ones give the run-to-run drift (see lat_bench_compare_history). */
        lat_bench_report **hist = NULL;
        size_t nh = 0;
        int crc;
        if (is_auto &&
            lat_bench_load_history(results_dir(), rep, 10, &hist, &nh, why, sizeof why) == 0)
            crc = lat_bench_compare_history((const lat_bench_report *const *)hist, nh, rep, &co,
                                            &cmp);
        else
            crc = lat_bench_compare(base, rep, &co, &cmp);
        for (size_t h = 0; h < nh; h++)
            lat_bench_report_destroy(hist[h]);
        free(hist);
        if (crc == 0) {
            cmp->baseline = lat__strdup(base_path);
            lat_bench_comparison_print(cmp, out);
            if (cmp->inconclusive)
                fprintf(err,
                        "%s: note: %u result(s) inconclusive: the shift is within the "
                        "runs' noise (scatter, run-to-run drift) or the machine was "
                        "busy; rerun on a quiet machine\n",
                        o->prog, cmp->inconclusive);
            if (o->gate && cmp->regressed) {
                fprintf(err, "%s: gate: %u regression(s)\n", o->prog, cmp->regressed);
                status = 1;
            }
        }
    }
    lat_bench_comparison_destroy(cmp);
    lat_bench_report_destroy(base);
    lat__free(base_path);
    return status;
}

/* Save the report where --json (or --compare auto) says; 0 or 1. */
static int save_report(const main_opts *o, const lat_bench_report *rep, FILE *err) {
    char *save_path = !o->json_path || strcmp(o->json_path, "auto") == 0
                          ? auto_path(rep)
                          : lat__strdup(o->json_path);
    int src = save_path ? lat_bench_report_save(rep, save_path) : -ENOMEM;
    if (src)
        fprintf(err, "%s: writing %s: %s\n", o->prog, save_path ? save_path : "report",
                lat_strerror(src));
    else
        fprintf(err, "%s: report written to %s\n", o->prog, save_path);
    lat__free(save_path);
    return src ? 1 : 0;
}

/* Registered, filtered and listed: 1 (error), 0 (listed: done) or -1 (run). */
static int select_cases(const main_opts *o, lat_bench_runner *r, int (*reg)(lat_bench_runner *r),
                        FILE *out, FILE *err) {
    int rc;
    if ((rc = reg(r)) != 0) {
        fprintf(err, "%s: registering benchmarks failed: %s\n", o->prog, lat_strerror(rc));
        return 1;
    }
    if (o->filter && lat_bench_runner_filter(r, o->filter)) return 1;
    size_t selected = 0;
    for (size_t i = 0; i < lat_bench_case_count(r); i++) {
        bool sel = lat_bench_case_selected(r, i);
        selected += sel;
        if (o->list && sel) fprintf(out, "%s\n", lat_bench_case_name(r, i));
    }
    if (o->list) return 0;
    if (selected == 0) {
        fprintf(err, "%s: no benchmark matches --filter %s\n", o->prog, o->filter ? o->filter : "");
        return 1;
    }
    return -1;
}

int lat_bench_main(int argc, char **argv, const char *suite, int (*reg)(lat_bench_runner *r),
                   unsigned flags, FILE *out, FILE *err) {
    main_opts o = {.prog = argc > 0 && argv[0] ? argv[0] : suite,
                   .quick = (flags & LAT_BENCH_MAIN_QUICK) != 0,
                   .materiality = 0.05};
    int status = parse_args(&o, argc, argv, out, err);
    if (status >= 0) return status;

    lat_bench_config cfg;
    if (o.quick)
        lat_bench_config_quick(&cfg);
    else
        lat_bench_config_default(&cfg);
    cfg.shuffle = o.seeded;
    cfg.seed = o.seed;
    cfg.cooldown_ns = o.cooldown_ms * 1000000ull;

    lat_bench_runner *r = NULL;
    int rc = lat_bench_runner_create(suite, &cfg, &r);
    if (rc) {
        fprintf(err, "%s: %s\n", o.prog, lat_strerror(rc));
        return 1;
    }
    status = select_cases(&o, r, reg, out, err);
    if (status >= 0) goto done;
    rc = lat_bench_run(r);
    lat_bench_report *rep = r->report;
    status = 1;
    if (!rep) goto done;
    rep->git_commit = git_commit();
    rep->conditions = run_conditions(r, err, o.prog);
    lat_bench_report_print(rep, out);
    fflush(out);
    if (rc) fprintf(err, "%s: a benchmark failed: %s\n", o.prog, lat_strerror(rc));
    for (uint32_t i = 0; i < rep->n_results; i++)
        if (rep->results[i].unstable)
            fprintf(err, "%s: warning: %s/%s: run stability is weak\n", o.prog,
                    rep->results[i].group, rep->results[i].name);
    status = rc ? 1 : 0;
    if (o.compare && compare_with_baseline(&o, rep, out, err)) status = 1;
    if ((o.json_path || (o.compare && strcmp(o.compare, "auto") == 0)) && save_report(&o, rep, err))
        status = 1;
    /* After the report is written: an unreachable gateway still exits 1. */
    if (o.push_url && push_results(&o, rep, err)) status = 1;
done:
    lat_bench_runner_destroy(r);
    return status;
}
