/* bakeoff.c - the SPSC ring bake-off (see bakeoff.h).
 *
 * latlab's cached-index ring and per-slot sequence ring against Concurrency
 * Kit's ck_ring (the C ring to beat) and a mutex + condition-variable queue, in
 * one run, on two pinned CPUs: same-thread push+pop (8-byte items and the
 * pipeline's 56-byte message), cross-core streaming throughput for 8-byte and
 * 40-byte items, and round-trip latency through two queues, with the raw cache-line ping-pong
 * between the same CPUs measured in every round as the floor.  Rounds interleave the queues so
 * drifting host noise hits all of them alike; figures are medians over the rounds, each also given
 * as a ratio to ck_ring and to the floor.  The result also names the bake-off's winner, the ring
 * the pipeline should use by default (LAT_RING_DEFAULT_SEQ in ring.h). */
#include "bakeoff.h"

#include "bakeoff_rings.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "latlab/atomicfile.h"
#include "latlab/clock.h"
#include "latlab/json.h"
#include "latlab/pingpong.h"
#include "latlab/ring.h"

enum { F_ST, F_ST56, F_ST56P, F_TP8, F_TP40, F_P50, F_P99, F_P999, F_N };
static const char *fig_names[F_N] = {
    "same_thread_ns", "same_thread_56b_ns", "same_thread_56b_prepared_ns",
    "mops_8b",        "mops_40b",           "rtt_p50_ns",
    "rtt_p99_ns",     "rtt_p999_ns"};
/* --same-thread measures only these (no second CPU involved). */
#define SAME_THREAD_FIGS(f) ((f) <= F_ST56P)

#define MAX_ROUNDS LAT_BAKEOFF_MAX_ROUNDS

struct lat__bakeoff {
    lat__bakeoff_config cfg;
    int rounds;
    bool same_thread_only; /* --same-thread: only F_ST and F_ST56 were measured */
    double v[LAT_BAKEOFF_NKINDS][F_N][MAX_ROUNDS];
    double med[LAT_BAKEOFF_NKINDS][F_N];
    double all[LAT_BAKEOFF_NKINDS][2][MAX_ROUNDS]; /* whole-run Mops/s, 8 B and 40 B */
    double floor_v[3][MAX_ROUNDS];                 /* p50, p99, p99.9 */
    double floor_med[3];
};

static double med_of(const double *v, int n) {
    double tmp[MAX_ROUNDS];
    memcpy(tmp, v, sizeof(double) * (size_t)n);
    return lat__bakeoff_median(tmp, n);
}

/* Same-thread push+pop of 8-byte items and of the pipeline's message, every
 * queue interleaved (lat__bakeoff_same_thread_all); NaN for a queue not built in. */
static int same_thread_round(lat__bakeoff *res, int round, uint64_t ops) {
    static const uint64_t scales[LAT_BAKEOFF_NKINDS] = {1, 1, 1, 20};
    double st[LAT_BAKEOFF_NKINDS], st56[LAT_BAKEOFF_NKINDS], st56p[LAT_BAKEOFF_NKINDS];
    int err = lat__bakeoff_same_thread_all(8, false, ops, scales, st);
    if (!err)
        err = lat__bakeoff_same_thread_all(LAT_BAKEOFF_PIPELINE_ITEM, false, ops, scales, st56);
    if (!err)
        err = lat__bakeoff_same_thread_all(LAT_BAKEOFF_PIPELINE_ITEM, true, ops, scales, st56p);
    if (err) return err;
    for (int k = 0; k < LAT_BAKEOFF_NKINDS; k++) {
        bool ok = lat__bakeoff_kind_available((lat__bakeoff_kind)k);
        res->v[k][F_ST][round] = ok ? st[k] : NAN;
        res->v[k][F_ST56][round] = ok ? st56[k] : NAN;
        res->v[k][F_ST56P][round] = ok ? st56p[k] : NAN;
    }
    return 0;
}

