/* book_lobster.c - `latlab book lobster MESSAGE.csv [--orderbook ORDERBOOK.csv]`:
 * replays a LOBSTER message file through latlab's book and checks the book
 * against LOBSTER's own orderbook file row by row (workloads/book/lobster.h);
 * and `latlab book lobster-synth DIR`, which writes a LOBSTER-format fixture
 * from latlab's own book driven by a seeded random order flow. */
#include "cli.h"
#include "book_cli.h"
#include "cliopts.h"

#include "lobster.h"
#include "lobster_check.h"
#include "opstream.h"
#include "latlab/error.h"
#include "latlab/hist.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char *CMD = "book";

typedef struct lob_opts {
    const char *msg_path, *ob_path, *json, *hgrm;
    uint64_t levels, show;
    book_price_flags pf;
    int64_t tick;
    bool lenient;
} lob_opts;

typedef lobster_check lob_run;

static lob_opts lo; /* the table's destinations */

static const cli_opt lob_opts_table[] = {
    CLI_STR_OPT("orderbook", CLI_PATH, &lo.ob_path, "ORDERBOOK.csv",
                "start from its first row and compare the book with every row"),
    CLI_NUM_OPT("levels", CLI_U64, &lo.levels, "L",
                "levels compared with --orderbook (default: the file's)", 1, LOBSTER_MAX_LEVELS),
    BOOK_PRICE_ROWS(lo.pf, "the tick in USD (default 0.01)",
                    "prices in the file are in units of 1/S (default 10000)"),
    CLI_STR_OPT("hgrm", CLI_PATH, &lo.hgrm, "FILE",
                "write the latency histogram's percentile table"),
    CLI_STR_OPT("json", CLI_PATH, &lo.json, "FILE", "write the results as JSON"),
    CLI_NUM_OPT("show", CLI_U64, &lo.show, "N",
                "report at most N problems, and N mismatches outside the depth, on\n"
                "stderr (default 10 each)",
                0, 1000000),
    CLI_FLAG_OPT("lenient", &lo.lenient,
                 "exit 0 although the file contradicts itself (crossing adds, wrong prices,\n"
                 "time going backwards: still counted and reported)"),
    CLI_END,
};

const cli_spec book_lobster_spec = {
    .name = "book",
    .synopsis =
        "latlab book lobster MESSAGE.csv [--orderbook ORDERBOOK.csv] [--levels L]\n"
        "                          [--tick T] [--price-scale S] [--hgrm FILE] [--json FILE]",
    .about =
        "Replays a LOBSTER message file (time,type,id,size,price,direction; types 1\n"
        "new limit, 2 partial cancel, 3 delete, 4 visible execution, 5 hidden execution, 6\n"
        "cross, 7 halt; prices USD x 10,000, so --price-scale defaults to 10000 and --tick to\n"
        "0.01).  With --orderbook the book starts from the file's first row (one synthetic\n"
        "order per visible level) and its top L levels (--levels, default: the file's) are\n"
        "compared with every row; mismatches that the file's depth window explains (orders\n"
        "beyond its N levels are never reported) are labelled \"outside the file's depth\".\n"
        "Messages naming an order that rested before the window are applied to its price level\n"
        "and counted; one that cannot be applied is reported with its line and reason.  What\n"
        "LOBSTER never contains is counted and reported as inconsistent: a new order at or\n"
        "through the opposite best (refused: the book would cross), a message whose price or\n"
        "direction is not its order's (applied by id), time going backwards (applied).  Prints\n"
        "per-type counts, messages/s and the per-message latency histogram.\n",
    .opts = lob_opts_table,
    .epilog = "Exit status: 0 clean (mismatches outside the file's depth included); 3 unappliable\n"
              "messages, book mismatches not explained by the depth, or an inconsistent file\n"
              "(without --lenient); 1 malformed lines, no messages or unreadable input; 2 usage.\n",
    .max_args = -1,
};

