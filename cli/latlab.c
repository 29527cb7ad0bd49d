/* latlab.c - the latlab tool: a dispatch table of subcommands, one file each.
 *
 * `latlab help [CMD]` and `latlab CMD --help` print the same text.  Exit codes:
 * 0 ok, 1 runtime error, 2 usage error. */
#include "cli.h"
#include "cliopts.h"

#include "latlab/atomicfile.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A command whose options are declared in a table (cli.h: cli_spec). */
#define CMDS(n)                                                                                    \
    extern int cmd_##n(int, char **);                                                              \
    extern const cli_spec cmd_##n##_spec;
CMDS(clock)
CMDS(sys)
CMDS(hist)
CMDS(dce)
CMDS(bakeoff)
CMDS(stat)
CMDS(silence)
CMDS(co)
CMDS(pipeline)
CMDS(lab)
CMDS(book)
CMDS(plot)
CMDS(top)
CMDS(profile)
CMDS(noise)
CMDS(load)
CMDS(ab)
#undef CMDS

/* A command whose help comes from its table (cmd_NAME, cmd_NAME_spec). */
#define TABLE_CMD(n, summary)                                                                      \
    { #n, cmd_##n, summary, &cmd_##n##_spec }

static const cli_cmd commands[] = {
    TABLE_CMD(lab,
              "the experiments: alloc, share-line, no-pin against a baseline and an A/A control"),
    TABLE_CMD(pipeline, "one run of the stamped producer -> worker pipeline"),
    TABLE_CMD(clock, "calibrate the cycle counter; drift, read cost, granularity"),
    TABLE_CMD(ab, "is B slower than A? two builds in paired rounds with an A/A control"),
    TABLE_CMD(co, "coordinated omission: closed vs open loop over a stall"),
    TABLE_CMD(load,
              "open-loop load (http, https, redis, memcached, echo): schedules, shards, a verdict"),
    TABLE_CMD(dce, "dead-code elimination trap, ring costs and the ping-pong floor"),
    TABLE_CMD(sys, "run conditions: CPUs, topology, governor, isolation, kernel"),
    TABLE_CMD(hist, "read, merge and summarise HdrHistogram interval logs"),
    TABLE_CMD(profile, "sample a command's stacks with perf: flamegraph, folded, diff"),
    TABLE_CMD(top, "live per-stage tails from growing .hlog files or a tracer's socket"),
    TABLE_CMD(plot, "latency-by-percentile SVG plots from .hlog/.hgrm files"),
    TABLE_CMD(stat, "count performance events of a command (perf stat-like)"),
    TABLE_CMD(silence, "ftrace check of what disturbs chosen CPUs (root)"),
    TABLE_CMD(noise, "inject platform noise: SCHED_FIFO bursts take a share of CPUs (root)"),
    TABLE_CMD(bakeoff, "bake-offs against peers (ring)"),
    TABLE_CMD(book, "order book: replay, ITCH 5.0 replay, tail-latency scenarios"),
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
    fputs("\n'latlab help COMMAND' or 'latlab COMMAND --help' for a command's options.\n"
          "Output files (--json, -o, --flight-out) go into an existing directory; output\n"
          "directories (--out, --hlog-dir) are created with their parents.  Exit status: 0 ok,\n"
          "1 runtime error (also a failed write, stdout included), 2 usage error.\n",
          f);
}

static const char help_usage[] =
    "usage: latlab help [COMMAND [SUBCOMMAND]]\n\n"
    "Print the overview, or COMMAND's options (as COMMAND --help); for a command of\n"
    "subcommands, SUBCOMMAND's (as COMMAND SUBCOMMAND --help).\n";

/* sub: the word after the command (a command of subcommands prints that
 * subcommand's help when it names one). */
static void print_help(const cli_cmd *c, const char *sub) {
    cli_help_for(c->spec, sub, stdout);
}

static int help(int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "help")) {
        fputs(help_usage, stdout);
        return CLI_OK;
    }
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

/* Every command's results go to stdout: a write error there (a full disk, a
 * closed descriptor, /dev/full) makes the run fail, whatever the command did.
 * stdout is wrapped so that the first failed write's errno is kept (stdio
 * keeps only an error flag), and ENOSPC is named as such. */
