/* replay_report.c - what the book's replays print: event lines, the reject
 * tally, the latency line and the LOBSTER summary (see replay_report.h). */
#include "replay_report.h"

#include <inttypes.h>
#include <jansson.h>

#include "itchfeed_report.h"

static void print_fee(FILE *f, int64_t e4) {
    uint64_t a = e4 < 0 ? (uint64_t)(-(e4 + 1)) + 1 : (uint64_t)e4;
    fprintf(f, " %s%" PRIu64 ".%04" PRIu64, e4 < 0 ? "-" : "", a / 10000, a % 10000);
}

void book_event_print(const book_event *ev, void *ud) {
    book_event_out *o = ud;
    FILE *f = o->f;
    o->n[ev->type & 7]++;
    switch (ev->type) {
    case BOOK_EV_ACCEPTED:
        fprintf(f, "A %" PRIu64 "\n", ev->id);
        break;
    case BOOK_EV_REJECTED:
        fprintf(f, "J %" PRIu64 " %s\n", ev->id, book_reason(ev->reason));
        break;
    case BOOK_EV_TRADE:
        fprintf(f, "T %" PRIu64 " %" PRIu64 " %" PRId64 " %" PRIu64, ev->maker_id, ev->id,
                ev->price, ev->qty);
        if (o->fees) {
            print_fee(f, ev->maker_fee_e4);
            print_fee(f, ev->taker_fee_e4);
        }
        fputc('\n', f);
        break;
    case BOOK_EV_CANCELLED:
        fprintf(f, "K %" PRIu64 "\n", ev->id);
        break;
    case BOOK_EV_DONE:
        fprintf(f, "D %" PRIu64 "\n", ev->id);
        break;
    case BOOK_EV_LEVEL:
        if (o->levels)
            fprintf(f, "V %c %" PRId64 " %" PRIu64 " %u %" PRIu64 "\n",
                    ev->side == BOOK_BUY ? 'B' : 'S', ev->price, ev->qty, ev->count, ev->seq);
        break;
    }
}

void book_tally_add(book_reject_tally *t, int err) {
    int k = -(err - BOOK_EARG); /* BOOK_EARG -> 0, BOOK_EQTY -> 1, ... */
    t->n[k >= 0 && k < 15 ? k : 15]++;
    t->total++;
}

void book_tally_format(const book_reject_tally *t, char *buf, size_t n) {
    size_t o = (size_t)snprintf(buf, n, "%" PRIu64, t->total);
    const char *sep = " (";
    for (int k = 0; k < 16 && o < n; k++) {
        if (!t->n[k]) continue;
        o += (size_t)snprintf(buf + o, n - o, "%s%s %" PRIu64, sep,
                              k < 15 ? book_reason(BOOK_EARG - k) : "other", t->n[k]);
        sep = ", ";
    }
    if (t->total && o < n) snprintf(buf + o, n - o, ")");
}

json_t *book_tally_json(const book_reject_tally *t) {
    json_t *o = json_object();
    for (int k = 0; k < 16; k++)
        if (t->n[k])
            json_object_set_new(o, k < 15 ? book_reason(BOOK_EARG - k) : "other",
                                json_integer((json_int_t)t->n[k]));
    return o;
}

void book_latency_print(FILE *f, const lat_hist *h) {
    fprintf(f,
            "latency ns      p50 %" PRId64 "  p99 %" PRId64 "  p99.9 %" PRId64 "  p99.99 %" PRId64
            "  max %" PRId64 "  (%" PRId64 " samples)\n",
            lat_hist_value_at_percentile(h, 50), lat_hist_value_at_percentile(h, 99),
            lat_hist_value_at_percentile(h, 99.9), lat_hist_value_at_percentile(h, 99.99),
            lat_hist_max(h), lat_hist_total(h));
}

json_t *book_latency_json(const lat_hist *h) {
    return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I}", "samples", (json_int_t)lat_hist_total(h), "p50",
                     (json_int_t)lat_hist_value_at_percentile(h, 50), "p99",
                     (json_int_t)lat_hist_value_at_percentile(h, 99), "p99_9",
                     (json_int_t)lat_hist_value_at_percentile(h, 99.9), "p99_99",
                     (json_int_t)lat_hist_value_at_percentile(h, 99.99), "max",
                     (json_int_t)lat_hist_max(h));
}

void book_level_format(char *out, size_t n, int64_t px, uint64_t q) {
    if (!px)
        snprintf(out, n, "none");
    else
        snprintf(out, n, "%" PRId64 " x %" PRIu64, px, q);
}