static int run_round(lat__bakeoff *res, int round, const int cpus[2], uint64_t ops, uint64_t items,
                     uint64_t samples, size_t cap) {
    int err = same_thread_round(res, round, ops);
    if (err || res->same_thread_only) return err;
    lat_pingpong_result fl;
    if ((err = lat_pingpong(cpus[0], cpus[1], samples, &fl))) return err;
    res->floor_v[0][round] = fl.p50_ns;
    res->floor_v[1][round] = fl.p99_ns;
    res->floor_v[2][round] = fl.p999_ns;
    static const uint64_t scales[LAT_BAKEOFF_NKINDS] = {1, 1, 1, 20};
    for (int k = 0; k < LAT_BAKEOFF_NKINDS; k++) {
        uint64_t scale = scales[k];
        if (!lat__bakeoff_kind_available((lat__bakeoff_kind)k)) {
            for (int f = F_TP8; f < F_N; f++)
                res->v[k][f][round] = NAN;
            res->all[k][0][round] = res->all[k][1][round] = NAN;
            continue;
        }
        double m8, m40;
        if ((err = lat__bakeoff_throughput((lat__bakeoff_kind)k, 8, cap, cpus[0], cpus[1],
                                           items / scale, &m8, &res->all[k][0][round])))
            return err;
        if ((err = lat__bakeoff_throughput((lat__bakeoff_kind)k, 40, cap, cpus[0], cpus[1],
                                           items / scale, &m40, &res->all[k][1][round])))
            return err;
        res->v[k][F_TP8][round] = m8;
        res->v[k][F_TP40][round] = m40;
        lat__bakeoff_lat l;
        if ((err = lat__bakeoff_roundtrip((lat__bakeoff_kind)k, 1024, cpus[0], cpus[1],
                                          samples / scale, &l)))
            return err;
        res->v[k][F_P50][round] = l.p50_ns;
        res->v[k][F_P99][round] = l.p99_ns;
        res->v[k][F_P999][round] = l.p999_ns;
    }
    return 0;
}

/* The winner among latlab's two rings: the better round-trip p50, unless the
 * other one streams 8-byte items more than 25% faster. */
static lat__bakeoff_kind pick_winner(const lat__bakeoff *r) {
    const double *a = r->med[LAT_BAKEOFF_RING], *b = r->med[LAT_BAKEOFF_SEQRING];
    lat__bakeoff_kind lat = b[F_P50] <= a[F_P50] ? LAT_BAKEOFF_SEQRING : LAT_BAKEOFF_RING;
    lat__bakeoff_kind other = lat == LAT_BAKEOFF_RING ? LAT_BAKEOFF_SEQRING : LAT_BAKEOFF_RING;
    if (r->med[other][F_TP8] > 1.25 * r->med[lat][F_TP8] &&
        r->med[other][F_P50] < 1.1 * r->med[lat][F_P50])
        return other;
    return lat;
}

/* Same-thread push+pop: every queue at capacity 1024, the same item type,
 * inlined typed calls, interleaved chunks (fastest of 40 per round), the
 * median over the rounds, and the ratio to ck_ring's from the same run. */
static void print_same_thread(const lat__bakeoff *r, FILE *f) {
    const double *ck = r->med[LAT_BAKEOFF_CK];
    fprintf(f,
            "same thread, capacity 1024, medians of %d rounds; 56 B = the pipeline's message and "
            "the tracer's stamp block,\n'written': its first word stored just before the push (as "
            "the pipeline does), 'prepared': written beforehand\n",
            r->rounds);
    fprintf(f, "%-8s %12s %6s  %12s %6s  %12s %6s\n", "queue", "push+pop 8B", "vs ck",
            "56B written", "vs ck", "56B prepared", "vs ck");
    if (!lat__bakeoff_kind_available(LAT_BAKEOFF_CK))
        fprintf(f, "(ck_ring: Concurrency Kit was not found at build time - install libck-dev and "
                   "rebuild; its rows and the 'vs ck' ratios are nan)\n");
    for (int k = 0; k < LAT_BAKEOFF_NKINDS; k++) {
        const double *m = r->med[k];
        fprintf(f, "%-8s %9.2f ns %5.2fx  %9.2f ns %5.2fx  %9.2f ns %5.2fx\n",
                lat__bakeoff_kind_name((lat__bakeoff_kind)k), m[F_ST], m[F_ST] / ck[F_ST],
                m[F_ST56], m[F_ST56] / ck[F_ST56], m[F_ST56P], m[F_ST56P] / ck[F_ST56P]);
    }
    fprintf(f, "(the pipeline's default ring is %s)\n", LAT_RING_DEFAULT_NAME);
}

