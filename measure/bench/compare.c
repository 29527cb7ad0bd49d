/* compare.c - comparing a run with a previous report: the compatibility rules
 * (same schema, same known hostname and suite, the same result set matched
 * one-to-one on group, name, kind, metadata, throughput unit and domain), the
 * newest compatible report in a results folder, and the verdict per result:
 * a change needs BOTH a Mann-Whitney U p-value below alpha on the per-sample
 * ns/op AND a ratio of medians at least `materiality` away from 1.
 *
 * The figures compared are the kept ones (the platform account, bench.h) of
 * the samples not set aside.  Each result also gets its minimum detectable
 * effect, so "unchanged" can be read as "no change bigger than this"; two
 * unpaired runs still cannot tell the host's drift between them from the
 * code's change, which the printed caveat says. */
#include "internal.h"

#include "alloc_internal.h"
#include "latlab/error.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "error_internal.h"

/* The reason into why (n bytes); LAT_EINCOMPATIBLE. */
#define why_set(why, n, ...) lat__errf(why, n, LAT_EINCOMPATIBLE, __VA_ARGS__)

static bool streq(const char *a, const char *b) {
    return a && b ? strcmp(a, b) == 0 : a == b;
}

static const char *meta_get(const lat_bench_result *r, const char *k) {
    for (uint32_t i = 0; i < r->n_meta; i++)
        if (strcmp(r->meta[i].key, k) == 0) return r->meta[i].value;
    return NULL;
}

/* The old result that matches cur's identity (group, name), or NULL. */
static const lat_bench_result *find_match(const lat_bench_report *old, const lat_bench_result *c) {
    for (uint32_t i = 0; i < old->n_results; i++)
        if (streq(old->results[i].group, c->group) && streq(old->results[i].name, c->name))
            return &old->results[i];
    return NULL;
}

int lat_bench_compatible(const lat_bench_report *old, const lat_bench_report *cur, char *why,
                         size_t whylen) {
    if (!old || !cur) return -EINVAL;
    if (old->schema_version != cur->schema_version)
        return why_set(why, whylen, "schema version %d differs from %d", old->schema_version,
                       cur->schema_version);
    if (old->hostname && *old->hostname && cur->hostname && *cur->hostname &&
        strcmp(old->hostname, cur->hostname) != 0)
        return why_set(why, whylen, "recorded on host %s, this run is on %s", old->hostname,
                       cur->hostname);
    if (!streq(old->suite, cur->suite))
        return why_set(why, whylen, "suite %s differs from %s", old->suite ? old->suite : "?",
                       cur->suite ? cur->suite : "?");
    if (old->n_results != cur->n_results)
        return why_set(why, whylen, "%u results, this run has %u (a different result set)",
                       old->n_results, cur->n_results);
    for (uint32_t i = 0; i < cur->n_results; i++) {
        const lat_bench_result *c = &cur->results[i];
        const lat_bench_result *o = find_match(old, c);
        if (!o) return why_set(why, whylen, "no result %s/%s", c->group, c->name);
        if (o->kind != c->kind)
            return why_set(why, whylen, "%s/%s: kind differs", c->group, c->name);
        if (o->domain != c->domain)
            return why_set(why, whylen, "%s/%s: measurement domain differs", c->group, c->name);
        if ((o->bytes_per_op != 0) != (c->bytes_per_op != 0) || o->bytes_per_op != c->bytes_per_op)
            return why_set(why, whylen, "%s/%s: throughput unit differs", c->group, c->name);
        if (o->n_meta != c->n_meta)
            return why_set(why, whylen, "%s/%s: metadata differs", c->group, c->name);
        for (uint32_t k = 0; k < c->n_meta; k++) {
            const char *ov = meta_get(o, c->meta[k].key);
            if (!streq(ov, c->meta[k].value))
                return why_set(why, whylen, "%s/%s: metadata %s is %s, was %s", c->group, c->name,
                               c->meta[k].key, c->meta[k].value, ov ? ov : "(unset)");
        }
        if (o->n == 0 || c->n == 0)
            return why_set(why, whylen, "%s/%s: no samples", c->group, c->name);
    }
    return 0;
}

/* Per-sample ns/op to compare, of the samples not set aside (all of them
 * when every one was): the kept wall-time figure, or the measuring threads'
 * CPU time per op when asked and both runs have it.  *n: how many. */
