/* itchfeed_report.c - a replay feed's presentation and the steady-vs-replay
 * round (see itchfeed_report.h). */
#include "itchfeed_report.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <jansson.h>

#include "latlab/error.h"
#include "latlab/json.h"
#include "latlab/pipeline_report.h"

int itchfeed_load(const char *path, const itchfeed_options *o, lat_pipe_config *c, itchfeed **out,
                  char *err, size_t len) {
    size_t off = 0;
    int rc = itchfeed_create_file(path, o, out, &off);
    if (rc == LAT_ETRUNCATED)
        snprintf(err, len, "%s: offset %zu: truncated message (the input ends inside it)", path,
                 off);
    else if (rc == LAT_EFORMAT)
        snprintf(err, len,
                 "%s: offset %zu: not an ITCH 5.0 message (unknown type or a length "
                 "prefix that disagrees with the type)",
                 path, off);
    else if (rc == -ENODATA)
        snprintf(err, len, "%s: no ITCH messages in the file", path);
    else if (rc)
        snprintf(err, len, "%s: %s", path, lat_strerror(rc));
    if (rc) return rc;
    itchfeed_pipe_config(*out, c);
    return 0;
}

static void speed_label(char *buf, size_t n, double speed) {
    if (speed == 0)
        snprintf(buf, n, "max");
    else if (speed == 1)
        snprintf(buf, n, "original");
    else
        snprintf(buf, n, "x%g", speed);
}

static double window_rate(uint64_t events, double window_s) {
    return (double)events / window_s;
}

void itchfeed_report_header(FILE *f, const char *path, const itchfeed *feed, double speed) {
    char sp[32];
    speed_label(sp, sizeof sp, speed);
    uint64_t n = itchfeed_messages(feed);
    fprintf(f,
            "replay %s: %" PRIu64 " messages x %" PRIu64 " pass%s at speed %s; work = applying "
            "each message to its stock's order book (no LCG rounds)\n",
            path, n, itchfeed_events(feed) / n, itchfeed_events(feed) / n == 1 ? "" : "es", sp);
}

