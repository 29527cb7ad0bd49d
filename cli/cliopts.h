/* cliopts.h - what the options table (cli.h: cli_spec) needs for commands
 * that are more than one flat list of flags:
 *
 *   - a command made of subcommands ("latlab hist percentiles", "latlab book
 *     itch"): a cli_group names each subcommand with its function and its
 *     cli_spec; cli_group_run dispatches argv[1], cli_group_help writes the
 *     command's help from the subcommands' specs (nothing is written twice);
 *   - a repeatable option (-e A -e B): a cli_list row collects every value.
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
    const char *summary;              /* one line for the group's list */
} cli_sub;

typedef struct cli_group {
    const char *name;    /* "hist", as in messages */
    const char *about;   /* paragraph(s) after the subcommand list (may be NULL) */
    const cli_sub *subs; /* terminated by an entry with name NULL */
    const char *epilog;  /* after every subcommand's help (may be NULL) */
    /* Usage errors; NULL: "needs a subcommand: a, b or c" and
     * "unknown subcommand '%s' (a, b or c)".  unknown gets the name as its %s. */
    const char *missing, *unknown;
} cli_group;

/* argv[0] is the group's name.  "help", "-h", "--help" as argv[1]: the
 * group's help on stdout.  Else argv[1] picks the subcommand, called with
 * argc - 1, argv + 1.  A missing or unknown one is a usage error (exit 2). */
int cli_group_run(const cli_group *g, int argc, char **argv);

/* The sub named `name`, or NULL. */
const cli_sub *cli_group_find(const cli_group *g, const char *name);

/* The group's help: one usage line per subcommand, the list with summaries,
 * the about text, then each subcommand's help (cli_help) and the epilog. */
void cli_group_help(const cli_group *g, FILE *f);

/* `latlab help GROUP SUB` and `latlab GROUP SUB --help`: the subcommand's
 * help when argv[0] names one, the group's otherwise. */
void cli_group_help_for(const cli_group *g, const char *sub, FILE *f);

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

#endif /* LATLAB_CLI_CLIOPTS_H */
