/* book_itchgen.h - `latlab book itch-gen`: its usage text (shared with
 * cli/book.c's help) and its entry point (cli/book_itchgen.c). */
#ifndef LATLAB_CLI_BOOK_ITCHGEN_H
#define LATLAB_CLI_BOOK_ITCHGEN_H

#define BOOK_ITCHGEN_USAGE                                                                         \
    "usage: latlab book itch-gen -o FILE [--messages N] [--stocks K] [--rate HZ]\n"                \
    "                            [--peak-to-mean R] [--burst DUR] [--seed S]\n"                    \
    "\n"                                                                                           \
    "itch-gen: writes a synthetic, valid ITCH 5.0 capture (real length prefixes): a system\n"      \
    "event, one stock directory message per stock, the order flow, an end-of-messages event.\n"    \
    "Arrivals: two-state Markov-modulated Poisson process; bursts run at R x the mean rate\n"      \
    "for an exponential time of mean DUR and take 1/(2R) of the time (half the messages),\n"       \
    "quiet periods run slower so the long-run rate is HZ.  Mix per mille: A 430, F 10, D 280,\n"   \
    "X 60, E 120, C 10, U 90, stocks drawn Zipf(1); every reference is to a resting order.\n"      \
    "The same options and seed write the same bytes.\n"                                            \
    "  -o, --out FILE      output (written atomically)\n"                                          \
    "  --messages N        all messages in the file, >= K + 2 (default 100000)\n"                  \
    "  --stocks K          1..65535 (default 8)\n"                                                 \
    "  --rate HZ           long-run mean message rate (default 200000)\n"                          \
    "  --peak-to-mean R    burst rate / mean rate, 1..10000; 1 = plain Poisson (default 10)\n"     \
    "  --burst DUR         mean burst length (default 200us)\n"                                    \
    "  --seed S            (default 1)\n"

#include "cli.h"

/* Its options table (the help is generated from it). */
extern const cli_spec book_itchgen_spec;
int book_itchgen_main(int argc, char **argv);

#endif
