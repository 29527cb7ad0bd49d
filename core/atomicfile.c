/* atomicfile.c - temporary file + fsync + rename (see atomicfile.h), and a
 * signal-safe registry of the temporary files being written, so that an
 * interrupted program removes them (lat_afile_cleanup_on_signals). */
#include "latlab/atomicfile.h"

#include "alloc_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct lat_afile {
    FILE *fp;
    char *path;
    char *tmp;
    int slot; /* in the registry, or -1 when it was full */
};

/* ---- registry of open temporary files ---------------------------------------------
 * A slot holds copies of a temporary file's name and its target's while the
 * temporary file exists (the handler never touches heap memory that the
 * program may be freeing).  State: 0 free, 1 being filled, 2 live.  The
 * signal handler only loads states and calls unlink(2) and write(2), both
 * async-signal-safe; a slot goes back to 0 before its file is renamed or
 * removed, so the handler never removes a committed file. */
#define REGISTRY_SLOTS 64
static _Atomic int ever_opened; /* say what was kept only where files were written */
#define REGISTRY_PATH 4096
static struct {
    _Atomic int state;
    char tmp[REGISTRY_PATH];
    char path[REGISTRY_PATH];
} registry[REGISTRY_SLOTS];

static int registry_add(const lat_afile *f) {
    if (strlen(f->tmp) >= REGISTRY_PATH || strlen(f->path) >= REGISTRY_PATH) return -1;
    for (int i = 0; i < REGISTRY_SLOTS; i++) {
        int free_slot = 0;
        if (!atomic_compare_exchange_strong(&registry[i].state, &free_slot, 1)) continue;
        atomic_store(&ever_opened, 1);
        strcpy(registry[i].tmp, f->tmp);
        strcpy(registry[i].path, f->path);
        atomic_store(&registry[i].state, 2);
        return i;
    }
    return -1;
}

static void registry_remove(lat_afile *f) {
    if (f->slot >= 0) atomic_store(&registry[f->slot].state, 0);
    f->slot = -1;
}

/* The cleanup signals are held while a temporary file is created and
 * registered, and while it is unregistered and renamed: a signal then comes
 * before (nothing to remove) or after (the handler removes it). */
static void hold_signals(sigset_t *old) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

static void release_signals(const sigset_t *old) {
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

static void say(const char *s) {
    ssize_t n = write(STDERR_FILENO, s, strlen(s));
    (void)n;
}

static void on_fatal_signal(int sig) {
    int removed = 0;
    for (int i = 0; i < REGISTRY_SLOTS; i++) {
        int live = 2;
        if (!atomic_compare_exchange_strong(&registry[i].state, &live, 1)) continue;
        unlink(registry[i].tmp);
        say(removed++ ? " " : "latlab: interrupted: unfinished output discarded, left as it was: ");
        say(registry[i].path);
    }
    if (removed) say("\n");
    if (atomic_load(&ever_opened))
        say("latlab: interrupted: every file completed before the signal is kept\n");
    signal(sig, SIG_DFL);
    raise(sig);
}

int lat_afile_cleanup_on_signals(void) {
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        if (sigaction(sigs[i], NULL, &old) != 0) return -errno;
        if (old.sa_handler == SIG_IGN) continue; /* e.g. nohup: keep ignoring */
        if (sigaction(sigs[i], &sa, NULL) != 0) return -errno;
    }
    return 0;
}

/* A target that exists and is not a regular file (/dev/null, a FIFO, a
 * terminal) is written in place: renaming over it would replace the device. */
static int open_in_place(const char *path, lat_afile **out) {
    lat_afile *f = lat__calloc(1, sizeof *f);
    if (!f) return -ENOMEM;
    f->slot = -1; /* nothing to remove on a signal */
    f->fp = fopen(path, "w");
    if (!f->fp) {
        int e = errno;
        lat__free(f);
        return -e;
    }
    *out = f; /* path and tmp stay NULL: commit only flushes and closes */
    return 0;
}

/* Temporaries are "<path>.tmp.<pid>.XXXXXX".  One whose process no longer
 * exists was left by a killed run (SIGKILL, a crash): removed when the same
 * target is written again, if it is a regular file of ours (same user).
 * Another process's live temporary, or one of another naming, is left alone. */
