/* cmd_book.c - `latlab book`: the order-book workload.
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
#include "cliopts.h"
#include "opreplay.h"

#include "book.h"
#include "opstream.h"
#include "latlab/atomicfile.h"
#include "latlab/error.h"
#include "latlab/hist.h"
#include "latlab/hlog.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

static const char *CMD = "book";

/* ---- replay -------------------------------------------------------------------------- */

typedef struct replay_opts {
    book_config cfg;
    book_price_flags pf;
    const char *json, *path;
    int levels, fees, band_given;
    int64_t band_lo, band_hi, tick;
} replay_opts;

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
static replay_opts ro; /* the table's destinations */

static int opt_stp(const char *cmd, const char *flag, const char *v, void *dest) {
    if (parse_stp(v, dest))
        return cli_usage_error(
            cmd, "%s: '%s' is not none, cancel-taker, cancel-maker or cancel-both", flag, v);
    return 0;
}

static int opt_fees(const char *cmd, const char *flag, const char *v, void *dest) {
    replay_opts *o = dest;
    int64_t m, t;
    if (parse_pair(v, &m, &t) || m < -10000 || m > 10000 || t < -10000 || t > 10000)
        return cli_usage_error(cmd, "%s: '%s' is not MAKER:TAKER basis points (-10000..10000 each)",
                               flag, v);
    o->cfg.maker_fee_bps = (int32_t)m;
    o->cfg.taker_fee_bps = (int32_t)t;
    o->fees = 1;
    return 0;
}

static int opt_band(const char *cmd, const char *flag, const char *v, void *dest) {
    replay_opts *o = dest;
    if (parse_pair(v, &o->band_lo, &o->band_hi) || o->band_lo > o->band_hi)
        return cli_usage_error(cmd, "%s: '%s' is not LO:HI with LO <= HI", flag, v);
    o->band_given = 1;
    return 0;
}

static uint64_t replay_capacity;
static bool replay_levels;

static const cli_opt replay_opts_table[] = {
    CLI_CUSTOM_OPT("stp", opt_stp, &ro.cfg.stp, "MODE",
                   "self-trade prevention: none (default), cancel-taker, cancel-maker,\n"
                   "cancel-both"),
    CLI_CUSTOM_OPT("fees", opt_fees, &ro, "M:T",
                   "maker:taker fees in basis points (negative = rebate); default 0:0"),
    BOOK_PRICE_ROWS(ro.pf,
                    "the tick in those scaled units, a decimal (default: one file unit);\n"
                    "e.g. --price-scale 10000 --tick 0.01 for USD x 10,000 prices on a\n"
                    "cent tick.  A price not on the tick is a malformed line.",
                    "prices in the file are in units of 1/S (default 1)"),
    CLI_CUSTOM_OPT("band", opt_band, &ro, "LO:HI",
                   "price band in the file's unit, at most 2^28 ticks (default 1 tick\n"
                   "to 2^24 ticks); memory grows only with the levels used"),
    CLI_NUM_OPT("capacity", CLI_U64, &replay_capacity, "N",
                "resting orders the book can hold (default 1000000)", 1, (1u << 31) - 1),
    CLI_FLAG_OPT("levels", &replay_levels, "also print a V event for every level change"),
    CLI_STR_OPT("json", CLI_PATH, &ro.json, "FILE", "write the results as JSON"),
    CLI_END,
};

const cli_spec book_replay_spec = {
    .name = "book",
    .synopsis = "latlab book replay FILE|- [--stp MODE] [--fees MAKER:TAKER] [--band LO:HI]\n"
                "                          [--tick T] [--price-scale S] [--capacity N] [--levels]\n"
                "                          [--json FILE]",
    .about =
        "One op per line (integers only, prices in the file's unit; '#' starts a comment):\n"
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
        "  S <depth> <seq> <crc32> <nbids> <nasks>, then SB/SA <price> <qty> <count> per level\n",
    .opts = replay_opts_table,
    .epilog =
        "On stderr at the end: lines, ops, wall time, ops/s, rejected ops by reason and\n"
        "malformed lines.  Malformed lines are reported with their line number and reason and\n"
        "skipped.  Exit status: 0 every op accepted; 3 every line parsed but the book rejected\n"
        "some ops (J events, counted by reason); 1 malformed lines, an unreadable input (a NUL\n"
        "byte, a line over 4096 bytes, a read error) or a failed write; 2 usage.\n",
    .max_args = -1,
};

/* -1 to go on, else the exit status. */
static int replay_args(int argc, char **argv, replay_opts *o) {
    ro = *o;
    replay_capacity = o->cfg.max_orders;
    int rc = cli_parse_one(&book_replay_spec, argc, argv, "replay needs one FILE (or - for stdin)",
                           &ro.path);
    if (rc) return rc < 0 ? CLI_OK : rc;
    *o = ro;
    o->cfg.max_orders = (uint32_t)replay_capacity;
    o->levels = replay_levels;
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

static void bad_line(void *ud, uint64_t lineno, const char *why) {
    fflush(stdout);
    fprintf(stderr, "latlab book replay: %s:%" PRIu64 ": %s\n", (const char *)ud, lineno, why);
}

static int cmd_replay(int argc, char **argv) {
    replay_opts o = {.cfg = {.max_orders = 1000000, .reserve_orders = 65536}};
    int rc = replay_args(argc, argv, &o);
    if (rc >= 0) return rc;
    const char *path = o.path, *name = strcmp(path, "-") ? path : "<stdin>";
    FILE *in = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!in) return cli_error(CMD, "%s: %s", path, strerror(errno));
    book_opreplay ctx = {.out = {.f = stdout, .fees = o.fees, .levels = o.levels},
                         .bad_line = bad_line,
                         .ud = (void *)name};
    o.cfg.on_event = book_event_print;
    o.cfg.ud = &ctx.out;
    int err = book_create(&o.cfg, &ctx.b);
    if (err) {
        if (in != stdin) fclose(in);
        return cli_lib_error(CMD, "creating the book", err);
    }
    char msg[512];
    rc = book_opreplay_stream(&ctx, in, name, o.tick, msg, sizeof msg) ? cli_error(CMD, "%s", msg)
                                                                       : CLI_OK;
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
    if (o.json && cli_write_json(CMD, o.json, book_opreplay_json(&ctx, path))) rc = CLI_ERR;
    book_opreplay_fini(&ctx);
    book_destroy(ctx.b);
    return rc;
}

static const cli_sub book_subs[] = {
    {"replay", cmd_replay, &book_replay_spec, "text op stream in, one event per line out"},
    {"itch", book_itch_main, &book_itch_spec, "ITCH 5.0 replay into one book per stock"},
    {"itch-gen", book_itchgen_main, &book_itchgen_spec, "a synthetic ITCH 5.0 capture with bursts"},
    {"lobster", book_lobster_main, &book_lobster_spec,
     "LOBSTER replay, checked against its orderbook file"},
    {"lobster-synth", book_lobster_synth_main, &book_lobster_synth_spec,
     "a synthetic LOBSTER message and orderbook pair"},
    {"bench", book_bench_main, &book_bench_spec, "the HDR tail-latency scenarios"},
    {NULL, NULL, NULL, NULL},
};

const cli_spec cmd_book_spec = {
    .name = "book",
    .about = "The order-book workload (workloads/book/): the text op stream, ITCH 5.0 and LOBSTER\n"
             "replays, synthetic inputs and the tail-latency scenarios.\n",
    .subs = book_subs,
};

int cmd_book(int argc, char **argv) {
    return cli_group_run(&cmd_book_spec, argc, argv);
}
