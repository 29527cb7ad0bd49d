/* itchgen.h - a synthetic but valid NASDAQ TotalView-ITCH 5.0 capture with
 * bursts, so the replay pipeline, the tests and demos have captures of any
 * size without shipping market data.
 *
 * File: every message carries its real 2-byte big-endian length prefix.  It
 * opens with a system event 'S' (start of messages, 'O') and one stock
 * directory 'R' per stock (locate codes 1..K, symbols "STK00001" ...), then
 * order messages, and closes with 'S' (end of messages, 'C'); `messages`
 * counts all of them, so there are messages - K - 2 order messages.
 *
 * Arrival model: a two-state Markov-modulated Poisson process.  In the burst
 * state messages arrive as a Poisson process at peak_to_mean x rate_hz; in the
 * quiet state at the rate that keeps the long-run mean at rate_hz.  The
 * process spends a fraction f = 1 / (2 x peak_to_mean) of its time in bursts
 * (so bursts carry half the messages), burst lengths are exponential with mean
 * burst_ns and quiet lengths exponential with mean burst_ns x (1 - f) / f.
 * peak_to_mean = 1 is a plain Poisson process.  Timestamps (ns since midnight)
 * start at 09:30:00 and never go backwards; the order flow starts 1 ms after
 * the directory.
 *
 * Order flow: the stock of each message is drawn with Zipf(1) weights (stock 1
 * busiest).  The kind is drawn per mille: add A 430, add with attribution
 * F 10, delete D 280, partial cancel X 60, execute E 120, execute with price
 * C 10, replace U 90.  Anything other than an add goes to a random resting
 * order of that stock; a stock with no resting order gets an add instead, one
 * at its cap of resting orders (a million spread over the stocks, at least 16
 * each) a delete instead, and a partial cancel of a 1-share order becomes a
 * delete.  Executions never exceed the open shares, so the capture replays
 * with no unknown references, duplicate adds or over-executions.  Prices sit
 * 1..51 cents either side of a fixed per-stock mid, so the book never crosses
 * (prices in 1/10000 dollars); sizes are mostly round lots.
 *
 * Deterministic: the same config (seed included) writes the same bytes.
 * Setup-time code: allocates (per-stock state), writes through stdio, never
 * prints. */
#ifndef LATLAB_ITCHGEN_H
#define LATLAB_ITCHGEN_H

#include <stdint.h>
#include <stdio.h>

#define ITCHGEN_MAX_STOCKS 65535u

typedef struct itchgen_config {
    uint64_t messages;   /* all messages in the file, >= stocks + 2 */
    uint32_t stocks;     /* 1..ITCHGEN_MAX_STOCKS */
    double rate_hz;      /* long-run mean message rate (default 200,000/s) */
    double peak_to_mean; /* burst-state rate / mean rate, 1..10,000 (default 10) */
    uint64_t burst_ns;   /* mean burst length (default 200 us) */
    uint64_t seed;       /* default 1 */
} itchgen_config;

/* Defaults above; messages 100,000, stocks 8. */
void itchgen_config_default(itchgen_config *c);

typedef struct itchgen_counts {
    uint64_t messages;
    uint64_t by_type[256];
    uint64_t bursts;         /* burst periods entered */
    uint64_t burst_messages; /* order messages sent in the burst state */
    uint64_t span_ns;        /* last timestamp - first */
} itchgen_counts;

/* Write the capture to f.  Returns 0 (counts filled when non-NULL), -EINVAL for
 * a bad config, -ENOMEM, or -EIO when a write failed. */
int itchgen_write(const itchgen_config *c, FILE *f, itchgen_counts *counts);

/* "wrote PATH: N messages, K stocks, ...", the counts by type and the bursts
 * (peak rate from cfg) into f. */
void itchgen_print_counts(FILE *f, const char *path, const itchgen_config *cfg,
                          const itchgen_counts *cn);

#endif /* LATLAB_ITCHGEN_H */
