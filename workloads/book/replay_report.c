/* replay_report.c - what the book's replays print: event lines, the reject
 * tally, the latency line and the LOBSTER summary (see replay_report.h). */
#include "replay_report.h"

#include <inttypes.h>
#include <jansson.h>

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
