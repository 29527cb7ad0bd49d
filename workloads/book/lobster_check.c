/* lobster_check.c - a LOBSTER replay checked against its orderbook file
 * (see lobster_check.h). */
#include "lobster_check.h"

#include <inttypes.h>
#include <stdarg.h>
#include <sys/resource.h>

#include "replay_report.h"
#include "latlab/clock.h"
#include "latlab/error.h"

#include "error_internal.h"

/* The message into c->err; -1. */
#define fail(c, ...) lat__errf((c)->err, sizeof(c)->err, -1, __VA_ARGS__)

static void say(lobster_check *run, const char *path, uint64_t line, const char *why) {
    if (run->shown++ >= run->show) return;
    if (run->flush) fflush(run->flush);
    fprintf(run->diag, "%s: %s:%" PRIu64 ": %s\n", run->who, path, line, why);
}

static void report_mismatch(lobster_check *run, uint64_t line, int kind,
                            const lobster_mismatch *m) {
    if (!run->first_kind || (kind == 1 && run->first_kind == 2)) {
        run->first = *m;
        run->first_kind = kind;
        run->first_mismatch_line = line;
    }
    /* depth-window reports have their own budget, so they never hide a book error */
    if ((m->outside_depth ? run->shown_depth++ : run->shown++) >= run->show) return;
    char b[64], f[64];
    book_level_format(b, sizeof b, m->book_price, m->book_qty);
    book_level_format(f, sizeof f, m->file_price, m->file_qty);
    if (run->flush) fflush(run->flush);
    fprintf(run->diag, "%s: %s:%" PRIu64 ": level %u %s: book %s, file %s%s\n", run->who,
            run->ob_path, line, m->level, m->side == BOOK_BUY ? "bid" : "ask", b, f,
            m->outside_depth ? " (outside the file's depth)" : "");
}

/* Next orderbook row into run->row: 1, 0 at the end, -1 after an error. */
int lobster_check_next_row(lobster_check *run) {
    char *line, why[256];
    size_t len;
    int r = book_lines_next(&run->lo, &line, &len);
    if (r == 0) return 0;
    if (r < 0) {
        fail(run, "%s:%" PRIu64 ": %s", run->ob_path, run->lo.lineno,
             r == LAT_EFORMAT ? "line too long" : lat_strerror(r));
        return -1;
    }
    if (lobster_parse_row(line, len, run->tick, run->nlevels, &run->row, why, sizeof why)) {
        fail(run, "%s:%" PRIu64 ": %s", run->ob_path, run->lo.lineno, why);
        return -1;
    }
    return 1;
}

/* One message line: parse, apply (timed), compare with its row.  0, or -1 to stop. */
static int lob_line(lobster_check *run, char *line, size_t len, int first,
                    const lat_clock_cal *cal) {
    char why[256];
    lobster_msg m;
    uint64_t ln = run->lm.lineno;
    int have_row = 0;
    if (run->ob && !first) {
        int r = lobster_check_next_row(run);
        if (r <= 0) {
            if (r == 0)
                fail(run, "%s ends at row %" PRIu64 " before %s does", run->ob_path, run->lo.lineno,
                     run->msg_path);
            return -1;
        }
        have_row = 1;
    }
    if (lobster_parse_msg(line, len, run->tick, &m, why, sizeof why)) {
        run->bad++;
        say(run, run->msg_path, ln, why);
        return 0;
    }
    if (first && run->ob) { /* its effect is in the first row, the book's start */
        lobster_replay_note(run->r, &m);
        int err = lobster_replay_start(run->r, &run->row);
        if (err) return fail(run, "seeding the book from the first row: %s", lat_strerror(err)), -1;
        return 0;
    }
    const char *reason;
    uint64_t t0 = lat_cycles();
    int rc = lobster_replay_apply(run->r, &m, &reason);
    lat_hist_record(&run->h, (int64_t)lat_clock_to_ns(cal, lat_cycles() - t0));
    if (rc < 0 || *reason) say(run, run->msg_path, ln, reason);
    if (have_row) {
        lobster_mismatch mm;
        int k = lobster_replay_compare(run->r, &run->row, &mm);
        if (k) report_mismatch(run, run->lo.lineno, k, &mm);
    }
    return 0;
}

int lobster_check_run(lobster_check *run) {
    const lat_clock_cal *cal = lat_clock_default();
    char *line;
    size_t len;
    int r, first = 1;
    struct rusage ru0, ru1;
    getrusage(RUSAGE_THREAD, &ru0);
    uint64_t t0 = lat_mono_ns();
    while ((r = book_lines_next(&run->lm, &line, &len)) == 1) {
        if (lob_line(run, line, len, first, cal)) return -1;
        first = 0;
    }
    run->wall_s = (double)(lat_mono_ns() - t0) / 1e9;
    getrusage(RUSAGE_THREAD, &ru1);
    run->cpu_s = (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) +
                 (double)(ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
                 (double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6 +
                 (double)(ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;
    if (r < 0)
        return fail(run, "%s:%" PRIu64 ": %s", run->msg_path, run->lm.lineno,
                    r == LAT_EFORMAT ? "line longer than 4096 bytes" : lat_strerror(r));
    if (run->ob && lobster_check_next_row(run) == 1)
        return fail(run, "%s has more rows than %s has messages", run->ob_path, run->msg_path);
    if (first) return fail(run, "%s: no messages", run->msg_path);
    return 0;
}
