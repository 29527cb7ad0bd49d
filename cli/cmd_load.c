/* cmd_load.c - `latlab load TARGET`: an open-loop load generator for a real
 * service (HTTP/1.1, Redis, memcached or a fixed-size echo over TCP) that
 * checks itself.  Parse, run, write: the engines run on their own threads
 * (measure/loadrun.c); cli/loadout.c writes the live line, the interval log,
 * the table, the verdict and the JSON.  Exit 0 ok, 1 the run could not go on
 * (or a write failed), 2 usage, 4 invalid with --strict (--find-max: none held). */
#include "cli.h"
#include "cliopts.h"
#include "load.h"
#include "promcli.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "latlab/clock.h"
#include "latlab/error.h"
#include "latlab/loadrun.h"
#include "latlab/loadtarget.h"
#include "latlab/loadtls.h"

#define CMD "load"
#define EXIT_INVALID 4
#define LOOKUP_MS 5000 /* TARGET's name lookup at most */

static struct {
    double rate;
    uint64_t duration_ns, connections, inflight, threads, timeout_ns, gap_ns, seed, echo_size;
    uint64_t key_space, value_size, max_response, bisect;
    int arrivals, protocol, mc_op, cpu, tls_resume, targets_pick;
    double lag_fraction, ci_width;
    const char *json, *hlog, *hgrm, *method, *path, *body, *redis_cmd, *host, *svg;
    cli_list headers, slos;
    cli_prom prom;
    bool strict, quiet, rate_seen, seed_seen, path_seen, duration_seen, find_max, http2;
    lat_loadsched_findmax *fm;             /* --find-max's search */
    const char *replay, *cacert, *targets; /* --targets FILE: loaded into targets_ts */
    lat_loadtargets *targets_ts;
    const char *rate_s, *shard, *start_at; /* --rate as given; --shard, --start-at */
    lat_loadsched_plan plan;
    uint32_t shard_i, shard_n;
    uint64_t start_ns;                  /* --start-at, ns since the epoch (0: none) */
    bool insecure, tls_in_latency, tls; /* https:// (and --cacert, --tls-resume on|off: 0|1) */
} o;

