/* book.c - `latlab book`: the order-book workload.
 *
 *   latlab book replay FILE|-     text op stream in, one event per line out
 *   latlab book itch FILE         ITCH 5.0 replay into one book per stock
 *   latlab book bench SCENARIO    the HDR tail-latency scenarios (cli/book_bench.c)
 *
 * The engine is book/book.h; the op-stream and event formats are documented
 * in the usage text below. */
#include "cli.h"
#include "book_bench.h"
#include "book_itchgen.h"

#include "book.h"
#include "itch.h"
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
#include <sys/resource.h>

const char cmd_book_usage[] =
    "usage: latlab book replay FILE|- [--stp MODE] [--fees MAKER:TAKER] [--band LO:HI]\n"
    "                          [--capacity N] [--levels] [--json FILE]\n"
    "       latlab book itch FILE [--pace original|xN|max] [--loop N] [--hgrm FILE]\n"
    "                          [--json FILE]\n"
    "       latlab book bench SCENARIO|all [options]   ('latlab book bench --help')\n"
    "       latlab book itch-gen -o FILE [options]     (synthetic capture; see below)\n"
    "\n"
    "replay: one op per line (integers only, prices in ticks; '#' starts a comment):\n"
    "  L <id> <owner> <B|S> <price> <qty> <GTC|IOC|FOK|POST>   limit order\n"
    "  M <id> <owner> <B|S> <qty>                              market order\n"
    "  C <id>                                                  cancel\n"
    "  R <id> <new_qty>        set the open quantity (lower keeps priority, higher loses it)\n"
    "  P <id> <price> <qty>    replace: new price and quantity, loses priority (may trade)\n"
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
    "  --band LO:HI      price band in ticks (default 1:65535)\n"
    "  --capacity N      resting orders the book can hold (default 1000000)\n"
    "Malformed lines are reported on stderr with their line number and reason and skipped;\n"
    "the exit status is then 1.  Rejected orders (J) are events, not errors.\n"
    "\n"
    "itch: reads an ITCH 5.0 capture (2-byte length prefixes; zero prefixes mean framing by\n"
    "the type byte), builds one book per stock (band and capacity from a first pass), and\n"
    "prints message counts, references to unknown orders, messages/s, the per-message\n"
    "processing-time histogram (ns) and each stock's final top of book.\n"
    "  --pace max        as fast as possible (default; closed loop: service time)\n"
    "  --pace original   at the capture's own timestamps (open loop: latency from the\n"
    "                    intended time);  --pace xN  the same, N times faster\n"
    "  --loop N          replay the capture N times (books emptied in between, untimed)\n"
    "  --hgrm FILE       write the latency histogram's percentile table\n"
    "  --json FILE       write the results as JSON\n"
    "\n"
    "bench: " BOOK_BENCH_USAGE "\n" BOOK_ITCHGEN_USAGE;

static const char *CMD = "book";

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

/* Strict field parsers for op lines: 0 ok, else a reason is written to why. */
static int field_u64(const char *s, uint64_t max, uint64_t *out, const char *what, char *why,
                     size_t wl) {
    char *end;
    if (*s < '0' || *s > '9') {
        snprintf(why, wl, "%s '%s' is not a non-negative integer", what, s);
        return -1;
    }
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end) {
        snprintf(why, wl, "%s '%s' is not a non-negative integer", what, s);
        return -1;
    }
    if (errno == ERANGE || v > max) {
        snprintf(why, wl, "%s '%s' is out of range (0..%" PRIu64 ")", what, s, max);
        return -1;
    }
    *out = v;
    return 0;
}

static int field_i64(const char *s, int64_t *out, const char *what, char *why, size_t wl) {
    char *end;
    const char *d = *s == '-' ? s + 1 : s;
    if (*d < '0' || *d > '9') {
        snprintf(why, wl, "%s '%s' is not an integer", what, s);
        return -1;
    }
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end || errno == ERANGE) {
        snprintf(why, wl, "%s '%s' is not an integer in range", what, s);
        return -1;
    }
    *out = v;
    return 0;
}

static int field_side(const char *s, book_side *out, char *why, size_t wl) {
    if (!strcmp(s, "B"))
        *out = BOOK_BUY;
    else if (!strcmp(s, "S"))
        *out = BOOK_SELL;
    else {
        snprintf(why, wl, "side '%s' is not B or S", s);
        return -1;
    }
    return 0;
}