/* -1 to go on, else the exit status. */
static int lob_args(int argc, char **argv, lob_opts *o) {
    lo = *o;
    int rc = cli_parse_one(&book_lobster_spec, argc, argv, "lobster needs one MESSAGE.csv",
                           &lo.msg_path);
    if (rc) return rc < 0 ? CLI_OK : rc;
    *o = lo;
    if (o->levels && !o->ob_path)
        return cli_usage_error(CMD, "--levels: compares with --orderbook, which is not given");
    if (!o->pf.scale) o->pf.scale = 10000;
    if (!o->pf.tick) o->pf.tick = "0.01";
    if ((o->tick = book_cli_tick(CMD, &o->pf)) < 0) return CLI_USAGE;
    return -1;
}

/* The orderbook file's first row sets N (and L when --levels is absent). */
static int lob_first_row(lob_run *run, lob_opts *o) {
    int r = lobster_check_next_row(run);
    if (r == 0) return cli_error(CMD, "%s: empty", o->ob_path);
    if (r < 0) return cli_error(CMD, "%s", run->err);
    run->nlevels = run->row.nlevels;
    if (!o->levels) o->levels = run->nlevels;
    if (o->levels > run->nlevels)
        return cli_usage_error(CMD, "--levels: %" PRIu64 " is more than the %u levels of %s",
                               o->levels, run->nlevels, o->ob_path);
    return -1;
}

static book_lobster_summary lob_summary(const lob_run *run, const lob_opts *o) {
    return (book_lobster_summary){
        o->msg_path, o->ob_path,      lobster_replay_counts(run->r), run->bad,    o->levels,
        &run->first, run->first_kind, run->first_mismatch_line,      run->wall_s, run->cpu_s,
        &run->h};
}

static int lob_status(const lob_run *run, const lob_opts *o) {
    const lobster_counts *c = lobster_replay_counts(run->r);
    if (run->bad) return CLI_ERR;
    if (c->rows_mismatch || c->unappliable > c->unappliable_depth) return BOOK_EXIT_REJECTED;
    if (!o->lenient && c->crossing + c->wrong_price + c->time_backwards) {
        fprintf(stderr,
                "latlab book lobster: %s contradicts itself (see 'inconsistent'); --lenient "
                "accepts it\n",
                o->msg_path);
        return BOOK_EXIT_REJECTED;
    }
    return CLI_OK;
}

int book_lobster_main(int argc, char **argv) {
    lob_opts o = {.show = 10};
    int rc = lob_args(argc, argv, &o);
    if (rc >= 0) return rc;
    lob_run run = {.msg_path = o.msg_path,
                   .ob_path = o.ob_path,
                   .tick = o.tick,
                   .show = o.show,
                   .diag = stderr,
                   .flush = stdout,
                   .who = "latlab book lobster"};
    if (!(run.msg = fopen(o.msg_path, "r")))
        return cli_error(CMD, "%s: %s", o.msg_path, strerror(errno));
    if (o.ob_path && !(run.ob = fopen(o.ob_path, "r"))) {
        rc = cli_error(CMD, "%s: %s", o.ob_path, strerror(errno));
        goto done;
    }
    if (run.ob) book_lines_init(&run.lo, run.ob);
    if (run.ob && (rc = lob_first_row(&run, &o)) >= 0) goto done;
    /* the band ends at the highest price present: memory follows the data */
    int64_t hi = lobster_scan_max_price(run.msg, o.tick);
    for (uint32_t i = 0; hi >= 0 && i < run.row.nlevels; i++)
        if (run.row.ask[i].price > hi) hi = run.row.ask[i].price;
    if (hi < 0) hi = 0; /* not seekable: the widest band */
    int err = lobster_replay_create(o.tick, hi, run.nlevels, (uint32_t)o.levels, &run.r);
    if (!err) err = lat_hist_init(&run.h, 1, 1000000000, 3);
    if (err) {
        rc = cli_lib_error(CMD, "creating the replay", err);
        goto done;
    }
    book_lines_init(&run.lm, run.msg);
    rc = lobster_check_run(&run) ? cli_error(CMD, "%s", run.err) : CLI_OK;
    if (rc == CLI_OK) {
        book_lobster_summary sum = lob_summary(&run, &o);
        book_lobster_print(stdout, &sum);
        uint64_t hidden = (run.shown > o.show ? run.shown - o.show : 0) +
                          (run.shown_depth > o.show ? run.shown_depth - o.show : 0);
        if (hidden)
            fprintf(stderr, "latlab book lobster: %" PRIu64 " more reports not shown (--show)\n",
                    hidden);
        rc = lob_status(&run, &o);
        if (o.hgrm && book_cli_write_hgrm(CMD, o.hgrm, &run.h)) rc = CLI_ERR;
        if (o.json && cli_write_json(CMD, o.json, book_lobster_json(&sum))) rc = CLI_ERR;
        if (book_cli_check_stdout(CMD)) rc = CLI_ERR;
    }
done:
    lat_hist_fini(&run.h);
    lobster_replay_destroy(run.r);
    if (run.ob) fclose(run.ob);
    fclose(run.msg);
    return rc;
}