void book_lobster_print(FILE *f, const book_lobster_summary *s) {
    const lobster_counts *c = s->c;
    static const char *names[8] = {
        "", "new", "partial cancel", "delete", "visible exec", "hidden exec", "cross", "halt"};
    fprintf(f, "file            %s\n", s->msg_path);
    fprintf(f, "messages        %" PRIu64 " (malformed lines %" PRIu64 ")\nby type        ",
            c->messages, s->bad);
    for (int t = 1; t < 8; t++)
        fprintf(f, " %d %s %" PRIu64 "%s", t, names[t], c->by_type[t], t < 7 ? "," : "\n");
    fprintf(f,
            "pre-window      %" PRIu64 " messages applied to a level that rested before the "
            "window\n",
            c->prewindow);
    fprintf(f, "unappliable     %" PRIu64 " (%" PRIu64 " outside the file's depth)\n",
            c->unappliable, c->unappliable_depth);
    fprintf(f,
            "inconsistent    %" PRIu64 " crossing adds refused, %" PRIu64
            " with another price or direction than their order's, %" PRIu64
            " times going backwards%s\n",
            c->crossing, c->wrong_price, c->time_backwards,
            c->crossing + c->wrong_price + c->time_backwards ? " (LOBSTER never has these)" : "");
    if (s->ob_path)
        fprintf(f,
                "orderbook       %s: %" PRIu64 " rows compared on %" PRIu64 " levels, %" PRIu64
                " mismatching rows, %" PRIu64 " more only outside the file's depth\n",
                s->ob_path, c->rows_compared, s->levels, c->rows_mismatch, c->rows_depth_only);
    if (s->first_kind) {
        char b[64], fl[64];
        book_level_format(b, sizeof b, s->first->book_price, s->first->book_qty);
        book_level_format(fl, sizeof fl, s->first->file_price, s->first->file_qty);
        fprintf(f, "first mismatch  row %" PRIu64 " level %u %s: book %s, file %s%s\n",
                s->first_line, s->first->level, s->first->side == BOOK_BUY ? "bid" : "ask", b, fl,
                s->first->outside_depth ? " (outside the file's depth)" : "");
    }
    fprintf(f,
            "throughput      %.2f M messages/s (%" PRIu64 " messages in %.3f s wall, parsing and "
            "comparing included)\n",
            s->wall_s > 0 ? (double)c->messages / s->wall_s / 1e6 : 0.0, c->messages, s->wall_s);
    fprintf(f, "on-CPU          %.2f M messages per CPU-second (%.3f s on a CPU)\n",
            s->cpu_s > 0 ? (double)c->messages / s->cpu_s / 1e6 : 0.0, s->cpu_s);
    book_latency_print(f, s->h);
}

json_t *book_lobster_json(const book_lobster_summary *s) {
    const lobster_counts *c = s->c;
    json_t *types = json_object();
    for (int t = 1; t < 8; t++) {
        char k[2] = {(char)('0' + t), 0};
        json_object_set_new(types, k, json_integer((json_int_t)c->by_type[t]));
    }
    return json_pack(
        "{s:s,s:s?,s:I,s:I,s:o,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:f,s:f,s:f,s:o,s:{s:I,s:I,s:I}}",
        "file", s->msg_path, "orderbook", s->ob_path, "messages", (json_int_t)c->messages,
        "malformed_lines", (json_int_t)s->bad, "by_type", types, "prewindow",
        (json_int_t)c->prewindow, "unappliable", (json_int_t)c->unappliable,
        "unappliable_outside_depth", (json_int_t)c->unappliable_depth, "levels_compared",
        (json_int_t)s->levels, "rows_compared", (json_int_t)c->rows_compared, "rows_mismatch",
        (json_int_t)c->rows_mismatch, "rows_outside_depth_only", (json_int_t)c->rows_depth_only,
        "wall_s", s->wall_s, "cpu_s", s->cpu_s, "messages_per_s",
        s->wall_s > 0 ? (double)c->messages / s->wall_s : 0.0, "latency_ns",
        book_latency_json(s->h), "inconsistent", "crossing_adds", (json_int_t)c->crossing,
        "wrong_price", (json_int_t)c->wrong_price, "time_backwards", (json_int_t)c->time_backwards);
}

/* ---- the ITCH replay's counts and final books --------------------------------------- */