static const cli_opt load_opts[] = {
    CLI_SEEN_OPT("rate", CLI_STRING, &o.rate_s, "R",
                 "requests per second (required, except with --arrivals replay), or a\n"
                 "schedule: FROM:TO:STEP/HOLD (steps, each held HOLD) or\n"
                 "ramp:FROM:TO/LENGTH; a schedule sets the run's length",
                 0, 0, NULL, &o.rate_seen),
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
    CLI_STR_OPT("shard", CLI_STRING, &o.shard, "I/N",
                "send shard I of N (0 <= I < N) of the one schedule of --seed:\n"
                "N generators together send exactly what one would"),
    CLI_STR_OPT("start-at", CLI_STRING, &o.start_at, "TIME",
                "start the schedule at TIME, RFC 3339 (2025-06-01T12:00:00Z) or\n"
                "Unix seconds (1748779200.5); the report gives the start's skew"),
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
                "a request without a response this long fails (default 10s); the\n"
                "run ends by the schedule plus this, what is left counted as failed",
                0, 0),
    CLI_NUM_OPT("cpu", CLI_INT, &o.cpu, "CPU", "pin the sending thread there (default: not pinned)",
                0, 4095),
    CLI_STR_OPT("json", CLI_PATH, &o.json, "FILE", "the results and the verdict as JSON"),
    CLI_STR_OPT("hlog", CLI_PATH, &o.hlog, "FILE",
                "interval log, one line per second per tag (latency, service, lag, wait)"),
    CLI_STR_OPT("hgrm", CLI_PATH, &o.hgrm, "FILE",
                "the whole run's latency percentiles (.hgrm, us, with 95% intervals)"),
    CLI_FLAG_OPT("strict", &o.strict, "exit 4 when the verdict is invalid"),
    CLI_FLAG_OPT("quiet", &o.quiet, "no live line on stderr"),
    CLI_FLAG_OPT("find-max", &o.find_max,
                 "run each step of --rate (a rate R: R/10 .. R, each --duration) up to\n"
                 "the first invalid or over --slo; the highest that held is the answer"),
    CLI_LIST_OPT("slo", &o.slos, "pNN=DUR", "--find-max: latency at pNN at most DUR (repeatable)"),
    CLI_NUM_OPT("bisect", CLI_U64, &o.bisect, "N", "--find-max: then bisect N times (default 0)", 0,
                LAT_LOADSCHED_MAX_BISECT),
    CLI_STR_OPT("svg", CLI_PATH, &o.svg, "FILE", "--find-max: latency by offered rate"),
    CLI_HEADING_ROW("Prometheus (series latency, service, lag, wait of latlab_load_seconds)"),
    CLI_PROM_SERVE_ROWS(o.prom),
    CLI_PROM_PUSH_ROWS(o.prom),
    CLI_HEADING_ROW("the verdict"),
    CLI_NUM_OPT("lag-fraction", CLI_DOUBLE, &o.lag_fraction, "F",
                "a percentile is valid when the lag there is below F of the\n"
                "latency, and so is the wait (default 0.1)",
                0.001, 1),
    CLI_NUM_OPT("ci-width", CLI_DOUBLE, &o.ci_width, "F",
                "a printed percentile's 95% interval may span at most F of its\n"
                "value (default 0.5)",
                0.001, 100),
    CLI_NUM_OPT("gap", CLI_DURATION, &o.gap_ns, "DUR",
                "the sending thread's platform gap threshold; also the lag that\n"
                "makes a request late (default 10us)",
                0, 0),
    CLI_STR_OPT("cacert", CLI_PATH, &o.cacert, "FILE", "trust the CAs in FILE (PEM) alone"),
    CLI_FLAG_OPT("insecure", &o.insecure, "do not verify the server's certificate at all"),
    CLI_CHOICE_OPT("tls-resume", &o.tls_resume, "on|off",
                   "offer the last session when a connection is re-made (default on)"),
    CLI_FLAG_OPT("tls-handshake-in-latency", &o.tls_in_latency, "first handshakes in the run"),
    CLI_FLAG_OPT("http2", &o.http2, "HTTP/2: h2 by ALPN for https://, h2c (prior knowledge) else"),
    CLI_HEADING_ROW("protocols"),
    CLI_STR_OPT("method", CLI_STRING, &o.method, "M", "http: request method (default GET)"),
    CLI_SEEN_OPT("path", CLI_STRING, &o.path, "P", "http: request path (default /, or the URL's)",
                 0, 0, NULL, &o.path_seen),
    CLI_LIST_OPT("header", &o.headers, "H",
                 "http: one more header line 'Name: value' (repeatable)"),
    CLI_STR_OPT("body", CLI_STRING, &o.body, "TEXT", "http: request body"),
    CLI_STR_OPT("targets", CLI_PATH, &o.targets, "FILE",
                "http: many endpoints of TARGET's origin, results per target (blocks of\n"
                "'METHOD URL [name=N] [weight=W]', headers, @BODYFILE; not with a path,\n"
                "--method, --path, --header, --body, --find-max)"),
    CLI_CHOICE_OPT("targets-pick", &o.targets_pick, "round-robin|random",
                   "--targets: by weight, in turn or at random (default round-robin)"),
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
             "user waits), service = completion - actual send; the delay between (actual -\n"
             "intended send) is split: wait, while every connection was at its in-flight cap\n"
             "with no response to read (the service's queue), and lag, the rest (the\n"
             "generator's own health).  TARGET is HOST:PORT, [IPV6]:PORT or, for http,\n"
             "http(s)://HOST[:PORT][/PATH] (https: TLS, handshakes timed apart).  One sending\n"
             "thread spins on the cycle counter to each send time; responses are read through\n"
             "epoll.\n",
    .opts = load_opts,
    .epilog =
        "Prints a live line per second on stderr (rate, the second's p50/p99/p99.9,\n"
        "errors, lag p99, wait p99), then the table with 95% intervals, errors by kind (refused,\n"
        "reset, closed, malformed, timeout, unanswered, rst_stream, goaway and more), the\n"
        "sending thread's platform gaps, and last the verdict: \"valid\" or\n"
        "\"invalid: <reason>\".  SIGINT/SIGTERM end the run at once (in-flight requests\n"
        "get 100 ms) and write what was measured; the verdict says it was cut short.\n"
        "Exit 0 ok, 1 the run could not go on (unreachable, refused, a failed TLS\n"
        "handshake, every connection down for a second) or a write failed, 2 usage,\n"
        "4 invalid with --strict, or with --find-max when no rate held.\n",
    .min_args = 1,
    .max_args = 1,
};

