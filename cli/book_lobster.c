/* book_lobster.c - `latlab book lobster`: placeholder. */
#include "cli.h"
#include "book_cli.h"
int book_lobster_main(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_error("book", "lobster: not yet");
}
