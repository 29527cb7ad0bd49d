/* hlog_follow.c - tail -F for interval logs and a tracer's socket
 * (hlog_follow.h): what `latlab top` reads, as library code.
 *
 * Memory follows the lines, not the input's length: a poll reads at most
 * CHUNK bytes at a time and consumes its complete lines before reading
 * more, a partial line is refused past LAT_HLOG_FOLLOW_LINE_MAX, the header
 * lines kept past LAT_HLOG_FOLLOW_HEADER_MAX, and intervals are decoded
 * fitted to their values (lat_hlog_reader_fit). */
#include "latlab/hlog_follow.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define CHUNK (1u << 20) /* bytes read before the lines they hold are consumed */

/* A data line of a batch: its line number and byte offset in the source. */
typedef struct line_at {
    int line;
    long long off;
} line_at;

struct lat_hlog_follow {
    char *name; /* path, as given */
    lat_hlog_follow_ops ops;
    int fd; /* -1: none open (waiting for the file) */
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
    bool waiting; /* told that the file does not exist yet */
    char *pend;   /* bytes after the last complete line */
    size_t plen, pcap;
    long long pend_off; /* the source's byte offset of pend[0] */
    char *hdr;          /* header lines seen so far ('#...' and the legend) */
    size_t hlen, hcap;
    int hlines;
    int line; /* complete lines consumed */
    int err_line;
    long long at_off; /* byte offset of the line failed or delivered last */
    char reason[128];
};

static void tell(lat_hlog_follow *f, lat_hlog_follow_event ev, const char *path) {
    if (f->ops.event) f->ops.event(f->ops.ud, ev, f->name, path);
}

static int fail(lat_hlog_follow *f, int err, int line, const char *reason) {
    f->err_line = line;
    if (line == 0) f->at_off = f->pend_off + (long long)f->plen;
    snprintf(f->reason, sizeof f->reason, "%s", reason ? reason : "");
    return err;
}

int lat_hlog_follow_create(const char *name, bool sock, const lat_hlog_follow_ops *ops,
                           lat_hlog_follow **out) {
    if (!name || !ops || !ops->interval) return -EINVAL;
    lat_hlog_follow *f = calloc(1, sizeof *f);
    if (!f || !(f->name = strdup(name))) {
        free(f);
        return -ENOMEM;
    }
    f->ops = *ops;
    f->sock = sock;
    f->fd = -1;
    *out = f;
    return 0;
}

void lat_hlog_follow_destroy(lat_hlog_follow *f) {
    if (!f) return;
    if (f->fd >= 0) close(f->fd);
    free(f->pend);
    free(f->hdr);
    free(f->name);
    free(f);
}

int lat_hlog_follow_line(const lat_hlog_follow *f) {
    return f->err_line;
}

long long lat_hlog_follow_offset(const lat_hlog_follow *f) {
    return f->at_off;
}

const char *lat_hlog_follow_reason(const lat_hlog_follow *f) {
    return f->reason;
}

bool lat_hlog_follow_eof(const lat_hlog_follow *f) {
    return f->eof;
}

/* Forget what was read (the file changed under us, or another one is read now). */
static void reset_read(lat_hlog_follow *f) {
    f->plen = f->hlen = 0;
    f->pend_off = 0;
    f->hlines = f->line = 0;
    f->off = 0;
    f->headlen = 0;
}

/* Read path from its start from now on.  0 or -errno (the old file stays). */
static int open_file(lat_hlog_follow *f, const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = -errno;
        if (fd >= 0) close(fd);
        return e;
    }
    if (f->fd >= 0) close(f->fd);
    f->fd = fd;
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    if (path != f->cur) snprintf(f->cur, sizeof f->cur, "%s", path);
    reset_read(f);
    return 0;
}

