/* book.c - `latlab book`: the order-book workload.
 *
 *   latlab book replay FILE|-     text op stream in, one event per line out
 *   latlab book itch FILE         ITCH 5.0 replay into one book per stock (cli/book_itch.c)
 *   latlab book lobster MSG.csv   LOBSTER replay, checked against its orderbook file
 *                                 (cli/book_lobster.c)
 *   latlab book bench SCENARIO    the HDR tail-latency scenarios (cli/book_bench.c)
 *
 * The engine is workloads/book/book.h, the op-stream reader opstream.h; the
 * op-stream and event formats are documented in the usage text below. */
#include "cli.h"
#include "book_bench.h"
#include "book_cli.h"
#include "book_itchgen.h"

#include "book.h"
#include "opstream.h"
#include "latlab/json.h"
#include "latlab/atomicfile.h"
#include "latlab/clock.h"
#include "latlab/error.h"
#include "latlab/hist.h"
#include "latlab/hlog.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cmd_book_usage[] =
    "usage: latlab book replay FILE|- [--stp MODE] [--fees MAKER:TAKER] [--band LO:HI]\n"
    "                          [--tick T] [--price-scale S] [--capacity N] [--levels]\n"
    "                          [--json FILE]\n"
    "       latlab book itch FILE [--pace original|xN|max] [--loop N] [--tick T]\n"
    "                          [--price-scale 10000] [--hgrm FILE] [--json FILE]\n"
    "       latlab book lobster MESSAGE.csv [--orderbook ORDERBOOK.csv] [--levels L]\n"
    "                          [--tick T] [--price-scale S] [--hgrm FILE] [--json FILE]\n"
    "       latlab book lobster-synth DIR [--messages N] [--levels N] [--seed S] [--unseen-pm P]\n"
    "       latlab book bench SCENARIO|all [options]   ('latlab book bench --help')\n"
    "       latlab book itch-gen -o FILE [options]     (synthetic capture; see below)\n"
    "\n"
    "replay: one op per line (integers only, prices in the file's unit; '#' starts a comment):\n"
    "  L <id> <owner> <B|S> <price> <qty> <GTC|IOC|FOK|POST>   limit order\n"
    "  M <id> <owner> <B|S> <qty>                              market order\n"
    "  C <id>                                                  cancel\n"
    "  R <id> <new_qty>        set the open quantity (lower keeps priority, higher loses it)\n"
    "  P <id> <price> <qty>    replace: new price and quantity, loses priority (may trade)\n"
    "  E <id> <qty>            execution: the resting order is filled by qty (a trade\n"
    "                          with taker 0; D when nothing is left)\n"
    "  X ALL | X SIDE <B|S> | X OWNER <owner> | X RANGE <lo> <hi>   mass cancel\n"
    "  S <depth>               snapshot (0 = every level)\n"
    "events, one per line:\n"
    "  A <id>                  accepted           J <id> <reason>   rejected\n"
    "  T <maker> <taker> <price> <qty> [<maker_fee> <taker_fee>]   trade at the maker's price\n"
    "                          (fees, in price x qty units, only when --fees is given)\n"
    "  K <id>                  cancelled (also IOC/market remainders, unfillable FOK)\n"
    "  D <id>                  done (filled)\n"
    "  V <B|S> <price> <qty> <count> <seq>   level changed (only with --levels)\n"
    "  S <depth> <seq> <crc32> <nbids> <nasks>, then SB/SA <price> <qty> <count> per level\n"
    "  --stp MODE        self-trade prevention: none (default), cancel-taker, cancel-maker,\n"
    "                    cancel-both\n"
    "  --fees M:T        maker:taker fees in basis points (negative = rebate); default 0:0\n"
    "  --price-scale S   prices in the file are in units of 1/S (default 1)\n"
    "  --tick T          the tick in those scaled units, a decimal (default: one file unit);\n"
    "                    e.g. --price-scale 10000 --tick 0.01 for USD x 10,000 prices on a\n"
    "                    cent tick.  A price not on the tick is a malformed line.\n"
    "  --band LO:HI      price band in the file's unit, at most 2^28 ticks (default 1 tick\n"
    "                    to 2^24 ticks); memory grows only with the levels used\n"
    "  --capacity N      resting orders the book can hold (default 1000000)\n"
    "On stderr at the end: lines, ops, wall time, ops/s, rejected ops by reason and\n"
    "malformed lines.  Malformed lines are reported with their line number and reason and\n"
    "skipped.  Exit status: 0 every op accepted; 3 every line parsed but the book rejected\n"
    "some ops (J events, counted by reason); 1 malformed lines, an unreadable input (a NUL\n"
    "byte, a line over 4096 bytes, a read error) or a failed write; 2 usage.\n"
    "\n"
    "itch: reads an ITCH 5.0 capture (2-byte length prefixes; zero prefixes mean framing by\n"
    "the type byte), builds one book per stock (band and capacity from a first pass), and\n"
    "prints message counts, references to unknown orders, messages/s, the per-message\n"
    "processing-time histogram (ns) and each stock's final top of book.  The books' memory\n"
    "is capped at 1 GiB (an error names the file and the figure).\n"
    "  --pace max        as fast as possible (default; closed loop: service time)\n"
    "  --pace original   at the capture's own timestamps (open loop: latency from the\n"
    "                    intended time);  --pace xN  the same, N times faster\n"
    "  --loop N          replay the capture N times (books emptied in between, untimed)\n"
    "  --tick T          fixed tick in USD (ITCH prices have 4 decimals: --price-scale is\n"
    "                    10000 and nothing else); adds off the tick are rejected adds.\n"
    "                    Default: each stock's tick is the gcd of its prices\n"
    "  --hgrm FILE       write the latency histogram's percentile table\n"
    "  --json FILE       write the results as JSON\n"
    "\n"
    "lobster: replays a LOBSTER message file (time,type,id,size,price,direction; types 1\n"
    "new limit, 2 partial cancel, 3 delete, 4 visible execution, 5 hidden execution, 6\n"
    "cross, 7 halt; prices USD x 10,000, so --price-scale defaults to 10000 and --tick to\n"
    "0.01).  With --orderbook the book starts from the file's first row (one synthetic\n"
    "order per visible level) and its top L levels (--levels, default: the file's) are\n"
    "compared with every row; mismatches that the file's depth window explains (orders\n"
    "beyond its N levels are never reported) are labelled \"outside the file's depth\".\n"
    "Messages naming an order that rested before the window are applied to its price level\n"
    "and counted; one that cannot be applied is reported with its line and reason.  Prints\n"
    "per-type counts, messages/s and the per-message latency histogram.  Exit status: 0\n"
    "clean (mismatches outside the file's depth included); 3 unappliable messages or book\n"
    "mismatches not explained by the depth; 1 malformed lines or unreadable input.\n"
    "  --show N          report at most N problems, and N mismatches outside the depth, on\n"
    "                    stderr (default 10 each)\n"
    "\n"
    "lobster-synth: writes DIR/SYNTH_message_N.csv and DIR/SYNTH_orderbook_N.csv from\n"
    "latlab's own book driven by a seeded random order flow (orders resting before the\n"
    "first message, every message type; P per mille of events, default 5, placed beyond\n"
    "level N and left out of the files as LOBSTER's depth window does).\n"
    "\n"
    "bench: " BOOK_BENCH_USAGE "\n" BOOK_ITCHGEN_USAGE;