void itch_counts_print(FILE *f, const itch_counts *cn) {
    fprintf(f, "by type        ");
    for (int t = 0; t < 256; t++)
        if (cn->by_type[t]) fprintf(f, " %c %" PRIu64, t, cn->by_type[t]);
    fprintf(f, "\nunknown refs    %" PRIu64 " (", cn->unknown_ref);
    const char *ut = "ECXDU";
    for (int i = 0; ut[i]; i++)
        fprintf(f, "%s%c %" PRIu64, i ? ", " : "", ut[i], cn->unknown_by_type[(uint8_t)ut[i]]);
    fprintf(f, ")\n");
    fprintf(f,
            "anomalies       %" PRIu64 " duplicate adds, %" PRIu64 " rejected adds, %" PRIu64
            " over-executions\n",
            cn->dup_add, cn->rejected_add, cn->over_exec);
}

static json_t *side_json(const book *bk, book_side side, char *px_out, char *q_out) {
    int64_t px;
    uint64_t q;
    if (!bk || book_best(bk, side, &px, &q)) return NULL;
    snprintf(px_out, 32, "%" PRId64 ".%04" PRId64, px / 10000, px % 10000); /* 4 implied decimals */
    snprintf(q_out, 32, "%" PRIu64, q);
    return json_pack("{s:I,s:I}", "price_e4", (json_int_t)px, "qty", (json_int_t)q);
}

json_t *itch_books_print(FILE *f, const itch_replay *r) {
    fprintf(f, "\n%-6s %-8s %7s %12s %10s %12s %10s\n", "locate", "symbol", "orders", "bid",
            "bid_qty", "ask", "ask_qty");
    json_t *stocks = json_array();
    unsigned crossed = 0;
    for (int i = itch_replay_stock_next(r, -1); i >= 0; i = itch_replay_stock_next(r, i)) {
        const itch_stock *s = itch_replay_stock(r, (uint16_t)i);
        char bp[32] = "-", ap[32] = "-", bq[32] = "-", aq[32] = "-";
        json_t *js = json_pack("{s:i,s:s,s:I}", "locate", i, "symbol", s->symbol, "orders",
                               (json_int_t)(s->bk ? book_order_count(s->bk) : 0));
        json_t *b = side_json(s->bk, BOOK_BUY, bp, bq), *a = side_json(s->bk, BOOK_SELL, ap, aq);
        if (b) json_object_set_new(js, "bid", b);
        if (a) json_object_set_new(js, "ask", a);
        int x = book_crossed(s->bk);
        crossed += x != 0;
        if (x) json_object_set_new(js, x == 2 ? "crossed" : "locked", json_true());
        json_array_append_new(stocks, js);
        fprintf(f, "%-6d %-8s %7u %12s %10s %12s %10s%s\n", i, s->symbol[0] ? s->symbol : "?",
                s->bk ? book_order_count(s->bk) : 0, bp, bq, ap, aq, book_cross_mark(x));
    }
    book_say_crossed(f, crossed);
    return stocks;
}

json_t *itch_run_json(const char *path, size_t len, double speed, uint64_t max_gap_ns,
                      const itch_counts *cn, const itch_pass_totals *t, json_t *latency,
                      json_t *stocks) {
    json_t *types = json_object();
    for (int k = 0; k < 256; k++)
        if (cn->by_type[k]) {
            char key[2] = {(char)k, 0};
            json_object_set_new(types, key, json_integer((json_int_t)cn->by_type[k]));
        }
    double wall_s = (double)t->total_ns / 1e9;
    json_t *j = json_pack(
        "{s:s,s:I,s:I,s:I,s:o,s:I,s:I,s:I,s:I,s:s,s:f,s:f,s:f,s:f,s:f,s:o,s:o}", "file", path,
        "bytes", (json_int_t)len, "messages_per_pass", (json_int_t)cn->messages, "passes",
        (json_int_t)t->passes, "by_type", types, "unknown_refs", (json_int_t)cn->unknown_ref,
        "duplicate_adds", (json_int_t)cn->dup_add, "rejected_adds", (json_int_t)cn->rejected_add,
        "over_executions", (json_int_t)cn->over_exec, "pace", speed == 0 ? "max" : "paced", "speed",
        speed, "messages_per_s", wall_s > 0 ? (double)t->total_msgs / wall_s : 0.0,
        "messages_per_cpu_s", t->cpu_s > 0 ? (double)t->total_msgs / t->cpu_s : 0.0, "cpu_s",
        t->cpu_s, "wall_s", wall_s, "latency_ns", latency, "stocks", stocks);
    if (j && max_gap_ns) {
        json_object_set_new(j, "max_gap_ns", json_integer((json_int_t)max_gap_ns));
        json_object_set_new(j, "gaps_cut", json_integer((json_int_t)t->gaps_cut));
    }
    return j;
}
