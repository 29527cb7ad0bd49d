/* book_itch.c - `latlab book itch FILE`: ITCH 5.0 replay into one book per
 * stock (workloads/book/itch.h), closed loop or paced by the capture's own
 * timestamps, with a per-message latency histogram. */
#include "cli.h"
#include "book_cli.h"
#include "cliopts.h"

#include "itch.h"
#include "itchfeed_report.h"
#include "replay_report.h"
#include "latlab/clock.h"
#include "latlab/error.h"
#include "latlab/hist.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>

static const char *CMD = "book";

typedef struct itch_opts {
    double speed; /* 0 = max */
    uint64_t loops;
    const char *json, *hgrm, *path;
    book_price_flags pf;
    int64_t tick;        /* 0: per-stock gcd */
    uint64_t max_gap_ns; /* paced: longest gap between two messages' due times; 0 = any */
    bool gap_set;
} itch_opts;

typedef struct itch_run {
    uint64_t total_ns, total_msgs;
    uint64_t gaps_cut; /* paced gaps shortened to max_gap_ns, all passes */
    double cpu_s;
} itch_run;

static itch_opts io; /* the table's destinations */

static int opt_pace(const char *cmd, const char *flag, const char *v, void *dest) {
    return cli_parse_pace(cmd, flag, v, 1e12, dest);
}

static const cli_opt itch_opts_table[] = {
    CLI_CUSTOM_OPT("pace", opt_pace, &io.speed, "PACE",
                   "max: as fast as possible (default; closed loop: service time);\n"
                   "original: at the capture's own timestamps (open loop: latency from\n"
                   "the intended time); xN: the same, N times faster"),
    CLI_SEEN_OPT("max-gap", CLI_DURATION, &io.max_gap_ns, "DUR",
                 "paced only: cut gaps between messages' due times longer than\n"
                 "DUR (after the speed-up) to DUR, so a day-long capture replays\n"
                 "its bursts without the quiet hours",
                 0, 0, NULL, &io.gap_set),
    CLI_NUM_OPT("loop", CLI_U64, &io.loops, "N",
                "replay the capture N times (books emptied in between, untimed)", 1, 1000000),
    BOOK_PRICE_ROWS(io.pf,
                    "fixed tick in USD (ITCH prices have 4 decimals: --price-scale is\n"
                    "10000 and nothing else); adds off the tick are rejected adds.\n"
                    "Default: each stock's tick is the gcd of its prices",
                    "10000 (the only valid value)"),
    CLI_STR_OPT("hgrm", CLI_PATH, &io.hgrm, "FILE",
                "write the latency histogram's percentile table"),
    CLI_STR_OPT("json", CLI_PATH, &io.json, "FILE", "write the results as JSON"),
    CLI_END,
};

const cli_spec book_itch_spec = {
    .name = "book",
    .synopsis = "latlab book itch FILE [--pace original|xN|max] [--max-gap DUR] [--loop N]\n"
                "                          [--tick T]"
                "                          [--price-scale 10000] [--hgrm FILE] [--json FILE]",
    .about =
        "Reads an ITCH 5.0 capture (2-byte length prefixes; zero prefixes mean framing by\n"
        "the type byte), builds one book per stock (band and capacity from a first pass), and\n"
        "prints message counts, references to unknown orders, messages/s, the per-message\n"
        "processing-time histogram (ns) and each stock's final top of book.  The books' memory\n"
        "is capped at 1 GiB (an error names the file and the figure).\n",
    .opts = itch_opts_table,
    .max_args = -1,
};

/* -1 to go on, else the exit status. */
static int itch_args(int argc, char **argv, itch_opts *o) {
    io = *o;
    int rc = cli_parse_one(&book_itch_spec, argc, argv, "itch needs one FILE", &io.path);
    if (rc) return rc < 0 ? CLI_OK : rc;
    *o = io;
    if (o->pf.scale && o->pf.scale != 10000)
        return cli_usage_error(CMD,
                               "--price-scale: ITCH prices have 4 implied decimals; only 10000 "
                               "is valid");
    if (o->gap_set && !o->max_gap_ns) return cli_usage_error(CMD, "--max-gap: must be above 0");
    if (o->gap_set && o->speed == 0)
        return cli_usage_error(CMD, "--max-gap: only when paced (--pace original or xN): "
                                    "--pace max has no gaps");
    if (o->pf.tick) {
        o->pf.scale = 10000;
        if ((o->tick = book_cli_tick(CMD, &o->pf)) < 0) return CLI_USAGE;
    }
    return -1;
}