/* ---- lobster-synth ----------------------------------------------------------------------- */

static uint64_t synth_msgs, synth_levels, synth_seed, synth_unseen;

static const cli_opt synth_opts_table[] = {
    CLI_NUM_OPT("messages", CLI_U64, &synth_msgs, "N", "messages to write (default 10000)", 1,
                100000000),
    CLI_NUM_OPT("levels", CLI_U64, &synth_levels, "N", "levels in the orderbook file (default 5)",
                1, LOBSTER_MAX_LEVELS),
    CLI_NUM_OPT("seed", CLI_U64, &synth_seed, "S", "(default 1)", 0, 0),
    CLI_NUM_OPT("unseen-pm", CLI_U64, &synth_unseen, "P",
                "per mille of events beyond level N, left out of the files (default 5)", 0, 1000),
    CLI_END,
};

const cli_spec book_lobster_synth_spec = {
    .name = "book",
    .synopsis =
        "latlab book lobster-synth DIR [--messages N] [--levels N] [--seed S] [--unseen-pm P]",
    .about = "Writes DIR/SYNTH_message_N.csv and DIR/SYNTH_orderbook_N.csv from latlab's own\n"
             "book driven by a seeded random order flow (orders resting before the first\n"
             "message, every message type; P per mille of events placed beyond level N and left\n"
             "out of the files as LOBSTER's depth window does).\n",
    .opts = synth_opts_table,
    .max_args = -1,
};

int book_lobster_synth_main(int argc, char **argv) {
    synth_msgs = 10000, synth_levels = 5, synth_seed = 1, synth_unseen = 5;
    const char *dir = NULL;
    int prc =
        cli_parse_one(&book_lobster_synth_spec, argc, argv, "lobster-synth needs one DIR", &dir);
    if (prc) return prc < 0 ? CLI_OK : prc;
    uint64_t msgs = synth_msgs, levels = synth_levels, seed = synth_seed, unseen = synth_unseen;
    if (!*dir) return cli_usage_error(CMD, "lobster-synth needs one DIR");
    if (mkdir(dir, 0777) && errno != EEXIST) return cli_error(CMD, "%s: %s", dir, strerror(errno));
    char mp[4096], op[4096];
    snprintf(mp, sizeof mp, "%s/SYNTH_message_%" PRIu64 ".csv", dir, levels);
    snprintf(op, sizeof op, "%s/SYNTH_orderbook_%" PRIu64 ".csv", dir, levels);
    FILE *m = fopen(mp, "w"), *b = fopen(op, "w");
    int rc = CLI_OK;
    lobster_synth_cfg cfg = {.seed = seed,
                             .messages = (uint32_t)msgs,
                             .levels = (uint32_t)levels,
                             .hidden_pm = (uint32_t)unseen};
    lobster_synth_stats st;
    int err = m && b ? lobster_synth_write(&cfg, m, b, &st) : -errno;
    if (m && fclose(m) && !err) err = -errno;
    if (b && fclose(b) && !err) err = -errno;
    if (err) return cli_lib_error(CMD, dir, err);
    printf("wrote %s and %s: %" PRIu64 " messages (types 1-7: %" PRIu64 " %" PRIu64 " %" PRIu64
           " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "), %" PRIu64
           " naming pre-window orders, %" PRIu64 " events beyond level %" PRIu64 " left out\n",
           mp, op, st.written, st.by_type[1], st.by_type[2], st.by_type[3], st.by_type[4],
           st.by_type[5], st.by_type[6], st.by_type[7], st.prewindow_refs, st.unseen, levels);
    return book_cli_check_stdout(CMD) ? CLI_ERR : rc;
}