int lat_hlog_follow_open(lat_hlog_follow *f) {
    if (!f->sock) return open_file(f, f->name);
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    size_t n = strlen(f->name);
    if (n >= sizeof a.sun_path) return -ENAMETOOLONG;
    memcpy(a.sun_path, f->name, n + 1);
    if (f->fd >= 0) close(f->fd);
    f->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (f->fd < 0) return -errno;
    if (connect(f->fd, (struct sockaddr *)&a, sizeof a) != 0) return -errno;
    fcntl(f->fd, F_SETFL, fcntl(f->fd, F_GETFL) | O_NONBLOCK);
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

/* Parse a batch of complete data lines (with the source's header in front). */
static int parse_batch(lat_hlog_follow *f, const char *batch, size_t blen, const line_at *lines,
                       int nl) {
    char *text = NULL;
    size_t len = 0, cap = 0;
    if (append(&text, &len, &cap, f->hdr ? f->hdr : "", f->hlen) ||
        append(&text, &len, &cap, batch, blen)) {
        free(text);
        return fail(f, -ENOMEM, 0, NULL);
    }
    lat_hlog_reader *rd;
    int rc = lat_hlog_reader_open_mem(text, len, &rd);
    free(text);
    if (rc) return fail(f, rc, 0, NULL);
    lat_hlog_reader_fit(rd, true); /* memory follows the values, not the declared range */
    lat_hlog_interval *iv;
    int status = 0;
    while (status == 0 && (rc = lat_hlog_next(rd, &iv)) == 1) {
        int k = lat_hlog_reader_line(rd) - f->hlines; /* 1-based line of the batch */
        f->at_off = k >= 1 && k <= nl ? lines[k - 1].off : f->pend_off;
        status = f->ops.interval(f->ops.ud, iv);
    }
    if (status == 0 && rc < 0) {
        int k = lat_hlog_reader_line(rd) - f->hlines;
        f->at_off = k >= 1 && k <= nl ? lines[k - 1].off : f->pend_off;
        const char *why = lat_hlog_reader_reason(rd);
        /* The reader's offsets are in the batch's text: drop its own "byte N: ". */
        if (!strncmp(why, "byte ", 5)) {
            const char *c = strstr(why, ": ");
            if (c) why = c + 2;
        }
        status = fail(f, rc, k >= 1 && k <= nl ? lines[k - 1].line : f->line, why);
    }
    lat_hlog_reader_destroy(rd);
    return status;
}

/* The file read now was truncated, or rewritten in place (its first bytes,
 * which hold the StartTime, differ): read it again from its start. */
static void check_rewritten(lat_hlog_follow *f) {
    struct stat st;
    if (f->fd < 0 || fstat(f->fd, &st) != 0) return;
    int ev = -1;
    if (st.st_size < f->off) {
        ev = LAT_HLOG_FOLLOW_TRUNCATED;
    } else if (f->headlen) {
        char b[sizeof f->head];
        ssize_t n = pread(f->fd, b, f->headlen, 0);
        if (n != (ssize_t)f->headlen || memcmp(b, f->head, f->headlen) != 0)
            ev = LAT_HLOG_FOLLOW_REWRITTEN;
    }
    if (ev < 0 || lseek(f->fd, 0, SEEK_SET) != 0) return;
    tell(f, (lat_hlog_follow_event)ev, f->cur);
    reset_read(f);
}

static bool newer(const struct stat *a, const struct stat *b) {
    if (a->st_mtim.tv_sec != b->st_mtim.tv_sec) return a->st_mtim.tv_sec > b->st_mtim.tv_sec;
    return a->st_mtim.tv_nsec > b->st_mtim.tv_nsec;
}

/* The newest (by mtime; the name wins ties) of the name and the temporaries
 * a run writes beside it (NAME.tmp.*, atomicfile.h) into out and *best.
 * false: none exists. */
static bool newest(const char *name, char *out, size_t cap, struct stat *best) {
    bool have = stat(name, best) == 0 && S_ISREG(best->st_mode);
    if (have) snprintf(out, cap, "%s", name);
    const char *slash = strrchr(name, '/');
    const char *base = slash ? slash + 1 : name;
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - name) : 1, slash ? name : ".");
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
 * start.  A temporary renamed over the name is the same file: reading goes
 * on where it was. */
static void follow_name(lat_hlog_follow *f) {
    char path[sizeof f->cur];
    struct stat st;
    if (!newest(f->name, path, sizeof path, &st)) {
        if (f->fd < 0 && !f->waiting) tell(f, LAT_HLOG_FOLLOW_WAITING, f->name);
        f->waiting = true;
        return;
    }
    if (f->fd >= 0 && st.st_dev == f->dev && st.st_ino == f->ino) {
        if (strcmp(path, f->cur) != 0) snprintf(f->cur, sizeof f->cur, "%s", path);
        return;
    }
    bool had = f->fd >= 0, was_tmp = had && strcmp(f->cur, f->name) != 0;
    if (open_file(f, path) != 0) return; /* gone meanwhile: the next poll looks again */
    f->waiting = false;
    if (strcmp(path, f->name) != 0)
        tell(f, LAT_HLOG_FOLLOW_RUN, path);
    else
        tell(f,
             was_tmp ? LAT_HLOG_FOLLOW_RUN_ENDED
             : had   ? LAT_HLOG_FOLLOW_REPLACED
                     : LAT_HLOG_FOLLOW_APPEARED,
             path);
}

/* Read what there is now into f->pend, up to CHUNK bytes: 1 when the chunk
 * filled (more may wait), 0 when drained, or a negative error. */