static const char *CMD = "book";

/* ---- helpers shared with book_itch.c and book_lobster.c ------------------------------------ */

int book_cli_scale(const char *cmd, const char *s, book_price_flags *pf) {
    return cli_parse_u64(cmd, "--price-scale", s, 1, 1000000000000ull, &pf->scale);
}

int64_t book_cli_tick(const char *cmd, const book_price_flags *pf) {
    uint64_t scale = pf->scale ? pf->scale : 1;
    if (!pf->tick) return 1;
    int64_t u;
    if (book_tick_units(pf->tick, scale, &u)) {
        cli_usage_error(cmd,
                        "--tick: '%s' is not a positive decimal that is a whole number of "
                        "input units at --price-scale %" PRIu64,
                        pf->tick, scale);
        return -1;
    }
    return u;
}

int book_cli_common_opt(int c, const char *arg, book_price_flags *pf, char **argv) {
    switch (c) {
    case 't':
        pf->tick = arg;
        return -1;
    case 'p':
        return book_cli_scale(CMD, arg, pf) ? CLI_USAGE : -1;
    case 'h':
        fputs(cmd_book_usage, stdout);
        return CLI_OK;
    default:
        return cli_getopt_fail(CMD, c, argv);
    }
}

void book_tally_add(book_reject_tally *t, int err) {
    int k = -(err - BOOK_EARG); /* BOOK_EARG -> 0, BOOK_EQTY -> 1, ... */
    t->n[k >= 0 && k < 15 ? k : 15]++;
    t->total++;
}