static double *per_op(const lat_bench_result *r, bool cpu, uint32_t *n) {
    double *v = lat__alloc((r->n ? r->n : 1) * sizeof *v);
    if (!v) return NULL;
    uint32_t k = 0;
    for (int pass = 0; pass < 2 && k == 0; pass++)
        for (uint32_t i = 0; i < r->n; i++)
            if (pass == 1 || !lat_bench_sample_set_aside(r, i))
                v[k++] = cpu && r->cpu_ns && r->ops[i] ? r->cpu_ns[i] / (double)r->ops[i]
                                                       : r->ns_per_op[i];
    *n = k;
    return v;
}

/* Robust spread of ln v[0..n) (1.4826 x MAD of the logs of the positive,
 * finite values), and how many there were. */
static double log_spread(const double *v, uint32_t n, uint32_t *used) {
    double *l = lat__alloc((n ? n : 1) * sizeof *l);
    uint32_t k = 0;
    if (!l) {
        *used = 0;
        return 0;
    }
    for (uint32_t i = 0; i < n; i++)
        if (isfinite(v[i]) && v[i] > 0) l[k++] = log(v[i]);
    double s = 0;
    if (k >= 2) {
        lat_bench_summary sm;
        if (lat_bench_summarize(l, k, &sm) == 0) s = 1.4826 * sm.mad;
    }
    lat__free(l);
    *used = k;
    return s;
}

/* Minimum detectable effect of an unpaired comparison of a and b (see
 * lat_bench_change.mde): z_{0.975} + z_{0.8} = 1.95996 + 0.84162. */
static double min_detectable(const double *a, uint32_t na, const double *b, uint32_t nb) {
    uint32_t ka, kb;
    double sa = log_spread(a, na, &ka), sb = log_spread(b, nb, &kb);
    if (ka < 2 || kb < 2) return NAN;
    double pooled = sqrt(((ka - 1) * sa * sa + (kb - 1) * sb * sb) / (double)(ka + kb - 2));
    return expm1((1.959964 + 0.841621) * pooled * sqrt(1.0 / ka + 1.0 / kb));
}

/* Run-to-run drift of result r's median across the history: 1.4826 x the
 * median |log(m_i) - median log m| (a robust standard deviation of the log
 * medians), as a relative figure; 0 with fewer than 3 runs. */
static double history_drift(const lat_bench_report *const *hist, size_t nh,
                            const lat_bench_result *r, bool cpu) {
    if (nh < 3) return 0;
    double *lm = lat__calloc(nh, sizeof *lm);
    size_t k = 0;
    if (!lm) return 0;
    for (size_t h = 0; h < nh; h++) {
        const lat_bench_result *hr = find_match(hist[h], r);
        if (!hr || hr->n == 0) continue;
        uint32_t nv = 0;
        double *v = per_op(hr, cpu && hr->cpu_ns, &nv);
        lat_bench_summary s;
        if (v && lat_bench_summarize(v, nv, &s) == 0 && s.median > 0) lm[k++] = log(s.median);
        lat__free(v);
    }
    double drift = 0;
    lat_bench_summary s;
    if (k >= 3 && lat_bench_summarize(lm, k, &s) == 0) {
        for (size_t i = 0; i < k; i++)
            lm[i] = fabs(lm[i] - s.median);
        lat_bench_summary d;
        if (lat_bench_summarize(lm, k, &d) == 0) drift = expm1(1.4826 * d.median);
    }
    lat__free(lm);
    return drift;
}

/* The lowest and highest median of result r across the history (the levels
 * earlier runs of the same code already reached); false with fewer than 2. */
static bool history_range(const lat_bench_report *const *hist, size_t nh, const lat_bench_result *r,
                          bool cpu, double *lo, double *hi) {
    size_t k = 0;
    for (size_t h = 0; h < nh; h++) {
        const lat_bench_result *hr = find_match(hist[h], r);
        if (!hr || hr->n == 0) continue;
        uint32_t nv = 0;
        double *v = per_op(hr, cpu && hr->cpu_ns, &nv);
        lat_bench_summary s;
        if (v && lat_bench_summarize(v, nv, &s) == 0 && s.median > 0) {
            if (k == 0 || s.median < *lo) *lo = s.median;
            if (k == 0 || s.median > *hi) *hi = s.median;
            k++;
        }
        lat__free(v);
    }
    return k >= 2;
}

