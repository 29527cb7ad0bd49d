/* load.c - `latlab load TARGET`: an open-loop load generator for a real
 * service (HTTP/1.1, Redis, memcached or a fixed-size echo over TCP) that
 * checks itself.  The engine (measure/load.c) runs on its own pinned thread;
 * this thread prints a live line per second on stderr, writes the interval log
 * (.hlog, tagged latency/service/lag) as it goes, then the table, the verdict
 * and the JSON (cli/loadout.c).  Exit 0 ok, 1 the run could not go on (or a
 * write failed), 2 usage, 4 invalid with --strict. */
#include "cli.h"
#include "cliopts.h"
#include "load.h"
#include "promcli.h"

#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "latlab/atomicfile.h"
#include "latlab/clock.h"
#include "latlab/hlog.h"

#define CMD "load"
#define EXIT_INVALID 4

static struct {
    double rate;
    uint64_t duration_ns, connections, inflight, threads, timeout_ns, gap_ns, seed, echo_size;
    uint64_t key_space, value_size, max_response;
    int arrivals, protocol, mc_op, cpu;
    double lag_fraction, ci_width;
    const char *json, *hlog, *hgrm, *method, *path, *body, *redis_cmd, *host;
    cli_list headers;
    cli_prom prom;
    bool strict, quiet, rate_seen, seed_seen, path_seen, duration_seen;
    const char *replay;
} o;

