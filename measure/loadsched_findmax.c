/* loadsched_findmax.c - `latlab load --find-max`: the search for the highest rate
 * that holds a latency objective with a valid verdict (loadsched.h).  Pure
 * decisions on the runs the caller makes: the steps upwards to the first
 * that fails, then bisection; each rate's figures kept for the report, the
 * JSON and a plot of latency by offered rate (report.h).
 *
 * Without a header of its own the build counts this file stable (it goes
 * into liblatlab.so, its names hidden there), so it calls nothing
 * experimental: only the core's histograms, the plots and jansson. */
#include "latlab/loadsched.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "latlab/load.h"
#include "latlab/loadverdict.h"
#include "latlab/report.h"

#define SLO_MAX_NS 3600000000000ll /* an objective up to 1 hour */

struct lat_loadsched_findmax {
    lat_loadsched_plan plan; /* STEPS, ascending */
    lat_loadsched_slo slo[LAT_LOADSCHED_MAX_SLOS];
    size_t nslo;
    unsigned bisect;
    unsigned nsteps;   /* the plan's */
    unsigned k;        /* steps run */
    unsigned bisected; /* bisections run */
    bool failed;       /* a step failed: the steps are over */
    unsigned n;
    lat_loadsched_try t[LAT_LOADSCHED_MAX_TRIES];
};

static char why_buf[200];

/* A plain decimal in [s, e) (no sign, hex, inf or nan): its value, or -1. */
static double plain_number(const char *s, const char *e) {
    char b[48], *end;
    size_t n = (size_t)(e - s);
    if (!n || n >= sizeof b || strspn(s, "0123456789.eE-") < n || *s == '-' || *s == '.') return -1;
    memcpy(b, s, n);
    b[n] = 0;
    double v = strtod(b, &end);
    return *end || !isfinite(v) ? -1 : v;
}

int lat_loadsched_parse_slo(const char *s, lat_loadsched_slo *out, const char **why) {
    *why = why_buf;
    const char *eq = s ? strchr(s, '=') : NULL;
    double p = eq && s[0] == 'p' ? plain_number(s + 1, eq) : -1;
    if (!(p > 0 && p < 100)) {
        snprintf(why_buf, sizeof why_buf, "'%s' is not pNN=DURATION (like p99=5ms), 0 < NN < 100",
                 s ? s : "");
        return -EINVAL;
    }
    const char *u = eq + 1 + strspn(eq + 1, "0123456789.eE");
    double mul = !strcmp(u, "s")    ? 1e9
                 : !strcmp(u, "ms") ? 1e6
                 : !strcmp(u, "us") ? 1e3
                 : !strcmp(u, "ns") ? 1
                                    : 0;
    double v = mul ? plain_number(eq + 1, u) * mul : -1;
    if (!(v >= 1 && v <= (double)SLO_MAX_NS)) {
        snprintf(why_buf, sizeof why_buf,
                 "'%s': '%s' is not a duration with its unit (ns, us, ms, s) from 1ns to 1 hour", s,
                 eq + 1);
        return -EINVAL;
    }
    out->p = p;
    out->limit_ns = (int64_t)llround(v);
    return 0;
}

