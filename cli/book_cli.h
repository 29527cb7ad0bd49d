/* book_cli.h - helpers shared by the `latlab book` subcommands (cli/cmd_book.c,
 * cli/book_itch.c, cli/book_lobster.c; defined in cli/book_cli.c): the
 * --tick/--price-scale rows, the checks of stdout and the .hgrm file, and the
 * subcommand entry points. */
#ifndef LATLAB_CLI_BOOK_CLI_H
#define LATLAB_CLI_BOOK_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "book.h"
#include "cli.h"
#include "replay_report.h"

/* Exit status of replay and lobster when every line parsed but the book
 * rejected at least one op (J events / unappliable messages). */
#define BOOK_EXIT_REJECTED 3

/* --tick T and --price-scale S as given; book_cli_tick() combines them. */
typedef struct book_price_flags {
    const char *tick; /* NULL: one input unit */
    uint64_t scale;   /* 0: 1 */
} book_price_flags;
/* Tick in input units, or -1 after a usage error naming the flag. */
int64_t book_cli_tick(const char *cmd, const book_price_flags *pf);
/* The --tick and --price-scale rows of an options table (cli.h), into pf. */
#define BOOK_PRICE_ROWS(pf, tick_help, scale_help)                                                 \
    CLI_STR_OPT("tick", CLI_STRING, &(pf).tick, "T", tick_help),                                   \
        CLI_NUM_OPT("price-scale", CLI_U64, &(pf).scale, "S", scale_help, 1, 1000000000000.0)

/* stdout flushed and free of write errors: CLI_OK, or CLI_ERR after a message. */
int book_cli_check_stdout(const char *cmd);

/* The latency line on stdout and its JSON are replay_report.h's. */
#define book_cli_print_latency(h) book_latency_print(stdout, (h))
#define book_cli_latency_json(h) book_latency_json(h)

/* The .hgrm percentile table of h at path: CLI_OK or CLI_ERR after a message. */
struct lat_hist;
int book_cli_write_hgrm(const char *cmd, const char *path, const struct lat_hist *h);

/* The subcommands (cli/cmd_book.c dispatches) and their options tables. */
extern const cli_spec book_itch_spec, book_lobster_spec, book_lobster_synth_spec;
int book_itch_main(int argc, char **argv);
int book_lobster_main(int argc, char **argv);
int book_lobster_synth_main(int argc, char **argv);

#endif