void book_tally_format(const book_reject_tally *t, char *buf, size_t n) {
    size_t o = (size_t)snprintf(buf, n, "%" PRIu64, t->total);
    const char *sep = " (";
    for (int k = 0; k < 16 && o < n; k++) {
        if (!t->n[k]) continue;
        o += (size_t)snprintf(buf + o, n - o, "%s%s %" PRIu64, sep,
                              k < 15 ? book_reason(BOOK_EARG - k) : "other", t->n[k]);
        sep = ", ";
    }
    if (t->total && o < n) snprintf(buf + o, n - o, ")");
}

int book_cli_check_stdout(const char *cmd) {
    if (fflush(stdout) == 0 && !ferror(stdout)) return CLI_OK;
    return cli_error(cmd, "writing stdout: %s", strerror(errno ? errno : EIO));
}

void book_cli_print_latency(const lat_hist *h) {
    printf("latency ns      p50 %" PRId64 "  p99 %" PRId64 "  p99.9 %" PRId64 "  p99.99 %" PRId64
           "  max %" PRId64 "  (%" PRId64 " samples)\n",
           lat_hist_value_at_percentile(h, 50), lat_hist_value_at_percentile(h, 99),
           lat_hist_value_at_percentile(h, 99.9), lat_hist_value_at_percentile(h, 99.99),
           lat_hist_max(h), lat_hist_total(h));
}

json_t *book_cli_latency_json(const lat_hist *h) {
    return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I}", "samples", (json_int_t)lat_hist_total(h), "p50",
                     (json_int_t)lat_hist_value_at_percentile(h, 50), "p99",
                     (json_int_t)lat_hist_value_at_percentile(h, 99), "p99_9",
                     (json_int_t)lat_hist_value_at_percentile(h, 99.9), "p99_99",
                     (json_int_t)lat_hist_value_at_percentile(h, 99.99), "max",
                     (json_int_t)lat_hist_max(h));
}

int book_cli_write_hgrm(const char *cmd, const char *path, const lat_hist *h) {
    lat_afile *af;
    int err = lat_afile_open(path, &af);
    if (!err) {
        err = lat_hist_write_percentiles(lat_afile_stream(af), h, 5, 1.0, false);
        if (err)
            lat_afile_abort(af);
        else
            err = lat_afile_commit(af);
    }
    return err ? cli_lib_error(cmd, path, err) : CLI_OK;
}

/* ---- replay -------------------------------------------------------------------------- */

typedef struct replay_out {
    FILE *f;
    int fees, levels;
    uint64_t n[8];
} replay_out;

static void print_fee(FILE *f, int64_t e4) {
    uint64_t a = e4 < 0 ? (uint64_t)(-(e4 + 1)) + 1 : (uint64_t)e4;
    fprintf(f, " %s%" PRIu64 ".%04" PRIu64, e4 < 0 ? "-" : "", a / 10000, a % 10000);
}

static void replay_event(const book_event *ev, void *ud) {
    replay_out *o = ud;
    FILE *f = o->f;
    o->n[ev->type & 7]++;
    switch (ev->type) {
    case BOOK_EV_ACCEPTED:
        fprintf(f, "A %" PRIu64 "\n", ev->id);
        break;
    case BOOK_EV_REJECTED:
        fprintf(f, "J %" PRIu64 " %s\n", ev->id, book_reason(ev->reason));
        break;
    case BOOK_EV_TRADE:
        fprintf(f, "T %" PRIu64 " %" PRIu64 " %" PRId64 " %" PRIu64, ev->maker_id, ev->id,
                ev->price, ev->qty);
        if (o->fees) {
            print_fee(f, ev->maker_fee_e4);
            print_fee(f, ev->taker_fee_e4);
        }
        fputc('\n', f);
        break;
    case BOOK_EV_CANCELLED:
        fprintf(f, "K %" PRIu64 "\n", ev->id);
        break;
    case BOOK_EV_DONE:
        fprintf(f, "D %" PRIu64 "\n", ev->id);
        break;
    case BOOK_EV_LEVEL:
        if (o->levels)
            fprintf(f, "V %c %" PRId64 " %" PRIu64 " %u %" PRIu64 "\n",
                    ev->side == BOOK_BUY ? 'B' : 'S', ev->price, ev->qty, ev->count, ev->seq);
        break;
    }
}

