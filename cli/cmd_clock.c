/* cmd_clock.c - `latlab clock` (warm-up 1): is the cycle counter's ratio stable,
 * does it drift, what does a read cost?
 *
 * Three tightest-bracket calibrations against CLOCK_MONOTONIC_RAW, a drift
 * check against CLOCK_MONOTONIC, the median cost of back-to-back unfenced,
 * fenced and clock_gettime reads (pinned to the CPU it started on), the
 * counter's granularity and the invariant-TSC flag. */
#include "cli.h"
#include "cliopts.h"

#include "latlab/json.h"
#include "latlab/atomicfile.h"
#include "latlab/clock.h"
#include "latlab/error.h"
#include "latlab/stats.h"
#include "latlab/topo.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCAL 3

static uint64_t window_ms = 200, samples = 100000;
static double drift_s = 3.0;
static const char *json_path;

static int parse_drift(const char *cmd, const char *flag, const char *v, void *dest) {
    if (cli_parse_double(cmd, flag, v, 0, 3600, dest)) return CLI_USAGE;
    double d = *(double *)dest;
    if (d > 0 && d < 0.001)
        return cli_usage_error(cmd, "%s: %s is below 1 ms (use 0 to skip)", flag, v);
    return 0;
}

static const cli_opt clock_opts[] = {
    CLI_NUM_OPT("window-ms", CLI_U64, &window_ms, "N",
                "calibration window in ms (1..60000, default 200)", 1, 60000),
    CLI_CUSTOM_OPT("drift-s", parse_drift, &drift_s, "S",
                   "drift-check window in seconds (0 skips it; up to 3600; default 3)"),
    CLI_NUM_OPT("samples", CLI_U64, &samples, "N",
                "read pairs per cost figure (1000..100000000, default 100000)", 1000, 100000000),
    CLI_STR_OPT("json", CLI_PATH, &json_path, "FILE",
                "also write the results (and the run conditions) as JSON"),
    CLI_END,
};

const cli_spec cmd_clock_spec = {
    .name = "clock",
    .synopsis = "latlab clock [OPTIONS]",
    .about = "Calibrate the cycle counter three times against CLOCK_MONOTONIC_RAW (tightest of\n"
             "32 brackets at each end of the window), check its drift against CLOCK_MONOTONIC,\n"
             "and measure what a read costs (median of back-to-back pairs: unfenced, fenced,\n"
             "clock_gettime), the counter's granularity and whether the TSC is invariant.\n",
    .opts = clock_opts,
};

static int write_json(const lat_clock_cal cal[NCAL], double spread_ppm,
                      const lat_clock_drift_result *drift, const lat_clock_read_cost *rcost,
                      double unf_ns, double fen_ns, bool pinned, uint64_t gran, double gran_ns,
                      int inv) {
    lat_runcond cond;
    json_t *cals = json_array(), *root = json_object();
    if (!root || !cals) {
        json_decref(cals);
        json_decref(root);
        return -ENOMEM;
    }
    json_object_set_new(root, "calibrations", cals);
    for (int i = 0; i < NCAL; i++)
        json_array_append_new(cals, lat_clock_cal_json(&cal[i]));
    json_object_set_new(root, "spread_ppm", json_real(spread_ppm));
    if (drift_s > 0)
        json_object_set_new(root, "drift",
                            json_pack("{s:s, s:f, s:I, s:I, s:f, s:f}", "clock", "CLOCK_MONOTONIC",
                                      "seconds", drift_s, "os_ns", (json_int_t)drift->os_ns,
                                      "counter_ns", (json_int_t)drift->counter_ns, "drift_ppm",
                                      drift->drift_ppm, "error_ppm", drift->error_ppm));
    else
        json_object_set_new(root, "drift", json_null());
    json_object_set_new(root, "read_cost_p50",
                        json_pack("{s:f, s:f, s:f, s:I, s:I, s:I, s:b}", "unfenced_ns", unf_ns,
                                  "fenced_ns", fen_ns, "clock_gettime_ns",
                                  (double)rcost->gettime_ns, "unfenced_cycles",
                                  (json_int_t)rcost->unfenced_cycles, "fenced_cycles",
                                  (json_int_t)rcost->fenced_cycles, "samples", (json_int_t)samples,
                                  "pinned", (int)pinned));
    json_object_set_new(root, "granularity_cycles", json_integer((json_int_t)gran));
    json_object_set_new(root, "granularity_ns", json_real(gran_ns));
    json_object_set_new(root, "invariant_tsc", inv < 0 ? json_null() : json_boolean(inv));
    if (lat_runcond_collect(&cond, NULL) == 0)
        json_object_set_new(root, "run_conditions", lat_runcond_json(&cond));
    return cli_write_json("clock", json_path, root);
}

