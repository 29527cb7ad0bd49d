/* cmd_top.c - `latlab top`: a live terminal view of per-stage tails.
 *
 * Sources: HdrHistogram interval logs followed as they grow (like tail -f; any
 * writer of format 1.2/1.3: latlab's tracer and pipeline, Java's
 * HistogramLogWriter, HdrHistogram_c), or a running traced process's unix
 * socket (lat_trace_config.socket_path), which streams the same format with
 * one tag per stage.  Only complete lines are consumed: a line still being
 * written waits for its newline.  Each batch of new lines is parsed by the
 * library's reader (latlab/hlog.h) together with the source's header lines,
 * so StartTime/BaseTime and tags follow the reference's rules.
 *
 * Rows: one per (source, tag); an untagged interval is named after its file.
 * Columns: the last interval's count, p50, p99, p99.9, max; the cumulative
 * p99.9 since top started reading; a sparkline of p99.9 over the last minute.
 * On a terminal: full-screen, refresh once a second, a spinner until the first
 * interval, `q` quits (raw mode restored on exit and on signals).  Otherwise:
 * one plain line per stage per interval as intervals arrive. */
#include "cli.h"

#include "latlab/error.h"
#include "latlab/hist.h"
#include "latlab/hlog.h"
#include "latlab/hlog_follow.h"
#include "latlab/tailrow.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static const char *top_sock;
static double top_scale;
static bool top_plain, top_no_follow;

static const cli_opt top_opts[] = {
    CLI_STR_OPT("connect", CLI_STRING, &top_sock, "PATH",
                "read a tracer's unix socket instead of files"),
    CLI_NUM_OPT("scale", CLI_DOUBLE, &top_scale, "R", "divide values by R (default 1000: ns -> us)",
                1e-300, 1e300),
    CLI_FLAG_OPT("plain", &top_plain, "plain lines even on a terminal"),
    CLI_FLAG_OPT("no-follow", &top_no_follow,
                 "read the files to their end once, print plain lines, exit"),
    CLI_END,
};

const cli_spec cmd_top_spec = {
    .name = "top",
    .synopsis = "latlab top [OPTIONS] FILE.hlog...\n"
                "       latlab top [OPTIONS] --connect SOCKET",
    .about = "Live per-stage tails.  Follows HdrHistogram interval logs as they grow (like\n"
             "tail -F; any writer: latlab's tracer and pipeline, Java's HistogramLogWriter,\n"
             "HdrHistogram_c), or a running traced process through the unix socket its tracer\n"
             "publishes (lat_trace_config.socket_path).  Only complete lines are read.  Files\n"
             "are followed by name: a file replaced (renamed over), truncated or rewritten in\n"
             "place is read again from its start, a missing one is waited for, and a run that\n"
             "writes FILE.hlog.tmp.* to rename it over FILE.hlog at its end (latlab pipeline)\n"
             "is followed as it grows; each switch is said on stderr.\n"
             "\n"
             "One row per stage (a file's untagged intervals are named after the file, tagged\n"
             "ones by their tag): the last interval's count, p50, p99, p99.9 and max, the\n"
             "cumulative p99.9 (since top started reading) and a sparkline of p99.9 over the\n"
             "last minute.  On a terminal the screen refreshes once a second and q quits;\n"
             "otherwise (or with --plain) one line per stage per interval is printed.\n",
    .opts = top_opts,
    .epilog = "Limits: 256 stages (rows), lines of up to 16 MiB, 1 MiB of header lines, the\n"
              "stages' cumulative histograms 256 MiB in all, and decoding work in proportion\n"
              "to the log's bytes (32 Mi count slots + 4096 a byte: a small log whose lines\n"
              "declare 5 digits up to 2^62 is refused); past one, file: byte N: the reason.\n"
              "\n"
              "Exit status: 0 ok (q, --no-follow done, the socket closed), 1 unreadable or\n"
              "corrupt input (file:line: reason) or a write error, 2 usage error.\n",
    .max_args = -1,
};

#define CMD "top"
#define MAX_ROWS 256
#define MAX_CUM_BYTES ((size_t)256 << 20) /* the rows' cumulative histograms, in all */

typedef struct top top;