static const cli_opt load_opts[] = {
    CLI_SEEN_OPT("rate", CLI_DOUBLE, &o.rate, "R",
                 "requests per second (required, except with --arrivals replay)", 0.001, 1e8, NULL,
                 &o.rate_seen),
    CLI_SEEN_OPT("duration", CLI_DURATION, &o.duration_ns, "DUR",
                 "how long the schedule runs (default 10s; replay: the file's span)", 0, 0, NULL,
                 &o.duration_seen),
    CLI_CHOICE_OPT("arrivals", &o.arrivals, "constant|poisson|replay",
                   "the schedule: evenly spaced, a Poisson process, or the intended\n"
                   "send times of --replay (default constant)"),
    CLI_STR_OPT("replay", CLI_PATH, &o.replay, "FILE",
                "--arrivals replay: one intended send time per line, ns from the\n"
                "start, non-decreasing ('#' comments); read as the run goes"),
    CLI_SEEN_OPT("seed", CLI_U64, &o.seed, "N",
                 "the Poisson stream, 0..2^53-1 (exact in any JSON reader;\n"
                 "default: from the clock; always printed so a run can be repeated)",
                 0, 9007199254740991.0, NULL, &o.seed_seen),
    CLI_NUM_OPT("connections", CLI_U64, &o.connections, "N", "TCP connections (default 8)", 1,
                4096),
    CLI_NUM_OPT("threads", CLI_U64, &o.threads, "T",
                "sending threads (default 1), each with its share of the rate and\n"
                "of the connections; constant arrivals interleave into one timetable,\n"
                "Poisson ones are independent streams (their sum is Poisson)",
                1, 64),
    CLI_NUM_OPT("inflight", CLI_U64, &o.inflight, "N",
                "requests in flight per connection at most (default 1: no\n"
                "pipelining); a request finding every connection full waits, and\n"
                "the wait counts in its latency",
                1, 1024),
    CLI_CHOICE_OPT("protocol", &o.protocol, "echo|http|redis|memcached",
                   "the wire protocol (default http)"),
    CLI_NUM_OPT("timeout", CLI_DURATION, &o.timeout_ns, "DUR",
                "a request without a response this long fails (default 10s)", 0, 0),
    CLI_NUM_OPT("cpu", CLI_INT, &o.cpu, "CPU", "pin the sending thread there (default: not pinned)",
                0, 4095),
    CLI_STR_OPT("json", CLI_PATH, &o.json, "FILE", "the results and the verdict as JSON"),
    CLI_STR_OPT("hlog", CLI_PATH, &o.hlog, "FILE",
                "interval log, one line per second per tag (latency, service, lag)"),
    CLI_STR_OPT("hgrm", CLI_PATH, &o.hgrm, "FILE",
                "the whole run's latency percentiles (.hgrm, us, with 95% intervals)"),
    CLI_FLAG_OPT("strict", &o.strict, "exit 4 when the verdict is invalid"),
    CLI_FLAG_OPT("quiet", &o.quiet, "no live line on stderr"),
    CLI_HEADING_ROW("Prometheus (series latency, service, lag of latlab_load_seconds)"),
    CLI_PROM_SERVE_ROWS(o.prom),
    CLI_PROM_PUSH_ROWS(o.prom),
    CLI_HEADING_ROW("the verdict"),
    CLI_NUM_OPT("lag-fraction", CLI_DOUBLE, &o.lag_fraction, "F",
                "a percentile is valid when the schedule lag there is below F\n"
                "of the latency (default 0.1)",
                0.001, 1),
    CLI_NUM_OPT("ci-width", CLI_DOUBLE, &o.ci_width, "F",
                "a printed percentile's 95% interval may span at most F of its\n"
                "value (default 0.5)",
                0.001, 100),
    CLI_NUM_OPT("gap", CLI_DURATION, &o.gap_ns, "DUR",
                "the sending thread's platform gap threshold; also the lag that\n"
                "makes a request late (default 10us)",
                0, 0),
    CLI_HEADING_ROW("protocols"),
    CLI_STR_OPT("method", CLI_STRING, &o.method, "M", "http: request method (default GET)"),
    CLI_SEEN_OPT("path", CLI_STRING, &o.path, "P", "http: request path (default /, or the URL's)",
                 0, 0, NULL, &o.path_seen),
    CLI_LIST_OPT("header", &o.headers, "H",
                 "http: one more header line 'Name: value' (repeatable)"),
    CLI_STR_OPT("body", CLI_STRING, &o.body, "TEXT", "http: request body"),
    CLI_STR_OPT("host", CLI_STRING, &o.host, "NAME",
                "http: Host header (default the target's host)"),
    CLI_STR_OPT("redis-cmd", CLI_STRING, &o.redis_cmd, "CMD",
                "redis: the command, words split at spaces; {key} is the key\n"
                "(default PING)"),
    CLI_CHOICE_OPT("mc-op", &o.mc_op, "get|set", "memcached: the operation (default get)"),
    CLI_NUM_OPT("key-space", CLI_U64, &o.key_space, "N",
                "redis {key}, memcached: keys key:0000000000 .. N-1 in turn (default 1)", 1,
                10000000000ull),
    CLI_NUM_OPT("value-size", CLI_U64, &o.value_size, "BYTES",
                "memcached set: value size (default 32)", 1, 60000),
    CLI_NUM_OPT("echo-size", CLI_U64, &o.echo_size, "BYTES",
                "echo: request and response size (default 64)", 1, 60000),
    CLI_NUM_OPT("max-response", CLI_U64, &o.max_response, "BYTES",
                "a longer response is oversized: the request fails (default 1 MiB)", 1, 1ull << 32),
    CLI_END,
};

const cli_spec cmd_load_spec = {
    .name = "load",
    .synopsis = "latlab load TARGET --rate R [OPTIONS]",
    .about = "Open-loop load on a real service: every request has an intended send time from\n"
             "the schedule and none is skipped.  latency = completion - intended send (what a\n"
             "user waits), service = completion - actual send, lag = actual - intended send\n"
             "(the generator's own health).  TARGET is HOST:PORT, [IPV6]:PORT or, for http,\n"
             "http://HOST[:PORT][/PATH].  One sending thread spins on the cycle counter to each\n"
             "send time; responses are read through epoll.\n",
    .opts = load_opts,
    .epilog = "Prints a live line per second on stderr (rate, the second's p50/p99/p99.9,\n"
              "errors, lag p99), then the table with 95% intervals, errors by kind (refused,\n"
              "reset, closed, malformed, oversized, timeout, aborted), the sending thread's\n"
              "platform gaps, and last the verdict: \"valid\" or \"invalid: <reason>\".\n"
              "Exit 0 ok, 1 the run could not go on (unreachable, refused, every connection\n"
              "down for a second) or a write failed, 2 usage, 4 invalid with --strict.\n",
    .min_args = 1,
    .max_args = 1,
};