static const char *const proto_names[] = {"echo", "http", "redis", "memcached"};
static const lat_loadproto_kind proto_kinds[] = {LAT_LOADPROTO_ECHO, LAT_LOADPROTO_HTTP,
                                                 LAT_LOADPROTO_REDIS, LAT_LOADPROTO_MEMCACHED};

static char host_buf[256], port_buf[8], headers_buf[8192]; /* TARGET's; --header's */
static FILE *replay_f; /* --replay, checked, then read by the sending thread */

/* Read --replay once before any work: every line a time, non-decreasing;
 * sets the mean rate and (unless given) the duration to the file's span. */
static int check_replay(void) {
    if (!o.replay) return cli_usage_error(CMD, "--arrivals replay: needs --replay FILE");
    if (o.threads > 1) return cli_usage_error(CMD, "--threads: not with --arrivals replay");
    if (o.rate_seen)
        return cli_usage_error(CMD, "--rate: not with --arrivals replay (the file sets it)");
    static char rbuf[1 << 20]; /* the sending thread reads 1 MiB at a time */
    if (!(replay_f = fopen(o.replay, "r")))
        return cli_usage_error(CMD, "--replay: %s: %s", o.replay, strerror(errno));
    uint64_t n, last;
    long ln;
    int rc = lat_loadsched_replay_check(replay_f, &n, &last, &ln);
    rewind(replay_f);
    setvbuf(replay_f, rbuf, _IOFBF, sizeof rbuf);
    if (rc == -EINVAL)
        return cli_usage_error(CMD, "--replay: %s line %ld: not a time (ns) at or after the last",
                               o.replay, ln);
    if (rc) return cli_usage_error(CMD, "--replay: %s: %s", o.replay, strerror(-rc));
    if (!n) return cli_usage_error(CMD, "--replay: %s holds no send time", o.replay);
    if (!o.duration_seen) o.duration_ns = last + 1;
    o.rate = (double)n / ((double)(last ? last : 1) / 1e9);
    o.rate_seen = true;
    return 0;
}

