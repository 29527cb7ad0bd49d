/* cli.h - shared pieces of the latlab command-line tool.
 *
 * Each subcommand lives in cli/<name>.c and exports `int cmd_<name>(int argc,
 * char **argv)` (argv[0] is the subcommand's name) and `cmd_<name>_usage`.
 * Exit codes: 0 ok, 1 runtime error, 2 usage error.  Tables go to stdout,
 * warnings and progress to stderr, progress only when stderr is a terminal.
 * Numbers are parsed strictly: no trailing junk, no sign where none is
 * allowed, range-checked; a bad value names its flag. */
#ifndef LATLAB_CLI_H
#define LATLAB_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CLI_OK 0
#define CLI_ERR 1
#define CLI_USAGE 2

typedef struct cli_cmd {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
    const char *usage; /* full help text */
} cli_cmd;

/* "latlab CMD: <message>\nTry 'latlab help CMD'." on stderr; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "latlab CMD: <message>" on stderr; returns 1. */
int cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "latlab CMD: warning: <message>" on stderr. */
void cli_warn(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A progress line on stderr, only when stderr is a terminal (overwrites itself). */
void cli_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_progress_done(void);

/* After getopt_long returned '?' or ':' (optstring must start with ':'):
 * prints which option was unknown or lacks its argument; returns 2. */
int cli_getopt_fail(const char *cmd, int c, char **argv);

/* Strict parsers.  On error they print "latlab CMD: FLAG: ..." and return 2;
 * 0 on success. */
int cli_parse_u64(const char *cmd, const char *flag, const char *s, uint64_t min, uint64_t max,
                  uint64_t *out);
int cli_parse_int(const char *cmd, const char *flag, const char *s, int min, int max, int *out);
int cli_parse_double(const char *cmd, const char *flag, const char *s, double min, double max,
                     double *out);
/* "250", "250ns", "1.5us", "2ms", "1s" -> ns (bare numbers are ns), plain
 * decimal only (no hex, no '+').  At most CLI_DURATION_MAX_NS (one day: no
 * latlab run is meant to last longer, and every duration then fits int64
 * arithmetic); a positive value under 1 ns is refused, not rounded to 0. */
#define CLI_DURATION_MAX_NS UINT64_C(86400000000000)
int cli_parse_duration_ns(const char *cmd, const char *flag, const char *s, uint64_t *out_ns);
/* "0,2-3" -> cpus[] (sorted, unique); at most max entries. */
int cli_parse_cpulist(const char *cmd, const char *flag, const char *s, int *cpus, int max, int *n);

/* Exit status when a library call failed: prints "latlab CMD: what: reason". */
int cli_lib_error(const char *cmd, const char *what, int err);

/* Per-command help (used by `latlab help CMD` and `latlab CMD --help`). */
const cli_cmd *cli_find(const char *name);

#endif /* LATLAB_CLI_H */