int cmd_clock(int argc, char **argv) {
    int first, prc = cli_parse(&cmd_clock_spec, argc, argv, &first);
    if (prc) return prc < 0 ? CLI_OK : prc;

    int ret = CLI_ERR, rc;
    uint64_t *v = NULL;
    lat_clock_cal cal[NCAL];
    for (int i = 0; i < NCAL; i++) {
        cli_progress("calibration %d of %d (%llu ms)", i + 1, NCAL, (unsigned long long)window_ms);
        rc = lat_clock_calibrate(&cal[i], window_ms * 1000000ull, 32);
        cli_progress_done();
        if (rc) {
            ret = cli_lib_error("clock", "calibration", rc);
            goto out;
        }
        printf("calibration: %.4f cycles/ns  (bracket %llu cycles, error %.2f ppm, took %.1f ms)\n",
               cal[i].cycles_per_ns, (unsigned long long)cal[i].bracket_cycles, cal[i].error_ppm,
               (double)cal[i].elapsed_ns / 1e6);
        if (cal[i].counter_hz)
            printf("             cntfrq_el0 %llu Hz, measured differs by %+.1f ppm\n",
                   (unsigned long long)cal[i].counter_hz, cal[i].counter_hz_diff_ppm);
    }
    double rates[NCAL];
    for (int i = 0; i < NCAL; i++)
        rates[i] = cal[i].cycles_per_ns;
    double spread_ppm = lat_stats_range_ppm(rates, NCAL);
    printf("spread:      %.3f ppm across %d calibrations\n", spread_ppm, NCAL);
    fflush(stdout);

    lat_clock_drift_result drift = {0, 0, 0, 0};
    if (drift_s > 0) {
        cli_progress("drift check (%.3g s)", drift_s);
        rc = lat_clock_drift(&cal[0], CLOCK_MONOTONIC, (uint64_t)llround(drift_s * 1e9), &drift);
        cli_progress_done();
        if (rc) {
            ret = cli_lib_error("clock", "drift check", rc);
            goto out;
        }
        printf("%.3gs window: os=%.3fms tsc=%.3fms drift=%+.3fppm  (vs CLOCK_MONOTONIC; noise %.3f "
               "ppm)\n",
               drift_s, (double)drift.os_ns / 1e6, (double)drift.counter_ns / 1e6, drift.drift_ppm,
               drift.error_ppm);
    }

    v = malloc(samples * sizeof *v);
    if (!v) {
        ret = cli_error("clock", "out of memory for %llu samples", (unsigned long long)samples);
        goto out;
    }
    /* Pinned where it runs now, so every pair is read on one CPU. */
    int cpu = lat_current_cpu();
    bool pinned = cpu >= 0 && lat_pin_thread(cpu) == 0;
    lat_clock_read_cost rcost;
    lat_clock_read_costs(v, samples, &rcost);
    if (pinned) lat_unpin_thread(NULL);
    double unf_ns = (double)rcost.unfenced_cycles / cal[0].cycles_per_ns;
    double fen_ns = (double)rcost.fenced_cycles / cal[0].cycles_per_ns;
    printf("read cost   unfenced p50=%.1fns  fenced p50=%.1fns  clock_gettime p50=%.1fns%s\n",
           unf_ns, fen_ns, (double)rcost.gettime_ns, pinned ? "" : "  (not pinned)");

    uint64_t gran = lat_clock_granularity_cycles(100000);
    double gran_ns = (double)gran / cal[0].cycles_per_ns;
    printf("granularity: %llu cycles (%.1f ns)\n", (unsigned long long)gran, gran_ns);
    int inv = lat_clock_invariant();
#if defined(__x86_64__)
    const char *ctr = "TSC";
#else
    const char *ctr = "generic timer";
#endif
    printf("invariant:   %s (%s)\n", inv == 1 ? "yes" : inv == 0 ? "no" : "unknown", ctr);
    if (inv == 0)
        cli_warn("clock", "the TSC is not invariant: cycle counts change rate with frequency");

    ret = json_path ? write_json(cal, spread_ppm, &drift, &rcost, unf_ns, fen_ns, pinned, gran,
                                 gran_ns, inv)
                    : CLI_OK;
out:
    free(v);
    return ret;
}