int lat_bench_compare(const lat_bench_report *old, const lat_bench_report *cur,
                      const lat_bench_compare_opts *opts, lat_bench_comparison **out) {
    return lat_bench_compare_history(&old, 1, cur, opts, out);
}

int lat_bench_compare_history(const lat_bench_report *const *hist, size_t nh,
                              const lat_bench_report *cur, const lat_bench_compare_opts *opts,
                              lat_bench_comparison **out) {
    if (!hist || nh == 0 || !cur || !out) return -EINVAL;
    const lat_bench_report *old = NULL;
    int rc;
    for (size_t h = 0; h < nh; h++) {
        if (!hist[h]) return -EINVAL;
        if ((rc = lat_bench_compatible(hist[h], cur, NULL, 0))) return rc;
        if (!old || hist[h]->timestamp_ns >= old->timestamp_ns) old = hist[h];
    }
    lat_bench_compare_opts o = {.alpha = 0.05,
                                .materiality = 0.05,
                                .noise_mult = 1.0,
                                .min_cpu_share = 0.9,
                                .drift_mult = 3.0};
    if (opts) o = *opts;
    lat_bench_comparison *c = lat__calloc(1, sizeof *c);
    if (!c) return -ENOMEM;
    c->changes = lat__calloc(cur->n_results ? cur->n_results : 1, sizeof *c->changes);
    if (!c->changes) {
        lat__free(c);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < cur->n_results; i++) {
        const lat_bench_result *nr = &cur->results[i], * or = find_match(old, nr);
        lat_bench_change *ch = &c->changes[c->n++];
        ch->group = nr->group;
        ch->name = nr->name;
        bool cpu = o.cpu_time && or->cpu_ns && nr->cpu_ns;
        uint32_t on = 0, cn = 0;
        double *ov = per_op(or, cpu, &on), *nv = per_op(nr, cpu, &cn);
        lat_bench_summary so, sn;
        lat_bench_mwu u;
        rc = !ov || !nv ? -ENOMEM : 0;
        if (!rc) rc = lat_bench_summarize(ov, on, &so);
        if (!rc) rc = lat_bench_summarize(nv, cn, &sn);
        if (!rc) rc = lat_bench_mann_whitney(ov, on, nv, cn, &u);
        if (!rc) ch->mde = min_detectable(ov, on, nv, cn);
        lat__free(ov);
        lat__free(nv);
        if (rc) {
            lat_bench_comparison_destroy(c);
            return rc;
        }
        ch->old_median_ns = so.median;
        ch->new_median_ns = sn.median;
        ch->ratio = so.median > 0 ? sn.median / so.median : NAN;
        ch->p = u.p;
        double no = so.median > 0 ? so.mad / so.median : 0;
        double nn = sn.median > 0 ? sn.mad / sn.median : 0;
        ch->noise = no > nn ? no : nn;
        ch->drift = history_drift(hist, nh, nr, cpu);
        ch->history = (uint32_t)nh;
        ch->verdict = LAT_BENCH_UNCHANGED;
        double shift = fabs(ch->ratio - 1);
        /* Busy-machine guard: when a standard benchmark's thread had a CPU
         * less than min_cpu_share of the time (or a concurrent benchmark's
         * share moved by > 10%), a shift no bigger than waiting for a CPU
         * could explain (1 / the lower share; the ratio of the shares) is not
         * called.  Shares of 0 (unknown: a virtual clock) or NaN never trip it. */
        double so_ = or->cpu_share, sn_ = nr->cpu_share;
        if (o.min_cpu_share > 0 && so_ > 0 && sn_ > 0 && isfinite(ch->ratio) && ch->ratio > 0) {
            double lo = so_ < sn_ ? so_ : sn_, hi = so_ < sn_ ? sn_ : so_;
            double factor = ch->ratio > 1 ? ch->ratio : 1 / ch->ratio, explain = 1;
            if (nr->kind == LAT_BENCH_STANDARD && lo < o.min_cpu_share)
                explain = 1 / lo;
            else if (nr->kind == LAT_BENCH_CONCURRENT && hi / lo > 1.10)
                explain = hi / lo;
            ch->busy = factor < explain;
        }
        if (u.p < o.alpha && isfinite(ch->ratio) && shift >= o.materiality) {
            /* A level earlier runs already reached (bimodal code placement,
             * a buffer's alignment from one run to the next) is not news. */
            double lo = 0, hi = 0;
            ch->seen = o.drift_mult > 0 && history_range(hist, nh, nr, cpu, &lo, &hi) &&
                       sn.median >= lo * (1 - ch->noise) && sn.median <= hi * (1 + ch->noise);
            if (shift >= o.noise_mult * ch->noise && shift >= o.drift_mult * ch->drift &&
                !ch->busy && !ch->seen)
                ch->verdict = ch->ratio > 1 ? LAT_BENCH_REGRESSED : LAT_BENCH_IMPROVED;
            else
                ch->verdict = LAT_BENCH_INCONCLUSIVE;
        }
        if (ch->verdict == LAT_BENCH_INCONCLUSIVE)
            c->inconclusive++;
        else if (ch->verdict == LAT_BENCH_REGRESSED)
            c->regressed++;
        else if (ch->verdict == LAT_BENCH_IMPROVED)
            c->improved++;
        else
            c->unchanged++;
    }
    *out = c;
    return 0;
}