/* The thread's CPU time in seconds: the scheduler's own ns count (getrusage's
 * figure moves in ticks, so a pass shorter than a tick read as 0). */
static double thread_cpu_s(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)) return 0;
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One pass over the capture, recording each message's latency in h; the
 * paced gaps cut to max_gap_ns are added to *cut. */
static void itch_pass(itch_replay *r, const uint8_t *buf, size_t len, const itch_opts *o,
                      lat_hist *h, const lat_clock_cal *cal, uint64_t *cut) {
    const double speed = o->speed;
    itch_reader rd;
    itch_msg m;
    itch_reader_init(&rd, buf, len);
    if (speed == 0) {
        /* closed loop: one counter read per message; each sample is the time
         * from the end of the previous message to the end of this one
         * (framing, decoding, the book operation and the recording). */
        uint64_t prev = lat_cycles();
        while (itch_next(&rd, &m) == 1) {
            itch_replay_apply(r, &m);
            uint64_t now = lat_cycles();
            lat_hist_record(h, (int64_t)lat_clock_to_ns(cal, now - prev));
            prev = now;
        }
        return;
    }
    /* open loop: message i is due at start + (ts_i - ts_0) / speed, each gap
     * cut to max_gap_ns when set (a timestamp going backwards is due at
     * once); its latency runs from that intended time, so a stall shows in
     * every message queued behind it (no coordinated omission). */
    uint64_t start = lat_cycles_fenced(), prev_ts = 0, rel = 0;
    int first = 1;
    while (itch_next(&rd, &m) == 1) {
        if (first) prev_ts = m.ts_ns, first = 0;
        uint64_t gap = m.ts_ns > prev_ts ? (uint64_t)((double)(m.ts_ns - prev_ts) / speed) : 0;
        if (m.ts_ns > prev_ts) prev_ts = m.ts_ns;
        if (o->max_gap_ns && gap > o->max_gap_ns) {
            gap = o->max_gap_ns;
            ++*cut;
        }
        rel += gap;
        uint64_t due = start + lat_clock_from_ns(cal, rel);
        while (lat_cycles() < due)
            lat_cpu_relax();
        itch_replay_apply(r, &m);
        uint64_t now = lat_cycles();
        lat_hist_record(h, (int64_t)lat_clock_to_ns(cal, now - due));
    }
}

static void itch_run_all(itch_replay *r, const uint8_t *buf, size_t len, const itch_opts *o,
                         lat_hist *h, itch_run *run) {
    const lat_clock_cal *cal = lat_clock_default(); /* calibrates once: outside the timing */
    for (uint64_t loop = 0; loop < o->loops; loop++) {
        itch_replay_reset(r);
        double c0 = thread_cpu_s();
        uint64_t w0 = lat_mono_ns();
        itch_pass(r, buf, len, o, h, cal, &run->gaps_cut);
        run->total_ns += lat_mono_ns() - w0;
        run->cpu_s += thread_cpu_s() - c0;
        run->total_msgs += itch_replay_counts(r)->messages;
    }
}

static int itch_json(const itch_opts *o, size_t len, const itch_counts *cn, const itch_run *run,
                     const lat_hist *h, json_t *stocks) {
    itch_pass_totals t = {o->loops, run->total_msgs, run->total_ns, run->cpu_s, run->gaps_cut};
    return cli_write_json(CMD, o->json,
                          itch_run_json(o->path, len, o->speed, o->max_gap_ns, cn, &t,
                                        book_cli_latency_json(h), stocks));
}

/* A rate with the unit its size needs: "12.3 M", "45.6 k", "789". */
static void fmt_rate(char *buf, size_t n, double per_s) {
    if (per_s >= 1e6)
        snprintf(buf, n, "%.2f M", per_s / 1e6);
    else if (per_s >= 1e3)
        snprintf(buf, n, "%.1f k", per_s / 1e3);
    else
        snprintf(buf, n, "%.1f", per_s);
}