typedef struct source {
    lat_hlog_follow *f;
    const char *name; /* path, as given */
    char label[64];   /* row name for untagged intervals: file name without .hlog */
    top *T;
    int si;
} source;

typedef lat_tailrow row;

struct top {
    source *src;
    int nsrc;
    row rows[MAX_ROWS];
    int nrows;
    int src_of[MAX_ROWS];
    double scale;
    bool tty, plain;
    uint64_t intervals;
};

/* ---- terminal ------------------------------------------------------------------------- */

static struct termios saved_tio;
static volatile sig_atomic_t raw_on, screen_on;

static void term_restore(void) {
    if (screen_on) {
        static const char bye[] = "\033[?25h\033[?1049l";
        if (write(STDOUT_FILENO, bye, sizeof bye - 1) < 0) {
        }
        screen_on = 0;
    }
    if (raw_on) {
        tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
        raw_on = 0;
    }
}

static struct termios raw_tio;
static const char enter_seq[] = "\033[?1049h\033[?25l";

static void on_signal(int sig) {
    term_restore(); /* async-signal-safe: write and tcsetattr */
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Ctrl-Z: hand the terminal back while stopped, take it again on resume
 * (execution continues after raise() once SIGCONT arrives). */
static void on_tstp(int sig) {
    int had_raw = raw_on, had_screen = screen_on;
    term_restore();
    signal(sig, SIG_DFL);
    sigset_t set; /* the handler runs with SIGTSTP blocked: let it through now */
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    if (had_raw && tcsetattr(STDIN_FILENO, TCSANOW, &raw_tio) == 0) raw_on = 1;
    if (had_screen && write(STDOUT_FILENO, enter_seq, sizeof enter_seq - 1) > 0) screen_on = 1;
    signal(SIGTSTP, on_tstp);
}

static void term_enter(void) {
    if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved_tio) == 0) {
        struct termios t = saved_tio;
        t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
        t.c_cc[VMIN] = 0;
        t.c_cc[VTIME] = 0;
        raw_tio = t;
        if (tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0) raw_on = 1;
    }
    fputs(enter_seq, stdout);
    fflush(stdout);
    screen_on = 1;
    atexit(term_restore);
    int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], on_signal);
    signal(SIGTSTP, on_tstp);
}

/* ---- sources --------------------------------------------------------------------------- */

/* What the follower says: a switch of the file read, on stderr. */
static void on_event(void *ud, lat_hlog_follow_event ev, const char *name, const char *path) {
    (void)ud;
    switch (ev) {
    case LAT_HLOG_FOLLOW_TRUNCATED:
    case LAT_HLOG_FOLLOW_REWRITTEN:
        fprintf(stderr, "latlab %s: %s %s: reading it from its start\n", CMD, path,
                ev == LAT_HLOG_FOLLOW_TRUNCATED ? "was truncated" : "was rewritten in place");
        break;
    case LAT_HLOG_FOLLOW_WAITING:
        fprintf(stderr, "latlab %s: %s does not exist yet: waiting for it\n", CMD, name);
        break;
    case LAT_HLOG_FOLLOW_RUN:
        fprintf(stderr, "latlab %s: %s: following the run in progress that writes %s\n", CMD, name,
                path);
        break;
    case LAT_HLOG_FOLLOW_RUN_ENDED:
        fprintf(stderr,
                "latlab %s: %s: the run in progress ended without replacing it: reading "
                "it from its start\n",
                CMD, name);
        break;
    case LAT_HLOG_FOLLOW_REPLACED:
    case LAT_HLOG_FOLLOW_APPEARED:
        fprintf(stderr, "latlab %s: %s %s: reading it from its start\n", CMD, name,
                ev == LAT_HLOG_FOLLOW_REPLACED ? "was replaced" : "appeared");
        break;
    }
}

static int take_interval(top *T, int si, const lat_hlog_interval *iv);

static int on_interval(void *ud, const lat_hlog_interval *iv) {
    source *s = ud;
    return take_interval(s->T, s->si, iv);
}

/* Source si follows path (a file, or with sock a socket) and opens it.
 * 0 or -errno. */
