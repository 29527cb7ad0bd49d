/* trace_pipeline.c - a user's own three-thread pipeline, instrumented with
 * latlab's stage tracer (latlab/trace.h), printing per-stage percentiles once
 * a second.
 *
 *   producer -> q1 -> transformer -> q2 -> consumer -> (tracer's sink ring)
 *   t0 = intended     t1 dequeued,        t3 dequeued, ships the stamps
 *   send time         t2 work done
 *
 * The pipeline (its message, queues, threads, pacing) is the user's; the
 * lines marked TRACE are all the instrumentation it needs.  Usage:
 *   trace_pipeline [--seconds N] [--rate HZ] [--hlog PREFIX] [--socket PATH]
 * Exit status 0 when every event was aggregated or counted as dropped. */
/* nanosleep is POSIX: the program asks for it (latlab's headers need no
 * feature macro, and latlab.pc sets none). */
#define _POSIX_C_SOURCE 200809L

#include <latlab/error.h>
#include <latlab/ring.h>
#include <latlab/trace.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct order { /* the user's message */
    uint64_t seq, qty;
    lat_trace_stamps st; /* TRACE: the stamps ride along */
} order;

static lat_spsc *q1, *q2;
static lat_trace_sink *sink; /* TRACE: the consumer's sink */
static uint64_t events, period_ns;
static const lat_idle idle = {LAT_IDLE_BACKOFF, 10, 20, 1000, 100000};

static void *producer(void *arg) {
    (void)arg;
    const lat_clock_cal *cal = lat_clock_default();
    uint64_t start = lat_cycles();
    for (uint64_t i = 0; i < events; i++) {
        uint64_t due = start + lat_clock_from_ns(cal, i * period_ns); /* open loop */
        while (lat_cycles() < due) {
            struct timespec ts = {0, 20000};
            nanosleep(&ts, NULL);
        }
        order o = {.seq = i, .qty = i % 100};
        lat_trace_stamp_at(&o.st, 0, due); /* TRACE: t0 = intended send time */
        o.st.id = i;                       /* TRACE */
        lat_spsc_push_wait_t(q1, &o, &idle);
    }
    return NULL;
}

static void *transformer(void *arg) {
    (void)arg;
    for (uint64_t i = 0; i < events; i++) {
        order o;
        lat_spsc_pop_wait_t(q1, &o, &idle);
        lat_trace_stamp(&o.st, 1); /* TRACE: t1 */
        for (int k = 0; k < 50; k++)
            o.qty = o.qty * 6364136223846793005ull + 1;
        lat_trace_stamp(&o.st, 2); /* TRACE: t2 */
        lat_spsc_push_wait_t(q2, &o, &idle);
    }
    return NULL;
}

static void *consumer(void *arg) {
    (void)arg;
    for (uint64_t i = 0; i < events; i++) {
        order o;
        lat_spsc_pop_wait_t(q2, &o, &idle);
        lat_trace_stamp(&o.st, 3);   /* TRACE: t3 */
        lat_trace_ship(sink, &o.st); /* TRACE: never blocks */
    }
    return NULL;
}

/* TRACE: called once a second on the aggregator's thread. */
static void print_interval(void *ud, const lat_trace_interval *iv) {
    (void)ud;
    for (unsigned s = 0; s < iv->nstages; s++) {
        const lat_hist *h = iv->interval[s];
        static const double ps[] = {50, 99, 99.9};
        int64_t v[3];
        lat_hist_values_at_percentiles(h, ps, v, 3);
        printf("interval %" PRIu64 " %-8s count %8" PRId64 "  p50 %7" PRId64 "  p99 %7" PRId64
               "  p99.9 %8" PRId64 "  max %9" PRId64 " ns  (cumulative p99.9 %" PRId64 ")\n",
               iv->index, iv->names[s], lat_hist_total(h), v[0], v[1], v[2], lat_hist_max(h),
               lat_hist_value_at_percentile(iv->cumulative[s], 99.9));
    }
    fflush(stdout);
}