static const char *const proto_names[] = {"echo", "http", "redis", "memcached"};
static const lat_loadproto_kind proto_kinds[] = {LAT_LOADPROTO_ECHO, LAT_LOADPROTO_HTTP,
                                                 LAT_LOADPROTO_REDIS, LAT_LOADPROTO_MEMCACHED};

/* TARGET into host, port (and a path for http:// URLs).  0 or CLI_USAGE. */
static int split_target(const char *t, char *host, size_t hn, char *port, const char **path) {
    const char *s = t, *def_port = NULL;
    *path = NULL;
    if (!strncmp(s, "http://", 7)) {
        s += 7;
        def_port = "80";
        const char *sl = strchr(s, '/');
        *path = sl;
    }
    size_t len = *path ? (size_t)(*path - s) : strlen(s);
    const char *hs = s, *he, *ps = NULL;
    if (*s == '[') {
        he = memchr(s, ']', len);
        if (!he) return cli_usage_error(CMD, "target '%s': no ']'", t);
        hs = s + 1;
        if (he + 1 < s + len && he[1] == ':') ps = he + 2;
    } else {
        const char *c = memchr(s, ':', len);
        he = c ? c : s + len;
        if (c) ps = c + 1;
    }
    size_t hl = (size_t)(he - hs), pl = ps ? (size_t)(s + len - ps) : 0;
    if (!hl || hl >= hn) return cli_usage_error(CMD, "target '%s': no host", t);
    if (!ps && !def_port) return cli_usage_error(CMD, "target '%s' is not HOST:PORT", t);
    memcpy(host, hs, hl);
    host[hl] = 0;
    if (ps) {
        if (!pl || pl > 5 || strspn(ps, "0123456789") < pl)
            return cli_usage_error(CMD, "target '%s': bad port", t);
        memcpy(port, ps, pl);
        port[pl] = 0;
    } else {
        strcpy(port, def_port);
    }
    return 0;
}

static char host_buf[256], headers_buf[8192];

/* --replay's reader: the next time in the file (UINT64_MAX at its end or at a
 * line that is not one: the file was checked before the run). */
static uint64_t replay_next(void *ud) {
    FILE *f = ud;
    char line[128];
    while (fgets(line, sizeof line, f)) {
        char *p = line + strspn(line, " \t"), *end;
        if (*p == '#' || *p == '\n' || !*p) continue;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        if (errno || end == p || (*end && !strchr(" \t\r\n", *end)) || *p == '-') return UINT64_MAX;
        return v;
    }
    return UINT64_MAX;
}

/* Read --replay once before any work: every line a time, non-decreasing;
 * sets the mean rate and (unless given) the duration to the file's span. */
static int check_replay(void) {
    if (!o.replay) return cli_usage_error(CMD, "--arrivals replay: needs --replay FILE");
    if (o.threads > 1) return cli_usage_error(CMD, "--threads: not with --arrivals replay");
    if (o.rate_seen)
        return cli_usage_error(CMD, "--rate: not with --arrivals replay (the file sets it)");
    FILE *f = fopen(o.replay, "r");
    if (!f) return cli_usage_error(CMD, "--replay: %s: %s", o.replay, strerror(errno));
    char line[128];
    uint64_t n = 0, last = 0;
    for (long ln = 1; fgets(line, sizeof line, f); ln++) {
        char *p = line + strspn(line, " \t"), *end;
        if (*p == '#' || *p == '\n' || !*p) continue;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        if (errno || end == p || *p == '-' || (*end && !strchr(" \t\r\n", *end)) || v < last ||
            v >= UINT64_MAX / 2) {
            fclose(f);
            return cli_usage_error(
                CMD, "--replay: %s line %ld: not a time (ns) at or after the last", o.replay, ln);
        }
        last = v;
        n++;
    }
    fclose(f);
    if (!n) return cli_usage_error(CMD, "--replay: %s holds no send time", o.replay);
    if (!o.duration_seen) o.duration_ns = last + 1;
    o.rate = (double)n / ((double)(last ? last : 1) / 1e9);
    o.rate_seen = true;
    return 0;
}