/* Options that depend on each other; CLI_OK or CLI_USAGE. */
static int check_opts(const char *target, const char **url_path) {
    const char *why;
    if (lat_loadtarget_split(target, host_buf, sizeof host_buf, port_buf, url_path, &why, &o.tls))
        return cli_usage_error(CMD, "target '%s'%s", target, why);
    if (o.tls && !lat_loadtls_available())
        return cli_usage_error(CMD, "target '%s': scheme https: built without OpenSSL", target);
    if (o.http2 && !lat_loadh2_available())
        return cli_usage_error(CMD, "--http2: latlab was built without HTTP/2 (no nghttp2)");
    if (!o.tls && (o.cacert || o.insecure || o.tls_resume || o.tls_in_latency))
        return cli_usage_error(CMD, "--cacert/--insecure/--tls-*: only with an https:// target");
    if (o.arrivals != 2 && o.replay)
        return cli_usage_error(CMD, "--replay: only with --arrivals replay");
    int rc = o.arrivals == 2 ? check_replay() : CLI_OK;
    if (rc) return rc;
    if (!o.rate_seen) return cli_usage_error(CMD, "--rate: required");
    if (o.rate_s && lat_loadsched_parse(o.rate_s, &o.plan, &why))
        return cli_usage_error(CMD, "--rate: %s", why);
    if (!o.find_max && (o.slos.n || o.svg || o.bisect))
        return cli_usage_error(CMD, "--slo, --svg, --bisect: only with --find-max");
    if (o.find_max && (o.arrivals == 2 || o.hlog || o.shard || o.start_at))
        return cli_usage_error(CMD, "--find-max: not with replay, --hlog, --shard, --start-at");
    if (o.find_max &&
        lat_loadsched_findmax_create(&o.plan, o.duration_ns, o.slos.v, (size_t)o.slos.n,
                                     (unsigned)o.bisect, &o.fm, &why))
        return cli_usage_error(CMD, "--find-max: %s", why);
    if (o.rate_s && o.plan.kind && o.duration_seen)
        return cli_usage_error(CMD, "--duration: not with a rate schedule (it sets the length)");
    if (o.rate_s && o.plan.kind) o.duration_ns = lat_loadsched_duration_ns(&o.plan);
    if (o.rate_s) o.rate = lat_loadsched_mean_hz(&o.plan);
    if (o.shard && lat_loadsched_parse_shard(o.shard, &o.shard_i, &o.shard_n))
        return cli_usage_error(CMD, "--shard: '%s' is not I/N with 0 <= I < N", o.shard);
    if (o.shard && (o.arrivals == 2 || !o.seed_seen))
        return cli_usage_error(CMD, "--shard: needs --seed (one schedule for all) and no replay");
    if (o.start_at &&
        lat_loadsched_parse_start(o.start_at, lat_clock_ns(CLOCK_REALTIME), &o.start_ns, &why))
        return cli_usage_error(CMD, "--start-at: %s", why);
    if (!o.duration_ns) return cli_usage_error(CMD, "--duration: must be more than 0");
    lat_loadproto_kind k = proto_kinds[o.protocol];
    if (k != LAT_LOADPROTO_HTTP &&
        (o.method || o.path_seen || o.headers.n || o.body || o.host || o.http2))
        return cli_usage_error(
            CMD, "--method/--path/--header/--body/--host/--http2: only with --protocol http");
    if (k != LAT_LOADPROTO_REDIS && o.redis_cmd)
        return cli_usage_error(CMD, "--redis-cmd: only with --protocol redis");
    if (k != LAT_LOADPROTO_ECHO && o.echo_size)
        return cli_usage_error(CMD, "--echo-size: only with --protocol echo");
    if ((*url_path || o.tls) && k != LAT_LOADPROTO_HTTP)
        return cli_usage_error(CMD, "target '%s': an http:// URL needs --protocol http", target);
    if (o.connections < o.threads)
        return cli_usage_error(CMD, "--connections: fewer than --threads (%" PRIu64 ")", o.threads);
    int bad = o.cpu >= 0 ? lat_loadrun_cpus_check(o.cpu, (unsigned)o.threads) : 0;
    if (bad)
        return bad < 0
                   ? cli_usage_error(CMD, "--cpu: cannot read this process's CPUs")
                   : cli_usage_error(CMD,
                                     "--cpu: CPU %d (thread %d) is not one this process may run on",
                                     o.cpu + bad - 1, bad - 1);
    if (cli_list_join(&o.headers, "\r\n", headers_buf, sizeof headers_buf) >= sizeof headers_buf)
        return cli_usage_error(CMD, "--header: too long together");
    for (int i = 0; i < o.headers.n; i++)
        if (!strchr(o.headers.v[i], ':') || strpbrk(o.headers.v[i], "\r\n"))
            return cli_usage_error(CMD, "--header: '%s' is not 'Name: value'", o.headers.v[i]);
    if (o.targets_pick && !o.targets)
        return cli_usage_error(CMD, "--targets-pick: needs --targets");
    if (o.targets && (k != LAT_LOADPROTO_HTTP || *url_path || o.method || o.path_seen ||
                      o.headers.n || o.body || o.find_max))
        return cli_usage_error(CMD, "--targets: http only; not with a path in TARGET, --method, "
                                    "--path, --header, --body, --find-max (the file says them)");
    lat_loadtarget_origin org = {host_buf, port_buf, o.tls, o.host, o.max_response};
    char err[512];
    if (o.targets &&
        lat_loadtarget_read_file(o.targets, &org, (lat_loadtarget_pick_kind)o.targets_pick,
                                 &o.targets_ts, err, sizeof err))
        return cli_usage_error(CMD, "--targets: %s", err);
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

/* ---- the run: the engines' threads and this thread's live line --------------------- */

static lat_loadrun *running; /* the signal handler stops it */
static void on_signal(int sig) {
    (void)sig;
    lat_loadrun_stop(running);
}

/* Run every engine on its thread (stopped by SIGINT/SIGTERM) while this one ticks. */
static int run_threads(load_live *lv, lat_loadrun *lr) {
    running = lr;
    /* a second signal ends the process the default way */
    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESETHAND}, old_int, old_term;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    int rc = lat_loadrun_run(lr, lv->t0_s, load_tick, lv);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    running = NULL;
    return rc ? cli_lib_error(CMD, "thread", rc) : 0;
}