typedef struct replay_opts {
    book_config cfg;
    book_price_flags pf;
    const char *json, *path;
    int levels, fees, band_given;
    int64_t band_lo, band_hi, tick;
} replay_opts;

typedef struct replay_ctx {
    book *b;
    replay_out out;
    book_level_view *lv[2];
    size_t lvcap;
    uint64_t lines, ops, bad;
    book_reject_tally rej;
    double wall_s;
} replay_ctx;

static int parse_pair(const char *s, int64_t *a, int64_t *b) {
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || *end != ':' || errno) return -1;
    const char *t = end + 1;
    long long y = strtoll(t, &end, 10);
    if (end == t || *end || errno) return -1;
    *a = x;
    *b = y;
    return 0;
}

static int parse_stp(const char *s, book_stp *out) {
    static const char *names[][2] = {{"none", "none"},
                                     {"cancel-taker", "taker"},
                                     {"cancel-maker", "maker"},
                                     {"cancel-both", "both"}};
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, names[i][0]) || !strcmp(s, names[i][1])) {
            *out = (book_stp)i;
            return 0;
        }
    return -1;
}

/* -1 to go on, else the exit status. */
static int replay_args(int argc, char **argv, replay_opts *o) {
    static const struct option opts[] = {
        {"stp", required_argument, 0, 's'},  {"fees", required_argument, 0, 'f'},
        {"band", required_argument, 0, 'b'}, {"capacity", required_argument, 0, 'c'},
        {"levels", no_argument, 0, 'l'},     {"json", required_argument, 0, 'j'},
        {"tick", required_argument, 0, 't'}, {"price-scale", required_argument, 0, 'p'},
        {"help", no_argument, 0, 'h'},       {0, 0, 0, 0}};
    int c, rc;
    int64_t m, t;
    uint64_t v;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (parse_stp(optarg, &o->cfg.stp))
                return cli_usage_error(
                    CMD, "--stp: '%s' is not none, cancel-taker, cancel-maker or cancel-both",
                    optarg);
            break;
        case 'f':
            if (parse_pair(optarg, &m, &t) || m < -10000 || m > 10000 || t < -10000 || t > 10000)
                return cli_usage_error(
                    CMD, "--fees: '%s' is not MAKER:TAKER basis points (-10000..10000 each)",
                    optarg);
            o->cfg.maker_fee_bps = (int32_t)m;
            o->cfg.taker_fee_bps = (int32_t)t;
            o->fees = 1;
            break;
        case 'b':
            if (parse_pair(optarg, &o->band_lo, &o->band_hi) || o->band_lo > o->band_hi)
                return cli_usage_error(CMD, "--band: '%s' is not LO:HI with LO <= HI", optarg);
            o->band_given = 1;
            break;
        case 'c':
            if (cli_parse_u64(CMD, "--capacity", optarg, 1, (1u << 31) - 1, &v)) return CLI_USAGE;
            o->cfg.max_orders = (uint32_t)v;
            break;
        case 'l':
            o->levels = 1;
            break;
        case 'j':
            if (!*optarg) return cli_usage_error(CMD, "--json: empty path");
            o->json = optarg;
            break;
        default:
            if ((rc = book_cli_common_opt(c, optarg, &o->pf, argv)) >= 0) return rc;
        }
    }
    if (optind != argc - 1) return cli_usage_error(CMD, "replay needs one FILE (or - for stdin)");
    o->path = argv[optind];
    if ((o->tick = book_cli_tick(CMD, &o->pf)) < 0) return CLI_USAGE;
    if (!o->band_given) {
        o->band_lo = o->tick;
        o->band_hi = o->tick <= (INT64_MAX >> 24) ? o->tick << 24 : INT64_MAX;
    }
    if (book_band_on_tick(&o->band_lo, &o->band_hi, o->tick))
        return cli_usage_error(CMD,
                               "--band: %" PRId64 ":%" PRId64 " holds no tick or more than 2^28 "
                               "ticks of %" PRId64 " units",
                               o->band_lo, o->band_hi, o->tick);
    o->cfg.price_lo = o->band_lo;
    o->cfg.price_hi = o->band_hi;
    o->cfg.tick = o->tick;
    return -1;
}

