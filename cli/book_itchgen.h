/* book_itchgen.h - `latlab book itch-gen`: its options table (cli/cmd_book.c's
 * help is generated from it) and its entry point (cli/book_itchgen.c). */
#ifndef LATLAB_CLI_BOOK_ITCHGEN_H
#define LATLAB_CLI_BOOK_ITCHGEN_H

#include "cli.h"

/* Its options table (the help is generated from it). */
extern const cli_spec book_itchgen_spec;
int book_itchgen_main(int argc, char **argv);

#endif
