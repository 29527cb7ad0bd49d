/* lab_profile.c - the lab's profiling step (see lab_profile.h). */
#include "latlab/lab_profile.h"

#include "latlab/atomicfile.h"
#include "latlab/error.h"
#include "latlab/flame.h"
#include "latlab/hist.h"
#include "latlab/pipeline.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const side_name[2] = {"baseline", "share-line"};

void lat_lab_prof_init(lat_lab_prof *p, const char *out, unsigned hz, const char *off) {
    memset(p, 0, sizeof *p);
    snprintf(p->out, sizeof p->out, "%s", out);
    p->hz = hz ? hz : 999;
    p->c2c = -1;
    for (int i = 0; i < 2; i++) {
        p->side[i].work_p50_ns = p->side[i].e2e_p50_ns = NAN;
        p->side[i].ipc = p->side[i].cache_misses = NAN;
    }
    if (off) {
        snprintf(p->why, sizeof p->why, "%s", off);
        return;
    }
    p->enabled = lat_profile_available(NULL, p->why, sizeof p->why) == 0;
    if (p->enabled) p->c2c = lat_profile_c2c_supported(out, NULL, p->c2c_why, sizeof p->c2c_why);
}

static void keep_message(lat_lab_prof_side *s) {
    _Static_assert(sizeof s->err == sizeof s->r.message, "message sizes");
    memcpy(s->err, s->r.message, sizeof s->err);
    s->err[sizeof s->err - 1] = 0;
}

static void side_dir(const lat_lab_prof *p, int side, char *buf, size_t len) {
    snprintf(buf, len, "%s/profile-%s", p->out, side_name[side]);
}

void lat_lab_prof_begin(lat_lab_prof *p, int side) {
    if (!p->enabled || side < 0 || side > 1 || p->side[side].sess || p->side[side].have) return;
    char dir[4200];
    side_dir(p, side, dir, sizeof dir);
    lat_profile_opts o = {.hz = p->hz};
    lat_lab_prof_side *s = &p->side[side];
    if (lat_profile_attach(0, dir, &o, &s->sess, &s->r)) keep_message(s);
}

void lat_lab_prof_end(lat_lab_prof *p, int side) {
    if (side < 0 || side > 1 || !p->side[side].sess) return;
    lat_lab_prof_side *s = &p->side[side];
    int rc = lat_profile_detach(s->sess, &s->r);
    s->sess = NULL;
    if (rc)
        keep_message(s);
    else
        s->have = lat_flame_samples(s->r.flame) > 0;
    if (!rc && !s->have) snprintf(s->err, sizeof s->err, "no samples in the profiled round");
}

void lat_lab_prof_figures(lat_lab_prof *p, int side, double work_p50_ns, double e2e_p50_ns,
                          double ipc, double cache_misses) {
    if (side < 0 || side > 1) return;
    lat_lab_prof_side *s = &p->side[side];
    s->work_p50_ns = work_p50_ns;
    s->e2e_p50_ns = e2e_p50_ns;
    s->ipc = ipc;
    s->cache_misses = cache_misses;
}

bool lat_lab_prof_ready(const lat_lab_prof *p) {
    return p->side[0].have && p->side[1].have;
}

static lat_profile_pair pair_of(const lat_lab_prof *p, char *ev, size_t len) {
    snprintf(ev, len, "%s at %u Hz", p->side[0].r.event, p->hz);
    return (lat_profile_pair){
        p->side[0].r.flame,     p->side[1].r.flame,     "baseline round", "share-line round",
        p->side[0].work_p50_ns, p->side[1].work_p50_ns, "worker",         ev};
}

int lat_lab_prof_write(const lat_lab_prof *p) {
    if (!lat_lab_prof_ready(p)) return 0;
    char dir[4200], ev[96];
    snprintf(ev, sizeof ev, "%s at %u Hz", p->side[0].r.event, p->hz);
    for (int i = 0; i < 2; i++) {
        side_dir(p, i, dir, sizeof dir);
        char title[96];
        snprintf(title, sizeof title, "pipeline, %s round", side_name[i]);
        int rc = lat_profile_write(p->side[i].r.flame, dir, title, ev);
        if (rc) return rc;
    }
    snprintf(dir, sizeof dir, "%s/profile-diff.txt", p->out);
    lat_afile *af;
    int rc = lat_afile_open(dir, &af);
    if (rc) return rc;
    rc = lat_flame_write_diff(p->side[0].r.flame, p->side[1].r.flame, "baseline round",
                              "share-line round", 40, lat_afile_stream(af));
    if (rc) {
        lat_afile_abort(af);
        return rc;
    }
    return lat_afile_commit(af);
}

/* Counters and c2c lines, indented by ind. */
static void extras(const lat_lab_prof *p, FILE *f, const char *ind) {
    const lat_lab_prof_side *b = &p->side[0], *s = &p->side[1];
    if (isfinite(b->ipc) && isfinite(s->ipc))
        fprintf(f,
                "%scounters (worker, same rounds): IPC %.2f -> %.2f, cache misses %.0f -> %.0f\n",
                ind, b->ipc, s->ipc, b->cache_misses, s->cache_misses);
    else
        fprintf(f, "%scounters (worker): IPC and cache misses not counted here (no hardware PMU)\n",
                ind);
    if (p->c2c == 1)
        fprintf(f,
                "%sperf c2c: supported here; the HITM lines: `perf c2c record -- latlab pipeline "
                "--share-line`, then `perf c2c report --stdio`\n",
                ind);
    else
        fprintf(f, "%sperf c2c: not run: %s\n", ind, p->c2c == 0 ? p->c2c_why : "perf unavailable");
}