/* Options that depend on each other; CLI_OK or CLI_USAGE. */
static int check_opts(const char *target, const char **url_path) {
    char port[8];
    if (split_target(target, host_buf, sizeof host_buf, port, url_path)) return CLI_USAGE;
    if (o.arrivals == 2) {
        int rc = check_replay();
        if (rc) return rc;
    } else if (o.replay) {
        return cli_usage_error(CMD, "--replay: only with --arrivals replay");
    }
    if (!o.rate_seen) return cli_usage_error(CMD, "--rate: required");
    if (!o.duration_ns) return cli_usage_error(CMD, "--duration: must be more than 0");
    lat_loadproto_kind k = proto_kinds[o.protocol];
    if (k != LAT_LOADPROTO_HTTP && (o.method || o.path_seen || o.headers.n || o.body || o.host))
        return cli_usage_error(CMD,
                               "--method/--path/--header/--body/--host: only with --protocol http");
    if (k != LAT_LOADPROTO_REDIS && o.redis_cmd)
        return cli_usage_error(CMD, "--redis-cmd: only with --protocol redis");
    if (k != LAT_LOADPROTO_ECHO && o.echo_size)
        return cli_usage_error(CMD, "--echo-size: only with --protocol echo");
    if (*url_path && k != LAT_LOADPROTO_HTTP)
        return cli_usage_error(CMD, "target '%s': an http:// URL needs --protocol http", target);
    if (o.connections < o.threads)
        return cli_usage_error(CMD, "--connections: fewer than --threads (%" PRIu64 ")", o.threads);
    cpu_set_t allowed;
    if (o.cpu >= 0 && sched_getaffinity(0, sizeof allowed, &allowed))
        return cli_usage_error(CMD, "--cpu: cannot read this process's CPUs");
    for (int k = 0; o.cpu >= 0 && k < (int)o.threads; k++)
        if (o.cpu + k >= CPU_SETSIZE || !CPU_ISSET(o.cpu + k, &allowed))
            return cli_usage_error(
                CMD, "--cpu: CPU %d (thread %d) is not one this process may run on", o.cpu + k, k);
    if (cli_list_join(&o.headers, "\r\n", headers_buf, sizeof headers_buf) >= sizeof headers_buf)
        return cli_usage_error(CMD, "--header: too long together");
    for (int i = 0; i < o.headers.n; i++)
        if (!strchr(o.headers.v[i], ':') || strpbrk(o.headers.v[i], "\r\n"))
            return cli_usage_error(CMD, "--header: '%s' is not 'Name: value'", o.headers.v[i]);
    return CLI_OK;
}

/* Build the request; CLI_OK or CLI_USAGE naming what is wrong. */
static int build_proto(lat_loadproto *p, const char *url_path) {
    lat_loadproto_opts po = {
        .kind = proto_kinds[o.protocol],
        .echo_size = o.echo_size,
        .method = o.method,
        .path = o.path_seen ? o.path : url_path,
        .host = o.host ? o.host : host_buf,
        .headers = o.headers.n ? headers_buf : NULL,
        .body = o.body,
        .redis_cmd = o.redis_cmd,
        .mc_set = o.mc_op == 1,
        .key_space = o.key_space,
        .value_size = o.value_size,
        .max_response = o.max_response,
    };
    int rc = lat_loadproto_init(p, &po);
    if (rc == -E2BIG)
        return cli_usage_error(CMD, "the request is larger than %d bytes", LAT_LOADPROTO_REQ_MAX);
    if (rc)
        return cli_usage_error(
            CMD, "--method/--path/--redis-cmd: empty, or a line break or space where none may be");
    return CLI_OK;
}

static int resolve(const char *target, lat_load_cfg *c) {
    char host[256], port[8];
    const char *path;
    split_target(target, host, sizeof host, port, &path);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
    int e = getaddrinfo(host, port, &hints, &res);
    if (e) return cli_error(CMD, "%s: %s", target, gai_strerror(e));
    memcpy(&c->addr, res->ai_addr, res->ai_addrlen);
    c->addr_len = res->ai_addrlen;
    freeaddrinfo(res);
    return CLI_OK;
}

/* ---- the run: the engines' threads and this one's live line ------------------------ */

