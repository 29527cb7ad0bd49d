/* book_itchgen.c - `latlab book itch-gen`: a synthetic ITCH 5.0 capture with
 * bursts (workloads/book/itchgen.h), for replay runs, tests and demos. */
#include "cli.h"
#include "book_itchgen.h"

#include "itchgen.h"
#include "latlab/atomicfile.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *CMD = "book itch-gen";

int book_itchgen_main(int argc, char **argv) {
    enum { O_MSG = 256, O_STK, O_RATE, O_P2M, O_BURST, O_SEED };
    static const struct option opts[] = {{"out", required_argument, 0, 'o'},
                                         {"messages", required_argument, 0, O_MSG},
                                         {"stocks", required_argument, 0, O_STK},
                                         {"rate", required_argument, 0, O_RATE},
                                         {"peak-to-mean", required_argument, 0, O_P2M},
                                         {"burst", required_argument, 0, O_BURST},
                                         {"seed", required_argument, 0, O_SEED},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    itchgen_config c;
    itchgen_config_default(&c);
    const char *out = NULL;
    uint64_t v;
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'o':
            out = optarg;
            break;
        case O_MSG:
            if (cli_parse_u64(CMD, "--messages", optarg, 3, 1ull << 40, &c.messages))
                return CLI_USAGE;
            break;
        case O_STK:
            if (cli_parse_u64(CMD, "--stocks", optarg, 1, ITCHGEN_MAX_STOCKS, &v)) return CLI_USAGE;
            c.stocks = (uint32_t)v;
            break;
        case O_RATE:
            if (cli_parse_double(CMD, "--rate", optarg, 1e-3, 1e10, &c.rate_hz)) return CLI_USAGE;
            break;
        case O_P2M:
            if (cli_parse_double(CMD, "--peak-to-mean", optarg, 1, 10000, &c.peak_to_mean))
                return CLI_USAGE;
            break;
        case O_BURST:
            if (cli_parse_duration_ns(CMD, "--burst", optarg, &c.burst_ns)) return CLI_USAGE;
            if (c.burst_ns == 0) return cli_usage_error(CMD, "--burst: must be above 0");
            break;
        case O_SEED:
            if (cli_parse_u64(CMD, "--seed", optarg, 0, UINT64_MAX, &c.seed)) return CLI_USAGE;
            break;
        case 'h':
            fputs(BOOK_ITCHGEN_USAGE, stdout);
            return CLI_OK;
        default:
            return cli_getopt_fail(CMD, ch, argv);
        }
    }
    if (optind < argc) return cli_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
    if (!out) return cli_usage_error(CMD, "-o/--out: an output FILE is required");
    if (!out[0]) return cli_usage_error(CMD, "-o/--out: the output path is empty");
    if (c.messages < (uint64_t)c.stocks + 2)
        return cli_usage_error(CMD,
                               "--messages: %" PRIu64 " is fewer than --stocks %u plus the 2 "
                               "system events",
                               c.messages, c.stocks);
    lat_afile *af = NULL;
    int err = lat_afile_open(out, &af);
    if (err) return cli_lib_error(CMD, out, err);
    itchgen_counts cn;
    err = itchgen_write(&c, lat_afile_stream(af), &cn);
    if (err) {
        lat_afile_abort(af);
        return cli_lib_error(CMD, out, err);
    }
    if ((err = lat_afile_commit(af)) != 0) return cli_lib_error(CMD, out, err);
    printf("wrote %s: %" PRIu64 " messages, %u stocks, %.6f s of market time (mean %.0f/s)\n", out,
           cn.messages, c.stocks, (double)cn.span_ns / 1e9,
           cn.span_ns ? (double)cn.messages * 1e9 / (double)cn.span_ns : 0.0);
    printf("by type        ");
    for (int t = 0; t < 256; t++)
        if (cn.by_type[t]) printf(" %c %" PRIu64, t, cn.by_type[t]);
    printf("\nbursts          %" PRIu64 " (peak %.0f/s), carrying %" PRIu64 " order messages\n",
           cn.bursts, c.rate_hz * c.peak_to_mean, cn.burst_messages);
    if (fflush(stdout) != 0 || ferror(stdout)) return cli_error(CMD, "writing stdout failed");
    return CLI_OK;
}
