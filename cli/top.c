/* top.c - `latlab top`: a live terminal view of per-stage tails.
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

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
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
    .epilog = "Limits: 256 stages (rows), lines of up to 16 MiB.\n"
              "\n"
              "Exit status: 0 ok (q, --no-follow done, the socket closed), 1 unreadable or\n"
              "corrupt input (file:line: reason) or a write error, 2 usage error.\n",
    .max_args = -1,
};

#define CMD "top"
#define SPARK_N 128                /* p99.9 history per row */
#define SPARK_SECONDS 60.0         /* the sparkline's window */
#define LINE_MAX_BYTES (16u << 20) /* longest line accepted (a corrupt file's guard) */
#define MAX_ROWS 256

typedef struct source {
    const char *name; /* path, as given */
    char label[64];   /* row name for untagged intervals: file name without .hlog */
    int fd;           /* -1: none open (waiting for the file) */
    bool sock, eof;
    /* Following by name: the file read now (name, or the temporary of a run in
     * progress that will be renamed over it), its identity, the bytes read
     * from it and its first bytes (an in-place rewrite changes them). */
    char cur[8192];
    dev_t dev;
    ino_t ino;
    off_t off;
    char head[256];
    size_t headlen;
    bool waiting; /* said that the file does not exist yet */
    char *pend;   /* bytes after the last complete line */
    size_t plen, pcap;
    char *hdr; /* header lines seen so far ('#...' and the legend) */
    size_t hlen, hcap;
    int hlines;
    int line; /* complete lines consumed */
} source;

typedef struct row {
    char name[LAT_HLOG_TAG_MAX + 64];
    bool have;
    int64_t count, p50, p99, p999, max, cum_p999;
    double end_s;
    lat_hist cum;
    double spark_t[SPARK_N];
    int64_t spark_v[SPARK_N];
    unsigned spark_n, spark_head;
} row;

typedef struct top {
    source *src;
    int nsrc;
    row rows[MAX_ROWS];
    int nrows;
    int src_of[MAX_ROWS];
    double scale;
    bool tty, plain;
    uint64_t intervals;
} top;

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

/* Forget what was read (the file changed under us, or another one is read now). */
static void reset_read(source *s) {
    s->plen = s->hlen = 0;
    s->hlines = s->line = 0;
    s->off = 0;
    s->headlen = 0;
}

/* Read path from its start from now on.  0 or -errno (the old file stays). */
static int open_file(source *s, const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = -errno;
        if (fd >= 0) close(fd);
        return e;
    }
    if (s->fd >= 0) close(s->fd);
    s->fd = fd;
    s->dev = st.st_dev;
    s->ino = st.st_ino;
    if (path != s->cur) snprintf(s->cur, sizeof s->cur, "%s", path);
    reset_read(s);
    return 0;
}

static int open_source(source *s, const char *path, bool sock) {
    memset(s, 0, sizeof *s);
    s->name = path;
    s->sock = sock;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(s->label, sizeof s->label, "%s", base);
    size_t ll = strlen(s->label);
    if (ll > 5 && !strcmp(s->label + ll - 5, ".hlog")) s->label[ll - 5] = 0;
    s->fd = -1;
    if (!sock) return open_file(s, path);
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof a.sun_path) return -ENAMETOOLONG;
    memcpy(a.sun_path, path, strlen(path) + 1);
    s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s->fd < 0) return -errno;
    if (connect(s->fd, (struct sockaddr *)&a, sizeof a) != 0) return -errno;
    fcntl(s->fd, F_SETFL, fcntl(s->fd, F_GETFL) | O_NONBLOCK);
    return 0;
}