static int open_source(top *T, int si, const char *path, bool sock) {
    source *s = &T->src[si];
    s->name = path;
    s->T = T;
    s->si = si;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(s->label, sizeof s->label, "%s", base);
    size_t ll = strlen(s->label);
    if (ll > 5 && !strcmp(s->label + ll - 5, ".hlog")) s->label[ll - 5] = 0;
    lat_hlog_follow_ops ops = {.interval = on_interval, .event = on_event, .ud = s};
    int rc = lat_hlog_follow_create(path, sock, &ops, &s->f);
    return rc ? rc : lat_hlog_follow_open(s->f);
}

static row *find_row(top *T, int si, const char *tag) {
    const char *nm = *tag ? tag : T->src[si].label;
    for (int i = 0; i < T->nrows; i++)
        if (T->src_of[i] == si && !strcmp(T->rows[i].name, nm)) return &T->rows[i];
    if (T->nrows == MAX_ROWS) return NULL;
    row *r = &T->rows[T->nrows];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", nm);
    T->src_of[T->nrows++] = si;
    return r;
}

static int out_fail(void) {
    return cli_error(CMD, "writing to stdout: %s", strerror(errno ? errno : EIO));
}

/* Bytes of the rows' cumulative histograms. */
static size_t cum_bytes(const top *T) {
    size_t b = 0;
    for (int i = 0; i < T->nrows; i++)
        b += (size_t)T->rows[i].cum.counts_len * sizeof(int64_t);
    return b;
}

static int take_interval(top *T, int si, const lat_hlog_interval *iv) {
    source *s = &T->src[si];
    row *r = find_row(T, si, iv->tag);
    if (!r) return cli_error(CMD, "more than %d stages", MAX_ROWS);
    long long off = lat_hlog_follow_offset(s->f);
    int rc = lat_tailrow_take(r, iv);
    if (rc == -EOVERFLOW)
        return cli_error(CMD,
                         "%s: byte %lld: stage %s: the cumulative count would pass 2^63-1 "
                         "(corrupt counts?)",
                         s->name, off, r->name);
    if (rc) return cli_error(CMD, "out of memory");
    size_t b = cum_bytes(T);
    if (b > MAX_CUM_BYTES)
        return cli_error(CMD,
                         "%s: byte %lld: stage %s: the stages' cumulative histograms would take "
                         "%zu MiB, past the cap of %zu MiB (histograms of many digits over a "
                         "wide range)",
                         s->name, off, r->name, b >> 20, MAX_CUM_BYTES >> 20);
    T->intervals++;
    if (!T->plain) return 0;
    return lat_tailrow_print(r, T->scale, stdout) || fflush(stdout) != 0 ? out_fail() : 0;
}

/* Read what source si has now (at_end: the last read of a file with
 * --no-follow); its intervals go to take_interval.  0 or the exit status. */
static int poll_source(top *T, int si, bool at_end) {
    source *s = &T->src[si];
    int rc = lat_hlog_follow_poll(s->f, at_end);
    if (rc >= 0) return rc;
    if (rc == -ENOMEM) return cli_error(CMD, "out of memory");
    int line = lat_hlog_follow_line(s->f);
    const char *why = lat_hlog_follow_reason(s->f);
    if (line > 0 && !strncmp(why, "byte ", 5)) /* it names the offset itself */
        return cli_error(CMD, "%s:%d: %s", s->name, line, why);
    if (line > 0)
        return cli_error(CMD, "%s:%d: byte %lld: %s", s->name, line, lat_hlog_follow_offset(s->f),
                         *why ? why : lat_strerror(rc));
    return cli_error(CMD, "%s: %s", s->name, lat_strerror(rc));
}

/* ---- the screen ------------------------------------------------------------------------- */