static void why_not(const lat_lab_prof *p, FILE *f, const char *ind) {
    if (!p->enabled) {
        fprintf(f, "%snot run: %s\n", ind, p->why);
        return;
    }
    for (int i = 0; i < 2; i++)
        if (!p->side[i].have)
            fprintf(f, "%s%s round not profiled: %s\n", ind, side_name[i],
                    p->side[i].err[0] ? p->side[i].err : "the round did not run");
}

void lat_lab_prof_print(const lat_lab_prof *p, FILE *f) {
    fprintf(f, "\nprofiling: ");
    if (!lat_lab_prof_ready(p)) {
        fprintf(f, "sampling profiles of the baseline and share-line rounds:\n");
        why_not(p, f, "  ");
        return;
    }
    char ev[96];
    lat_profile_pair pr = pair_of(p, ev, sizeof ev);
    lat_profile_compare_text(&pr, 5, f);
    extras(p, f, "  ");
}

void lat_lab_prof_markdown(const lat_lab_prof *p, FILE *f) {
    fprintf(f, "\n## Sampling profiles: which code (and why it cannot say why)\n\n");
    if (!lat_lab_prof_ready(p)) {
        why_not(p, f, "- ");
        return;
    }
    char ev[96];
    lat_profile_pair pr = pair_of(p, ev, sizeof ev);
    fprintf(f, "```\n");
    lat_profile_compare_text(&pr, 5, f);
    extras(p, f, "  ");
    fprintf(f, "```\n\nFlamegraphs: [baseline](profile-baseline/flame.svg), "
               "[share-line](profile-share-line/flame.svg); folded stacks in "
               "profile-*/folded.txt, the whole diff in profile-diff.txt.\n");
}

/* Text a writer (why_not or extras) prints, in a string to free. */
static char *text_of(const lat_lab_prof *p,
                     void (*fn)(const lat_lab_prof *, FILE *, const char *)) {
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    if (!m) return NULL;
    fn(p, m, "");
    fclose(m);
    return buf;
}

int lat_lab_prof_report(const lat_lab_prof *p, lat_report *rep) {
    int rc = lat_report_section(rep, "Sampling profiles: baseline vs share-line");
    if (rc) return rc;
    bool ready = lat_lab_prof_ready(p);
    if (ready) {
        char ev[96];
        lat_profile_pair pr = pair_of(p, ev, sizeof ev);
        rc = lat_profile_compare_report(&pr, rep);
    }
    char *buf = text_of(p, ready ? extras : why_not);
    if (!buf) return -ENOMEM;
    if (!rc)
        rc = ready ? lat_report_pre(rep, "counters and perf c2c", buf)
                   : lat_report_verdict(rep, LAT_VERDICT_INFO, buf);
    free(buf);
    return rc;
}

void lat_lab_prof_fini(lat_lab_prof *p) {
    for (int i = 0; i < 2; i++) {
        if (p->side[i].sess) lat_lab_prof_end(p, i);
        lat_profile_result_fini(&p->side[i].r);
    }
}

/* ---- the profiling step on its own (`latlab profile lab`) ---------------------------- */

static double p50_of(const lat_pipe_result *r, int stage) {
    return r->h[stage] ? (double)lat_hist_value_at_percentile(r->h[stage], 50) : NAN;
}

int lat_lab_prof_round(lat_lab_prof *p, const lat_pipe_config *base, int side, bool share,
                       const char *name, FILE *out, double *e2e, char *err, size_t errlen) {
    lat_pipe_config c = *base;
    c.share_line = share;
    err[0] = '\0';
    if (side >= 0) {
        lat_lab_prof_begin(p, side);
        if (p->side[side].err[0]) return snprintf(err, errlen, "%s", p->side[side].err), -EIO;
    }
    lat_pipe_result r;
    int rc = lat_pipe_run(&c, &r);
    if (side >= 0) lat_lab_prof_end(p, side);
    if (rc) return snprintf(err, errlen, "%s", lat_strerror(rc)), rc;
    const lat_pipe_counters *w = &r.thr[LAT_PIPE_WORKER];
    double work = p50_of(&r, LAT_PIPE_WORK);
    *e2e = p50_of(&r, LAT_PIPE_E2E);
    if (side >= 0)
        lat_lab_prof_figures(p, side, work, *e2e, w->cycles > 0 ? w->instructions / w->cycles : NAN,
                             w->cache_misses);
    lat_pipe_result_fini(&r);
    fprintf(out, "%-26s work p50 %6.0f ns  e2e p50 %10.0f ns", name, work, *e2e);
    if (side >= 0 && p->side[side].have)
        fprintf(out, "  %llu samples",
                (unsigned long long)lat_flame_samples(p->side[side].r.flame));
    fprintf(out, "\n");
    fflush(out);
    if (side >= 0 && p->side[side].err[0])
        return snprintf(err, errlen, "%s", p->side[side].err), -EIO;
    return 0;
}

int lat_lab_prof_write_all(const lat_lab_prof *p) {
    char path[4200];
    snprintf(path, sizeof path, "%s/PROFILES.md", p->out);
    lat_afile *af;
    int rc = lat_lab_prof_write(p);
    if (!rc && !(rc = lat_afile_open(path, &af))) {
        lat_lab_prof_markdown(p, lat_afile_stream(af));
        rc = lat_afile_commit(af);
    }
    lat_report *rep = NULL;
    snprintf(path, sizeof path, "%s/report.html", p->out);
    if (!rc && !(rc = lat_report_create("latlab lab: sampling profiles", &rep))) {
        rc = lat_lab_prof_report(p, rep);
        if (!rc) rc = lat_report_write(rep, path);
    }
    lat_report_destroy(rep);
    return rc;
}