#define MAXTOK 8

typedef struct replay_ctx {
    book *b;
    replay_out out;
    book_level_view *lv[2];
    uint64_t ops;
} replay_ctx;

/* Run one line.  0 = ok (or blank), -1 = malformed (why filled). */
static int replay_line(replay_ctx *c, char *line, char *why, size_t wl) {
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    char *tok[MAXTOK + 1], *save = NULL;
    int nt = 0;
    for (char *t = strtok_r(line, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
        if (nt == MAXTOK) {
            snprintf(why, wl, "too many fields");
            return -1;
        }
        tok[nt++] = t;
    }
    if (nt == 0) return 0;
    const char *op = tok[0];
    static const struct {
        const char *op;
        int fields;
        const char *shape;
    } shapes[] = {
        {"L", 7, "L <id> <owner> <B|S> <price> <qty> <GTC|IOC|FOK|POST>"},
        {"M", 5, "M <id> <owner> <B|S> <qty>"},
        {"C", 2, "C <id>"},
        {"R", 3, "R <id> <new_qty>"},
        {"P", 4, "P <id> <new_price> <new_qty>"},
        {"S", 2, "S <depth>"},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        if (!strcmp(op, shapes[i].op) && nt != shapes[i].fields) {
            snprintf(why, wl, "'%s' needs %d fields (%s), got %d", op, shapes[i].fields,
                     shapes[i].shape, nt);
            return -1;
        }
    uint64_t id, owner, qty;
    int64_t price;
    book_side side;
    if (!strcmp(op, "L")) {
        book_tif tif;
        unsigned flags = 0;
        if (field_u64(tok[1], UINT64_MAX, &id, "id", why, wl) ||
            field_u64(tok[2], UINT32_MAX, &owner, "owner", why, wl) ||
            field_side(tok[3], &side, why, wl) || field_i64(tok[4], &price, "price", why, wl) ||
            field_u64(tok[5], UINT32_MAX, &qty, "qty", why, wl))
            return -1;
        if (!strcmp(tok[6], "GTC"))
            tif = BOOK_GTC;
        else if (!strcmp(tok[6], "IOC"))
            tif = BOOK_IOC;
        else if (!strcmp(tok[6], "FOK"))
            tif = BOOK_FOK;
        else if (!strcmp(tok[6], "POST"))
            tif = BOOK_GTC, flags = BOOK_POST_ONLY;
        else {
            snprintf(why, wl, "time in force '%s' is not GTC, IOC, FOK or POST", tok[6]);
            return -1;
        }
        book_limit(c->b, id, (uint32_t)owner, side, price, (uint32_t)qty, tif, flags);
    } else if (!strcmp(op, "M")) {
        if (field_u64(tok[1], UINT64_MAX, &id, "id", why, wl) ||
            field_u64(tok[2], UINT32_MAX, &owner, "owner", why, wl) ||
            field_side(tok[3], &side, why, wl) ||
            field_u64(tok[4], UINT32_MAX, &qty, "qty", why, wl))
            return -1;
        book_market(c->b, id, (uint32_t)owner, side, (uint32_t)qty);
    } else if (!strcmp(op, "C")) {
        if (field_u64(tok[1], UINT64_MAX, &id, "id", why, wl)) return -1;
        book_cancel(c->b, id);
    } else if (!strcmp(op, "R")) {
        if (field_u64(tok[1], UINT64_MAX, &id, "id", why, wl) ||
            field_u64(tok[2], UINT32_MAX, &qty, "new_qty", why, wl))
            return -1;
        book_modify(c->b, id, (uint32_t)qty);
    } else if (!strcmp(op, "P")) {
        if (field_u64(tok[1], UINT64_MAX, &id, "id", why, wl) ||
            field_i64(tok[2], &price, "new_price", why, wl) ||
            field_u64(tok[3], UINT32_MAX, &qty, "new_qty", why, wl))
            return -1;
        book_replace(c->b, id, price, (uint32_t)qty);
    } else if (!strcmp(op, "X")) {
        book_filter f;
        if (nt == 2 && !strcmp(tok[1], "ALL")) {
            f = book_filter_all();
        } else if (nt == 3 && !strcmp(tok[1], "SIDE")) {
            if (field_side(tok[2], &side, why, wl)) return -1;
            f = book_filter_side(side);
        } else if (nt == 3 && !strcmp(tok[1], "OWNER")) {
            if (field_u64(tok[2], UINT32_MAX, &owner, "owner", why, wl)) return -1;
            f = book_filter_owner((uint32_t)owner);
        } else if (nt == 4 && !strcmp(tok[1], "RANGE")) {
            int64_t lo, hi;
            if (field_i64(tok[2], &lo, "lo", why, wl) || field_i64(tok[3], &hi, "hi", why, wl))
                return -1;
            f = book_filter_range(lo, hi);
        } else {
            snprintf(why, wl, "'X' needs ALL, SIDE <B|S>, OWNER <owner> or RANGE <lo> <hi>");
            return -1;
        }
        book_mass_cancel(c->b, &f, NULL, 0);
    } else if (!strcmp(op, "S")) {
        uint64_t depth;
        if (field_u64(tok[1], UINT32_MAX, &depth, "depth", why, wl)) return -1;
        book_package pkg = {.bids = c->lv[0], .asks = c->lv[1]};
        book_snapshot_package(c->b, (size_t)depth, &pkg);
        FILE *f = c->out.f;
        fprintf(f, "S %" PRIu64 " %" PRIu64 " %08" PRIx32 " %zu %zu\n", depth, pkg.seq, pkg.crc32,
                pkg.nbids, pkg.nasks);
        for (size_t i = 0; i < pkg.nbids; i++)
            fprintf(f, "SB %" PRId64 " %" PRIu64 " %u\n", pkg.bids[i].price, pkg.bids[i].qty,
                    pkg.bids[i].count);
        for (size_t i = 0; i < pkg.nasks; i++)
            fprintf(f, "SA %" PRId64 " %" PRIu64 " %u\n", pkg.asks[i].price, pkg.asks[i].qty,
                    pkg.asks[i].count);
    } else {
        snprintf(why, wl, "unknown op '%s' (L, M, C, R, P, X or S)", op);
        return -1;
    }
    c->ops++;
    return 0;
}

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

static int cmd_replay(int argc, char **argv) {
    static const struct option opts[] = {
        {"stp", required_argument, 0, 's'},  {"fees", required_argument, 0, 'f'},
        {"band", required_argument, 0, 'b'}, {"capacity", required_argument, 0, 'c'},
        {"levels", no_argument, 0, 'l'},     {"json", required_argument, 0, 'j'},
        {"help", no_argument, 0, 'h'},       {0, 0, 0, 0}};
    book_config cfg = {.price_lo = 1, .price_hi = 65535, .tick = 1, .max_orders = 1000000};
    const char *json = NULL;
    int levels = 0, fees = 0;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (!strcmp(optarg, "none"))
                cfg.stp = BOOK_STP_NONE;
            else if (!strcmp(optarg, "cancel-taker") || !strcmp(optarg, "taker"))
                cfg.stp = BOOK_STP_CANCEL_TAKER;
            else if (!strcmp(optarg, "cancel-maker") || !strcmp(optarg, "maker"))
                cfg.stp = BOOK_STP_CANCEL_MAKER;
            else if (!strcmp(optarg, "cancel-both") || !strcmp(optarg, "both"))
                cfg.stp = BOOK_STP_CANCEL_BOTH;
            else
                return cli_usage_error(CMD,
                                       "--stp: '%s' is not none, cancel-taker, cancel-maker "
                                       "or cancel-both",
                                       optarg);
            break;
        case 'f': {
            int64_t m, t;
            if (parse_pair(optarg, &m, &t) || m < -10000 || m > 10000 || t < -10000 || t > 10000)
                return cli_usage_error(CMD,
                                       "--fees: '%s' is not MAKER:TAKER basis points "
                                       "(-10000..10000 each)",
                                       optarg);
            cfg.maker_fee_bps = (int32_t)m;
            cfg.taker_fee_bps = (int32_t)t;
            fees = 1;
            break;
        }
        case 'b': {
            int64_t lo, hi;
            if (parse_pair(optarg, &lo, &hi) || lo > hi || hi - lo >= (1 << 28))
                return cli_usage_error(CMD,
                                       "--band: '%s' is not LO:HI with LO <= HI and at most "
                                       "2^28 ticks",
                                       optarg);
            cfg.price_lo = lo;
            cfg.price_hi = hi;
            break;
        }
        case 'c': {
            uint64_t v;
            if (cli_parse_u64(CMD, "--capacity", optarg, 1, (1u << 31) - 1, &v)) return CLI_USAGE;
            cfg.max_orders = (uint32_t)v;
            break;
        }
        case 'l':
            levels = 1;
            break;
        case 'j':
            json = optarg;
            break;
        case 'h':
            fputs(cmd_book_usage, stdout);
            return CLI_OK;
        default:
            return cli_getopt_fail(CMD, c, argv);
        }
    }
    if (optind != argc - 1) return cli_usage_error(CMD, "replay needs one FILE (or - for stdin)");
    const char *path = argv[optind];
    FILE *in = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!in) return cli_error(CMD, "%s: %s", path, strerror(errno));

    replay_ctx ctx = {0};
    ctx.out.f = stdout;
    ctx.out.fees = fees;
    ctx.out.levels = levels;
    cfg.on_event = replay_event;
    cfg.ud = &ctx.out;
    int rc = CLI_OK, err = book_create(&cfg, &ctx.b);
    if (err) {
        if (in != stdin) fclose(in);
        return cli_lib_error(CMD, "creating the book", err);
    }
    size_t nlv = (size_t)((cfg.price_hi - cfg.price_lo) / cfg.tick + 1);
    ctx.lv[0] = calloc(nlv, sizeof(book_level_view));
    ctx.lv[1] = calloc(nlv, sizeof(book_level_view));
    char *line = NULL;
    size_t cap = 0;
    uint64_t lineno = 0, bad = 0;
    if (!ctx.lv[0] || !ctx.lv[1]) {
        rc = cli_error(CMD, "out of memory");
        goto done;
    }
    while (getline(&line, &cap, in) != -1) {
        lineno++;
        char why[256];
        if (replay_line(&ctx, line, why, sizeof why)) {
            fflush(stdout);
            fprintf(stderr, "latlab book replay: %s:%" PRIu64 ": %s\n",
                    strcmp(path, "-") ? path : "<stdin>", lineno, why);
            bad++;
        }
    }
    if (ferror(in)) rc = cli_error(CMD, "%s: read error: %s", path, strerror(errno));
    if (bad) {
        fprintf(stderr, "latlab book replay: %" PRIu64 " malformed line%s skipped\n", bad,
                bad == 1 ? "" : "s");
        rc = CLI_ERR;
    }
    if (json) {
        json_t *o = json_pack(
            "{s:s,s:I,s:I,s:I,s:{s:I,s:I,s:I,s:I,s:I,s:I},s:{s:I,s:I,s:I,s:I}}", "file", path,
            "lines", (json_int_t)lineno, "ops", (json_int_t)ctx.ops, "malformed_lines",
            (json_int_t)bad, "events", "accepted", (json_int_t)ctx.out.n[BOOK_EV_ACCEPTED],
            "rejected", (json_int_t)ctx.out.n[BOOK_EV_REJECTED], "trades",
            (json_int_t)ctx.out.n[BOOK_EV_TRADE], "cancelled",
            (json_int_t)ctx.out.n[BOOK_EV_CANCELLED], "done", (json_int_t)ctx.out.n[BOOK_EV_DONE],
            "level", (json_int_t)ctx.out.n[BOOK_EV_LEVEL], "final", "orders",
            (json_int_t)book_order_count(ctx.b), "bid_levels",
            (json_int_t)book_level_count(ctx.b, BOOK_BUY), "ask_levels",
            (json_int_t)book_level_count(ctx.b, BOOK_SELL), "seq", (json_int_t)book_seq(ctx.b));
        int e = o ? lat_write_json_atomic(json, o) : -ENOMEM;
        json_decref(o);
        if (e) rc = cli_lib_error(CMD, json, e);
    }