static int append(char **buf, size_t *len, size_t *cap, const char *p, size_t n) {
    if (*len + n + 1 > *cap) {
        size_t nc = *cap ? *cap : 4096;
        while (nc < *len + n + 1)
            nc *= 2;
        char *b = realloc(*buf, nc);
        if (!b) return -ENOMEM;
        *buf = b;
        *cap = nc;
    }
    memcpy(*buf + *len, p, n);
    *len += n;
    (*buf)[*len] = 0;
    return 0;
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

static int take_interval(top *T, int si, const lat_hlog_interval *iv) {
    row *r = find_row(T, si, iv->tag);
    if (!r) return cli_error(CMD, "more than %d stages", MAX_ROWS);
    const lat_hist *h = &iv->hist;
    if (!r->cum.counts) {
        if (lat_hist_init(&r->cum, h->lowest, h->highest, h->sig_figs) != 0)
            return cli_error(CMD, "out of memory");
    }
    lat_hist_add(&r->cum, h);
    static const double ps[] = {50, 99, 99.9};
    int64_t v[3];
    lat_hist_values_at_percentiles(h, ps, v, 3);
    r->have = true;
    r->count = lat_hist_total(h);
    r->p50 = v[0];
    r->p99 = v[1];
    r->p999 = v[2];
    r->max = lat_hist_max(h);
    r->cum_p999 = lat_hist_value_at_percentile(&r->cum, 99.9);
    r->end_s = iv->start_s + iv->length_s;
    r->spark_t[r->spark_head] = r->end_s;
    r->spark_v[r->spark_head] = r->p999;
    r->spark_head = (r->spark_head + 1) % SPARK_N;
    if (r->spark_n < SPARK_N) r->spark_n++;
    T->intervals++;
    if (!T->plain) return 0;
    double k = T->scale;
    if (printf("%.3f %s count=%" PRId64 " p50=%.3f p99=%.3f p99.9=%.3f max=%.3f cum_p99.9=%.3f\n",
               r->end_s, r->name, r->count, (double)r->p50 / k, (double)r->p99 / k,
               (double)r->p999 / k, (double)r->max / k, (double)r->cum_p999 / k) < 0 ||
        fflush(stdout) != 0)
        return out_fail();
    return 0;
}

/* Parse a batch of complete data lines (with the source's header in front). */
static int parse_batch(top *T, int si, const char *batch, size_t blen, const int *lines, int nl) {
    source *s = &T->src[si];
    char *text = NULL;
    size_t len = 0, cap = 0;
    if (append(&text, &len, &cap, s->hdr ? s->hdr : "", s->hlen) ||
        append(&text, &len, &cap, batch, blen)) {
        free(text);
        return cli_error(CMD, "out of memory");
    }
    lat_hlog_reader *rd;
    int rc = lat_hlog_reader_open_mem(text, len, &rd);
    free(text);
    if (rc) return cli_error(CMD, "%s: %s", s->name, lat_strerror(rc));
    lat_hlog_interval *iv;
    int status = 0;
    while (status == 0 && (rc = lat_hlog_next(rd, &iv)) == 1)
        status = take_interval(T, si, iv);
    if (status == 0 && rc < 0) {
        int k = lat_hlog_reader_line(rd) - s->hlines; /* 1-based line of the batch */
        const char *why = lat_hlog_reader_reason(rd);
        status = cli_error(CMD, "%s:%d: %s", s->name, k >= 1 && k <= nl ? lines[k - 1] : s->line,
                           why && *why ? why : lat_strerror(rc));
    }
    lat_hlog_reader_destroy(rd);
    return status;
}

/* The file read now was truncated, or rewritten in place (its first bytes,
 * which hold the StartTime, differ): read it again from its start, and say so. */
static void check_rewritten(source *s) {
    struct stat st;
    if (s->fd < 0 || fstat(s->fd, &st) != 0) return;
    const char *what = NULL;
    if (st.st_size < s->off) {
        what = "was truncated";
    } else if (s->headlen) {
        char b[sizeof s->head];
        ssize_t n = pread(s->fd, b, s->headlen, 0);
        if (n != (ssize_t)s->headlen || memcmp(b, s->head, s->headlen) != 0)
            what = "was rewritten in place";
    }
    if (!what || lseek(s->fd, 0, SEEK_SET) != 0) return;
    fprintf(stderr, "latlab %s: %s %s: reading it from its start\n", CMD, s->cur, what);
    reset_read(s);
}

static bool newer(const struct stat *a, const struct stat *b) {
    if (a->st_mtim.tv_sec != b->st_mtim.tv_sec) return a->st_mtim.tv_sec > b->st_mtim.tv_sec;
    return a->st_mtim.tv_nsec > b->st_mtim.tv_nsec;
}

/* The newest (by mtime; the name wins ties) of the source's name and the
 * temporaries a run writes beside it (NAME.tmp.*, atomicfile.h) into out and
 * *best.  false: none exists. */
static bool newest(const source *s, char *out, size_t cap, struct stat *best) {
    bool have = stat(s->name, best) == 0 && S_ISREG(best->st_mode);
    if (have) snprintf(out, cap, "%s", s->name);
    const char *slash = strrchr(s->name, '/');
    const char *base = slash ? slash + 1 : s->name;
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - s->name) : 1, slash ? s->name : ".");
    DIR *d = opendir(*dir ? dir : "/");
    if (!d) return have;
    size_t bl = strlen(base);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, base, bl) != 0 || strncmp(e->d_name + bl, ".tmp.", 5) != 0) continue;
        char p[sizeof dir + sizeof e->d_name + 1];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) != 0 || !S_ISREG(st.st_mode) || (have && !newer(&st, best))) continue;
        *best = st;
        snprintf(out, cap, "%s", p);
        have = true;
    }
    closedir(d);
    return have;
}