static int run_engine(load_run *r) {
    load_live lv = {.r = r, .hlog = o.hlog, .quiet = o.quiet, .prom = &o.prom};
    lat_loadrun *lr = NULL;
    if (o.start_ns) r->cfg.start_cycles = lat_loadsched_start_cycles(o.start_ns, 300000000);
    int rc = lat_loadrun_create(&r->cfg, (unsigned)o.threads, &lr);
    if (rc) return cli_lib_error(CMD, "engine", rc);
    lv.t0_s = (double)lat_clock_ns(CLOCK_REALTIME) / 1e9;
    if (!(rc = load_live_open(&lv)) && !(rc = run_threads(&lv, lr))) {
        lat_loadrun_counts(lr, &r->counts);
        r->run_rc = lat_loadrun_result(lr);
        lat_load_verdict_in vin = {.latency = &r->h[LAT_LOAD_LATENCY],
                                   .lag = &r->h[LAT_LOAD_LAG],
                                   .wait = &r->h[LAT_LOAD_WAIT],
                                   .service = &r->h[LAT_LOAD_SERVICE],
                                   .counts = &r->counts,
                                   .duration_ns = o.duration_ns,
                                   .ps = load_ps,
                                   .nps = load_nps,
                                   .lag_fraction = o.lag_fraction,
                                   .ci_width = o.ci_width};
        lat_loadrun_judge(lr, &vin, &r->verdict);
        if (!lat_loadsched_steps_create(&o.plan, o.duration_ns, &r->steps))
            lat_loadrun_steps(lr, r->steps);
    }
    rc = load_live_close(&lv, rc);
    lat_loadrun_destroy(lr);
    return rc;
}

/* --find-max: a run at each rate the search asks for, judged and added to it. */
static int find_max(load_run *r) {
    int rc = 0;
    for (double hz;
         !rc && !r->run_rc && !r->counts.stopped && (hz = lat_loadsched_findmax_next(o.fm));) {
        r->cfg.plan = o.plan = (lat_loadsched_plan){.from_hz = hz};
        o.duration_ns = lat_loadsched_findmax_hold_ns(o.fm);
        r->cfg.rate_hz = hz, r->cfg.duration_ns = o.duration_ns;
        for (int k = 0; k < LAT_LOAD_NSERIES; k++)
            lat_hist_reset(&r->h[k]);
        lat_loadsched_steps_destroy(r->steps), r->steps = NULL;
        if (!(rc = run_engine(r)) && !r->run_rc &&
            (rc = lat_loadsched_findmax_add(o.fm, hz, &r->verdict, &r->h[LAT_LOAD_LATENCY])))
            rc = cli_lib_error(CMD, "find-max", rc);
        if (!rc && !r->run_rc && !o.quiet) lat_loadsched_findmax_write_try(stderr, o.fm, ~0u);
    }
    return rc;
}

/* Why the run could not go on, with the address it went to ("connection
 * refused by 127.0.0.1 port 9"), on stderr. */
static void run_error(const load_run *r) {
    char host[NI_MAXHOST] = "?", serv[NI_MAXSERV] = "?", why[320];
    getnameinfo((const struct sockaddr *)&r->cfg.addr, r->cfg.addr_len, host, sizeof host, serv,
                sizeof serv, NI_NUMERICHOST | NI_NUMERICSERV);
    const char *tls = r->run_rc == -EPROTO && r->cfg.tls ? lat_loadtls_error(r->cfg.tls) : "";
    snprintf(why, sizeof why, "%s%s", *tls ? "the TLS handshake failed: " : "",
             *tls ? tls : strerror(-r->run_rc));
    why[0] = (char)tolower((unsigned char)why[0]);
    bool down = r->counts.sent > 0 || r->counts.scheduled > 0;
    cli_error(CMD, "%s: the run could not go on: %s%s %s %s port %s", r->target,
              down ? "every connection stayed down for a second: " : "", why,
              r->run_rc == -ECONNREFUSED ? "by" : "at", host, serv);
}

