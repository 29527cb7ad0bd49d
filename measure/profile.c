/* profile.c - run a command under perf record, read perf script (profile.h).
 *
 * perf's exit status is the workload's (it re-raises the workload's fatal
 * signal on itself), so whether perf itself worked is read from its log: a
 * recording that finished says "[ perf record: Captured and wrote ...", a
 * command that could not start says "Failed to collect ... workload: ..." (or
 * "Workload failed" in older perf).  The permission check opens the very kind
 * of event perf will open (a sampling cpu-clock with call chains, kernel
 * included unless user only) so its answer does not depend on guessing what
 * each perf_event_paranoid level allows. */
#include "latlab/profile.h"

#include "latlab/alloc.h"
#include "latlab/atomicfile.h"
#include "latlab/error.h"
#include "latlab/perf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_HZ 999u
#define MAX_HZ 100000u

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* perf's path into buf: as given when it has a '/', else the first
 * executable "perf" in PATH.  Returns 0 or -ENOENT. */
static int find_perf(const char *name, char *buf, size_t len) {
    if (strchr(name, '/')) {
        snprintf(buf, len, "%s", name);
        return access(buf, X_OK) ? -ENOENT : 0;
    }
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *c = strchr(path, ':');
        size_t n = c ? (size_t)(c - path) : strlen(path);
        if (n && (size_t)snprintf(buf, len, "%.*s/%s", (int)n, path, name) < len &&
            !access(buf, X_OK))
            return 0;
        path += n + (c ? 1 : 0);
    }
    return -ENOENT;
}

static int try_open(bool user_only) {
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_CPU_CLOCK;
    a.freq = 1;
    a.sample_freq = 99;
    a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
    a.disabled = 1;
    a.exclude_kernel = user_only;
    a.exclude_hv = 1;
    long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    if (fd < 0) return -errno;
    close((int)fd);
    return 0;
}

int lat_profile_check_permission(bool user_only, char *why, size_t why_len) {
    if (why && why_len) why[0] = 0;
    int rc = try_open(user_only);
    if (rc != -EACCES && rc != -EPERM) return 0; /* other failures show when perf runs */
    int par = lat_perf_paranoid();
    char lvl[32];
    if (par == INT_MIN)
        snprintf(lvl, sizeof lvl, "unreadable");
    else
        snprintf(lvl, sizeof lvl, "%d", par);
    if (!user_only && try_open(true) == 0) {
        if (why)
            snprintf(why, why_len,
                     "not permitted to sample the kernel: perf_event_paranoid is %s (>= 2 keeps "
                     "unprivileged users to user space); run as root, lower it with `sysctl "
                     "kernel.perf_event_paranoid=1`, or pass --user-only",
                     lvl);
    } else if (why) {
        snprintf(why, why_len,
                 "not permitted to use perf events: perf_event_paranoid is %s; run as root or "
                 "lower it with `sysctl kernel.perf_event_paranoid=2` (user space only) or =1",
                 lvl);
    }
    return -EACCES;
}

/* The last non-empty line of path (or of its first line mentioning key). */
static void log_line(const char *path, const char *key, char *buf, size_t len) {
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0]) continue;
        if (key && strstr(line, key)) {
            snprintf(buf, len, "%s", line);
            break;
        }
        if (!key) snprintf(buf, len, "%s", line);
    }
    fclose(f);
}

static bool log_has(const char *path, const char *needle) {
    char buf[512];
    log_line(path, needle, buf, sizeof buf);
    return buf[0] != 0;
}

/* fork + exec argv with stdout to out_fd (-1: ours) and stderr to err_path;
 * returns the pid or a negative errno.  The child restores SIGINT/SIGQUIT. */
static pid_t spawn(char *const argv[], int out_fd, const char *err_path, bool append) {
    int efd = open(err_path, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0644);
    if (efd < 0) return -errno;
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(efd);
        return -e;
    }
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGQUIT, SIG_DFL);
        if (out_fd >= 0) dup2(out_fd, 1);
        dup2(efd, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    close(efd);
    return pid;
}

