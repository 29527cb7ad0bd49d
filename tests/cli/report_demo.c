/* report_demo.c - writes a sample report page with every kind of item the
 * report API offers (run conditions, tables, plots from histograms and from
 * point arrays, an empty and a one-value plot, verdicts, a preformatted dump),
 * for tests/cli/browser_report.sh to load in a real browser.  The data are
 * synthetic and fixed (a seeded generator), not measurements.
 * Usage: report_demo OUT.html */
#include "latlab/hist.h"
#include "latlab/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static unsigned long long seed = 88172645463325252ULL;
static double u01(void) {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return ((double)(seed >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void) {
    return sqrt(-2 * log(u01())) * cos(6.283185307179586 * u01());
}

/* A latency-like distribution: lognormal body, rare slow paths. */
static void fill(lat_hist *h, int n, double median_ns, double sigma, double slow_p,
                 double slow_ns) {
    for (int i = 0; i < n; i++) {
        double v = median_ns * exp(sigma * gauss());
        if (u01() < slow_p) v += slow_ns * u01();
        lat_hist_record(h, (int64_t)v);
    }
}

static void row(lat_report *r, const char *name, const lat_hist *h) {
    char c[6][32];
    const double ps[4] = {50, 99, 99.9, 99.99};
    snprintf(c[0], sizeof c[0], "%s", name);
    snprintf(c[1], sizeof c[1], "%lld", (long long)lat_hist_total(h));
    for (int i = 0; i < 4; i++)
        snprintf(c[2 + i], sizeof c[2 + i], "%lldns",
                 (long long)lat_hist_value_at_percentile(h, ps[i]));
    const char *cells[6] = {c[0], c[1], c[2], c[3], c[4], c[5]};
    lat_report_table_row(r, cells);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: report_demo OUT.html\n");
        return 2;
    }
    lat_hist *base = NULL, *alloc = NULL, *stage = NULL, *one = NULL;
    lat_report *r = NULL;
    lat_plot *p1 = NULL, *p2 = NULL, *p3 = NULL;
    int rc = 1;
    if (lat_hist_create(1, 3600000000LL, 3, &base) || lat_hist_create(1, 3600000000LL, 3, &alloc) ||
        lat_hist_create(1, 3600000000LL, 3, &stage) || lat_hist_create(1, 3600000000LL, 3, &one))
        goto out;
    fill(base, 200000, 330, 0.15, 0.001, 4000);
    fill(alloc, 200000, 420, 0.25, 0.01, 30000);
    fill(stage, 200000, 140, 0.12, 0.0005, 900);
    lat_hist_record(one, 1500);

    if (lat_report_create("latlab report demo: pipeline lab", &r)) goto out;
    lat_report_text(r, "Synthetic data from tests/cli/report_demo.c: a page with every kind of "
                       "report item, checked in a real browser by tests/cli/browser_report.sh.");
    lat_report_section(r, "Run conditions");
    lat_report_kv(r, "cpu", "AMD EPYC (2 vCPU, KVM) <example>");
    lat_report_kv(r, "placement", "producer cpu0, worker cpu1");
    lat_report_kv(r, "clock", "tsc 2.5961 cycles/ns, invariant");
    lat_report_kv(r, "loop", "closed loop: service time");

    lat_report_section(r, "End to end");
    const char *hdr[6] = {"run", "samples", "p50", "p99", "p99.9", "p99.99"};
    lat_report_table_begin(r, "e2e latency", 6, hdr);
    row(r, "baseline", base);
    row(r, "alloc", alloc);
    if (lat_plot_create("e2e: baseline vs alloc", &p1)) goto out;
    lat_plot_set_note(p1, "closed loop: service time; 200,000 samples each");
    lat_plot_add_hist(p1, "baseline", base, 1.0, 0);
    lat_plot_add_hist(p1, "alloc", alloc, 1.0, 0);
    lat_plot_add_slo(p1, NULL, 5000);
    lat_report_plot(r, p1);
    char v[128];
    snprintf(v, sizeof v, "alloc: p99.9 is %.1fx baseline's (SLO 5us missed)",
             (double)lat_hist_value_at_percentile(alloc, 99.9) /
                 (double)lat_hist_value_at_percentile(base, 99.9));
    lat_report_verdict(r, LAT_VERDICT_FAIL, v);
    lat_report_verdict(r, LAT_VERDICT_PASS, "baseline: p99.99 under the 5us SLO");

    lat_report_section(r, "Stage 1 (log scale)");
    const char *hdr2[3] = {"stage", "p50", "max"};
    lat_report_table_begin(r, NULL, 3, hdr2);
    char p50[32], mx[32];
    snprintf(p50, sizeof p50, "%lldns", (long long)lat_hist_value_at_percentile(stage, 50));
    snprintf(mx, sizeof mx, "%lldns", (long long)lat_hist_max(stage));
    const char *cells[3] = {"stage1", p50, mx};
    lat_report_table_row(r, cells);
    if (lat_plot_create("stage 1", &p2)) goto out;
    lat_plot_set_log_y(p2, true);
    lat_plot_add_hist(p2, "stage1", stage, 1.0, 0);
    lat_plot_add_hist(p2, "single value", one, 1.0, 0);
    lat_plot_add_series(p2, "not run", NULL, 0);
    lat_report_plot(r, p2);
    lat_report_verdict(r, LAT_VERDICT_WARN, "one series has no samples");

    lat_report_section(r, "Nothing recorded");
    if (lat_plot_create("empty stage", &p3)) goto out;
    lat_report_plot(r, p3);
    lat_report_verdict(r, LAT_VERDICT_INFO, "an empty plot renders a note, not a crash");

    lat_report_section(r, "Flight recorder");
    lat_report_pre(r, "last 4 samples before the trigger",
                   "  seq        t_ns   e2e_ns  stage1_ns\n"
                   "10001  1000000123      331        139\n"
                   "10002  1000000456      329        141\n"
                   "10003  1000000789    41873        142   <-- trigger (> 5us)\n"
                   "10004  1000001122      334        138\n");
    rc = lat_report_write(r, argv[1]) ? 1 : 0;
out:
    lat_plot_destroy(p1);
    lat_plot_destroy(p2);
    lat_plot_destroy(p3);
    lat_report_destroy(r);
    lat_hist_destroy(base);
    lat_hist_destroy(alloc);
    lat_hist_destroy(stage);
    lat_hist_destroy(one);
    if (rc) fprintf(stderr, "report_demo: failed\n");
    return rc;
}