void itchfeed_report_print(FILE *f, const itchfeed *feed, double speed, const lat_pipe_result *r) {
    char sp[32];
    speed_label(sp, sizeof sp, speed);
    fprintf(f, "work by message kind (ns):\n");
    for (int k = 0; k < LAT_PIPE_MAXKINDS; k++) {
        const lat_hist *h = r->h_kind[k];
        if (!h || lat_hist_total(h) == 0) continue;
        static const double ps[] = {50, 99, 99.9};
        int64_t v[3];
        lat_hist_values_at_percentiles(h, ps, v, 3);
        fprintf(f,
                "  %-10s n=%-9" PRId64 " p50=%7" PRId64 " p99=%7" PRId64 " p99.9=%8" PRId64
                " max=%9" PRId64 "\n",
                itchfeed_kind_name(k), lat_hist_total(h), v[0], v[1], v[2], lat_hist_max(h));
    }
    itchfeed_arrival a;
    itchfeed_arrival_get(feed, &a);
    fprintf(f, "arrivals (speed %s): %" PRIu64 " events due over %.6f s", sp, a.events,
            (double)a.span_ns / 1e9);
    if (a.span_ns)
        fprintf(f, ", offered %.0f/s\n", a.mean_rate_hz);
    else
        fprintf(f, ", all due at once (back to back)\n");
    fprintf(f, "  busiest 1 ms:   %" PRIu64 " events (%.0f/s) from +%.6f s\n", a.busiest_1ms,
            window_rate(a.busiest_1ms, 1e-3), (double)a.busiest_1ms_at / 1e9);
    fprintf(f, "  busiest 100 us: %" PRIu64 " events (%.0f/s) from +%.6f s\n", a.busiest_100us,
            window_rate(a.busiest_100us, 1e-4), (double)a.busiest_100us_at / 1e9);
    fprintf(f, "  longest burst:  %" PRIu64 " events with gaps < 1 us, over %.3f us from +%.6f s\n",
            a.burst_events, (double)a.burst_ns / 1e3, (double)a.burst_at / 1e9);
    fprintf(f,
            "  q1 depth peak:  %" PRIu64 " events pushed, not yet taken (at event %" PRIu64 ")%s\n",
            a.q1_peak_depth, a.q1_peak_seq, a.depth_partial ? " (first events only)" : "");
    fprintf(f, "  backlog peak:   %" PRIu64 " events due, not yet taken (at event %" PRIu64 ")\n",
            a.backlog_peak, a.backlog_peak_seq);
    fprintf(f, "  late sends:     %" PRIu64 " of %" PRIu64 " sent > 1 us after due%s\n", a.late,
            a.applied, speed == 0 ? " (max speed: everything is due at once)" : "");
    fprintf(f,
            "  backwards:      %" PRIu64 " timestamps lower than an earlier one (sent at once)\n",
            a.backwards);
    if (a.gaps_cut) fprintf(f, "  gaps cut:       %" PRIu64 " (--max-gap)\n", a.gaps_cut);
    fprintf(f,
            "  processed:      %" PRIu64 " applied, %" PRIu64 " twice, %" PRIu64
            " reframing errors (expect %" PRIu64 ", 0, 0)\n",
            a.applied, a.applied_twice, a.reframe_errors, a.events);
    const itch_replay *bk = itchfeed_books(feed);
    const itch_counts *cn = itch_replay_counts(bk);
    fprintf(f,
            "itch (last pass): %" PRIu64 " messages, %" PRIu64 " unknown refs, %" PRIu64
            " duplicate adds, %" PRIu64 " rejected adds, %" PRIu64 " over-executions\n",
            cn->messages, cn->unknown_ref, cn->dup_add, cn->rejected_add, cn->over_exec);
    fprintf(f, "\nfinal books:\n%-6s %-8s %7s %12s %10s %12s %10s\n", "locate", "symbol", "orders",
            "bid", "bid_qty", "ask", "ask_qty");
    unsigned crossed = 0;
    for (int i = itch_replay_stock_next(bk, -1); i >= 0; i = itch_replay_stock_next(bk, i)) {
        const itch_stock *s = itch_replay_stock(bk, (uint16_t)i);
        char cell[4][32] = {"-", "-", "-", "-"};
        for (int side = 0; side < 2; side++) {
            int64_t px;
            uint64_t q;
            if (!s->bk || book_best(s->bk, (book_side)side, &px, &q) != 0) continue;
            snprintf(cell[2 * side], 32, "%" PRId64 ".%04" PRId64, px / 10000, px % 10000);
            snprintf(cell[2 * side + 1], 32, "%" PRIu64, q);
        }
        int x = book_crossed(s->bk);
        crossed += x != 0;
        fprintf(f, "%-6d %-8s %7u %12s %10s %12s %10s%s\n", i, s->symbol[0] ? s->symbol : "?",
                s->bk ? book_order_count(s->bk) : 0, cell[0], cell[1], cell[2], cell[3],
                book_cross_mark(x));
    }
    book_say_crossed(f, crossed);
}