static int read_now(lat_hlog_follow *f) {
    char buf[65536];
    size_t got = 0;
    while (got < CHUNK) {
        ssize_t n = read(f->fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
        if (n < 0) return fail(f, -errno, 0, NULL);
        if (n == 0) {
            if (f->sock) f->eof = true; /* the tracer closed the stream */
            return 0;                   /* a file: nothing more yet */
        }
        got += (size_t)n;
        if (f->off < (off_t)sizeof f->head) {
            size_t k = sizeof f->head - (size_t)f->off;
            if (k > (size_t)n) k = (size_t)n;
            memcpy(f->head + f->off, buf, k);
            f->headlen = (size_t)f->off + k;
        }
        f->off += n;
        if (append(&f->pend, &f->plen, &f->pcap, buf, (size_t)n)) return fail(f, -ENOMEM, 0, NULL);
        /* The line after the last newline (pend holds no newline before
         * this read's bytes: complete lines were consumed). */
        const char *nlp = memrchr(f->pend, '\n', f->plen);
        size_t partial = nlp ? f->plen - (size_t)(nlp + 1 - f->pend) : f->plen;
        if (partial > LAT_HLOG_FOLLOW_LINE_MAX) {
            int line = f->line + 1;
            for (const char *p = f->pend;
                 p < f->pend + f->plen && (p = memchr(p, '\n', (size_t)(f->pend + f->plen - p)));
                 p++)
                line++;
            char why[96];
            snprintf(why, sizeof why, "byte %lld: line longer than %u bytes",
                     f->pend_off + (long long)(f->plen - partial), LAT_HLOG_FOLLOW_LINE_MAX);
            f->at_off = f->pend_off + (long long)(f->plen - partial);
            f->err_line = line;
            snprintf(f->reason, sizeof f->reason, "%s", why);
            return -E2BIG;
        }
    }
    return 1;
}

/* The batch of data lines of f->pend (header lines kept in f->hdr, free
 * comments and blank lines skipped) and their line numbers.  0 or -ENOMEM. */
static int split_lines(lat_hlog_follow *f, char **batch, size_t *blen, line_at **lines, int *nl) {
    size_t bcap = 0, at = 0;
    int lcap = 0;
    char *nlp;
    while (f->plen > at && (nlp = memchr(f->pend + at, '\n', f->plen - at))) {
        size_t ln = (size_t)(nlp - (f->pend + at)) + 1;
        const char *p = f->pend + at;
        f->line++;
        bool header = p[0] == '#' || p[0] == '"';
        bool blank = ln == 1 || (ln == 2 && p[0] == '\r');
        if (header && *nl == 0 && !(p[0] == '#' && p[1] != '[')) {
            /* Header lines ("#[...]" and the legend) go in front of every
             * batch; free comments are skipped. */
            if (f->hlen + ln > LAT_HLOG_FOLLOW_HEADER_MAX) {
                f->at_off = f->pend_off + (long long)at;
                f->err_line = f->line;
                snprintf(f->reason, sizeof f->reason, "header lines (\"#[...]\") past %u bytes",
                         LAT_HLOG_FOLLOW_HEADER_MAX);
                return -E2BIG;
            }
            if (append(&f->hdr, &f->hlen, &f->hcap, p, ln)) return -ENOMEM;
            f->hlines++;
        } else if (!header && !blank) {
            if (*nl == lcap) {
                lcap = lcap ? lcap * 2 : 64;
                line_at *g = realloc(*lines, (size_t)lcap * sizeof *g);
                if (!g) return -ENOMEM;
                *lines = g;
            }
            if (append(batch, blen, &bcap, p, ln)) return -ENOMEM;
            (*lines)[*nl].line = f->line;
            (*lines)[(*nl)++].off = f->pend_off + (long long)at;
        }
        at += ln;
    }
    if (at) memmove(f->pend, f->pend + at, f->plen - at);
    f->plen -= at;
    f->pend_off += (long long)at;
    return 0;
}

/* Consume the complete lines of f->pend (at_end: and a last unterminated one). */
static int consume(lat_hlog_follow *f, bool at_end) {
    if ((at_end || f->eof) && f->plen && f->pend[f->plen - 1] != '\n' &&
        append(&f->pend, &f->plen, &f->pcap, "\n", 1))
        return fail(f, -ENOMEM, 0, NULL);
    char *batch = NULL;
    size_t blen = 0;
    line_at *lines = NULL;
    int nl = 0;
    int status = split_lines(f, &batch, &blen, &lines, &nl);
    if (status == -ENOMEM) status = fail(f, status, 0, NULL);
    if (!status && nl) status = parse_batch(f, batch, blen, lines, nl);
    free(batch);
    free(lines);
    return status;
}

int lat_hlog_follow_poll(lat_hlog_follow *f, bool at_end) {
    f->err_line = 0;
    f->reason[0] = 0;
    if (f->eof) return 0;
    bool follow = !f->sock && !at_end;
    if (follow) check_rewritten(f);
    if (f->fd < 0) {
        follow_name(f);
        if (f->fd < 0) return 0;
    }
    /* A chunk at a time, its lines consumed before the next is read. */
    int more, status = 0;
    do {
        more = read_now(f);
        if (more < 0) return more;
        status = consume(f, at_end && !more);
    } while (status == 0 && more == 1 && !f->eof);
    if (follow && status == 0) follow_name(f);
    return status;
}