#define MAX_THREADS 64

/* One engine per sending thread; the signal handler stops them all. */
static lat_load *running[MAX_THREADS];
static int nrunning;
static void on_signal(int sig) {
    (void)sig;
    for (int k = 0; k < nrunning; k++)
        lat_load_stop(running[k]); /* atomic stores */
}

typedef struct live {
    lat_load *l[MAX_THREADS];
    int n;
    int rc[MAX_THREADS];
    load_run *r;
    lat_hist ilat, isvc, ilag, part[3]; /* the interval; one engine's part of it */
    lat_afile *hf;
    lat_hlog_writer w;
    double t0_s, last_s;
    uint64_t last_completed;
    atomic_int left; /* engines still running */
    int hlog_rc;
    lat_prom_server *srv; /* --metrics */
} live;

typedef struct engine_arg {
    live *lv;
    int k;
} engine_arg;

static const char *const series[3] = {"latency", "service", "lag"};

static void *engine(void *arg) {
    engine_arg *a = arg;
    a->lv->rc[a->k] = lat_load_run(a->lv->l[a->k]);
    /* release: this engine's last counts and records happen-before the
     * acquire load in live_loop that sees it gone */
    atomic_fetch_sub_explicit(&a->lv->left, 1, memory_order_release);
    return NULL;
}

static double wall_s(void) {
    return (double)lat_clock_ns(CLOCK_REALTIME) / 1e9;
}

/* Every engine's counters added (the largest for the maxima; the gap time as
 * the mean per sending thread, so it compares with the run's length). */
static void counts_sum(const live *lv, lat_load_counts *out) {
    memset(out, 0, sizeof *out);
    uint64_t backlog = 0, longest = 0, run = 0;
    for (int k = 0; k < lv->n; k++) {
        lat_load_counts c;
        lat_load_counts_get(lv->l[k], &c);
        const uint64_t *s = (const uint64_t *)&c;
        uint64_t *d = (uint64_t *)out;
        for (size_t i = 0; i < sizeof c / sizeof *s; i++)
            d[i] += s[i];
        if (c.backlog_max > backlog) backlog = c.backlog_max;
        if (c.gap_longest_ns > longest) longest = c.gap_longest_ns;
        if (c.run_ns > run) run = c.run_ns;
    }
    out->backlog_max = backlog;
    out->gap_longest_ns = longest;
    out->run_ns = run;
    out->gap_ns /= (uint64_t)lv->n;
}

/* The interval since the last tick, from every engine, into ilat/isvc/ilag. */
static void take_interval(live *lv) {
    lat_hist *iv[3] = {&lv->ilat, &lv->isvc, &lv->ilag};
    for (int j = 0; j < 3; j++)
        lat_hist_reset(iv[j]);
    for (int k = 0; k < lv->n; k++) {
        lat_load_interval(lv->l[k], &lv->part[0], &lv->part[1], &lv->part[2]);
        for (int j = 0; j < 3; j++)
            lat_hist_add(iv[j], &lv->part[j]);
    }
}

/* Take the interval since the last tick: into the totals, the log, the live line. */
static void tick(live *lv) {
    double now = wall_s();
    take_interval(lv);
    lat_hist_add(&lv->r->latency, &lv->ilat);
    lat_hist_add(&lv->r->service, &lv->isvc);
    lat_hist_add(&lv->r->lag, &lv->ilag);
    if (lv->hf && !lv->hlog_rc) {
        const lat_hist *h[3] = {&lv->ilat, &lv->isvc, &lv->ilag};
        for (int k = 0; k < 3 && !lv->hlog_rc; k++)
            lv->hlog_rc =
                lat_hlog_write_interval(&lv->w, h[k], series[k], lv->last_s, now - lv->last_s);
    }
    const lat_hist *tot[3] = {&lv->r->latency, &lv->r->service, &lv->r->lag};
    if (lv->srv) lat_prom_server_update(lv->srv, tot, 3);
    lat_load_counts c;
    counts_sum(lv, &c);
    if (!o.quiet) {
        double ps[3] = {50, 99, 99.9};
        int64_t v[3];
        lat_hist_values_at_percentiles(&lv->ilat, ps, v, 3);
        fprintf(stderr,
                "[%5.1fs] rate %.0f/s  p50 %.3f ms  p99 %.3f ms  p99.9 %.3f ms  errors %" PRIu64
                "  lag p99 %.1f us\n",
                now - lv->t0_s, (double)(c.completed - lv->last_completed) / (now - lv->last_s),
                (double)v[0] / 1e6, (double)v[1] / 1e6, (double)v[2] / 1e6,
                c.failed + c.errors[LAT_LOAD_REFUSED],
                (double)lat_hist_value_at_percentile(&lv->ilag, 99) / 1e3);
    }
    lv->last_completed = c.completed;
    lv->last_s = now;
}

