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

#include "alloc_internal.h"
#include "error_internal.h"
#include "latlab/atomicfile.h"
#include "latlab/error.h"
#include "latlab/perf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <linux/perf_event.h>
#include <pthread.h>
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

/* The terminating signals passed on to a child we wait for. */
static void fwd_set(sigset_t *set) {
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
}

/* fork + exec argv with stdout to out_fd (-1: ours) and stderr to err_path;
 * returns the pid or a negative errno.  The child restores SIGINT/SIGQUIT. */
static pid_t spawn(char *const argv[], int out_fd, const char *err_path, bool append,
                   const int keep[2]) {
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
        sigset_t fwd; /* held by run_waiting in the parent: not in the child */
        fwd_set(&fwd);
        pthread_sigmask(SIG_UNBLOCK, &fwd, NULL);
        if (out_fd >= 0) dup2(out_fd, 1);
        dup2(efd, 2);
        for (int i = 0; keep && i < 2; i++)
            fcntl(keep[i], F_SETFD, 0); /* perf's ends of the control pipes */
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

/* sig to pid and to its children (perf record's command: perf would pass a
 * SIGTERM on itself, but not every version waits for it). */
static void forward(pid_t pid, int sig) {
    kill(pid, sig);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return;
    int c;
    while (fscanf(f, "%d", &c) == 1)
        if (c > 0) kill((pid_t)c, sig);
    fclose(f);
}

#define FWD_GRACE_S 10.0 /* after a forwarded signal, SIGKILL once this has passed */

/* Wait for pid with SIGTERM and SIGHUP held (the caller blocked them before
 * the fork): one that comes meanwhile is passed on to the child and its
 * children and kept in *sig (the first), and the wait goes on until they
 * exit, so nothing is left running and nothing half-written is left behind
 * by us.  Returns the wait status or -1; the signal mask is restored to old. */
static int wait_forwarding(pid_t pid, const sigset_t *old, int *sig) {
    sigset_t set;
    fwd_set(&set);
    int st = -1;
    double kill_at = 0;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) {
            st = -1;
            break;
        }
        struct timespec ts = {0, 50000000};
        int got = sigtimedwait(&set, NULL, &ts);
        if (got > 0) {
            forward(pid, got);
            if (!*sig) *sig = got;
            if (!kill_at) kill_at = now_s() + FWD_GRACE_S;
        }
        if (kill_at && now_s() > kill_at) {
            forward(pid, SIGKILL);
            kill_at = 1e300;
        }
    }
    pthread_sigmask(SIG_SETMASK, old, NULL);
    return st;
}