/* tail -F: read the newest file for the name (itself, or the temporary of a
 * run in progress); a different file than the one read now is read from its
 * start, and said on stderr.  A temporary renamed over the name is the same
 * file: reading goes on where it was. */
static void follow_name(source *s) {
    char path[sizeof s->cur];
    struct stat st;
    if (!newest(s, path, sizeof path, &st)) {
        if (s->fd < 0 && !s->waiting)
            fprintf(stderr, "latlab %s: %s does not exist yet: waiting for it\n", CMD, s->name);
        s->waiting = true;
        return;
    }
    if (s->fd >= 0 && st.st_dev == s->dev && st.st_ino == s->ino) {
        if (strcmp(path, s->cur) != 0) snprintf(s->cur, sizeof s->cur, "%s", path);
        return;
    }
    bool had = s->fd >= 0, was_tmp = had && strcmp(s->cur, s->name) != 0;
    if (open_file(s, path) != 0) return; /* gone meanwhile: the next poll looks again */
    s->waiting = false;
    if (strcmp(path, s->name) != 0)
        fprintf(stderr, "latlab %s: %s: following the run in progress that writes %s\n", CMD,
                s->name, path);
    else if (was_tmp)
        fprintf(stderr,
                "latlab %s: %s: the run in progress ended without replacing it: reading "
                "it from its start\n",
                CMD, s->name);
    else
        fprintf(stderr, "latlab %s: %s %s: reading it from its start\n", CMD, s->name,
                had ? "was replaced" : "appeared");
}

/* Read what the source has now and consume its complete lines; at_end (the
 * last read of a file with --no-follow) also takes an unterminated last line.
 * A followed file (not at_end) is checked for being rewritten before the
 * read, and for being replaced after it (follow_name). */