static void live_loop(live *lv) {
    double next = lv->t0_s + 1;
    while (atomic_load_explicit(&lv->left, memory_order_acquire) > 0) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
        if (wall_s() >= next) {
            tick(lv);
            next += 1;
        }
    }
    tick(lv); /* the last part-second */
}

static int open_hlog(live *lv) {
    if (!o.hlog) return 0;
    int rc = lat_afile_open(o.hlog, &lv->hf);
    if (rc) return cli_lib_error(CMD, o.hlog, rc);
    rc = lat_hlog_writer_init(&lv->w, lat_afile_stream(lv->hf), lv->t0_s, lv->t0_s, 0);
    if (rc) return cli_lib_error(CMD, o.hlog, rc);
    return 0;
}

static int close_hlog(live *lv) {
    lat_afile *f = lv->hf;
    lv->hf = NULL;
    if (!f) return 0;
    int rc = lv->hlog_rc;
    if (rc) {
        lat_afile_abort(f);
        return cli_lib_error(CMD, o.hlog, rc);
    }
    rc = lat_afile_commit(f);
    return rc ? cli_lib_error(CMD, o.hlog, rc) : 0;
}

/* Every engine's samples of width w (1: inter-arrivals, 2: latency pairs)
 * pooled into one array (the caller frees it); returns the count. */
static size_t pool(const live *lv, int w, double **out) {
    size_t n = 0;
    for (int k = 0; k < lv->n; k++) {
        const double *x;
        n += w == 1 ? lat_load_interarrivals(lv->l[k], &x) : lat_load_latency_pairs(lv->l[k], &x);
    }
    *out = malloc((n ? n : 1) * (size_t)w * sizeof **out);
    if (!*out) return 0;
    size_t at = 0;
    for (int k = 0; k < lv->n; k++) {
        const double *x;
        size_t m =
            w == 1 ? lat_load_interarrivals(lv->l[k], &x) : lat_load_latency_pairs(lv->l[k], &x);
        memcpy(*out + at * (size_t)w, x, m * (size_t)w * sizeof *x);
        at += m;
    }
    return n;
}

/* The verdict on the run just ended (the engines' samples pooled: each
 * thread's Poisson stream has the same rate, so its gaps share one law). */
static void judge(load_run *r, const live *lv) {
    double *ia, *pairs;
    size_t nia = pool(lv, 1, &ia), npairs = pool(lv, 2, &pairs);
    lat_load_verdict_in vin = {
        .arrivals = r->cfg.arrivals,
        .interarrivals = ia,
        .n_interarrivals = nia,
        .latency_pairs = pairs,
        .n_pairs = npairs,
        .latency = &r->latency,
        .lag = &r->lag,
        .counts = &r->counts,
        .ps = load_ps,
        .nps = load_nps,
        .lag_fraction = o.lag_fraction,
        .ci_width = o.ci_width,
    };
    lat_load_verdict_judge(&vin, &r->verdict);
    free(ia);
    free(pairs);
}

/* Engine k of n: its share of the rate and of the connections, its own
 * Poisson stream and CPU, one start for all, and (constant arrivals) its
 * phase, so the threads' sends interleave into one evenly spaced timetable. */