static int wait_child(pid_t pid) {
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    return st;
}

static int fail(lat_profile_result *r, int failure, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(lat_profile_result *r, int failure, int rc, const char *fmt, ...) {
    r->failure = failure;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->message, sizeof r->message, fmt, ap);
    va_end(ap);
    lat_flame_destroy(r->flame);
    r->flame = NULL;
    return rc;
}

/* perf script -f -i data, streamed into r->flame. */
static int run_script(const char *perf, const char *data, const char *logp, lat_profile_result *r) {
    int p[2];
    if (pipe2(p, O_CLOEXEC)) return fail(r, LAT_PROFILE_PERF_FAILED, -errno, "pipe failed");
    char *argv[] = {(char *)perf, "script", "-f", "-i", (char *)data, NULL};
    pid_t pid = spawn(argv, p[1], logp, false);
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return fail(r, LAT_PROFILE_PERF_FAILED, (int)pid, "cannot start %s script", perf);
    }
    int rc = 0;
    char buf[65536];
    for (;;) {
        ssize_t n = read(p[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        if (!rc) rc = lat_flame_feed(r->flame, buf, (size_t)n); /* keep draining after an error */
    }
    close(p[0]);
    if (!rc) rc = lat_flame_finish(r->flame);
    int st = wait_child(pid);
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st)) {
        char line[400];
        log_line(logp, NULL, line, sizeof line);
        return fail(r, LAT_PROFILE_PERF_FAILED, -ECHILD, "perf script failed: %s",
                    line[0] ? line : "(no message)");
    }
    if (rc) {
        return fail(r, LAT_PROFILE_BAD_OUTPUT, rc, "cannot parse perf script output at line %zu",
                    lat_flame_error_line(r->flame));
    }
    return 0;
}

