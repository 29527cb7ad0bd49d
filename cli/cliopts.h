/* cliopts.h - what the options table (cli.h: cli_spec) needs for commands
 * that are more than one flat list of flags:
 *
 *   - a command made of subcommands ("latlab hist percentiles", "latlab book
 *     itch"): its cli_spec's `subs` names each subcommand with its function
 *     and its own cli_spec; cli_group_run dispatches argv[1], cli_help_for
 *     writes the help from the subcommands' specs (nothing is written twice);
 *   - a repeatable option (-e A -e B): a CLI_LIST_OPT row keeps every value;
 *   - the one way a command writes its JSON result (cli_write_json), and a
 *     text result to stdout or a file written atomically (cli_out).
 *
 * A child command after the options ("latlab stat -- CMD ARGS") is the spec's
 * stop_at_args (cli.h).  Nothing here allocates; lists have a fixed cap. */
#ifndef LATLAB_CLI_CLIOPTS_H
#define LATLAB_CLI_CLIOPTS_H

#include "cli.h"

#include <stddef.h>
#include <stdio.h>

/* ---- subcommands ---------------------------------------------------------------------- */

typedef struct cli_sub {
    const char *name;                 /* "percentiles"; NULL ends the table */
    int (*fn)(int argc, char **argv); /* argv[0] is the subcommand's name */
    const cli_spec *spec;             /* its options and help */
    const char *summary;              /* one line for the command's list */
} cli_sub;

/* g: a spec with subs.  argv[0] is the command's name.  "help", "-h",
 * "--help" as argv[1]: the command's help on stdout.  Else argv[1] picks the
 * subcommand, called with argc - 1, argv + 1.  A missing or unknown one is a
 * usage error listing the subcommands (exit 2). */
int cli_group_run(const cli_spec *g, int argc, char **argv);

/* The subcommand of g named `name`, or NULL. */
const cli_sub *cli_group_find(const cli_spec *g, const char *name);

/* `latlab help CMD [SUB]` and `latlab CMD [SUB] --help`: for a spec without
 * subs, cli_help.  With subs: SUB's help when sub names one; else one usage
 * line per subcommand (the command's own form first, when its spec has a
 * synopsis), the about text, the own form's options, the list with
 * summaries, then every subcommand's help and the epilog. */
void cli_help_for(const cli_spec *sp, const char *sub, FILE *f);

/* cli_parse for a command of exactly one positional argument: *arg is it;
 * none or more is the usage error "latlab CMD: <need>".  Returns as cli_parse. */
int cli_parse_one(const cli_spec *sp, int argc, char **argv, const char *need, const char **arg);

/* A replay's pace: "original" -> 1, "xN" -> N (1e-3..max), "max" -> 0 (back
 * to back).  0, or CLI_USAGE after "FLAG: 'S' is not original, xN or max". */
int cli_parse_pace(const char *cmd, const char *flag, const char *s, double max, double *speed);

/* ---- repeatable options --------------------------------------------------------------- */

#define CLI_LIST_MAX 64

/* Every value of a repeated option, in order (pointers into argv). */
typedef struct cli_list {
    const char *v[CLI_LIST_MAX];
    int n;
} cli_list;

/* A CLI_CUSTOM parser appending value to the cli_list at dest; more than
 * CLI_LIST_MAX values is a usage error naming the flag. */
int cli_list_add(const char *cmd, const char *flag, const char *value, void *dest);

/* A row whose every occurrence is kept: dest is a cli_list. */
#define CLI_LIST_OPT(n, d, mv, h) CLI_CUSTOM_OPT(n, cli_list_add, d, mv, h)

/* The values joined by sep into buf (size n, always terminated); returns the
 * length it needed (as snprintf: >= n means it was cut). */
size_t cli_list_join(const cli_list *l, const char *sep, char *buf, size_t n);

/* ---- results ------------------------------------------------------------------------ */

struct json_t;
/* Write doc to path atomically and release it (NULL: out of memory).
 * CLI_OK, or CLI_ERR after "latlab CMD: PATH: reason". */
int cli_write_json(const char *cmd, const char *path, struct json_t *doc);

/* A text result: stdout (path NULL) or path written atomically.  Open:
 * CLI_OK, or CLI_ERR after "latlab CMD: PATH: reason".  Close with the
 * status so far: a failed one aborts the file and is returned; otherwise the
 * file is committed (CLI_ERR after a message when that fails).  stdout is
 * left to main's check of every command's output. */
struct lat_afile;
typedef struct cli_out {
    FILE *f;
    struct lat_afile *af;
} cli_out;
int cli_out_open(cli_out *o, const char *cmd, const char *path);
int cli_out_close(cli_out *o, const char *cmd, const char *path, int status);

#endif /* LATLAB_CLI_CLIOPTS_H */