static void print_table(const lat__bakeoff *r, const int cpus[2], size_t cap, FILE *f) {
    const double *ck = r->med[LAT_BAKEOFF_CK];
    double floor50 = r->floor_med[0];
    if (r->same_thread_only) {
        fprintf(f, "ring bake-off, same thread only: %d rounds (medians), %.4f cycles/ns\n",
                r->rounds, lat_clock_default()->cycles_per_ns);
        print_same_thread(r, f);
        return;
    }
    fprintf(f, "ring bake-off: CPUs %d and %d, %d rounds (medians), capacity %zu, %.4f cycles/ns\n",
            cpus[0], cpus[1], r->rounds, cap, lat_clock_default()->cycles_per_ns);
    fprintf(f,
            "floor: cache-line ping-pong round trip p50 %.1f ns, p99 %.1f ns, p99.9 %.1f ns (one "
            "hop %.1f ns)\n\n",
            floor50, r->floor_med[1], r->floor_med[2], floor50 / 2);
    print_same_thread(r, f);
    fprintf(f, "\n%-8s %10s %6s  %10s %6s\n", "queue", "Mops/s 8B", "vs ck", "Mops/s 40B", "vs ck");
    for (int k = 0; k < LAT_BAKEOFF_NKINDS; k++) {
        const double *m = r->med[k];
        fprintf(f, "%-8s %10.1f %5.2fx  %10.1f %5.2fx\n",
                lat__bakeoff_kind_name((lat__bakeoff_kind)k), m[F_TP8], m[F_TP8] / ck[F_TP8],
                m[F_TP40], m[F_TP40] / ck[F_TP40]);
    }
    fprintf(f, "\n%-8s %9s %9s %9s %6s %9s  %s\n", "queue", "RTT p50", "p99", "p99.9", "vs ck",
            "vs floor", "ns/item 8B vs floor hop");
    for (int k = 0; k < LAT_BAKEOFF_NKINDS; k++) {
        const double *m = r->med[k];
        fprintf(f, "%-8s %6.1f ns %6.1f ns %6.1f ns %5.2fx %8.2fx  %.3fx\n",
                lat__bakeoff_kind_name((lat__bakeoff_kind)k), m[F_P50], m[F_P99], m[F_P999],
                m[F_P50] / ck[F_P50], m[F_P50] / floor50, (1e3 / m[F_TP8]) / (floor50 / 2));
    }
    for (int k = 0; k < LAT_BAKEOFF_NKINDS; k++)
        if (r->med[k][F_P50] < 0.9 * floor50)
            fprintf(
                f,
                "IMPLAUSIBLE: %s's round trip is below the ping-pong floor: the harness is lying\n",
                lat__bakeoff_kind_name((lat__bakeoff_kind)k));
}

static json_t *fig_json(const double *med, const double (*v)[MAX_ROUNDS], int rounds,
                        bool same_thread_only) {
    json_t *o = json_object();
    for (int f = 0; f < F_N; f++) {
        if (same_thread_only && !SAME_THREAD_FIGS(f)) continue;
        json_object_set_new(o, fig_names[f], json_real(med[f]));
        json_t *a = json_array();
        for (int i = 0; i < rounds; i++)
            json_array_append_new(a, json_real(v[f][i]));
        char key[64];
        snprintf(key, sizeof key, "%s_rounds", fig_names[f]);
        json_object_set_new(o, key, a);
    }
    return o;
}

