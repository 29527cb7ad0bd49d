/* book.c - `latlab book` (not built yet: this placeholder exits 1 until its issue lands). */
#include "cli.h"

const char cmd_book_usage[] = "usage: latlab book\n\n(not implemented yet)\n";

int cmd_book(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_error("book", "not implemented yet");
}