static void remove_stale(const char *path) {
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char dir[4096];
    if (slash && (size_t)(slash - path) >= sizeof dir) return;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    DIR *d = opendir(*dir ? dir : "/");
    if (!d) return;
    size_t bl = strlen(base);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *t = e->d_name;
        if (strncmp(t, base, bl) != 0 || strncmp(t + bl, ".tmp.", 5) != 0) continue;
        char *end;
        long pid = strtol(t + bl + 5, &end, 10);
        if (end == t + bl + 5 || *end != '.' || strlen(end + 1) != 6 || pid <= 0) continue;
        if (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        struct stat st;
        if (fstatat(dirfd(d), t, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
            st.st_uid == geteuid())
            unlinkat(dirfd(d), t, 0);
    }
    closedir(d);
}

int lat_afile_open(const char *path, lat_afile **out) {
    if (!path || !*path || !out) return -EINVAL;
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) return -EISDIR;
        if (!S_ISREG(st.st_mode)) return open_in_place(path, out);
    }
    lat_afile *f = lat__calloc(1, sizeof *f);
    if (!f) return -ENOMEM;
    size_t n = strlen(path);
    f->path = lat__strdup(path);
    f->tmp = lat__alloc(n + 40);
    if (!f->path || !f->tmp) goto fail_nomem;
    remove_stale(path);
    snprintf(f->tmp, n + 40, "%s.tmp.%ld.XXXXXX", path, (long)getpid());
    sigset_t held;
    hold_signals(&held);
    int fd = mkstemp(f->tmp);
    f->slot = fd >= 0 ? registry_add(f) : -1;
    release_signals(&held);
    if (fd < 0) {
        int e = errno;
        lat__free(f->tmp);
        lat__free(f->path);
        lat__free(f);
        return -e;
    }
    (void)fchmod(fd, 0644);
    f->fp = fdopen(fd, "w");
    if (!f->fp) {
        int e = errno;
        registry_remove(f);
        close(fd);
        unlink(f->tmp);
        lat__free(f->tmp);
        lat__free(f->path);
        lat__free(f);
        return -e;
    }
    *out = f;
    return 0;
fail_nomem:
    lat__free(f->tmp);
    lat__free(f->path);
    lat__free(f);
    return -ENOMEM;
}

FILE *lat_afile_stream(lat_afile *f) {
    return f ? f->fp : NULL;
}

static void afile_free(lat_afile *f) {
    lat__free(f->tmp);
    lat__free(f->path);
    lat__free(f);
}

int lat_afile_commit(lat_afile *f) {
    if (!f) return -EINVAL;
    int rc = 0;
    if (ferror(f->fp) || fflush(f->fp) != 0) rc = errno ? -errno : -EIO;
    if (rc == 0 && fsync(fileno(f->fp)) != 0 && errno != EINVAL) rc = -errno;
    if (fclose(f->fp) != 0 && rc == 0) rc = -errno;
    sigset_t held;
    hold_signals(&held);
    registry_remove(f);
    if (rc == 0 && f->tmp && rename(f->tmp, f->path) != 0) rc = -errno;
    if (rc != 0 && f->tmp) unlink(f->tmp);
    release_signals(&held);
    afile_free(f);
    return rc;
}

void lat_afile_abort(lat_afile *f) {
    if (!f) return;
    fclose(f->fp);
    sigset_t held;
    hold_signals(&held);
    registry_remove(f);
    if (f->tmp) unlink(f->tmp);
    release_signals(&held);
    afile_free(f);
}

int lat_write_file_atomic(const char *path, const void *data, size_t len) {
    lat_afile *f;
    int rc = lat_afile_open(path, &f);
    if (rc) return rc;
    if (len && fwrite(data, 1, len, f->fp) != len) {
        rc = errno ? -errno : -EIO;
        lat_afile_abort(f);
        return rc;
    }
    return lat_afile_commit(f);
}

int lat_write_text_atomic(const char *path, const char *text) {
    return lat_write_file_atomic(path, text, text ? strlen(text) : 0);
}

int lat_mkdir_p(const char *path) {
    if (!path || !*path) return -EINVAL;
    char *p = lat__strdup(path);
    if (!p) return -ENOMEM;
    int rc = 0;
    for (char *s = p + 1;; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s = '\0';
            if (mkdir(p, 0755) != 0 && errno != EEXIST) {
                rc = -errno;
                break;
            }
            *s = c;
            if (c == '\0') break;
        }
    }
    if (rc == 0) {
        struct stat st;
        if (stat(path, &st) != 0)
            rc = -errno;
        else if (!S_ISDIR(st.st_mode))
            rc = -ENOTDIR;
    }
    lat__free(p);
    return rc;
}