static int write_json(const char *path, const lat__bakeoff *r, const int cpus[2], size_t cap,
                      lat__bakeoff_kind winner) {
    json_t *j = json_object();
    json_object_set_new(j, "command", json_string("bakeoff ring"));
    json_t *jc = json_array();
    json_array_append_new(jc, json_integer(cpus[0]));
    json_array_append_new(jc, json_integer(cpus[1]));
    json_object_set_new(j, "cpus", jc);
    json_object_set_new(j, "rounds", json_integer(r->rounds));
    json_object_set_new(j, "capacity", json_integer((json_int_t)cap));
    json_object_set_new(j, "cycles_per_ns", json_real(lat_clock_default()->cycles_per_ns));
    json_object_set_new(j, "same_thread_only", json_boolean(r->same_thread_only));
    json_object_set_new(j, "pipeline_item_bytes", json_integer(LAT_BAKEOFF_PIPELINE_ITEM));
    json_object_set_new(j, "compiled_default", json_string(LAT_RING_DEFAULT_NAME));
    json_t *q = json_object();
    for (int k = 0; k < LAT_BAKEOFF_NKINDS; k++) {
        json_t *o = fig_json(r->med[k], r->v[k], r->rounds, r->same_thread_only);
        const double *ck = r->med[LAT_BAKEOFF_CK];
        json_object_set_new(o, "same_thread_vs_ck", json_real(r->med[k][F_ST] / ck[F_ST]));
        json_object_set_new(o, "same_thread_56b_vs_ck", json_real(r->med[k][F_ST56] / ck[F_ST56]));
        json_object_set_new(o, "same_thread_56b_prepared_vs_ck",
                            json_real(r->med[k][F_ST56P] / ck[F_ST56P]));
        if (!r->same_thread_only) {
            json_object_set_new(o, "mops_8b_vs_ck", json_real(r->med[k][F_TP8] / ck[F_TP8]));
            json_object_set_new(o, "mops_40b_vs_ck", json_real(r->med[k][F_TP40] / ck[F_TP40]));
            json_object_set_new(o, "rtt_p50_vs_ck", json_real(r->med[k][F_P50] / ck[F_P50]));
            json_object_set_new(o, "rtt_p50_vs_floor",
                                json_real(r->med[k][F_P50] / r->floor_med[0]));
        }
        json_object_set_new(q, lat__bakeoff_kind_name((lat__bakeoff_kind)k), o);
    }
    json_object_set_new(j, "queues", q);
    if (r->same_thread_only) {
        int err = lat_write_json_atomic(path, j);
        json_decref(j);
        return err;
    }
    json_t *fl = json_object();
    json_object_set_new(fl, "rtt_p50_ns", json_real(r->floor_med[0]));
    json_object_set_new(fl, "rtt_p99_ns", json_real(r->floor_med[1]));
    json_object_set_new(fl, "rtt_p999_ns", json_real(r->floor_med[2]));
    json_t *fr = json_array();
    for (int i = 0; i < r->rounds; i++)
        json_array_append_new(fr, json_real(r->floor_v[0][i]));
    json_object_set_new(fl, "rtt_p50_ns_rounds", fr);
    json_object_set_new(j, "floor", fl);
    json_object_set_new(j, "winner", json_string(lat__bakeoff_kind_name(winner)));
    int err = lat_write_json_atomic(path, j);
    json_decref(j);
    return err;
}

size_t lat__bakeoff_size(void) {
    return sizeof(lat__bakeoff);
}

int lat__bakeoff_run(lat__bakeoff *res, const lat__bakeoff_config *cfg,
                     void (*progress)(void *ud, int round, int rounds), void *ud) {
    res->cfg = *cfg;
    res->rounds = cfg->rounds;
    res->same_thread_only = cfg->same_thread_only;
    for (int i = 0; i < res->rounds; i++) {
        if (progress) progress(ud, i + 1, res->rounds);
        int err = run_round(res, i, cfg->cpus, cfg->ops, cfg->items, cfg->samples, cfg->cap);
        if (err) return err;
    }
    for (int k = 0; k < LAT_BAKEOFF_NKINDS; k++)
        for (int f = 0; f < F_N; f++)
            res->med[k][f] = med_of(res->v[k][f], res->rounds);
    for (int f = 0; f < 3; f++)
        res->floor_med[f] = med_of(res->floor_v[f], res->rounds);
    return 0;
}

void lat__bakeoff_print(const lat__bakeoff *r, FILE *f) {
    print_table(r, r->cfg.cpus, r->cfg.cap, f);
    if (r->same_thread_only) return;
    lat__bakeoff_kind winner = pick_winner(r);
    fprintf(f,
            "\nwinner (round-trip p50, unless the other ring streams >25%% faster): %s; the "
            "pipeline's compiled default is %s (LAT_RING_DEFAULT_SEQ=%d)%s\n",
            lat__bakeoff_kind_name(winner), LAT_RING_DEFAULT_NAME, LAT_RING_DEFAULT_SEQ,
            strcmp(lat__bakeoff_kind_name(winner), LAT_RING_DEFAULT_NAME)
                ? " -- differs on this run"
                : "");
}

int lat__bakeoff_write_json(const lat__bakeoff *r, const char *path) {
    return write_json(path, r, r->cfg.cpus, r->cfg.cap, pick_winner(r));
}
