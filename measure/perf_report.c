/* perf_report.c - the report of a counted command, as text in perf stat's
 * layout and as JSON (see perf_report.h). */
#include "latlab/perf_report.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "latlab/json.h"

/* task-clock and cpu-clock count ns, with or without a :u/:k suffix. */
static bool is_clock(const char *name) {
    size_t n = strcspn(name, ":");
    return (n == 10 && !strncmp(name, "task-clock", n)) ||
           (n == 9 && !strncmp(name, "cpu-clock", n));
}

static void print_count(FILE *report, const char *name, const lat_perf_count *c, const char *note) {
    char num[64];
    if (c->state == LAT_PERF_UNAVAILABLE) {
        fprintf(report, "  %20s      %s\n", "<not supported>", name);
        return;
    }
    if (c->state == LAT_PERF_NOT_COUNTED) {
        fprintf(report, "  %20s      %s\n", "<not counted>", name);
        return;
    }
    if (is_clock(name))
        snprintf(num, sizeof num, "%.2f msec", c->scaled / 1e6);
    else
        snprintf(num, sizeof num, "%.0f", c->scaled);
    fprintf(report, "  %20s      %-24s", num, name);
    if (note && *note) fprintf(report, " # %s", note);
    if (c->state == LAT_PERF_SCALED) fprintf(report, "  (%.2f%%)", 100.0 * c->coverage);
    if (c->state == LAT_PERF_FALLBACK) fprintf(report, "  (getrusage)");
    fputc('\n', report);
}

static void note_for(const lat_perf *p, size_t i, const lat_perf_count *c, size_t n,
                     const lat_perf_derived *d, uint64_t wall_ns, char *buf, size_t len) {
    buf[0] = 0;
    if ((int)i == lat_perf_find(p, "task-clock") && wall_ns && i < n &&
        (c[i].state == LAT_PERF_COUNTED || c[i].state == LAT_PERF_SCALED))
        snprintf(buf, len, "%.3f CPUs utilized", c[i].scaled / (double)wall_ns);
    else if ((int)i == lat_perf_find(p, "instructions") && !isnan(d->ipc))
        snprintf(buf, len, "%.2f insn per cycle", d->ipc);
    else if ((int)i == lat_perf_find(p, "branch-misses") && !isnan(d->branch_miss_pct))
        snprintf(buf, len, "%.2f%% of all branches", d->branch_miss_pct);
    else if ((int)i == lat_perf_find(p, "cache-misses") && !isnan(d->cache_miss_pct))
        snprintf(buf, len, "%.2f%% of all cache refs", d->cache_miss_pct);
    else if (wall_ns && i < n &&
             ((int)i == lat_perf_find(p, "context-switches") ||
              (int)i == lat_perf_find(p, "cpu-migrations") ||
              (int)i == lat_perf_find(p, "page-faults") ||
              (int)i == lat_perf_find(p, "minor-faults") ||
              (int)i == lat_perf_find(p, "major-faults")) &&
             (c[i].state != LAT_PERF_UNAVAILABLE && c[i].state != LAT_PERF_NOT_COUNTED))
        snprintf(buf, len, "%.3f K/sec", c[i].scaled / ((double)wall_ns / 1e9) / 1e3);
}

static void print_threads(const lat_perf_report *r, FILE *report) {
    fprintf(report, "\n Per thread (%d seen):\n  %-8s %-16s", r->threads->n, "tid", "comm");
    for (size_t i = 0; i < r->n; i++)
        if (r->cnt[i].state != LAT_PERF_UNAVAILABLE)
            fprintf(report, " %16.16s", lat_perf_name(r->p, i));
    fputc('\n', report);
    for (int k = 0; k < r->threads->n; k++) {
        lat_perf_count t[LAT_PERF_MAX_EVENTS];
        lat_perf_read(r->threads->v[k].p, t, r->n);
        fprintf(report, "  %-8d %-16s", (int)r->threads->v[k].tid, r->threads->v[k].comm);
        for (size_t i = 0; i < r->n; i++) {
            if (r->cnt[i].state == LAT_PERF_UNAVAILABLE) continue;
            if (t[i].state == LAT_PERF_UNAVAILABLE || t[i].state == LAT_PERF_NOT_COUNTED)
                fprintf(report, " %16s", "-");
            else if (is_clock(lat_perf_name(r->p, i)))
                fprintf(report, " %11.2f msec", t[i].scaled / 1e6);
            else
                fprintf(report, " %16.0f", t[i].scaled);
        }
        fputc('\n', report);
    }
}