void lat_bench_comparison_destroy(lat_bench_comparison *c) {
    if (!c) return;
    lat__free(c->baseline);
    lat__free(c->changes);
    lat__free(c);
}

void lat_bench_comparison_print(const lat_bench_comparison *c, FILE *out) {
    if (!c || !out) return;
    fprintf(out,
            "\ncomparison with %s (Mann-Whitney U on per-sample kept ns/op, ratio of medians; "
            "MDE: the smallest change these runs could see, alpha 0.05, power 0.8)\n",
            c->baseline ? c->baseline : "previous report");
    fprintf(out, "  %-40s %12s %12s %8s %9s %8s %8s %8s  %s\n", "benchmark", "old median",
            "new median", "ratio", "p", "noise", "drift", "MDE", "verdict");
    for (uint32_t i = 0; i < c->n; i++) {
        const lat_bench_change *ch = &c->changes[i];
        char name[256];
        snprintf(name, sizeof name, "%s/%s", ch->group, ch->name);
        char drift[16] = "-";
        if (ch->history >= 3) snprintf(drift, sizeof drift, "%.2f%%", ch->drift * 100);
        char mde[16] = "-";
        if (isfinite(ch->mde)) snprintf(mde, sizeof mde, "%.2f%%", ch->mde * 100);
        fprintf(out, "  %-40s %9.3f ns %9.3f ns %8.4f %9.2g %7.2f%% %8s %8s  %s\n", name,
                ch->old_median_ns, ch->new_median_ns, ch->ratio, ch->p, ch->noise * 100, drift, mde,
                ch->verdict == LAT_BENCH_REGRESSED   ? "regressed"
                : ch->verdict == LAT_BENCH_IMPROVED  ? "improved"
                : ch->verdict == LAT_BENCH_UNCHANGED ? "unchanged"
                : ch->busy                           ? "inconclusive (busy machine)"
                                                     : "inconclusive (within the runs' noise)");
    }
    fprintf(out, "  %u improved, %u regressed, %u unchanged, %u inconclusive\n", c->improved,
            c->regressed, c->unchanged, c->inconclusive);
    fprintf(out, "  caveat: unpaired runs cannot separate the host's drift between the two runs "
                 "from the code's change; for that, run `latlab ab`\n");
}