static int replay_snapshot(replay_ctx *c, uint32_t depth) {
    size_t need = depth;
    if (!need) {
        need = book_level_count(c->b, BOOK_BUY);
        size_t na = book_level_count(c->b, BOOK_SELL);
        if (na > need) need = na;
    }
    if (need > c->lvcap) { /* grows with the book, outside the book's own operations */
        for (int s = 0; s < 2; s++) {
            book_level_view *nv = realloc(c->lv[s], need * sizeof(book_level_view));
            if (!nv) return -ENOMEM;
            c->lv[s] = nv;
        }
        c->lvcap = need;
    }
    book_level_view one[2];
    book_package pkg = {.bids = c->lv[0] ? c->lv[0] : &one[0],
                        .asks = c->lv[1] ? c->lv[1] : &one[1]};
    book_snapshot_package(c->b, depth, &pkg);
    FILE *f = c->out.f;
    fprintf(f, "S %u %" PRIu64 " %08" PRIx32 " %zu %zu\n", depth, pkg.seq, pkg.crc32, pkg.nbids,
            pkg.nasks);
    for (size_t i = 0; i < pkg.nbids; i++)
        fprintf(f, "SB %" PRId64 " %" PRIu64 " %u\n", pkg.bids[i].price, pkg.bids[i].qty,
                pkg.bids[i].count);
    for (size_t i = 0; i < pkg.nasks; i++)
        fprintf(f, "SA %" PRId64 " %" PRIu64 " %u\n", pkg.asks[i].price, pkg.asks[i].qty,
                pkg.asks[i].count);
    return 0;
}

/* Read and run every line.  CLI_OK, or CLI_ERR for an unreadable input. */
static int replay_stream(replay_ctx *c, FILE *in, const char *name, int64_t tick) {
    book_lines rd;
    book_lines_init(&rd, in);
    char *line, why[256];
    size_t len;
    int r;
    uint64_t t0 = lat_mono_ns();
    while ((r = book_lines_next(&rd, &line, &len)) == 1) {
        book_op op;
        int err = book_op_parse(line, len, tick, &op, why, sizeof why);
        if (!err && op.kind == BOOK_OP_SNAPSHOT) err = replay_snapshot(c, op.depth);
        if (err == -ENOMEM) snprintf(why, sizeof why, "out of memory for the snapshot");
        if (err) {
            fflush(stdout);
            fprintf(stderr, "latlab book replay: %s:%" PRIu64 ": %s\n", name, rd.lineno, why);
            c->bad++;
            continue;
        }
        if (op.kind == BOOK_OP_NONE) continue;
        c->ops++;
        if (op.kind != BOOK_OP_SNAPSHOT && (err = book_op_apply(c->b, &op)))
            book_tally_add(&c->rej, err);
    }
    c->wall_s = (double)(lat_mono_ns() - t0) / 1e9;
    c->lines = rd.lineno;
    if (r == LAT_EFORMAT)
        return cli_error(CMD, "%s:%" PRIu64 ": line longer than %d bytes (not an op stream?)", name,
                         rd.lineno, BOOK_MAX_LINE);
    if (r < 0)
        return cli_error(CMD, "%s: read error after line %" PRIu64 ": %s", name, rd.lineno,
                         lat_strerror(r));
    return CLI_OK;
}

static json_t *tally_json(const book_reject_tally *t) {
    json_t *o = json_object();
    for (int k = 0; k < 16; k++)
        if (t->n[k])
            json_object_set_new(o, k < 15 ? book_reason(BOOK_EARG - k) : "other",
                                json_integer((json_int_t)t->n[k]));
    return o;
}