static int draw(top *T, int spin) {
    static const char spinner[] = "|/-\\";
    double k = T->scale;
    fputs("\033[H", stdout);
    printf("latlab top  %d source%s  %" PRIu64 " intervals  values /%g  (q quits)\033[K\n", T->nsrc,
           T->nsrc == 1 ? "" : "s", T->intervals, k);
    if (T->intervals == 0) {
        printf("\033[Kwaiting for the first interval %c\033[J", spinner[spin & 3]);
        return fflush(stdout) == 0 ? 0 : out_fail();
    }
    printf("\033[K\n%-20s %10s %10s %10s %10s %10s | %10s | %s\033[K\n", "stage", "count", "p50",
           "p99", "p99.9", "max", "cum p99.9", "p99.9, last minute");
    /* The sparkline gets what the terminal has left after the figures. */
    struct winsize ws;
    unsigned cols = ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
    unsigned width = cols > 100 ? cols - 100 : 1;
    for (int i = 0; i < T->nrows; i++) {
        const row *r = &T->rows[i];
        char sp[LAT_TAILROW_SPARK_N * 4 + 1];
        lat_tailrow_spark(r, sp, sizeof sp, width);
        printf("%-20s %10" PRId64 " %10.3f %10.3f %10.3f %10.3f | %10.3f | %s\033[K\n", r->name,
               r->count, (double)r->p50 / k, (double)r->p99 / k, (double)r->p999 / k,
               (double)r->max / k, (double)r->cum_p999 / k, sp);
    }
    fputs("\033[J", stdout);
    return fflush(stdout) == 0 ? 0 : out_fail();
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the command ------------------------------------------------------------------------- */

int cmd_top(int argc, char **argv) {
    top_sock = NULL, top_scale = 1000, top_plain = false, top_no_follow = false;
    int first, prc = cli_parse(&cmd_top_spec, argc, argv, &first);
    if (prc) return prc < 0 ? CLI_OK : prc;
    const char *sock = top_sock;
    double scale = top_scale;
    bool plain = top_plain, follow = !top_no_follow;
    int nfiles = argc - first;
    if (sock && !*sock) return cli_usage_error(CMD, "--connect: empty socket path");
    if (sock && nfiles) return cli_usage_error(CMD, "--connect takes no FILE.hlog arguments");
    if (!sock && nfiles == 0) return cli_usage_error(CMD, "needs FILE.hlog... or --connect PATH");
    if (sock && !follow) return cli_usage_error(CMD, "--no-follow is for files, not --connect");
    for (int i = first; i < argc; i++)
        if (!*argv[i]) return cli_usage_error(CMD, "empty file name");

    static top T; /* rows hold sparkline history: keep them off the stack */
    memset(&T, 0, sizeof T);
    T.scale = scale;
    T.nsrc = sock ? 1 : nfiles;
    T.src = calloc((size_t)T.nsrc, sizeof *T.src);
    if (!T.src) return cli_error(CMD, "out of memory");
    int status = CLI_OK;
    for (int i = 0; i < T.nsrc && status == CLI_OK; i++) {
        const char *p = sock ? sock : argv[first + i];
        int rc = open_source(&T, i, p, sock != NULL);
        if (rc == -ENOENT && !sock && follow) continue; /* tail -F: waited for */
        if (rc) status = cli_error(CMD, "%s: %s", p, strerror(-rc));
    }
    T.tty = isatty(STDOUT_FILENO) && !plain && follow; /* --no-follow: plain lines */
    T.plain = !T.tty;
    if (status == CLI_OK && T.tty) term_enter();
    double next_draw = 0;
    int spin = 0;
    while (status == CLI_OK) {
        for (int i = 0; i < T.nsrc && status == CLI_OK; i++)
            status = poll_source(&T, i, !follow);
        if (status) break;
        bool all_eof = true;
        for (int i = 0; i < T.nsrc; i++)
            all_eof &= lat_hlog_follow_eof(T.src[i].f);
        bool last = !follow || all_eof;
        double t = now_s();
        if (T.tty && (t >= next_draw || T.intervals == 0 || last)) {
            status = draw(&T, spin++);
            if (T.intervals) next_draw = t + 1.0;
        }
        if (status || last) break;
        /* Wait 100 ms for a key (the spinner's step; files are polled at the same pace). */
        struct pollfd pf = {raw_on ? STDIN_FILENO : -1, POLLIN, 0};
        if (poll(&pf, 1, 100) > 0 && (pf.revents & POLLIN)) {
            char ch;
            if (read(STDIN_FILENO, &ch, 1) == 1 && (ch == 'q' || ch == 'Q')) break;
        }
    }
    term_restore();
    for (int i = 0; i < T.nsrc; i++)
        lat_hlog_follow_destroy(T.src[i].f);
    for (int i = 0; i < T.nrows; i++)
        lat_tailrow_fini(&T.rows[i]);
    free(T.src);
    return status;
}
