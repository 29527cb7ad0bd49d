/* noise_report.c - what injected noise took, as text and JSON (see
 * noise_report.h). */
#include "latlab/noise_report.h"

#include <inttypes.h>
#include <jansson.h>

void lat_noise_report_print(FILE *f, const lat_noise_spec *s, const lat_noise_report *r) {
    char spec[4400];
    lat_noise_spec_format(s, spec, sizeof spec);
    fprintf(f, "noise: %s for %.2f s (SCHED_FIFO %d)\n", spec, (double)r->elapsed_ns / 1e9,
            s->priority);
    fprintf(f, "%6s %9s %7s %11s %8s %19s %11s\n", "cpu", "bursts", "stalls", "taken ms", "share",
            "wake-up mean/max", "rescheduled");
    for (int i = 0; i < r->ncpus; i++) {
        const lat_noise_cpu_report *c = &r->cpu[i];
        fprintf(f, "%6d %9" PRIu64 " %7" PRIu64 " %11.3f %7.2f%% %8.1f /%6.1f us %11" PRIu64 "\n",
                c->cpu, c->bursts, c->stalls, (double)c->taken_ns / 1e6, 100 * c->share,
                (double)c->late_mean_ns / 1e3, (double)c->late_max_ns / 1e3, c->reanchored);
    }
    fprintf(f, "%6s %9" PRIu64 " %7" PRIu64 " %11.3f %7.2f%%  (asked %.2f%%)\n", "all", r->bursts,
            r->stalls, (double)r->taken_ns / 1e6, 100 * r->share,
            100 * (s->share + (s->stall_ns ? (double)s->stall_ns / (double)s->stall_every_ns : 0)));
}

json_t *lat_noise_report_json(const lat_noise_spec *s, const lat_noise_report *r) {
    char spec[4400];
    lat_noise_spec_format(s, spec, sizeof spec);
    json_t *cpus = json_array();
    for (int i = 0; i < r->ncpus; i++) {
        const lat_noise_cpu_report *c = &r->cpu[i];
        json_array_append_new(
            cpus,
            json_pack("{s:i, s:I, s:I, s:I, s:I, s:f, s:I, s:I, s:I}", "cpu", c->cpu, "bursts",
                      (json_int_t)c->bursts, "stalls", (json_int_t)c->stalls, "taken_ns",
                      (json_int_t)c->taken_ns, "stall_ns", (json_int_t)c->stall_ns, "share",
                      c->share, "wake_mean_ns", (json_int_t)c->late_mean_ns, "wake_max_ns",
                      (json_int_t)c->late_max_ns, "rescheduled", (json_int_t)c->reanchored));
    }
    return json_pack("{s:s, s:i, s:I, s:I, s:I, s:I, s:f, s:o}", "spec", spec, "fifo_priority",
                     s->priority, "elapsed_ns", (json_int_t)r->elapsed_ns, "bursts",
                     (json_int_t)r->bursts, "stalls", (json_int_t)r->stalls, "taken_ns",
                     (json_int_t)r->taken_ns, "share", r->share, "cpus", cpus);
}