static lat_load_cfg engine_cfg(const lat_load_cfg *c, int k, int n, uint64_t start) {
    lat_load_cfg e = *c;
    e.rate_hz = c->rate_hz / n;
    e.connections = c->connections / (unsigned)n + ((unsigned)k < c->connections % (unsigned)n);
    e.seed = c->seed + (uint64_t)k;
    e.cpu = c->cpu >= 0 ? c->cpu + k : -1;
    e.start_cycles = start;
    e.offset_ns = c->arrivals == LAT_LOAD_CONSTANT ? (uint64_t)((double)k * 1e9 / c->rate_hz) : 0;
    return e;
}

/* Create the engines and the interval histograms: 0 or the exit status. */
static int make_engines(live *lv, const lat_load_cfg *c) {
    /* One start for several threads, after every connection had time to open. */
    uint64_t start =
        lv->n > 1 ? lat_cycles() + lat_clock_from_ns(lat_clock_default(), 200000000) : 0;
    for (int k = 0; k < lv->n; k++) {
        lat_load_cfg e = engine_cfg(c, k, lv->n, start);
        int rc = lat_load_create(&e, &lv->l[k]);
        if (rc) return cli_lib_error(CMD, "engine", rc);
    }
    lat_hist *h[6] = {&lv->ilat, &lv->isvc, &lv->ilag, &lv->part[0], &lv->part[1], &lv->part[2]};
    for (int j = 0; j < 6; j++)
        if (lat_load_hist_init(h[j])) return cli_lib_error(CMD, "histogram", -ENOMEM);
    return 0;
}

/* Run every engine on its thread while this one ticks; then join. */
static int run_threads(live *lv) {
    pthread_t th[MAX_THREADS];
    engine_arg args[MAX_THREADS];
    int started = 0, rc = 0;
    atomic_store_explicit(&lv->left, lv->n, memory_order_relaxed);
    for (; started < lv->n; started++) {
        args[started] = (engine_arg){lv, started};
        if ((rc = pthread_create(&th[started], NULL, engine, &args[started]))) break;
    }
    if (rc) { /* what started stops; what did not never counts */
        on_signal(0);
        atomic_fetch_sub_explicit(&lv->left, lv->n - started, memory_order_relaxed);
    }
    live_loop(lv);
    for (int k = 0; k < started; k++)
        pthread_join(th[k], NULL);
    return rc ? cli_lib_error(CMD, "thread", -rc) : 0;
}

static int run_engine(load_run *r) {
    live lv = {.r = r, .n = (int)o.threads};
    int rc = make_engines(&lv, &r->cfg);
    if (rc) goto out;
    lv.t0_s = lv.last_s = wall_s();
    if ((rc = open_hlog(&lv))) goto out;
    const lat_hist *tot[3] = {&r->latency, &r->service, &r->lag}; /* served from the start */
    if (o.prom.metrics_addr && cli_prom_serve(&o.prom, CMD, 3, series, tot, &lv.srv)) {
        rc = CLI_ERR;
        goto out;
    }
    for (int k = 0; k < lv.n; k++)
        running[k] = lv.l[k];
    nrunning = lv.n;
    struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    rc = run_threads(&lv);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    nrunning = 0;
    if (rc) goto out;
    counts_sum(&lv, &r->counts);
    for (int k = 0; k < lv.n && !r->run_rc; k++)
        r->run_rc = lv.rc[k];
    judge(r, &lv);
    cli_prom_serve_finish(&o.prom, lv.srv, NULL, 0);
    lv.srv = NULL;
    rc = close_hlog(&lv);
out:
    if (lv.hf) lat_afile_abort(lv.hf);
    if (lv.srv) cli_prom_serve_finish(&o.prom, lv.srv, NULL, 0);
    lat_hist *h[6] = {&lv.ilat, &lv.isvc, &lv.ilag, &lv.part[0], &lv.part[1], &lv.part[2]};
    for (int j = 0; j < 6; j++)
        lat_hist_fini(h[j]);
    for (int k = 0; k < lv.n; k++)
        lat_load_destroy(lv.l[k]);
    return rc;
}

/* The latency distribution as Java's .hgrm (values in us), atomically. */
static int write_hgrm(const lat_hist *h) {
    lat_afile *f;
    int rc = lat_afile_open(o.hgrm, &f);
    if (!rc)
        rc = lat_hist_write_percentiles_ci(lat_afile_stream(f), h, 5, 1e3, false,
                                           LAT_HIST_CI_DEFAULT);
    if (!rc) return (rc = lat_afile_commit(f)) ? cli_lib_error(CMD, o.hgrm, rc) : 0;
    lat_afile_abort(f);
    return cli_lib_error(CMD, o.hgrm, rc);
}