static int poll_source(top *T, int si, bool at_end) {
    source *s = &T->src[si];
    if (s->eof) return 0;
    bool follow = !s->sock && !at_end;
    if (follow) check_rewritten(s);
    if (s->fd < 0) {
        follow_name(s);
        if (s->fd < 0) return 0;
    }
    char buf[65536];
    for (;;) {
        ssize_t n = read(s->fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (n < 0) return cli_error(CMD, "%s: %s", s->name, strerror(errno));
        if (n == 0) {
            if (s->sock) s->eof = true; /* the tracer closed the stream */
            break;                      /* a file: nothing more yet */
        }
        if (s->off < (off_t)sizeof s->head) {
            size_t k = sizeof s->head - (size_t)s->off;
            if (k > (size_t)n) k = (size_t)n;
            memcpy(s->head + s->off, buf, k);
            s->headlen = (size_t)s->off + k;
        }
        s->off += n;
        if (append(&s->pend, &s->plen, &s->pcap, buf, (size_t)n))
            return cli_error(CMD, "out of memory");
        if (s->plen > LINE_MAX_BYTES && !memchr(s->pend, '\n', s->plen))
            return cli_error(CMD, "%s:%d: line longer than %u bytes", s->name, s->line + 1,
                             LINE_MAX_BYTES);
    }
    if ((at_end || s->eof) && s->plen && s->pend[s->plen - 1] != '\n' &&
        append(&s->pend, &s->plen, &s->pcap, "\n", 1))
        return cli_error(CMD, "out of memory");
    char *batch = NULL;
    size_t blen = 0, bcap = 0;
    int *lines = NULL, nl = 0, lcap = 0, status = 0;
    size_t at = 0;
    char *nlp;
    while (status == 0 && s->plen > at && (nlp = memchr(s->pend + at, '\n', s->plen - at))) {
        size_t ln = (size_t)(nlp - (s->pend + at)) + 1;
        const char *p = s->pend + at;
        s->line++;
        bool header = p[0] == '#' || p[0] == '"';
        bool blank = ln == 1 || (ln == 2 && p[0] == '\r');
        if (header && nl == 0 && !(p[0] == '#' && p[1] != '[')) {
            /* Header lines ("#[...]" and the legend) go in front of every
             * batch; free comments are skipped. */
            if (append(&s->hdr, &s->hlen, &s->hcap, p, ln)) status = -1;
            s->hlines++;
        } else if (!header && !blank) {
            if (nl == lcap) {
                lcap = lcap ? lcap * 2 : 64;
                int *nlines = realloc(lines, (size_t)lcap * sizeof *lines);
                if (!nlines) status = -1;
                lines = nlines ? nlines : lines;
            }
            if (status == 0 && append(&batch, &blen, &bcap, p, ln)) status = -1;
            if (status == 0) lines[nl++] = s->line;
        }
        at += ln;
    }
    if (status) {
        free(batch);
        free(lines);
        return cli_error(CMD, "out of memory");
    }
    if (at) memmove(s->pend, s->pend + at, s->plen - at);
    s->plen -= at;
    if (nl) status = parse_batch(T, si, batch, blen, lines, nl);
    free(batch);
    free(lines);
    if (follow && status == 0) follow_name(s);
    return status;
}

/* ---- the screen ------------------------------------------------------------------------- */

/* The sparkline: the last `width` p99.9 values of the last minute, scaled
 * between their min and max. */
static void spark(const row *r, char *out, size_t cap, unsigned width) {
    static const char *const bars[] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                       "\u2585", "\u2586", "\u2587", "\u2588"};
    out[0] = 0;
    if (!r->spark_n) return;
    unsigned first = (r->spark_head + SPARK_N - r->spark_n) % SPARK_N;
    int64_t lo = INT64_MAX, hi = 0;
    unsigned idx[SPARK_N], n = 0;
    for (unsigned i = 0; i < r->spark_n; i++) {
        unsigned j = (first + i) % SPARK_N;
        if (r->spark_t[j] > r->end_s - SPARK_SECONDS) idx[n++] = j;
    }
    for (unsigned i = n > width ? n - width : 0; i < n; i++) {
        int64_t v = r->spark_v[idx[i]];
        if (v < lo) lo = v;
        if (v > hi) hi = v;
    }
    size_t len = 0;
    for (unsigned i = n > width ? n - width : 0; i < n && len + 4 < cap; i++) {
        int64_t v = r->spark_v[idx[i]];
        int level = hi > lo ? (int)((v - lo) * 7 / (hi - lo)) : 0;
        len += (size_t)snprintf(out + len, cap - len, "%s", bars[level]);
    }
}

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
        char sp[SPARK_N * 4 + 1];
        spark(r, sp, sizeof sp, width);
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
    for (int i = 0; i < T.nsrc; i++)
        T.src[i].fd = -1;
    for (int i = 0; i < T.nsrc && status == CLI_OK; i++) {
        const char *p = sock ? sock : argv[first + i];
        int rc = open_source(&T.src[i], p, sock != NULL);
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
            all_eof &= T.src[i].eof;
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
    for (int i = 0; i < T.nsrc; i++) {
        if (T.src[i].fd >= 0) close(T.src[i].fd);
        free(T.src[i].pend);
        free(T.src[i].hdr);
    }
    for (int i = 0; i < T.nrows; i++)
        lat_hist_fini(&T.rows[i].cum);
    free(T.src);
    return status;
}