static int replay_json(const replay_ctx *c, const char *path, const char *json) {
    const uint64_t *n = c->out.n;
    json_t *o = json_pack(
        "{s:s,s:I,s:I,s:I,s:I,s:o,s:f,s:f,s:{s:I,s:I,s:I,s:I,s:I,s:I},s:{s:I,s:I,s:I,s:I}}", "file",
        path, "lines", (json_int_t)c->lines, "ops", (json_int_t)c->ops, "malformed_lines",
        (json_int_t)c->bad, "rejected_ops", (json_int_t)c->rej.total, "rejected_by_reason",
        tally_json(&c->rej), "wall_s", c->wall_s, "ops_per_s",
        c->wall_s > 0 ? (double)c->ops / c->wall_s : 0.0, "events", "accepted",
        (json_int_t)n[BOOK_EV_ACCEPTED], "rejected", (json_int_t)n[BOOK_EV_REJECTED], "trades",
        (json_int_t)n[BOOK_EV_TRADE], "cancelled", (json_int_t)n[BOOK_EV_CANCELLED], "done",
        (json_int_t)n[BOOK_EV_DONE], "level", (json_int_t)n[BOOK_EV_LEVEL], "final", "orders",
        (json_int_t)book_order_count(c->b), "bid_levels",
        (json_int_t)book_level_count(c->b, BOOK_BUY), "ask_levels",
        (json_int_t)book_level_count(c->b, BOOK_SELL), "seq", (json_int_t)book_seq(c->b));
    int e = o ? lat_write_json_atomic(json, o) : -ENOMEM;
    json_decref(o);
    return e ? cli_lib_error(CMD, json, e) : CLI_OK;
}

static int cmd_replay(int argc, char **argv) {
    replay_opts o = {.cfg = {.max_orders = 1000000, .reserve_orders = 65536}};
    int rc = replay_args(argc, argv, &o);
    if (rc >= 0) return rc;
    const char *path = o.path, *name = strcmp(path, "-") ? path : "<stdin>";
    FILE *in = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!in) return cli_error(CMD, "%s: %s", path, strerror(errno));
    replay_ctx ctx = {.out = {.f = stdout, .fees = o.fees, .levels = o.levels}};
    o.cfg.on_event = replay_event;
    o.cfg.ud = &ctx.out;
    int err = book_create(&o.cfg, &ctx.b);
    if (err) {
        if (in != stdin) fclose(in);
        return cli_lib_error(CMD, "creating the book", err);
    }
    rc = replay_stream(&ctx, in, name, o.tick);
    if (in != stdin) fclose(in);
    if (book_cli_check_stdout(CMD)) rc = CLI_ERR;
    char rej[512];
    book_tally_format(&ctx.rej, rej, sizeof rej);
    fprintf(stderr,
            "latlab book replay: %s: %" PRIu64 " lines, %" PRIu64 " ops in %.6f s (%.3f M ops/s); "
            "rejected ops: %s; malformed lines: %" PRIu64 "%s\n",
            name, ctx.lines, ctx.ops, ctx.wall_s,
            ctx.wall_s > 0 ? (double)ctx.ops / ctx.wall_s / 1e6 : 0.0, rej, ctx.bad,
            ctx.bad ? " (skipped)" : "");
    if (rc == CLI_OK && ctx.bad) rc = CLI_ERR;
    if (rc == CLI_OK && ctx.rej.total) rc = BOOK_EXIT_REJECTED;
    if (o.json && replay_json(&ctx, path, o.json)) rc = CLI_ERR;
    free(ctx.lv[0]);
    free(ctx.lv[1]);
    book_free(ctx.b);
    return rc;
}

int cmd_book(int argc, char **argv) {
    if (argc < 2)
        return cli_usage_error(CMD, "needs a subcommand: replay, itch, itch-gen, lobster, "
                                    "lobster-synth or bench");
    const char *sub = argv[1];
    if (!strcmp(sub, "--help") || !strcmp(sub, "-h") || !strcmp(sub, "help")) {
        fputs(cmd_book_usage, stdout);
        return CLI_OK;
    }
    if (!strcmp(sub, "replay")) return cmd_replay(argc - 1, argv + 1);
    if (!strcmp(sub, "itch")) return book_itch_main(argc - 1, argv + 1);
    if (!strcmp(sub, "lobster")) return book_lobster_main(argc - 1, argv + 1);
    if (!strcmp(sub, "lobster-synth")) return book_lobster_synth_main(argc - 1, argv + 1);
    if (!strcmp(sub, "bench")) return book_bench_main(argc - 1, argv + 1);
    if (!strcmp(sub, "itch-gen")) return book_itchgen_main(argc - 1, argv + 1);
    return cli_usage_error(CMD,
                           "unknown subcommand '%s' (replay, itch, itch-gen, lobster, "
                           "lobster-synth or bench)",
                           sub);
}