static int stdout_errno;

static ssize_t stdout_write(void *cookie, const char *buf, size_t n) {
    (void)cookie;
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(STDOUT_FILENO, buf + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (!stdout_errno) stdout_errno = w < 0 ? errno : EIO;
            return -1;
        }
        done += (size_t)w;
    }
    return (ssize_t)n;
}

static void wrap_stdout(void) {
    FILE *f = fopencookie(NULL, "w", (cookie_io_functions_t){.write = stdout_write});
    if (!f) return; /* keep the plain stream: its errors are still caught, less precisely */
    setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
    fflush(stdout);
    stdout = f;
}

static int finish(int status) {
    errno = 0;
    int flushed = fflush(stdout);
    int err = stdout_errno ? stdout_errno : errno;
    if (flushed != 0 || ferror(stdout)) {
        fprintf(stderr, "latlab: stdout: write error: %s\n", strerror(err ? err : EIO));
        if (status == CLI_OK) status = CLI_ERR;
    }
    return status;
}

/* Output paths, one rule for every command, checked before any work starts:
 * an empty value is a usage error (exit 2); a file (--json, -o/--output,
 * --flight-out, --hgrm, --hlog) must go into an existing directory (exit 1 naming it
 * otherwise: files never create directories); a directory (--out,
 * --hlog-dir) is created with its parents when the command runs. */
static int check_output_paths(const char *cmd, int argc, char **argv) {
    static const char *const file_flags[] = {"--json",       "--output", "-o",
                                             "--flight-out", "--hgrm",   "--hlog"};
    static const char *const dir_flags[] = {"--out", "--hlog-dir"};
    for (int i = 2; i < argc && strcmp(argv[i], "--"); i++) {
        const char *a = argv[i], *val = NULL;
        bool file = false, known = false;
        const int nf = (int)(sizeof file_flags / sizeof *file_flags);
        for (int k = 0; k < nf + 2 && !known; k++) {
            const char *f = k < nf ? file_flags[k] : dir_flags[k - nf];
            size_t n = strlen(f);
            if (!strcmp(a, f)) {
                val = i + 1 < argc ? argv[i + 1] : NULL;
            } else if (n > 2 && !strncmp(a, f, n) && a[n] == '=') {
                val = a + n + 1;
            } else {
                continue;
            }
            known = true;
            file = k < nf;
        }
        if (!known || !val) continue;
        if (!*val && !strcmp(a, "-o")) /* -o is --output (hist, plot) or --out (book itch-gen) */
            return cli_usage_error(cmd, "-o (--output/--out): empty path");
        if (!*val) return cli_usage_error(cmd, "%.*s: empty path", (int)strcspn(a, "="), a);
        if (!file || !strcmp(val, "-")) continue;
        char *dir = strdup(val), *slash = dir ? strrchr(dir, '/') : NULL;
        struct stat st;
        if (slash && slash != dir) {
            *slash = '\0';
            int e = stat(dir, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
            if (e) { /* the kernel's reason: missing, not a folder, not searchable */
                int rc = cli_error(cmd, "%s: %s: %s%s", val, dir, strerror(e),
                                   e == ENOENT ? " (files never create directories)" : "");
                free(dir);
                return rc;
            }
        }
        free(dir);
        /* --json and --flight-out always name a file: an existing folder there
         * would fail only when the results are written, after all the work */
        if ((!strncmp(a, "--json", 6) || !strncmp(a, "--flight-out", 12)) && stat(val, &st) == 0 &&
            S_ISDIR(st.st_mode))
            return cli_error(cmd, "%.*s: %s: %s", (int)strcspn(a, "="), a, val, strerror(EISDIR));
    }
    return 0;
}

static int dispatch(int argc, char **argv) {
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
    int rc = check_output_paths(c->name, argc, argv);
    if (rc) return rc;
    return c->fn(argc - 1, argv + 1);
}

int main(int argc, char **argv) {
    wrap_stdout();
    lat_afile_cleanup_on_signals(); /* an interrupted command leaves no temporary files */
    return finish(dispatch(argc, argv));
}
