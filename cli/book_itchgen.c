/* book_itchgen.c - `latlab book itch-gen`: a synthetic ITCH 5.0 capture with
 * bursts (workloads/book/itchgen.h), for replay runs, tests and demos. */
#include "cli.h"
#include "book_itchgen.h"

#include "itchgen.h"
#include "latlab/atomicfile.h"

#include <inttypes.h>
#include <stdio.h>
#include <errno.h>
#include <string.h>

static const char *CMD = "book itch-gen";

static itchgen_config cfg;
static uint64_t stocks;
static const char *out;

static const cli_opt itchgen_opts[] = {
    CLI_SHORT_OPT("out", 'o', CLI_STRING, &out, "FILE", "output (written atomically)", NULL),
    CLI_NUM_OPT("messages", CLI_U64, &cfg.messages, "N",
                "all messages in the file, >= K + 2 (default 100000)", 3, 1099511627776.0),
    CLI_NUM_OPT("stocks", CLI_U64, &stocks, "K", "1..65535 (default 8)", 1, ITCHGEN_MAX_STOCKS),
    CLI_NUM_OPT("rate", CLI_DOUBLE, &cfg.rate_hz, "HZ",
                "long-run mean message rate (default 200000)", 1e-3, 1e10),
    CLI_NUM_OPT("peak-to-mean", CLI_DOUBLE, &cfg.peak_to_mean, "R",
                "burst rate / mean rate, 1..10000; 1 = plain Poisson (default 10)", 1, 10000),
    CLI_NUM_OPT("burst", CLI_DURATION, &cfg.burst_ns, "DUR", "mean burst length (default 200us)", 0,
                0),
    CLI_NUM_OPT("seed", CLI_U64, &cfg.seed, "S", "(default 1)", 0, 0),
    CLI_END,
};

const cli_spec book_itchgen_spec = {
    .name = "book itch-gen",
    .synopsis = "latlab book itch-gen -o FILE [--messages N] [--stocks K] [--rate HZ]\n"
                "                            [--peak-to-mean R] [--burst DUR] [--seed S]",
    .about = "Writes a synthetic, valid ITCH 5.0 capture (real length prefixes): a system\n"
             "event, one stock directory message per stock, the order flow, an end-of-messages\n"
             "event.  Arrivals: two-state Markov-modulated Poisson process; bursts run at R x\n"
             "the mean rate for an exponential time of mean DUR and take 1/(2R) of the time\n"
             "(half the messages), quiet periods run slower so the long-run rate is HZ.  Mix\n"
             "per mille: A 430, F 10, D 280, X 60, E 120, C 10, U 90, stocks drawn Zipf(1);\n"
             "every reference is to a resting order.  The same options and seed write the\n"
             "same bytes.\n",
    .opts = itchgen_opts,
    .max_args = 0,
};

/* Parse and check everything before any work: 0, or the exit status. */
static int parse(int argc, char **argv) {
    itchgen_config_default(&cfg);
    stocks = cfg.stocks;
    out = NULL;
    int first, rc = cli_parse(&book_itchgen_spec, argc, argv, &first);
    if (rc) return rc < 0 ? -1 : rc;
    cfg.stocks = (uint32_t)stocks;
    if (!out) return cli_usage_error(CMD, "-o/--out: an output FILE is required");
    if (!out[0]) return cli_usage_error(CMD, "-o/--out: the output path is empty");
    if (cfg.burst_ns == 0) return cli_usage_error(CMD, "--burst: must be above 0");
    if (cfg.messages < (uint64_t)cfg.stocks + 2)
        return cli_usage_error(CMD,
                               "--messages: %" PRIu64 " is fewer than --stocks %u plus the 2 "
                               "system events",
                               cfg.messages, cfg.stocks);
    return 0;
}

int book_itchgen_main(int argc, char **argv) {
    int rc = parse(argc, argv);
    if (rc) return rc < 0 ? CLI_OK : rc;
    lat_afile *af = NULL;
    int err = lat_afile_open(out, &af);
    if (err) return cli_lib_error(CMD, out, err);
    itchgen_counts cn;
    err = itchgen_write(&cfg, lat_afile_stream(af), &cn);
    if (err) {
        lat_afile_abort(af);
        return cli_lib_error(CMD, out, err);
    }
    if ((err = lat_afile_commit(af)) != 0) return cli_lib_error(CMD, out, err);
    itchgen_print_counts(stdout, out, &cfg, &cn);
    if (fflush(stdout) != 0 || ferror(stdout))
        return cli_error(CMD, "writing stdout failed: %s", strerror(errno ? errno : EIO));
    return CLI_OK;
}