void lat_perf_report_print(const lat_perf_report *r, FILE *report) {
    fprintf(report, "\n Performance counter stats for '");
    for (char *const *a = r->cmd; *a; a++)
        fprintf(report, "%s%s", a == r->cmd ? "" : " ", *a);
    fprintf(report, "':\n\n");
    for (size_t i = 0; i < r->n; i++) {
        char note[96];
        note_for(r->p, i, r->cnt, r->n, r->d, r->wall_ns, note, sizeof note);
        print_count(report, lat_perf_name(r->p, i), &r->cnt[i], note);
    }
    fprintf(report, "\n  %14.9f seconds time elapsed\n", (double)r->wall_ns / 1e9);
    fprintf(report, "  %14.9f seconds user\n", (double)r->utime.tv_sec + r->utime.tv_usec / 1e6);
    fprintf(report, "  %14.9f seconds sys\n", (double)r->stime.tv_sec + r->stime.tv_usec / 1e6);
    bool any = false;
    for (size_t i = 0; i < r->n; i++) {
        const char *why = lat_perf_reason(r->p, i);
        if (!why) continue;
        if (!any) fprintf(report, "\n Notes:\n");
        any = true;
        fprintf(report, "  %-24s %s\n", lat_perf_name(r->p, i), why);
    }
    if (r->threads && r->threads->n) print_threads(r, report);
}

static json_t *threads_json(const lat_perf_report *r) {
    json_t *tj = json_array();
    for (int k = 0; k < r->threads->n; k++) {
        lat_perf_count t[LAT_PERF_MAX_EVENTS];
        lat_perf_total(r->threads->v[k].p, t, r->n);
        json_t *o2 = json_object();
        json_object_set_new(o2, "tid", json_integer(r->threads->v[k].tid));
        json_object_set_new(o2, "comm", json_string(r->threads->v[k].comm));
        json_object_set_new(o2, "events", lat_perf_counts_json(r->threads->v[k].p, t, r->n));
        json_array_append_new(tj, o2);
    }
    return tj;
}

static json_int_t tv_ns(struct timeval tv) {
    return (json_int_t)tv.tv_sec * 1000000000 + (json_int_t)tv.tv_usec * 1000;
}

json_t *lat_perf_report_json(const lat_perf_report *r) {
    json_t *root = json_object();
    json_t *argv_j = json_array();
    for (char *const *a = r->cmd; *a; a++)
        json_array_append_new(argv_j, json_string(*a));
    json_object_set_new(root, "command", argv_j);
    json_object_set_new(root, "exit_status", json_integer(r->exit_status));
    json_object_set_new(root, "elapsed_ns", json_integer((json_int_t)r->wall_ns));
    json_object_set_new(root, "user_ns", json_integer(tv_ns(r->utime)));
    json_object_set_new(root, "sys_ns", json_integer(tv_ns(r->stime)));
    json_object_set_new(root, "events", lat_perf_counts_json(r->p, r->cnt, r->n));
    json_t *dj = json_object();
    json_object_set_new(dj, "ipc", lat_json_real_or_null(r->d->ipc));
    json_object_set_new(dj, "branch_miss_pct", lat_json_real_or_null(r->d->branch_miss_pct));
    json_object_set_new(dj, "cache_miss_pct", lat_json_real_or_null(r->d->cache_miss_pct));
    json_object_set_new(dj, "cpu_utilization", lat_json_real_or_null(r->d->cpu_utilization));
    json_object_set_new(root, "derived", dj);
    if (r->threads) json_object_set_new(root, "threads", threads_json(r));
    return root;
}
