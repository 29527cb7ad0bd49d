/* main.c - the latlab tool: a dispatch table of subcommands, one file each.
 *
 * `latlab help [CMD]` and `latlab CMD --help` print the same text.  Exit codes:
 * 0 ok, 1 runtime error, 2 usage error. */
#include "cli.h"
#include "cliopts.h"

#include <stdio.h>
#include <string.h>

#define CMD(n)                                                                                     \
    extern int cmd_##n(int, char **);                                                              \
    extern const char cmd_##n##_usage[];
/* A command whose options are declared in a table (cli.h: cli_spec). */
#define CMDS(n)                                                                                    \
    extern int cmd_##n(int, char **);                                                              \
    extern const cli_spec cmd_##n##_spec;
CMDS(clock)
CMDS(sys)
CMD(hist)
CMDS(dce)
CMD(bench)
CMD(stat)
CMD(silence)
CMD(co)
CMD(pipeline)
CMD(lab)
CMDS(book)
CMD(plot)
#undef CMD
#undef CMDS

static const cli_cmd commands[] = {
    {"lab", cmd_lab, "the experiment protocol: baseline, alloc, share-line, no-pin (main job)",
     cmd_lab_usage, NULL},
    {"pipeline", cmd_pipeline, "one run of the stamped producer -> worker pipeline",
     cmd_pipeline_usage, NULL},
    {"clock", cmd_clock, "calibrate the cycle counter; drift, read cost, granularity", NULL,
     &cmd_clock_spec},
    {"co", cmd_co, "coordinated omission: closed vs open loop over a stall", cmd_co_usage, NULL},
    {"dce", cmd_dce, "dead-code elimination trap, ring costs and the ping-pong floor", NULL,
     &cmd_dce_spec},
    {"sys", cmd_sys, "run conditions: CPUs, topology, governor, isolation, kernel", NULL,
     &cmd_sys_spec},
    {"hist", cmd_hist, "read, merge and summarise HdrHistogram interval logs", cmd_hist_usage,
     NULL},
    {"plot", cmd_plot, "latency-by-percentile SVG plots from .hlog/.hgrm files", cmd_plot_usage,
     NULL},
    {"stat", cmd_stat, "count performance events of a command (perf stat-like)", cmd_stat_usage,
     NULL},
    {"silence", cmd_silence, "ftrace check of what disturbs chosen CPUs (root)", cmd_silence_usage,
     NULL},
    {"bench", cmd_bench, "bake-offs against peers (ring)", cmd_bench_usage, NULL},
    {"book", cmd_book, "order book: replay, ITCH 5.0 replay, tail-latency scenarios", NULL,
     &cmd_book_spec},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

const cli_cmd *cli_find(const char *name) {
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(commands[i].name, name)) return &commands[i];
    return NULL;
}

static void overview(FILE *f) {
    fputs("usage: latlab COMMAND [OPTIONS]\n\n"
          "Measure nanosecond-scale latency honestly: a calibrated cycle clock, HdrHistogram,\n"
          "SPSC rings, performance counters and the experiments that break a tail.\n\n"
          "commands:\n",
          f);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fputs("\n'latlab help COMMAND' or 'latlab COMMAND --help' for a command's options.\n", f);
}

/* sub: the word after the command (a command of subcommands prints that
 * subcommand's help when it names one). */
static void print_help(const cli_cmd *c, const char *sub) {
    if (c->spec)
        cli_help_for(c->spec, sub, stdout);
    else
        fputs(c->usage, stdout);
}

static int help(int argc, char **argv) {
    if (argc < 2) {
        overview(stdout);
        return CLI_OK;
    }
    const cli_cmd *c = cli_find(argv[1]);
    if (!c) {
        fprintf(stderr, "latlab help: unknown command '%s'\n", argv[1]);
        overview(stderr);
        return CLI_USAGE;
    }
    print_help(c, argc > 2 ? argv[2] : NULL);
    return CLI_OK;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        overview(stderr);
        return CLI_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "help") || !strcmp(name, "--help") || !strcmp(name, "-h"))
        return help(argc - 1, argv + 1);
    if (!strcmp(name, "--version")) {
        puts("latlab " LAT_VERSION_STRING);
        return CLI_OK;
    }
    const cli_cmd *c = cli_find(name);
    if (!c) {
        fprintf(stderr, "latlab: unknown command '%s'\n\n", name);
        overview(stderr);
        return CLI_USAGE;
    }
    /* CMD --help anywhere before a "--" (after it, the arguments belong to a child). */
    for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            print_help(c, argv[2]);
            return CLI_OK;
        }
    return c->fn(argc - 1, argv + 1);
}