int lat_profile_run(char *const argv[], const char *workdir, const lat_profile_opts *o,
                    lat_profile_result *r) {
    if (!r) return -EINVAL;
    memset(r, 0, sizeof *r);
    r->cmd_status = -1;
    r->paranoid = lat_perf_paranoid();
    lat_profile_opts d = {0};
    if (o) d = *o;
    if (!d.hz) d.hz = DEFAULT_HZ;
    if (!argv || !argv[0] || !workdir || !*workdir || d.hz > MAX_HZ || (d.event && !*d.event))
        return -EINVAL;
    r->hz = d.hz;

    char perf[PATH_MAX];
    if (find_perf(d.perf ? d.perf : "perf", perf, sizeof perf))
        return fail(r, LAT_PROFILE_NO_PERF, -ENOENT,
                    "%s not found: install it (Debian package linux-perf) or put it in PATH",
                    d.perf ? d.perf : "perf");
    char why[400];
    if (lat_profile_check_permission(d.user_only, why, sizeof why))
        return fail(r, LAT_PROFILE_NOT_PERMITTED, -EACCES, "%s", why);

    if (d.event) {
        snprintf(r->event, sizeof r->event, "%s", d.event);
        snprintf(r->event_why, sizeof r->event_why, "as asked (--event)");
    } else {
        char reason[160];
        lat_perf_opts po = {.user_only = d.user_only};
        if (lat_perf_probe("cycles", &po, reason, sizeof reason) == 0) {
            snprintf(r->event, sizeof r->event, "cycles");
            snprintf(r->event_why, sizeof r->event_why, "the hardware PMU counts cycles");
        } else {
            snprintf(r->event, sizeof r->event, "cpu-clock");
            snprintf(r->event_why, sizeof r->event_why,
                     "cycles unavailable (%.120s): sampling cpu-clock, a software timer",
                     reason[0] ? reason : "not supported");
        }
    }
    if (d.user_only && !strchr(r->event, ':'))
        strncat(r->event, ":u", sizeof r->event - strlen(r->event) - 1);

    int rc = lat_mkdir_p(workdir);
    if (rc) return fail(r, LAT_PROFILE_PERF_FAILED, rc, "cannot create %s", workdir);
    char data[PATH_MAX], logp[PATH_MAX], slog[PATH_MAX], old[PATH_MAX];
    snprintf(data, sizeof data, "%s/perf.data", workdir);
    snprintf(old, sizeof old, "%s/perf.data.old", workdir);
    snprintf(logp, sizeof logp, "%s/perf.log", workdir);
    snprintf(slog, sizeof slog, "%s/perf-script.log", workdir);
    unlink(data);
    unlink(old);
    if ((rc = lat_flame_create(LAT_FLAME_PERF_SCRIPT, &r->flame)))
        return fail(r, LAT_PROFILE_PERF_FAILED, rc, "%s", "out of memory");

    size_t nargs = 0;
    while (argv[nargs])
        nargs++;
    char hz[16];
    snprintf(hz, sizeof hz, "%u", d.hz);
    char **pa = lat__calloc(nargs + 12, sizeof *pa);
    if (!pa) return fail(r, LAT_PROFILE_PERF_FAILED, -ENOMEM, "%s", "out of memory");
    size_t k = 0;
    pa[k++] = perf;
    pa[k++] = "record";
    pa[k++] = "-e";
    pa[k++] = r->event;
    pa[k++] = "-F";
    pa[k++] = hz;
    pa[k++] = "-g";
    pa[k++] = "-o";
    pa[k++] = data;
    pa[k++] = "--";
    for (size_t i = 0; i < nargs; i++)
        pa[k++] = argv[i];
    pa[k] = NULL;

    int out_fd = -1;
    if (d.cmd_stdout &&
        (out_fd = open(d.cmd_stdout, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
        lat__free(pa);
        return fail(r, LAT_PROFILE_PERF_FAILED, -errno, "cannot create %s", d.cmd_stdout);
    }
    /* Like system(): a ^C goes to perf and the command, which stop and keep
     * what was recorded; we wait for them. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, oint, oquit;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGINT, &ign, &oint);
    sigaction(SIGQUIT, &ign, &oquit);
    double t0 = now_s();
    pid_t pid = spawn(pa, out_fd, logp, false);
    int st = pid > 0 ? wait_child(pid) : -1;
    r->wall_s = now_s() - t0;
    sigaction(SIGINT, &oint, NULL);
    sigaction(SIGQUIT, &oquit, NULL);
    if (out_fd >= 0) close(out_fd);
    lat__free(pa);
    if (pid < 0) return fail(r, LAT_PROFILE_PERF_FAILED, (int)pid, "cannot start %s", perf);

    char line[400];
    bool recorded = log_has(logp, "perf record: Captured and wrote");
    if (!recorded) {
        if (log_has(logp, "workload") || log_has(logp, "Workload failed")) {
            log_line(logp, "orkload", line, sizeof line);
            return fail(r, LAT_PROFILE_CMD_NOT_RUN, -ECHILD, "cannot run the command: %s", line);
        }
        if (log_has(logp, "perf_event_paranoid") || log_has(logp, "ermission")) {
            log_line(logp, NULL, line, sizeof line);
            return fail(r, LAT_PROFILE_NOT_PERMITTED, -EACCES,
                        "perf record was refused (perf_event_paranoid or capabilities): %s", line);
        }
        log_line(logp, NULL, line, sizeof line);
        if (st != -1 && WIFSIGNALED(st)) {
            return fail(r, LAT_PROFILE_PERF_FAILED, -ECHILD, "perf record died by signal %d; %s",
                        WTERMSIG(st), line);
        }
        return fail(r, LAT_PROFILE_PERF_FAILED, -ECHILD, "perf record failed: %s",
                    line[0] ? line : "(no message; see perf.log)");
    }
    if (st == -1)
        r->cmd_status = -1;
    else if (WIFSIGNALED(st))
        r->cmd_status = 128 + WTERMSIG(st);
    else
        r->cmd_status = WEXITSTATUS(st);

    if ((rc = run_script(perf, data, slog, r))) return rc;
    if (r->cmd_status > 128) {
        r->failure = LAT_PROFILE_CMD_FAILED;
        snprintf(r->message, sizeof r->message, "the command was killed by signal %d",
                 r->cmd_status - 128);
    } else if (r->cmd_status != 0) {
        r->failure = LAT_PROFILE_CMD_FAILED;
        snprintf(r->message, sizeof r->message, "the command exited with status %d", r->cmd_status);
    }
    return 0;
}

void lat_profile_release(lat_profile_result *r) {
    if (!r) return;
    lat_flame_destroy(r->flame);
    r->flame = NULL;
}

/* Write one file atomically through a FILE writer. */
static int write_with(const char *dir, const char *name, const lat_flame *f, int what,
                      const lat_flame_svg_opts *so) {
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return -ENAMETOOLONG;
    if (what == 0) return lat_flame_save_svg(f, so, path);
    lat_afile *af;
    int rc = lat_afile_open(path, &af);
    if (rc) return rc;
    FILE *out = lat_afile_stream(af);
    rc = what == 1 ? lat_flame_write_folded(f, true, out) : lat_flame_write_top(f, 25, out);
    if (rc) {
        lat_afile_abort(af);
        return rc;
    }
    return lat_afile_commit(af);
}

int lat_profile_report_add(lat_report *rep, const lat_flame *f, const char *caption,
                           const char *note, size_t top) {
    if (!rep || !f) return -EINVAL;
    if (!top) top = 10;
    lat_flame_svg_opts so = {.title = caption, .note = note};
    char *svg;
    size_t len;
    int rc = lat_flame_render_svg(f, &so, &svg, &len);
    if (rc) return rc;
    rc = lat_report_svg(rep, NULL, svg, len);
    lat__free(svg);
    if (rc) return rc;
    lat_flame_share *s;
    size_t n;
    if ((rc = lat_flame_shares(f, &s, &n))) return rc;
    char cap[160];
    snprintf(cap, sizeof cap, "%s: top frames by total share", caption ? caption : "profile");
    const char *hdr[] = {"frame", "kind", "total", "self", "samples"};
    static const char *const kinds[] = {"user", "kernel", "inlined", "unknown", "thread"};
    if (n) rc = lat_report_table_begin(rep, cap, 5, hdr);
    for (size_t i = 0, shown = 0; !rc && i < n && shown < top; i++) {
        char tot[24], self[24], cnt[24];
        snprintf(tot, sizeof tot, "%.2f%%", s[i].total_pct);
        snprintf(self, sizeof self, "%.2f%%", s[i].self_pct);
        snprintf(cnt, sizeof cnt, "%llu", (unsigned long long)s[i].total);
        const char *row[] = {s[i].name, kinds[s[i].kind], tot, self, cnt};
        rc = lat_report_table_row(rep, row);
        shown++;
    }
    lat_flame_shares_free(s);
    return rc;
}

int lat_profile_write(const lat_flame *f, const char *dir, const char *title, const char *note) {
    if (!f || !dir || !*dir) return -EINVAL;
    int rc = lat_mkdir_p(dir);
    if (rc) return rc;
    lat_flame_svg_opts so = {.title = title, .note = note};
    if ((rc = write_with(dir, "flame.svg", f, 0, &so))) return rc;
    if ((rc = write_with(dir, "folded.txt", f, 1, NULL))) return rc;
    if ((rc = write_with(dir, "top.txt", f, 2, NULL))) return rc;
    lat_report *rep;
    if ((rc = lat_report_create(title ? title : "Profile", &rep))) return rc;
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/report.html", dir) >= sizeof path)
        rc = -ENAMETOOLONG;
    if (!rc && note) rc = lat_report_text(rep, note);
    if (!rc) rc = lat_profile_report_add(rep, f, title, note, 15);
    if (!rc) rc = lat_report_write(rep, path);
    lat_report_free(rep);
    return rc;
}