json_t *itchfeed_report_json(const itchfeed *feed, double speed, const lat_pipe_result *r) {
    char sp[32];
    speed_label(sp, sizeof sp, speed);
    itchfeed_arrival a;
    itchfeed_arrival_get(feed, &a);
    json_t *kinds = json_object();
    for (int k = 0; k < LAT_PIPE_MAXKINDS; k++) {
        const lat_hist *h = r->h_kind[k];
        if (!h || lat_hist_total(h) == 0) continue;
        json_object_set_new(kinds, itchfeed_kind_name(k),
                            json_pack("{s:I,s:I,s:I,s:I,s:I}", "count",
                                      (json_int_t)lat_hist_total(h), "p50",
                                      (json_int_t)lat_hist_value_at_percentile(h, 50), "p99",
                                      (json_int_t)lat_hist_value_at_percentile(h, 99), "p99.9",
                                      (json_int_t)lat_hist_value_at_percentile(h, 99.9), "max",
                                      (json_int_t)lat_hist_max(h)));
    }
    const itch_counts *cn = itch_replay_counts(itchfeed_books(feed));
    return json_pack(
        "{s:s,s:I,s:o,s:{s:I,s:I,s:f,s:I,s:f,s:I,s:f,s:I,s:I,s:I,s:I,s:I,s:b,s:I,s:I,s:I,s:I},"
        "s:{s:I,s:I,s:I,s:I}}",
        "speed", sp, "messages_per_pass", (json_int_t)itchfeed_messages(feed), "work_by_kind_ns",
        kinds, "arrivals", "events", (json_int_t)a.events, "span_ns", (json_int_t)a.span_ns,
        "offered_rate_hz", a.mean_rate_hz, "busiest_1ms_events", (json_int_t)a.busiest_1ms,
        "busiest_1ms_rate_hz", window_rate(a.busiest_1ms, 1e-3), "busiest_100us_events",
        (json_int_t)a.busiest_100us, "busiest_100us_rate_hz", window_rate(a.busiest_100us, 1e-4),
        "longest_burst_events", (json_int_t)a.burst_events, "longest_burst_ns",
        (json_int_t)a.burst_ns, "gaps_cut", (json_int_t)a.gaps_cut, "q1_peak_depth",
        (json_int_t)a.q1_peak_depth, "backlog_peak", (json_int_t)a.backlog_peak, "q1_depth_partial",
        a.depth_partial, "late_over_1us", (json_int_t)a.late, "timestamps_backwards",
        (json_int_t)a.backwards, "applied", (json_int_t)a.applied, "applied_twice",
        (json_int_t)a.applied_twice, "itch", "messages", (json_int_t)cn->messages, "unknown_refs",
        (json_int_t)cn->unknown_ref, "duplicate_adds", (json_int_t)cn->dup_add, "over_executions",
        (json_int_t)cn->over_exec);
}

int itchfeed_steady_vs_replay(FILE *out, const char *path, const itchfeed_options *o,
                              const lat_pipe_config *base, bool over, json_t **json, char *err_msg,
                              size_t len) {
    lat_pipe_config rc = *base, sc;
    itchfeed *feed = NULL;
    int err = itchfeed_load(path, o, &rc, &feed, err_msg, len);
    if (err) return err;
    sc = *base; /* steady: the same events at the capture's mean rate */
    sc.source = NULL;
    sc.events = rc.events;
    sc.rate_hz = rc.rate_hz;
    sc.split_q1 = true;
    lat_pipe_result sr, rr;
    if ((err = lat_pipe_run(&sc, &sr)) != 0) {
        itchfeed_destroy(feed);
        snprintf(err_msg, len, "steady run: %s", lat_strerror(err));
        return err;
    }
    if ((err = lat_pipe_run(&rc, &rr)) != 0) {
        lat_pipe_result_fini(&sr);
        itchfeed_destroy(feed);
        snprintf(err_msg, len, "replay run: %s", lat_strerror(err));
        return err;
    }
    char title[512];
    snprintf(title, sizeof title,
             "steady: %" PRIu64 " events at %" PRIu64 "/s (the capture's mean)", sc.events,
             sc.rate_hz);
    lat_pipe_print_table(out, &sc, &sr, over, title);
    snprintf(title, sizeof title, "replay: %s on its own timestamps", path);
    lat_pipe_print_table(out, &rc, &rr, over, title);
    itchfeed_report_print(out, feed, o->speed, &rr);
    if (json) {
        json_t *rj = lat_pipe_run_json(&rc, &rr, over, NULL);
        if (rj) json_object_set_new(rj, "replay", itchfeed_report_json(feed, o->speed, &rr));
        *json = json_pack("{s:o*,s:o*}", "steady", lat_pipe_run_json(&sc, &sr, over, NULL),
                          "replay", rj);
    }
    lat_pipe_result_fini(&sr);
    lat_pipe_result_fini(&rr);
    itchfeed_destroy(feed);
    return 0;
}

const char *book_cross_mark(int crossed) {
    return crossed == 2 ? "  CROSSED (bid above ask)" : crossed == 1 ? "  LOCKED (bid = ask)" : "";
}

void book_say_crossed(FILE *f, unsigned n) {
    if (!n) return;
    fprintf(f,
            "%u book%s crossed or locked: resting orders that would have traded; the feed "
            "is inconsistent (messages missing, or the replay starts mid-day)\n",
            n, n == 1 ? " is" : "s are");
}
