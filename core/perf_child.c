/* perf_child.c - a command run under counters (see perf_child.h). */
#include "latlab/perf_child.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "latlab/error.h"

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* "WHAT: strerror(errno)" into r->err; returns -errno. */
static int fail(lat_perf_child *r, const char *what) {
    int e = errno;
    snprintf(r->err, sizeof r->err, "%s: %s", what, strerror(e));
    return -e;
}

static void fwd_set(sigset_t *set) {
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
}

/* Fork the child, held on the go pipe until its counters are open.  SIGTERM
 * and SIGHUP are held from here on (stat_wait passes them on to the child);
 * the child gets the mask it had. */
int lat_perf_child_start(lat_perf_child *r) {
    if (pipe2(r->go, O_CLOEXEC) || pipe2(r->ex, O_CLOEXEC)) return fail(r, "pipe");
    fflush(NULL);
    sigset_t fwd;
    fwd_set(&fwd);
    sigprocmask(SIG_BLOCK, &fwd, &r->oldmask);
    r->pid = fork();
    if (r->pid < 0) {
        sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
        return fail(r, "fork");
    }
    if (r->pid == 0) {
        char b;
        sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
        close(r->go[1]);
        close(r->ex[0]);
        if (read(r->go[0], &b, 1) != 1) _exit(127);
        execvp(r->cmd[0], r->cmd);
        int e = errno;
        if (write(r->ex[1], &e, sizeof e) < 0) _exit(127);
        _exit(e == ENOENT ? 127 : 126);
    }
    close(r->go[0]);
    close(r->ex[1]);
    return 0;
}

void lat_perf_child_fini(lat_perf_child *r) {
    lat_perf_destroy(r->p);
    lat_perf_threads_fini(&r->ts);
}

/* Open the counters on the child, let it go and wait for it (polling its
 * threads with --per-thread).  0, or the exit status after a message. */
int lat_perf_child_wait(lat_perf_child *r) {
    char err[256];
    lat_perf_opts o = {
        .pid = r->pid, .inherit = true, .enable_on_exec = true, .err = err, .err_len = sizeof err};
    int rc = lat_perf_create(&r->p, r->events, &o);
    if (!rc && r->per_thread && lat_perf_threads_init(&r->ts, r->pid, r->events) == 0)
        lat_perf_threads_poll(&r->ts, true);
    /* Ctrl-C reaches the child (same process group); we stay to report. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    uint64_t t0 = now_ns();
    if (rc == 0 && write(r->go[1], "g", 1) != 1) rc = -errno;
    close(r->go[1]);
    if (rc) { /* the child sees EOF on the pipe and exits 127 */
        waitpid(r->pid, NULL, 0);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
        snprintf(r->err, sizeof r->err, "opening counters: %s", lat_strerror(rc));
        return rc;
    }
    memset(&r->ru, 0, sizeof r->ru);
    /* A SIGTERM or SIGHUP sent to us alone is passed on to the child, which
     * is waited for as usual: its counts are reported, its status is ours. */
    sigset_t fwd;
    fwd_set(&fwd);
    for (;;) {
        pid_t w = wait4(r->pid, &r->status, WNOHANG, &r->ru);
        if (w == r->pid) break;
        if (w < 0 && errno != EINTR) break;
        if (w != 0) continue;
        struct timespec d = {0, 10000000};
        int sig = sigtimedwait(&fwd, NULL, &d);
        if (sig > 0) {
            kill(r->pid, sig);
            if (!r->sig) r->sig = sig;
        }
        if (r->per_thread) lat_perf_threads_poll(&r->ts, false);
    }
    r->wall_ns = now_ns() - t0;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
    return 0;
}

int lat_perf_child_exit(lat_perf_child *r, int *exec_err) {
    *exec_err = 0;
    if (read(r->ex[0], exec_err, sizeof *exec_err) != (ssize_t)sizeof *exec_err) *exec_err = 0;
    close(r->ex[0]);
    if (WIFEXITED(r->status)) return WEXITSTATUS(r->status);
    if (WIFSIGNALED(r->status)) return 128 + WTERMSIG(r->status);
    return 1;
}

int lat_perf_child_read(lat_perf_child *r) {
    r->n = lat_perf_nevents(r->p);
    int rc = lat_perf_read(r->p, r->cnt, r->n);
    lat_perf_derive(r->p, r->cnt, r->n, 0, &r->d);
    int itc = lat_perf_find(r->p, "task-clock"); /* inherit sums enabled time: use the wall */
    if (itc >= 0 && !isnan(r->d.cpu_utilization))
        r->d.cpu_utilization = r->cnt[itc].scaled / (double)(r->wall_ns ? r->wall_ns : 1);
    return rc < 0 ? rc : 0;
}