int lat_bench_find_baseline(const char *dir, const lat_bench_report *cur, char **path, char *why,
                            size_t whylen) {
    if (!dir || !cur || !path) return -EINVAL;
    *path = NULL;
    if (why && whylen) why[0] = 0;
    DIR *d = opendir(dir);
    if (!d) {
        why_set(why, whylen, "cannot open %s: %s", dir, strerror(errno));
        return -ENOENT;
    }
    int64_t best_ts = INT64_MIN;
    char *best = NULL;
    int64_t newest_bad_ts = INT64_MIN;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0) continue;
        size_t pl = strlen(dir) + len + 2;
        char *p = lat__alloc(pl);
        if (!p) break;
        snprintf(p, pl, "%s/%s", dir, e->d_name);
        lat_bench_report *rep = NULL;
        char reason[256] = "";
        int rc = lat_bench_report_load(p, &rep, reason, sizeof reason);
        if (rc == 0) rc = lat_bench_compatible(rep, cur, reason, sizeof reason);
        int64_t ts = rep ? rep->timestamp_ns : INT64_MIN;
        /* A report is never its own baseline. */
        if (rc == 0 && rep->timestamp_ns == cur->timestamp_ns && cur->timestamp_ns != 0) {
            rc = LAT_EINCOMPATIBLE;
            snprintf(reason, sizeof reason, "it is this run");
        }
        if (rc == 0 && ts > best_ts) {
            lat__free(best);
            best = p;
            p = NULL;
            best_ts = ts;
        } else if (rc != 0 && ts >= newest_bad_ts) {
            newest_bad_ts = ts;
            why_set(why, whylen, "%s: %s", e->d_name, reason);
        }
        lat__free(p);
        lat_bench_report_destroy(rep);
    }
    closedir(d);
    if (!best) {
        if (why && whylen && !why[0]) why_set(why, whylen, "no reports in %s", dir);
        return -ENOENT;
    }
    *path = strdup(best); /* plain malloc: the caller frees with free() */
    lat__free(best);
    return *path ? 0 : -ENOMEM;
}

static int cmp_report_ts(const void *a, const void *b) {
    const lat_bench_report *x = *(lat_bench_report *const *)a, *y = *(lat_bench_report *const *)b;
    return (x->timestamp_ns > y->timestamp_ns) - (x->timestamp_ns < y->timestamp_ns);
}

int lat_bench_load_history(const char *dir, const lat_bench_report *cur, size_t max,
                           lat_bench_report ***out, size_t *n, char *why, size_t whylen) {
    if (!dir || !cur || !out || !n || max == 0) return -EINVAL;
    *out = NULL;
    *n = 0;
    if (why && whylen) why[0] = 0;
    DIR *d = opendir(dir);
    if (!d) {
        why_set(why, whylen, "cannot open %s: %s", dir, strerror(errno));
        return -ENOENT;
    }
    size_t cap = 0, cnt = 0;
    lat_bench_report **list = NULL;
    int64_t newest_bad_ts = INT64_MIN;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0) continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        lat_bench_report *rep = NULL;
        char reason[256] = "";
        int lrc = lat_bench_report_load(p, &rep, reason, sizeof reason);
        if (lrc == 0) lrc = lat_bench_compatible(rep, cur, reason, sizeof reason);
        if (lrc == 0 && rep->timestamp_ns == cur->timestamp_ns && cur->timestamp_ns != 0) {
            lrc = LAT_EINCOMPATIBLE;
            snprintf(reason, sizeof reason, "it is this run");
        }
        if (lrc != 0) {
            int64_t ts = rep ? rep->timestamp_ns : INT64_MIN;
            if (ts >= newest_bad_ts) {
                newest_bad_ts = ts;
                why_set(why, whylen, "%s: %s", e->d_name, reason);
            }
            lat_bench_report_destroy(rep);
            continue;
        }
        if (cnt == cap) {
            size_t nc = cap ? cap * 2 : 8;
            lat_bench_report **l2 = realloc(list, nc * sizeof *l2);
            if (!l2) {
                lat_bench_report_destroy(rep);
                rc = -ENOMEM;
                break;
            }
            list = l2;
            cap = nc;
        }
        list[cnt++] = rep;
    }
    closedir(d);
    if (rc == 0 && cnt == 0) {
        if (why && whylen && !why[0]) why_set(why, whylen, "no reports in %s", dir);
        rc = -ENOENT;
    }
    if (rc) {
        for (size_t i = 0; i < cnt; i++)
            lat_bench_report_destroy(list[i]);
        free(list);
        return rc;
    }
    qsort(list, cnt, sizeof *list, cmp_report_ts);
    if (cnt > max) { /* keep the newest max */
        for (size_t i = 0; i < cnt - max; i++)
            lat_bench_report_destroy(list[i]);
        memmove(list, list + (cnt - max), max * sizeof *list);
        cnt = max;
    }
    *out = list;
    *n = cnt;
    return 0;
}