static void print_summary(const itch_opts *o, size_t len, const itch_counts *cn,
                          const itch_run *run, size_t bytes) {
    printf("file            %s (%zu bytes)\n", o->path, len);
    printf("messages        %" PRIu64 " per pass, %" PRIu64 " pass%s\n", cn->messages, o->loops,
           o->loops == 1 ? "" : "es");
    itch_counts_print(stdout, cn);
    printf("books memory    %.1f MiB\n", (double)bytes / (1 << 20));
    printf("pace            %s\n", o->speed == 0 ? "max (closed loop: per-message service time)"
                                                 : "paced (open loop: latency from intended time)");
    if (o->max_gap_ns)
        printf("max gap         %" PRIu64 " ns: %" PRIu64 " gaps cut (all passes)\n", o->max_gap_ns,
               run->gaps_cut);
    double wall_s = (double)run->total_ns / 1e9, share = wall_s > 0 ? run->cpu_s / wall_s : 0;
    char rate[32], cpu_rate[32];
    fmt_rate(rate, sizeof rate, wall_s > 0 ? (double)run->total_msgs / wall_s : 0);
    printf("throughput      %s messages/s (%" PRIu64 " messages in %.6f s wall)\n", rate,
           run->total_msgs, wall_s);
    if (run->cpu_s <= 0) {
        printf("on-CPU          not measured (no thread CPU time read)\n");
    } else if (o->speed != 0) {
        printf("on-CPU          %.6f s of CPU (%.0f%% of the wall time; paced, it spins to each "
               "due time)\n",
               run->cpu_s, 100.0 * (share > 1 ? 1 : share));
    } else {
        fmt_rate(cpu_rate, sizeof cpu_rate, (double)run->total_msgs / run->cpu_s);
        printf("on-CPU          %s messages per CPU-second (%.6f s of CPU, %.0f%% of the wall "
               "time)\n",
               cpu_rate, run->cpu_s, 100.0 * (share > 1 ? 1 : share));
    }
}

static int itch_build(const itch_opts *o, const uint8_t *buf, size_t len, itch_replay **r,
                      size_t *bytes) {
    size_t err_off = 0;
    itch_replay_opts opt = {.tick = o->tick};
    int err = itch_replay_create_opts(buf, len, &opt, r, &err_off, bytes);
    if (err == LAT_ETRUNCATED || err == LAT_EFORMAT)
        return cli_error(CMD, "%s: offset %zu: %s", o->path, err_off,
                         err == LAT_ETRUNCATED ? "truncated message (the input ends inside it)"
                                               : "not an ITCH 5.0 message (unknown type or a "
                                                 "length prefix that disagrees with the type)");
    if (err == -ENOMEM && *bytes > ITCH_DEFAULT_MAX_BYTES)
        return cli_error(CMD,
                         "%s: its books need more than %zu MiB (at least %zu MiB reached), "
                         "the cap for `book itch`",
                         o->path, ITCH_DEFAULT_MAX_BYTES >> 20, *bytes >> 20);
    if (err) return cli_lib_error(CMD, "building the books", err);
    return CLI_OK;
}

int book_itch_main(int argc, char **argv) {
    itch_opts o = {.loops = 1};
    int rc = itch_args(argc, argv, &o);
    if (rc >= 0) return rc;
    uint8_t *buf = NULL;
    size_t len = 0, bytes = 0;
    int err = itch_read_file(o.path, &buf, &len);
    if (err) return cli_error(CMD, "%s: %s", o.path, lat_strerror(err));
    if (!len) {
        free(buf);
        return cli_error(CMD, "%s: no ITCH messages (an empty file)", o.path);
    }
    itch_replay *r = NULL;
    lat_hist h = {0};
    if ((rc = itch_build(&o, buf, len, &r, &bytes)) != CLI_OK) goto done;
    if ((err = lat_hist_init(&h, 1, 1000000000, 3))) {
        rc = cli_lib_error(CMD, "histogram", err);
        goto done;
    }
    itch_run run = {0};
    itch_run_all(r, buf, len, &o, &h, &run);
    const itch_counts *cn = itch_replay_counts(r);
    print_summary(&o, len, cn, &run, bytes);
    book_cli_print_latency(&h);
    json_t *stocks = itch_books_print(stdout, r);
    if (o.hgrm && book_cli_write_hgrm(CMD, o.hgrm, &h)) rc = CLI_ERR;
    if (o.json && itch_json(&o, len, cn, &run, &h, stocks)) rc = CLI_ERR;
    if (!o.json) json_decref(stocks);
    if (book_cli_check_stdout(CMD)) rc = CLI_ERR;
done:
    lat_hist_fini(&h);
    itch_replay_destroy(r);
    free(buf);
    return rc;
}