static int parse(int argc, char **argv, const char **url_path, const char **target) {
    memset(&o, 0, sizeof o);
    o.duration_ns = 10000000000ull;
    o.connections = 8;
    o.inflight = 1;
    o.threads = 1;
    o.protocol = 1;
    o.cpu = -1;
    cli_prom_init(&o.prom);
    o.prom.metric = "latlab_load_seconds";
    int first, rc = cli_parse(&cmd_load_spec, argc, argv, &first);
    if (rc) return rc;
    if (cli_prom_check(&o.prom, CMD)) return CLI_USAGE;
    *target = argv[first];
    return check_opts(argv[first], url_path) ? CLI_USAGE : 0;
}

int cmd_load(int argc, char **argv) {
    const char *url_path = NULL, *target = NULL;
    int rc = parse(argc, argv, &url_path, &target);
    if (rc) return rc < 0 ? CLI_OK : rc;
    if (o.prom.push_delete) return cli_prom_push(&o.prom, CMD, 3, series, NULL);
    static lat_loadproto proto;
    if ((rc = build_proto(&proto, url_path ? url_path : "/"))) return rc;
    load_run r = {.target = target, .protocol = proto_names[o.protocol], .threads = (int)o.threads};
    if (!o.seed_seen)
        o.seed = (lat_clock_ns(CLOCK_REALTIME) ^ ((uint64_t)getpid() << 32)) & ((1ull << 53) - 1);
    r.cfg = (lat_load_cfg){
        .proto = &proto,
        .arrivals = o.arrivals == 2 ? LAT_LOAD_REPLAY
                    : o.arrivals    ? LAT_LOAD_POISSON
                                    : LAT_LOAD_CONSTANT,
        .rate_hz = o.rate,
        .duration_ns = o.duration_ns,
        .seed = o.seed,
        .connections = (unsigned)o.connections,
        .max_inflight = (unsigned)o.inflight,
        .timeout_ns = o.timeout_ns,
        .cpu = o.cpu,
        .gap_ns = o.gap_ns,
    };
    if ((rc = resolve(r.target, &r.cfg))) return rc;
    FILE *rf = NULL;
    if (r.cfg.arrivals == LAT_LOAD_REPLAY) {
        static char rbuf[1 << 20]; /* the sending thread reads 1 MiB at a time */
        if (!(rf = fopen(o.replay, "r")))
            return cli_error(CMD, "%s: %s", o.replay, strerror(errno));
        setvbuf(rf, rbuf, _IOFBF, sizeof rbuf);
        r.cfg.replay_next = replay_next;
        r.cfg.replay_ud = rf;
    }
    if (lat_load_hist_init(&r.latency) || lat_load_hist_init(&r.service) ||
        lat_load_hist_init(&r.lag))
        return cli_lib_error(CMD, "histogram", -ENOMEM);
    rc = run_engine(&r);
    if (rf) fclose(rf);
    if (!rc && r.run_rc)
        cli_error(CMD, "%s: the run could not go on: %s", r.target, strerror(-r.run_rc));
    int prc = (!rc) ? load_print(&r) : CLI_OK;
    int jrc = (!rc && o.json) ? load_write_json(&r, o.json) : CLI_OK;
    if (!rc && o.hgrm && write_hgrm(&r.latency)) jrc = CLI_ERR;
    const lat_hist *tot[3] = {&r.latency, &r.service, &r.lag};
    if (!rc && o.prom.push_url && cli_prom_push(&o.prom, CMD, 3, series, tot)) jrc = CLI_ERR;
    lat_hist_fini(&r.latency);
    lat_hist_fini(&r.service);
    lat_hist_fini(&r.lag);
    if (rc) return rc;
    if (r.run_rc || prc || jrc) return CLI_ERR;
    return o.strict && !r.verdict.valid ? EXIT_INVALID : CLI_OK;
}