/* spawn, then wait_forwarding: 0 and *st, or the negative errno of spawn. */
static int run_waiting(char *const argv[], int out_fd, const char *err_path, int *st, int *sig) {
    sigset_t set, old;
    fwd_set(&set);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    pid_t pid = spawn(argv, out_fd, err_path, false, NULL);
    if (pid < 0) {
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        return (int)pid;
    }
    *st = wait_forwarding(pid, &old, sig);
    return 0;
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
    sigset_t set, old;
    fwd_set(&set);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    pid_t pid = spawn(argv, p[1], logp, false, NULL);
    close(p[1]);
    if (pid < 0) {
        pthread_sigmask(SIG_SETMASK, &old, NULL);
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
    int st = wait_forwarding(pid, &old, &r->signal);
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

int lat_profile_available(const lat_profile_opts *o, char *why, size_t why_len) {
    lat_profile_opts d = o ? *o : (lat_profile_opts){0};
    char perf[PATH_MAX];
    if (why && why_len) why[0] = 0;
    if (find_perf(d.perf ? d.perf : "perf", perf, sizeof perf)) {
        if (why)
            snprintf(why, why_len,
                     "%s not found: install it (Debian package linux-perf) or put it in PATH",
                     d.perf ? d.perf : "perf");
        return -ENOENT;
    }
    return lat_profile_check_permission(d.user_only, why, why_len);
}

/* Find perf, check the permission, choose the event (into r).  perf gets the
 * tool's path. */
static int prepare(const lat_profile_opts *d, char *perf, size_t perf_len, lat_profile_result *r) {
    if (find_perf(d->perf ? d->perf : "perf", perf, perf_len))
        return fail(r, LAT_PROFILE_NO_PERF, -ENOENT,
                    "%s not found: install it (Debian package linux-perf) or put it in PATH",
                    d->perf ? d->perf : "perf");
    char why[400];
    if (lat_profile_check_permission(d->user_only, why, sizeof why))
        return fail(r, LAT_PROFILE_NOT_PERMITTED, -EACCES, "%s", why);

    if (d->event) {
        snprintf(r->event, sizeof r->event, "%s", d->event);
        snprintf(r->event_why, sizeof r->event_why, "as asked (--event)");
    } else {
        char reason[160];
        lat_perf_opts po = {.user_only = d->user_only};
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
    if (d->user_only && !strchr(r->event, ':'))
        strncat(r->event, ":u", sizeof r->event - strlen(r->event) - 1);

    return 0;
}

/* Reset r, fill d from o with defaults; false when the arguments are bad. */
static bool begin(lat_profile_result *r, const lat_profile_opts *o, lat_profile_opts *d,
                  const char *workdir) {
    if (!r) return false;
    memset(r, 0, sizeof *r);
    r->cmd_status = -1;
    r->paranoid = lat_perf_paranoid();
    *d = o ? *o : (lat_profile_opts){0};
    if (!d->hz) d->hz = DEFAULT_HZ;
    r->hz = d->hz;
    return workdir && *workdir && d->hz <= MAX_HZ && !(d->event && !*d->event);
}

int lat_profile_run(char *const argv[], const char *workdir, const lat_profile_opts *o,
                    lat_profile_result *r) {
    lat_profile_opts d;
    if (!begin(r, o, &d, workdir) || !argv || !argv[0]) return -EINVAL;
    r->hz = d.hz;

    char perf[PATH_MAX];
    int rc = prepare(&d, perf, sizeof perf, r);
    if (rc) return rc;

    rc = lat_mkdir_p(workdir);
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
     * what was recorded; we wait for them.  A SIGTERM or SIGHUP sent to us
     * alone is passed on to them (run_waiting), and waited for likewise. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, oint, oquit;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGINT, &ign, &oint);
    sigaction(SIGQUIT, &ign, &oquit);
    double t0 = now_s();
    int st = -1, err = run_waiting(pa, out_fd, logp, &st, &r->signal);
    r->wall_s = now_s() - t0;
    sigaction(SIGINT, &oint, NULL);
    sigaction(SIGQUIT, &oquit, NULL);
    if (out_fd >= 0) close(out_fd);
    lat__free(pa);
    if (err < 0) return fail(r, LAT_PROFILE_PERF_FAILED, err, "cannot start %s", perf);

    char line[400];
    bool recorded = log_has(logp, "perf record: Captured and wrote");
    if (!recorded && r->signal) unlink(data); /* stopped before it was whole: none */
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

/* ---- attached to a running process ------------------------------------------------------- */

struct lat_profile_session {
    pid_t perf_pid;
    int ctl, ack; /* our ends: we write commands, perf answers "ack" */
    char perf[PATH_MAX], data[PATH_MAX], logp[PATH_MAX], slog[PATH_MAX];
    double t0;
};

/* Send cmd on the control pipe and wait for perf's "ack" (at most ms). */
static int control(lat_profile_session *s, const char *cmd, int ms) {
    size_t n = strlen(cmd);
    if (write(s->ctl, cmd, n) != (ssize_t)n) return -EPIPE;
    char buf[16];
    size_t got = 0;
    while (got < 4) {
        struct pollfd p = {.fd = s->ack, .events = POLLIN};
        int k = poll(&p, 1, ms);
        if (k < 0 && errno == EINTR) continue;
        if (k == 0) return -ETIME;
        ssize_t m = read(s->ack, buf + got, sizeof buf - 1 - got);
        if (m < 0 && errno == EINTR) continue;
        if (m <= 0) return -EPIPE; /* perf exited */
        got += (size_t)m;
    }
    return strncmp(buf, "ack", 3) ? -EPROTO : 0;
}

static void close_session(lat_profile_session *s) {
    if (s->ctl >= 0) close(s->ctl);
    if (s->ack >= 0) close(s->ack);
    s->ctl = s->ack = -1;
}

int lat_profile_attach(pid_t pid, const char *workdir, const lat_profile_opts *o,
                       lat_profile_session **out, lat_profile_result *r) {
    lat_profile_opts d;
    if (!begin(r, o, &d, workdir) || !out || pid < 0) return -EINVAL;
    *out = NULL;
    r->hz = d.hz;
    if (!pid) pid = getpid();
    lat_profile_session *s = lat__calloc(1, sizeof *s);
    if (!s) return fail(r, LAT_PROFILE_PERF_FAILED, -ENOMEM, "out of memory");
    s->ctl = s->ack = -1;
    int rc = prepare(&d, s->perf, sizeof s->perf, r);
    if (!rc && (rc = lat_mkdir_p(workdir)))
        fail(r, LAT_PROFILE_PERF_FAILED, rc, "cannot create %s", workdir);
    if (rc) {
        lat__free(s);
        return rc;
    }
    snprintf(s->data, sizeof s->data, "%s/perf.data", workdir);
    snprintf(s->logp, sizeof s->logp, "%s/perf.log", workdir);
    snprintf(s->slog, sizeof s->slog, "%s/perf-script.log", workdir);
    unlink(s->data);
    int cp[2] = {-1, -1}, ap[2] = {-1, -1};
    if (pipe2(cp, O_CLOEXEC) || pipe2(ap, O_CLOEXEC)) {
        rc = fail(r, LAT_PROFILE_PERF_FAILED, -errno, "pipe failed");
        goto out_fds;
    }
    char hz[16], target[24], ctlarg[48];
    snprintf(hz, sizeof hz, "%u", d.hz);
    snprintf(target, sizeof target, "%d", (int)pid);
    snprintf(ctlarg, sizeof ctlarg, "fd:%d,%d", cp[0], ap[1]);
    char *argv[] = {s->perf, "record", "-e", r->event,    "-F",   hz,   "-g",    "-p",
                    target,  "-D",     "-1", "--control", ctlarg, "-o", s->data, NULL};
    const int keep[2] = {cp[0], ap[1]};
    s->t0 = now_s();
    s->perf_pid = spawn(argv, -1, s->logp, false, keep);
    close(cp[0]);
    close(ap[1]);
    cp[0] = ap[1] = -1;
    s->ctl = cp[1];
    s->ack = ap[0];
    cp[1] = ap[0] = -1;
    if (s->perf_pid < 0) {
        rc = fail(r, LAT_PROFILE_PERF_FAILED, (int)s->perf_pid, "cannot start %s", s->perf);
        goto out_fds;
    }
    if ((rc = control(s, "enable\n", 10000))) {
        if (rc == -ETIME) kill(s->perf_pid, SIGINT);
        wait_child(s->perf_pid);
        char line[400];
        log_line(s->logp, NULL, line, sizeof line);
        if (log_has(s->logp, "perf_event_paranoid") || log_has(s->logp, "ermission"))
            rc = fail(r, LAT_PROFILE_NOT_PERMITTED, -EACCES, "perf record was refused: %s", line);
        else
            rc = fail(r, LAT_PROFILE_PERF_FAILED, rc == -ETIME ? -ETIME : -ECHILD,
                      "perf record did not start sampling: %s", line[0] ? line : "(no message)");
        goto out_fds;
    }
    if ((rc = lat_flame_create(LAT_FLAME_PERF_SCRIPT, &r->flame))) {
        kill(s->perf_pid, SIGINT);
        wait_child(s->perf_pid);
        fail(r, LAT_PROFILE_PERF_FAILED, rc, "out of memory");
        goto out_fds;
    }
    *out = s;
    return 0;
out_fds:
    for (int i = 0; i < 2; i++) {
        if (cp[i] >= 0) close(cp[i]);
        if (ap[i] >= 0) close(ap[i]);
    }
    close_session(s);
    lat__free(s);
    return rc;
}

int lat_profile_detach(lat_profile_session *s, lat_profile_result *r) {
    if (!s || !r) return -EINVAL;
    control(s, "disable\n", 5000); /* best effort: SIGINT ends it either way */
    /* the control pipes stay open until perf has exited: perf 6.1 fails
     * ("pollfd index mismatch") when its control fd hangs up under it */
    kill(s->perf_pid, SIGINT);
    int st = wait_child(s->perf_pid);
    close_session(s);
    r->wall_s = now_s() - s->t0;
    int rc = 0;
    if (!log_has(s->logp, "perf record: Captured and wrote")) {
        char line[400];
        log_line(s->logp, NULL, line, sizeof line);
        rc = fail(r, LAT_PROFILE_PERF_FAILED, -ECHILD, "perf record failed (status %d): %s", st,
                  line[0] ? line : "(no message)");
    } else if (!r->flame) {
        rc = fail(r, LAT_PROFILE_PERF_FAILED, -EINVAL, "no profile to read into");
    } else {
        rc = run_script(s->perf, s->data, s->slog, r);
    }
    lat__free(s);
    return rc;
}

int lat_profile_c2c_supported(const char *workdir, const char *perf, char *why, size_t why_len) {
    if (!workdir || !*workdir) return -EINVAL;
    if (why && why_len) why[0] = 0;
    char path[PATH_MAX], data[PATH_MAX], logp[PATH_MAX];
    if (find_perf(perf ? perf : "perf", path, sizeof path)) return -ENOENT;
    int rc = lat_mkdir_p(workdir);
    if (rc) return rc;
    snprintf(data, sizeof data, "%s/c2c-probe.data", workdir);
    snprintf(logp, sizeof logp, "%s/c2c-probe.log", workdir);
    char *argv[] = {path, "c2c", "record", "-o", data, "--", "true", NULL};
    pid_t pid = spawn(argv, -1, logp, false, NULL);
    if (pid < 0) return (int)pid;
    int st = wait_child(pid);
    unlink(data);
    bool ok = st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    if (!ok && why) {
        char line[256];
        log_line(logp, NULL, line, sizeof line);
        /* perf prints "failed: memory events not supported" without a newline */
        const char *m = strstr(line, "failed: ");
        snprintf(why, why_len, "%s", m ? m + 8 : line[0] ? line : "perf c2c record failed");
    }
    unlink(logp);
    return ok;
}

void lat_profile_result_fini(lat_profile_result *r) {
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
    lat_flame_svg_destroy(svg);
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
    lat_flame_shares_destroy(s);
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
    lat_report_destroy(rep);
    return rc;
}

/* ---- two profiles side by side ------------------------------------------------------------ */

/* "worker 61.0%, producer 39.0%" and the top frames by self share. */
static int one_profile(const lat_flame *f, const char *name, size_t top, FILE *out) {
    lat_flame_share *s;
    size_t n;
    int rc = lat_flame_shares(f, &s, &n);
    if (rc) return rc;
    fprintf(out, "  %s: %llu samples; threads", name, (unsigned long long)lat_flame_samples(f));
    for (size_t i = 0; i < n; i++)
        if (s[i].kind == LAT_FLAME_THREAD) fprintf(out, " %s %.1f%%", s[i].name, s[i].total_pct);
    fprintf(out, "\n    top %zu frames by self share:", top);
    lat_flame_shares_sort_self(s, n);
    for (size_t i = 0, shown = 0; i < n && shown < top; i++) {
        if (s[i].kind == LAT_FLAME_THREAD || !s[i].self) continue;
        fprintf(out, "%s %s %.1f%%", shown ? "," : "", s[i].name, s[i].self_pct);
        shown++;
    }
    fputc('\n', out);
    lat_flame_shares_destroy(s);
    return 0;
}

static double ratio_of(const lat_profile_pair *p) {
    double a = p->work_p50_a_ns, b = p->work_p50_b_ns;
    return isfinite(a) && isfinite(b) && a > 0 && b > 0 ? b / a : NAN;
}

int lat_profile_compare_text(const lat_profile_pair *p, size_t top, FILE *out) {
    if (!p || !p->a || !p->b || !out || !lat_flame_samples(p->a) || !lat_flame_samples(p->b))
        return -EINVAL;
    if (!top) top = 5;
    const char *na = p->name_a ? p->name_a : "A", *nb = p->name_b ? p->name_b : "B";
    fprintf(out, "sampling profiles%s%s: %s vs %s\n", p->event ? " of " : "",
            p->event ? p->event : "", na, nb);
    int rc = one_profile(p->a, na, top, out);
    if (!rc) rc = one_profile(p->b, nb, top, out);
    if (rc) return rc;
    lat_flame_diff_row *r;
    size_t n;
    double max;
    if ((rc = lat_flame_diff(p->a, p->b, &r, &n, &max))) return rc;
    if (n)
        fprintf(out, "  largest share difference: %s%s %+.1f points (%.1f%% -> %.1f%%)\n",
                r[0].name, r[0].kind == LAT_FLAME_THREAD ? " (thread)" : "", r[0].diff_pts,
                r[0].a_pct, r[0].b_pct);
    fprintf(out, "  profiles differ by at most %.1f points of share in any frame\n", max);
    lat_flame_diff_destroy(r);
    double ratio = ratio_of(p);
    if (isfinite(ratio)) {
        fprintf(out, "  work p50 in the same rounds: %.0f ns -> %.0f ns (x%.2f)\n",
                p->work_p50_a_ns, p->work_p50_b_ns, ratio);
        char say[600];
        if (lat_flame_narrate(p->a, p->b, p->thread ? p->thread : "worker", ratio, say,
                              sizeof say) >= 0)
            fprintf(out, "  => %s\n", say);
    }
    return lat__write_status(out, 1);
}

int lat_profile_compare_report(const lat_profile_pair *p, lat_report *rep) {
    if (!p || !p->a || !p->b || !rep || !lat_flame_samples(p->a) || !lat_flame_samples(p->b))
        return -EINVAL;
    const char *na = p->name_a ? p->name_a : "A", *nb = p->name_b ? p->name_b : "B";
    char buf[600];
    int rc = 0;
    if (p->event) rc = lat_report_kv(rep, "sampled", p->event);
    snprintf(buf, sizeof buf, "%llu / %llu", (unsigned long long)lat_flame_samples(p->a),
             (unsigned long long)lat_flame_samples(p->b));
    if (!rc) rc = lat_report_kv(rep, "samples (A / B)", buf);
    double ratio = ratio_of(p);
    if (!rc && isfinite(ratio)) {
        snprintf(buf, sizeof buf, "%.0f ns -> %.0f ns (x%.2f)", p->work_p50_a_ns, p->work_p50_b_ns,
                 ratio);
        rc = lat_report_kv(rep, "work p50, same rounds", buf);
        int finding = rc ? rc
                         : lat_flame_narrate(p->a, p->b, p->thread ? p->thread : "worker", ratio,
                                             buf, sizeof buf);
        if (finding >= 0)
            rc = lat_report_verdict(rep, LAT_VERDICT_INFO, buf);
        else if (!rc && finding != -ENOENT)
            rc = finding;
    }
    if (!rc) rc = lat_profile_report_add(rep, p->a, na, NULL, 10);
    if (!rc) rc = lat_profile_report_add(rep, p->b, nb, NULL, 10);
    if (rc) return rc;
    lat_flame_diff_row *r;
    size_t n;
    double max;
    if ((rc = lat_flame_diff(p->a, p->b, &r, &n, &max))) return rc;
    char cap[200];
    snprintf(cap, sizeof cap, "share of samples per frame: %s (A) vs %s (B)", na, nb);
    const char *hdr[] = {"frame", "A total", "B total", "B - A (points)"};
    rc = lat_report_table_begin(rep, cap, 4, hdr);
    for (size_t i = 0; !rc && i < n && i < 15; i++) {
        char a[24], b[24], d[24], name[300];
        snprintf(a, sizeof a, "%.2f%%", r[i].a_pct);
        snprintf(b, sizeof b, "%.2f%%", r[i].b_pct);
        snprintf(d, sizeof d, "%+.2f", r[i].diff_pts);
        snprintf(name, sizeof name, "%s%s", r[i].name,
                 r[i].kind == LAT_FLAME_THREAD ? " (thread)" : "");
        const char *row[] = {name, a, b, d};
        rc = lat_report_table_row(rep, row);
    }
    if (!rc) {
        snprintf(buf, sizeof buf,
                 "profiles differ by at most %.1f points of share in any frame%s%s%s", max,
                 n && max > 0 ? " (" : "", n && max > 0 ? r[0].name : "", n && max > 0 ? ")" : "");
        rc = lat_report_verdict(rep, LAT_VERDICT_INFO, buf);
    }
    lat_flame_diff_destroy(r);
    return rc;
}