done:
    fflush(stdout);
    free(line);
    free(ctx.lv[0]);
    free(ctx.lv[1]);
    book_free(ctx.b);
    if (in != stdin) fclose(in);
    return rc;
}

/* ---- itch ------------------------------------------------------------------------------- */

static int read_file(const char *path, uint8_t **buf, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return -errno;
    size_t cap = 1 << 20, n = 0;
    uint8_t *b = malloc(cap);
    if (!b) {
        fclose(f);
        return -ENOMEM;
    }
    for (;;) {
        if (n == cap) {
            uint8_t *nb = realloc(b, cap *= 2);
            if (!nb) {
                free(b);
                fclose(f);
                return -ENOMEM;
            }
            b = nb;
        }
        size_t r = fread(b + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    int err = ferror(f) ? -EIO : 0;
    fclose(f);
    if (err) {
        free(b);
        return err;
    }
    *buf = b;
    *len = n;
    return 0;
}

static void print_px(char *out, size_t n, int64_t px) { /* 4 implied decimals */
    snprintf(out, n, "%" PRId64 ".%04" PRId64, px / 10000, px % 10000);
}

static int cmd_itch(int argc, char **argv) {
    static const struct option opts[] = {
        {"pace", required_argument, 0, 'p'}, {"loop", required_argument, 0, 'n'},
        {"hgrm", required_argument, 0, 'g'}, {"json", required_argument, 0, 'j'},
        {"help", no_argument, 0, 'h'},       {0, 0, 0, 0}};
    double speed = 0; /* 0 = max */
    uint64_t loops = 1;
    const char *json = NULL, *hgrm = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'p':
            if (!strcmp(optarg, "max"))
                speed = 0;
            else if (!strcmp(optarg, "original"))
                speed = 1;
            else if (optarg[0] == 'x') {
                if (cli_parse_double(CMD, "--pace", optarg + 1, 1e-3, 1e12, &speed))
                    return CLI_USAGE;
            } else
                return cli_usage_error(CMD, "--pace: '%s' is not original, xN or max", optarg);
            break;
        case 'n':
            if (cli_parse_u64(CMD, "--loop", optarg, 1, 1000000, &loops)) return CLI_USAGE;
            break;
        case 'g':
            hgrm = optarg;
            break;
        case 'j':
            json = optarg;
            break;
        case 'h':
            fputs(cmd_book_usage, stdout);
            return CLI_OK;
        default:
            return cli_getopt_fail(CMD, c, argv);
        }
    }
    if (optind != argc - 1) return cli_usage_error(CMD, "itch needs one FILE");
    const char *path = argv[optind];
    uint8_t *buf = NULL;
    size_t len = 0, err_off = 0;
    int err = read_file(path, &buf, &len);
    if (err) return cli_error(CMD, "%s: %s", path, lat_strerror(err));
    itch_replay *r = NULL;
    lat_hist h = {0};
    int rc = CLI_OK;
    err = itch_replay_create(buf, len, 0, &r, &err_off);
    if (err == LAT_ETRUNCATED || err == LAT_EFORMAT) {
        rc = cli_error(CMD, "%s: offset %zu: %s", path, err_off,
                       err == LAT_ETRUNCATED ? "truncated message (the input ends inside it)"
                                             : "not an ITCH 5.0 message (unknown type or a "
                                               "length prefix that disagrees with the type)");
        goto done;
    }
    if (err) {
        rc = cli_lib_error(CMD, "building the books", err);
        goto done;
    }
    if ((err = lat_hist_init(&h, 1, 1000000000, 3))) {
        rc = cli_lib_error(CMD, "histogram", err);
        goto done;
    }
    const lat_clock_cal *cal = lat_clock_default();
    uint64_t total_ns = 0, total_msgs = 0;
    double cpu_s = 0;
    for (uint64_t loop = 0; loop < loops; loop++) {
        struct rusage ru0, ru1;
        itch_replay_reset(r);
        itch_reader rd;
        itch_msg m;
        itch_reader_init(&rd, buf, len);
        getrusage(RUSAGE_THREAD, &ru0);
        uint64_t w0 = lat_mono_ns();
        if (speed == 0) {
            /* closed loop: one counter read per message; each sample is the time
             * from the end of the previous message to the end of this one
             * (framing, decoding, the book operation and the recording). */
            uint64_t prev = lat_cycles();
            while (itch_next(&rd, &m) == 1) {
                itch_replay_apply(r, &m);
                uint64_t now = lat_cycles();
                lat_hist_record(&h, (int64_t)lat_clock_to_ns(cal, now - prev));
                prev = now;
            }
        } else {
            /* open loop: message i is due at start + (ts_i - ts_0) / speed; its
             * latency runs from that intended time, so a stall shows in every
             * message queued behind it (no coordinated omission). */
            uint64_t start = lat_cycles_fenced(), ts0 = 0;
            int first = 1;
            while (itch_next(&rd, &m) == 1) {
                if (first) ts0 = m.ts_ns, first = 0;
                uint64_t rel = m.ts_ns >= ts0 ? m.ts_ns - ts0 : 0;
                uint64_t due = start + lat_clock_from_ns(cal, (uint64_t)((double)rel / speed));
                while (lat_cycles() < due)
                    lat_cpu_relax();
                itch_replay_apply(r, &m);
                uint64_t now = lat_cycles();
                lat_hist_record(&h, (int64_t)lat_clock_to_ns(cal, now - due));
            }
        }
        total_ns += lat_mono_ns() - w0;
        getrusage(RUSAGE_THREAD, &ru1);
        cpu_s += (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) +
                 (double)(ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
                 (double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6 +
                 (double)(ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;
        total_msgs += itch_replay_counts(r)->messages;
    }
    const itch_counts *cn = itch_replay_counts(r);
    double mps = total_ns ? (double)total_msgs / ((double)total_ns / 1e9) : 0;
    printf("file            %s (%zu bytes)\n", path, len);
    printf("messages        %" PRIu64 " per pass, %" PRIu64 " pass%s\n", cn->messages, loops,
           loops == 1 ? "" : "es");
    printf("by type        ");
    for (int t = 0; t < 256; t++)
        if (cn->by_type[t]) printf(" %c %" PRIu64, t, cn->by_type[t]);
    printf("\nunknown refs    %" PRIu64 " (", cn->unknown_ref);
    const char *ut = "ECXDU";
    for (int i = 0; ut[i]; i++)
        printf("%s%c %" PRIu64, i ? ", " : "", ut[i], cn->unknown_by_type[(uint8_t)ut[i]]);
    printf(")\n");
    printf("anomalies       %" PRIu64 " duplicate adds, %" PRIu64 " rejected adds, %" PRIu64
           " over-executions\n",
           cn->dup_add, cn->rejected_add, cn->over_exec);
    printf("pace            %s\n", speed == 0 ? "max (closed loop: per-message service time)"
                                              : "paced (open loop: latency from intended time)");
    double wall_s = (double)total_ns / 1e9;
    double cpu_mps = cpu_s > 0 ? (double)total_msgs / cpu_s : 0;
    printf("throughput      %.2f M messages/s (%" PRIu64 " messages in %.3f s wall)\n", mps / 1e6,
           total_msgs, wall_s);
    printf("on-CPU          %.2f M messages per CPU-second (the thread had a CPU for %.0f%% of "
           "the wall time)\n",
           cpu_mps / 1e6, wall_s > 0 ? 100.0 * (cpu_s / wall_s > 1 ? 1 : cpu_s / wall_s) : 0.0);
    printf("latency ns      p50 %" PRId64 "  p99 %" PRId64 "  p99.9 %" PRId64 "  p99.99 %" PRId64
           "  max %" PRId64 "  (%" PRId64 " samples)\n",
           lat_hist_value_at_percentile(&h, 50), lat_hist_value_at_percentile(&h, 99),
           lat_hist_value_at_percentile(&h, 99.9), lat_hist_value_at_percentile(&h, 99.99),
           lat_hist_max(&h), lat_hist_total(&h));
    printf("\n%-6s %-8s %7s %12s %10s %12s %10s\n", "locate", "symbol", "orders", "bid", "bid_qty",
           "ask", "ask_qty");
    json_t *stocks = json_array();
    for (int i = itch_replay_stock_next(r, -1); i >= 0; i = itch_replay_stock_next(r, i)) {
        const itch_stock *s = itch_replay_stock(r, (uint16_t)i);
        char bp[32] = "-", ap[32] = "-", bq[32] = "-", aq[32] = "-";
        int64_t px;
        uint64_t q;
        int hb = s->bk && book_best(s->bk, BOOK_BUY, &px, &q) == 0;
        json_t *js = json_pack("{s:i,s:s,s:I}", "locate", i, "symbol", s->symbol, "orders",
                               (json_int_t)(s->bk ? book_order_count(s->bk) : 0));
        if (hb) {
            print_px(bp, sizeof bp, px);
            snprintf(bq, sizeof bq, "%" PRIu64, q);
            json_object_set_new(
                js, "bid",
                json_pack("{s:I,s:I}", "price_e4", (json_int_t)px, "qty", (json_int_t)q));
        }
        int ha = s->bk && book_best(s->bk, BOOK_SELL, &px, &q) == 0;
        if (ha) {
            print_px(ap, sizeof ap, px);
            snprintf(aq, sizeof aq, "%" PRIu64, q);
            json_object_set_new(
                js, "ask",
                json_pack("{s:I,s:I}", "price_e4", (json_int_t)px, "qty", (json_int_t)q));
        }
        json_array_append_new(stocks, js);
        printf("%-6d %-8s %7u %12s %10s %12s %10s\n", i, s->symbol[0] ? s->symbol : "?",
               s->bk ? book_order_count(s->bk) : 0, bp, bq, ap, aq);
    }
    if (hgrm) {
        lat_afile *af;
        err = lat_afile_open(hgrm, &af);
        if (!err) {
            err = lat_hist_write_percentiles(lat_afile_stream(af), &h, 5, 1.0, false);
            if (err)
                lat_afile_abort(af);
            else
                err = lat_afile_commit(af);
        }
        if (err) rc = cli_lib_error(CMD, hgrm, err);
    }
    if (json) {
        json_t *types = json_object();
        for (int t = 0; t < 256; t++)
            if (cn->by_type[t]) {
                char k[2] = {(char)t, 0};
                json_object_set_new(types, k, json_integer((json_int_t)cn->by_type[t]));
            }
        json_t *o = json_pack(
            "{s:s,s:I,s:I,s:I,s:o,s:I,s:I,s:I,s:I,s:s,s:f,s:f,s:f,s:f,s:f,s:{s:I,s:I,s:I,s:I,s:I,"
            "s:I},s:o}",
            "file", path, "bytes", (json_int_t)len, "messages_per_pass", (json_int_t)cn->messages,
            "passes", (json_int_t)loops, "by_type", types, "unknown_refs",
            (json_int_t)cn->unknown_ref, "duplicate_adds", (json_int_t)cn->dup_add, "rejected_adds",
            (json_int_t)cn->rejected_add, "over_executions", (json_int_t)cn->over_exec, "pace",
            speed == 0 ? "max" : "paced", "speed", speed, "messages_per_s", mps,
            "messages_per_cpu_s", cpu_mps, "cpu_s", cpu_s, "wall_s", wall_s, "latency_ns",
            "samples", (json_int_t)lat_hist_total(&h), "p50",
            (json_int_t)lat_hist_value_at_percentile(&h, 50), "p99",
            (json_int_t)lat_hist_value_at_percentile(&h, 99), "p99_9",
            (json_int_t)lat_hist_value_at_percentile(&h, 99.9), "p99_99",
            (json_int_t)lat_hist_value_at_percentile(&h, 99.99), "max",
            (json_int_t)lat_hist_max(&h), "stocks", stocks);
        stocks = NULL;
        err = o ? lat_write_json_atomic(json, o) : -ENOMEM;
        json_decref(o);
        if (err) rc = cli_lib_error(CMD, json, err);
    }
    json_decref(stocks);
done:
    lat_hist_free(&h);
    itch_replay_free(r);
    free(buf);
    return rc;
}

int cmd_book(int argc, char **argv) {
    if (argc < 2)
        return cli_usage_error(CMD, "needs a subcommand: replay, itch, itch-gen or bench");
    const char *sub = argv[1];
    if (!strcmp(sub, "--help") || !strcmp(sub, "-h") || !strcmp(sub, "help")) {
        fputs(cmd_book_usage, stdout);
        return CLI_OK;
    }
    if (!strcmp(sub, "replay")) return cmd_replay(argc - 1, argv + 1);
    if (!strcmp(sub, "itch")) return cmd_itch(argc - 1, argv + 1);
    if (!strcmp(sub, "bench")) return book_bench_main(argc - 1, argv + 1);
    if (!strcmp(sub, "itch-gen")) return book_itchgen_main(argc - 1, argv + 1);
    return cli_usage_error(CMD, "unknown subcommand '%s' (replay, itch, itch-gen or bench)", sub);
}