/* The objectives of one --slo value ("p50=1ms,p99=5ms") appended to f's. */
static int add_slos(lat_loadsched_findmax *f, const char *s) {
    char b[256];
    if (strlen(s) >= sizeof b) {
        snprintf(why_buf, sizeof why_buf, "'%.40s...' is too long", s);
        return -EINVAL;
    }
    strcpy(b, s);
    for (char *save = NULL, *tok = strtok_r(b, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        lat_loadsched_slo o;
        const char *why;
        if (lat_loadsched_parse_slo(tok, &o, &why)) return -EINVAL;
        for (size_t i = 0; i < f->nslo; i++)
            if (f->slo[i].p == o.p) {
                snprintf(why_buf, sizeof why_buf, "p%g has two objectives", o.p);
                return -EINVAL;
            }
        if (f->nslo == LAT_LOADSCHED_MAX_SLOS) {
            snprintf(why_buf, sizeof why_buf, "more than %d objectives", LAT_LOADSCHED_MAX_SLOS);
            return -EINVAL;
        }
        f->slo[f->nslo++] = o;
    }
    return 0;
}

/* The plan the search steps: a step plan as given, a fixed rate R as R/10 .. R. */
static int search_plan(const lat_loadsched_plan *plan, uint64_t duration_ns,
                       lat_loadsched_plan *out) {
    *out = *plan;
    if (plan->kind == LAT_LOADSCHED_FIXED && plan->from_hz > 0 && duration_ns)
        *out = (lat_loadsched_plan){LAT_LOADSCHED_STEPS, plan->from_hz / 10, plan->from_hz,
                                    plan->from_hz / 10, duration_ns};
    if (out->kind == LAT_LOADSCHED_STEPS && out->to_hz > out->from_hz && out->from_hz > 0 &&
        out->step_hz > 0 && out->hold_ns)
        return 0;
    snprintf(why_buf, sizeof why_buf,
             "needs a rate R or steps going up from above 0 (--rate FROM:TO:STEP/HOLD, FROM < TO)");
    return -EINVAL;
}

int lat_loadsched_findmax_create(const lat_loadsched_plan *plan, uint64_t duration_ns,
                                 const char *const *slos, size_t nslo, unsigned bisect,
                                 lat_loadsched_findmax **out, const char **why) {
    *why = why_buf;
    why_buf[0] = 0;
    if (!plan || !out || (nslo && !slos)) return -EINVAL;
    lat_loadsched_findmax *f = calloc(1, sizeof *f);
    if (!f) return -ENOMEM;
    int rc = search_plan(plan, duration_ns, &f->plan);
    for (size_t i = 0; !rc && i < nslo; i++)
        rc = add_slos(f, slos[i]);
    if (!rc && !f->nslo) {
        snprintf(why_buf, sizeof why_buf, "needs --slo pNN=DURATION (like p99=5ms)");
        rc = -EINVAL;
    }
    if (!rc && bisect > LAT_LOADSCHED_MAX_BISECT) {
        snprintf(why_buf, sizeof why_buf, "%u bisections: at most %d", bisect,
                 LAT_LOADSCHED_MAX_BISECT);
        rc = -EINVAL;
    }
    if (rc) {
        free(f);
        return rc;
    }
    f->bisect = bisect;
    /* as lat_loadsched_nsteps (not called: see the file's header) */
    f->nsteps = (unsigned)floor((f->plan.to_hz - f->plan.from_hz) / f->plan.step_hz + 1e-9) + 1;
    *out = f;
    return 0;
}

void lat_loadsched_findmax_destroy(lat_loadsched_findmax *f) {
    free(f);
}

uint64_t lat_loadsched_findmax_hold_ns(const lat_loadsched_findmax *f) {
    return f->plan.hold_ns;
}

int lat_loadsched_findmax_best(const lat_loadsched_findmax *f) {
    int b = -1;
    for (unsigned i = 0; f && i < f->n; i++)
        if (f->t[i].held && (b < 0 || f->t[i].rate_hz > f->t[b].rate_hz)) b = (int)i;
    return b;
}

int lat_loadsched_findmax_failed(const lat_loadsched_findmax *f) {
    int b = lat_loadsched_findmax_best(f), x = -1;
    for (unsigned i = 0; f && i < f->n; i++)
        if (!f->t[i].held && (b < 0 || f->t[i].rate_hz > f->t[b].rate_hz) &&
            (x < 0 || f->t[i].rate_hz < f->t[x].rate_hz))
            x = (int)i;
    return x;
}

double lat_loadsched_findmax_next(const lat_loadsched_findmax *f) {
    if (!f || f->n == LAT_LOADSCHED_MAX_TRIES) return 0;
    if (!f->failed) return f->k < f->nsteps ? f->plan.from_hz + (double)f->k * f->plan.step_hz : 0;
    int b = lat_loadsched_findmax_best(f), x = lat_loadsched_findmax_failed(f);
    if (b < 0 || x < 0 || f->bisected >= f->bisect) return 0;
    double lo = f->t[b].rate_hz, hi = f->t[x].rate_hz, mid = round((lo + hi) / 2);
    return mid > lo && mid < hi ? mid : 0;
}

/* Why a rate failed, from its verdict (loadverdict.h's checks). */
static unsigned causes(const lat_load_verdict *v) {
    unsigned why = 0;
    if (v->valid) return 0;
    if (v->service_behind) why |= LAT_LOADSCHED_BY_SERVICE;
    if (v->conns_limit) why |= LAT_LOADSCHED_BY_CONNECTIONS;
    for (size_t i = 0; i < v->npct; i++) {
        if (!v->pct[i].printed) continue;
        if (!v->pct[i].lag_ok) why |= LAT_LOADSCHED_BY_GENERATOR;
        /* a wait behind a service that did not keep up is its queue */
        if (!v->pct[i].wait_ok && !v->service_behind) why |= LAT_LOADSCHED_BY_CONNECTIONS;
    }
    return why ? why : LAT_LOADSCHED_BY_RUN;
}

int lat_loadsched_findmax_add(lat_loadsched_findmax *f, double rate_hz, const lat_load_verdict *v,
                              const lat_hist *latency) {
    if (!f || !v || !latency || f->n == LAT_LOADSCHED_MAX_TRIES || !(rate_hz > 0)) return -EINVAL;
    lat_loadsched_try *t = &f->t[f->n];
    memset(t, 0, sizeof *t);
    t->rate_hz = rate_hz;
    t->samples = lat_hist_total(latency);
    t->valid = v->valid;
    snprintf(t->reason, sizeof t->reason, "%s", v->reason);
    t->why = causes(v);
    double ps[LAT_LOADSCHED_MAX_SLOS];
    for (size_t i = 0; i < f->nslo; i++)
        ps[i] = f->slo[i].p;
    lat_hist_cis_at_percentiles(latency, ps, LAT_HIST_CI_DEFAULT, t->slo, f->nslo);
    for (size_t i = 0; i < f->nslo; i++) {
        if (!lat_hist_total(latency) || t->slo[i].max_bound)
            t->why |= LAT_LOADSCHED_BY_RUN; /* no interval: not judged, not held */
        else if (t->slo[i].value > f->slo[i].limit_ns)
            t->why |= LAT_LOADSCHED_BY_SLO;
    }
    t->held = !t->why;
    if (f->failed)
        f->bisected++;
    else
        f->k++;
    f->failed |= !t->held;
    f->n++;
    return 0;
}

unsigned lat_loadsched_findmax_n(const lat_loadsched_findmax *f) {
    return f ? f->n : 0;
}

const lat_loadsched_try *lat_loadsched_findmax_get(const lat_loadsched_findmax *f, unsigned i) {
    return f && i < f->n ? &f->t[i] : NULL;
}

/* ---- the report ---------------------------------------------------------------------- */

/* A latency in its unit: "4.2 ms", "830.0 us". */
static const char *dur(char *b, size_t n, double ns) {
    if (ns >= 1e9)
        snprintf(b, n, "%.2f s", ns / 1e9);
    else if (ns >= 1e6)
        snprintf(b, n, "%.1f ms", ns / 1e6);
    else
        snprintf(b, n, "%.1f us", ns / 1e3);
    return b;
}

/* Each objective at try t: "p99 4.2 ms [4.1, 4.4] <= 5 ms" joined by ", ". */
static void write_slos(FILE *out, const lat_loadsched_findmax *f, const lat_loadsched_try *t) {
    for (size_t i = 0; i < f->nslo; i++) {
        const lat_hist_ci *c = &t->slo[i];
        char v[32], lim[32], over[32];
        dur(lim, sizeof lim, (double)f->slo[i].limit_ns);
        if (!t->samples || c->max_bound) {
            fprintf(out, "%sp%g: too few samples for its interval (%lld; needs %lld: hold longer)",
                    i ? ", " : "", f->slo[i].p, (long long)t->samples,
                    (long long)lat_hist_ci_needed_n(f->slo[i].p / 100, LAT_HIST_CI_DEFAULT));
            continue;
        }
        double scale = c->value >= 1000000000 ? 1e9 : c->value >= 1000000 ? 1e6 : 1e3;
        fprintf(out, "%sp%g %s [%.1f, %.1f] ", i ? ", " : "", f->slo[i].p,
                dur(v, sizeof v, (double)c->value), (double)c->lo / scale, (double)c->hi / scale);
        if (c->value <= f->slo[i].limit_ns)
            fprintf(out, "<= %s", lim);
        else
            fprintf(out, "> %s by %s", lim,
                    dur(over, sizeof over, (double)(c->value - f->slo[i].limit_ns)));
    }
}

/* Who failed a rate: "the service", "the service or the connections", ... */
static void write_who(FILE *out, unsigned why) {
    bool svc = why & (LAT_LOADSCHED_BY_SLO | LAT_LOADSCHED_BY_SERVICE);
    bool con = why & LAT_LOADSCHED_BY_CONNECTIONS, gen = why & LAT_LOADSCHED_BY_GENERATOR;
    /* a service behind with every slot full: one run cannot tell it from the connections */
    const char *sep = why & LAT_LOADSCHED_BY_SERVICE ? " or " : " and ";
    fprintf(out, "%s%s%s%s%s%s", svc ? "the service" : "", svc && con ? sep : "",
            con ? "the connections" : "", (svc || con) && gen ? " and " : "",
            gen ? "the generator" : "", !(svc || con || gen) ? "the run" : "");
}

void lat_loadsched_findmax_write_try(FILE *out, const lat_loadsched_findmax *f, unsigned i) {
    if (!f || !f->n) return;
    const lat_loadsched_try *t = &f->t[i < f->n ? i : f->n - 1];
    fprintf(out, "%10.0f req/s: %s", t->rate_hz, t->held ? "held" : "failed (");
    if (!t->held) write_who(out, t->why);
    fprintf(out, "%s: ", t->held ? "" : ")");
    write_slos(out, f, t);
    fprintf(out, "; verdict %s%s\n", t->valid ? "valid" : "invalid: ", t->reason);
}

/* "p99 <= 5 ms and p50 <= 1 ms" */
static void write_goal(FILE *out, const lat_loadsched_findmax *f) {
    for (size_t i = 0; i < f->nslo; i++) {
        char lim[32];
        fprintf(out, "%sp%g <= %s", i ? " and " : "", f->slo[i].p,
                dur(lim, sizeof lim, (double)f->slo[i].limit_ns));
    }
}

void lat_loadsched_findmax_write(FILE *out, const lat_loadsched_findmax *f) {
    const lat_loadsched_plan *p = &f->plan;
    fprintf(out,
            "find-max: rates %.0f to %.0f by %.0f req/s, each run %.1f s and judged on its own, "
            "up to the first that fails, then %u bisection%s; holding means a valid verdict and ",
            p->from_hz, p->to_hz, p->step_hz, (double)p->hold_ns / 1e9, f->bisect,
            f->bisect == 1 ? "" : "s");
    write_goal(out, f);
    fprintf(out, "\n");
    if (!f->n) return (void)fprintf(out, "no rate was run\n");
    for (unsigned i = 0; i < f->n; i++)
        lat_loadsched_findmax_write_try(out, f, i);
    int b = lat_loadsched_findmax_best(f), x = lat_loadsched_findmax_failed(f);
    fprintf(out, "%s rate holding ", b < 0 ? "no" : "highest");
    write_goal(out, f);
    if (b >= 0) {
        fprintf(out, ": %.0f req/s (", f->t[b].rate_hz);
        write_slos(out, f, &f->t[b]);
        fprintf(out, ")\n");
    } else {
        fprintf(out, "\n");
    }
    if (x < 0) {
        fprintf(out, "every rate run held it; none above %.0f req/s was tried\n",
                b >= 0 ? f->t[b].rate_hz : 0.0);
        return;
    }
    const lat_loadsched_try *t = &f->t[x];
    fprintf(out, "%s %.0f req/s failed: ", b < 0 ? "the first rate," : "next rate", t->rate_hz);
    write_who(out, t->why);
    fprintf(out, ": ");
    write_slos(out, f, t);
    if (!t->valid) fprintf(out, "; verdict invalid: %s", t->reason);
    fprintf(out, "\n");
}

static json_t *try_json(const lat_loadsched_findmax *f, int i) {
    if (i < 0) return json_null();
    const lat_loadsched_try *t = &f->t[i];
    static const char *const names[] = {"slo", "service", "connections", "generator", "run"};
    json_t *o = json_object(), *why = json_array(), *ps = json_array();
    json_object_set_new(o, "rate_hz", json_real(t->rate_hz));
    json_object_set_new(o, "held", json_boolean(t->held));
    json_object_set_new(o, "valid", json_boolean(t->valid));
    json_object_set_new(o, "reason", json_string(t->reason));
    for (unsigned k = 0; k < 5; k++)
        if (t->why & (1u << k)) json_array_append_new(why, json_string(names[k]));
    json_object_set_new(o, "failed_by", why);
    for (size_t k = 0; k < f->nslo; k++) {
        const lat_hist_ci *c = &t->slo[k];
        bool have = t->samples && !c->max_bound;
        json_t *e = json_object();
        json_object_set_new(e, "percentile", json_real(f->slo[k].p));
        json_object_set_new(e, "limit_ns", json_integer(f->slo[k].limit_ns));
        json_object_set_new(e, "latency_ns", have ? json_integer(c->value) : json_null());
        json_object_set_new(e, "lo_ns", have ? json_integer(c->lo) : json_null());
        json_object_set_new(e, "hi_ns", have ? json_integer(c->hi) : json_null());
        json_object_set_new(e, "held", json_boolean(have && c->value <= f->slo[k].limit_ns));
        json_array_append_new(ps, e);
    }
    json_object_set_new(o, "slos", ps);
    return o;
}

json_t *lat_loadsched_findmax_json(const lat_loadsched_findmax *f) {
    json_t *o = json_object(), *slos = json_array(), *tries = json_array();
    if (!o || !slos || !tries) {
        json_decref(o), json_decref(slos), json_decref(tries);
        return NULL;
    }
    for (size_t k = 0; k < f->nslo; k++) {
        json_t *e = json_object();
        json_object_set_new(e, "percentile", json_real(f->slo[k].p));
        json_object_set_new(e, "limit_ns", json_integer(f->slo[k].limit_ns));
        json_array_append_new(slos, e);
    }
    for (unsigned i = 0; i < f->n; i++)
        json_array_append_new(tries, try_json(f, (int)i));
    int b = lat_loadsched_findmax_best(f);
    json_object_set_new(o, "slos", slos);
    json_object_set_new(o, "from_hz", json_real(f->plan.from_hz));
    json_object_set_new(o, "to_hz", json_real(f->plan.to_hz));
    json_object_set_new(o, "step_hz", json_real(f->plan.step_hz));
    json_object_set_new(o, "hold_ns", json_integer((json_int_t)f->plan.hold_ns));
    json_object_set_new(o, "bisect", json_integer(f->bisect));
    json_object_set_new(o, "max_rate_hz", b >= 0 ? json_real(f->t[b].rate_hz) : json_null());
    json_object_set_new(o, "max", try_json(f, b));
    json_object_set_new(o, "next_failed", try_json(f, lat_loadsched_findmax_failed(f)));
    json_object_set_new(o, "tries", tries);
    return o;
}

static int by_rate(const void *a, const void *b) {
    double x = (*(const lat_loadsched_try *const *)a)->rate_hz;
    double y = (*(const lat_loadsched_try *const *)b)->rate_hz;
    return (x > y) - (x < y);
}

int lat_loadsched_findmax_save_svg(const lat_loadsched_findmax *f, const char *path) {
    if (!f || !path) return -EINVAL;
    const lat_loadsched_try *s[LAT_LOADSCHED_MAX_TRIES];
    for (unsigned i = 0; i < f->n; i++)
        s[i] = &f->t[i];
    qsort(s, f->n, sizeof *s, by_rate);
    char note[160];
    int best = lat_loadsched_findmax_best(f);
    if (best >= 0)
        snprintf(note, sizeof note,
                 "held up to %.0f/s; each point one run (its 95%% interval "
                 "shaded); dashed: the objectives",
                 f->t[best].rate_hz);
    else
        snprintf(note, sizeof note,
                 "no rate held; each point one run (its 95%% interval "
                 "shaded); dashed: the objectives");
    lat_plot *p = NULL;
    int rc = lat_plot_create("latency by offered rate (--find-max)", &p);
    if (!rc) rc = lat_plot_set_log_y(p, true);
    if (!rc) rc = lat_plot_set_note(p, note);
    if (!rc) rc = lat_plot_set_x_linear(p, "offered rate (requests/s)");
    for (size_t k = 0; !rc && k < f->nslo; k++) { /* one line per objective's percentile */
        lat_plot_point pt[LAT_LOADSCHED_MAX_TRIES];
        double lo[LAT_LOADSCHED_MAX_TRIES], hi[LAT_LOADSCHED_MAX_TRIES];
        size_t n = 0;
        for (unsigned i = 0; i < f->n; i++) {
            const lat_hist_ci *c = &s[i]->slo[k];
            if (c->hi_rank <= 0) continue; /* a run with no latency */
            pt[n] = (lat_plot_point){s[i]->rate_hz, (double)c->value};
            lo[n] = (double)c->lo;
            hi[n++] = (double)c->hi;
        }
        char label[64], lim[32];
        snprintf(label, sizeof label, "p%g", f->slo[k].p);
        rc = lat_plot_add_series(p, label, pt, n);
        if (!rc && n) rc = lat_plot_set_band(p, lat_plot_series_count(p) - 1, lo, hi, n);
        snprintf(label, sizeof label, "p%g <= %s", f->slo[k].p,
                 dur(lim, sizeof lim, (double)f->slo[k].limit_ns));
        if (!rc) rc = lat_plot_add_slo(p, label, (double)f->slo[k].limit_ns);
    }
    if (!rc) rc = lat_plot_save_svg(p, path);
    lat_plot_destroy(p);
    return rc;
}