static const char usage[] =
    "usage: trace_pipeline [--seconds N] [--rate HZ] [--hlog PREFIX] [--socket PATH]\n"
    "Runs a three-thread pipeline for N seconds (default 3) at HZ events/s (default\n"
    "20000), prints each stage's percentiles once a second; --hlog writes one interval\n"
    "log per stage (PREFIX<stage>.hlog), --socket serves them to `latlab top --connect`.\n";

/* A number with nothing after it, or -1. */
static double number(const char *s) {
    char *end;
    double v = strtod(s, &end);
    return end != s && !*end ? v : -1;
}

/* The options into the arguments; -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, double *seconds, double *rate, const char **hlog,
                      const char **sock) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return fputs(usage, stdout) == EOF ? 1 : 0;
        if (i + 1 >= argc)
            return fprintf(stderr, "trace_pipeline: %s needs a value\n%s", argv[i], usage), 2;
        const char *v = argv[++i];
        if (!strcmp(argv[i - 1], "--seconds"))
            *seconds = number(v);
        else if (!strcmp(argv[i - 1], "--rate"))
            *rate = number(v);
        else if (!strcmp(argv[i - 1], "--hlog"))
            *hlog = v;
        else if (!strcmp(argv[i - 1], "--socket"))
            *sock = v;
        else
            return fprintf(stderr, "trace_pipeline: unknown option %s\n%s", argv[i - 1], usage), 2;
    }
    if (*seconds <= 0 || *rate < 1)
        return fprintf(stderr, "trace_pipeline: bad --seconds/--rate\n"), 2;
    return -1;
}

int main(int argc, char **argv) {
    double seconds = 3, rate = 20000;
    const char *hlog = NULL, *sock = NULL;
    int st = parse_args(argc, argv, &seconds, &rate, &hlog, &sock);
    if (st >= 0) return st;
    events = (uint64_t)(seconds * rate);
    period_ns = (uint64_t)(1e9 / rate);

    /* TRACE: declare the stages as pairs of stamp points, then one sink. */
    static const lat_trace_stage stages[] = {
        {"q1+wake", 0, 1}, {"work", 1, 2}, {"q2+wake", 2, 3}, {"e2e", 0, 3}};
    lat_trace_config cfg;
    lat_trace_config_default(&cfg);
    cfg.stages = stages;
    cfg.nstages = 4;
    cfg.hlog_prefix = hlog;
    cfg.socket_path = sock;
    cfg.on_interval = print_interval;
    lat_trace *tr;
    int rc = lat_trace_create(&cfg, &tr);
    if (rc == 0) rc = lat_trace_sink_create(tr, 0, &sink);
    if (rc == 0) rc = lat_trace_start(tr); /* or call lat_trace_drain() from a thread you have */
    if (rc == 0) rc = lat_spsc_create(sizeof(order), 1024, 0, &q1);
    if (rc == 0) rc = lat_spsc_create(sizeof(order), 1024, 0, &q2);
    if (rc) return fprintf(stderr, "trace_pipeline: setup failed: %s\n", lat_strerror(rc)), 1;

    pthread_t th[3];
    void *(*fn[3])(void *) = {producer, transformer, consumer};
    for (int i = 0; i < 3; i++)
        pthread_create(&th[i], NULL, fn[i], NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(th[i], NULL);

    rc = lat_trace_stop(tr); /* TRACE: drains everything, closes the last interval */
    lat_trace_counts n;
    lat_trace_counts_get(tr, &n);
    printf("events %" PRIu64 " recorded %" PRIu64 " dropped %" PRIu64 " intervals %" PRIu64 "\n",
           events, n.recorded, n.dropped, n.intervals);
    lat_trace_destroy(tr);
    lat_spsc_destroy(q1);
    lat_spsc_destroy(q2);
    return rc == 0 && n.recorded + n.dropped == events ? 0 : 1;
}