static int parse(int argc, char **argv, const char **url_path, const char **target) {
    memset(&o, 0, sizeof o);
    o.duration_ns = 10000000000ull, o.connections = 8, o.cpu = -1;
    o.inflight = o.threads = 1, o.protocol = 1;
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
    if (o.prom.push_delete) return cli_prom_push(&o.prom, CMD, LAT_LOAD_NSERIES, load_series, NULL);
    static lat_loadproto proto;
    if ((rc = build_proto(&proto, url_path ? url_path : "/"))) return rc;
    load_run r = {.target = target, .rate_spec = o.rate_s, .start_ns = o.start_ns, .findmax = o.fm};
    r.protocol = o.http2 ? "http2" : proto_names[o.protocol];
    r.threads = (int)o.threads;
    if (!o.seed_seen)
        o.seed = (lat_clock_ns(CLOCK_REALTIME) ^ ((uint64_t)getpid() << 32)) & ((1ull << 53) - 1);
    r.cfg = (lat_load_cfg){
        .proto = &proto,
        .arrivals = o.arrivals == 2 ? LAT_LOAD_REPLAY
                    : o.arrivals    ? LAT_LOAD_POISSON
                                    : LAT_LOAD_CONSTANT,
        .rate_hz = o.rate / (o.shard_n ? o.shard_n : 1),
        .duration_ns = o.duration_ns,
        .plan = o.plan,
        .stride = o.shard_n,
        .phase = o.shard_i,
        .seed = o.seed,
        .connections = (unsigned)o.connections,
        .max_inflight = (unsigned)o.inflight,
        .timeout_ns = o.timeout_ns,
        .cpu = o.cpu,
        .gap_ns = o.gap_ns,
        .targets = o.targets_ts,
        .http2 = o.http2,
    };
    if ((rc = lat_loadrun_resolve(&r.cfg, host_buf, port_buf, LOOKUP_MS))) {
        lat_loadtarget_destroy(o.targets_ts);
        return cli_error(CMD, "%s: %s", target,
                         rc == -ETIMEDOUT ? "the name lookup took longer than 5 s"
                                          : lat_strerror(rc));
    }
    r.cfg.replay_next = replay_f ? lat_loadsched_replay_next : NULL;
    r.cfg.replay_ud = replay_f;
    for (int k = 0; k < LAT_LOAD_NSERIES; k++)
        if (lat_load_hist_init(&r.h[k])) {
            while (k--)
                lat_hist_fini(&r.h[k]);
            return cli_lib_error(CMD, "histogram", -ENOMEM);
        }
    lat_loadtls_opts to = {host_buf, o.cacert, o.insecure, !o.tls_resume, o.tls_in_latency, 0};
    if (o.tls && (to.h2 = o.http2, rc = lat_loadtls_create(&to, &r.cfg.tls)))
        rc = cli_usage_error(CMD, "%s: TLS: %s", target,
                             r.cfg.tls ? lat_loadtls_error(r.cfg.tls) : lat_strerror(rc));
    else
        rc = o.fm ? find_max(&r) : run_engine(&r);
    if (replay_f) fclose(replay_f);
    if (!rc && r.run_rc) run_error(&r);
    int prc = (!rc) ? load_print(&r) : CLI_OK;
    if (!rc && o.http2) lat_loadh2_counts_write(stdout, &r.counts);
    int jrc = (!rc && o.json) ? load_write_json(&r, o.json) : CLI_OK;
    if (!rc && o.hgrm && load_write_hgrm(&r.h[LAT_LOAD_LATENCY], o.hgrm)) jrc = CLI_ERR;
    int src = !rc && o.svg ? lat_loadsched_findmax_save_svg(o.fm, o.svg) : 0;
    if (src) jrc = cli_lib_error(CMD, o.svg, src);
    const char *names[LOAD_STAGES_MAX];
    const lat_hist *tot[LOAD_STAGES_MAX];
    int n = load_stages(&r, names, tot);
    if (!rc && o.prom.push_url && cli_prom_push(&o.prom, CMD, n, names, tot)) jrc = CLI_ERR;
    for (int k = 0; k < LAT_LOAD_NSERIES; k++)
        lat_hist_fini(&r.h[k]);
    lat_loadtls_destroy(r.cfg.tls);
    lat_loadtarget_destroy(o.targets_ts);
    lat_loadsched_steps_destroy(r.steps);
    bool none = o.fm && lat_loadsched_findmax_best(o.fm) < 0;
    lat_loadsched_findmax_destroy(o.fm);
    if (rc) return rc;
    if (r.run_rc || prc || jrc) return CLI_ERR;
    return (o.find_max ? none : o.strict && !r.verdict.valid) ? EXIT_INVALID : CLI_OK;
}
