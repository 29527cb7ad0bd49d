/* perf_threads.c - per-thread counter sets of a process, found by polling
 * /proc (perf_threads.h), as `latlab stat --per-thread` reports them. */
#include "latlab/perf_threads.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_internal.h"

int lat_perf_threads_init(lat_perf_threads *t, pid_t pid, const char *events) {
    memset(t, 0, sizeof *t);
    t->pid = pid;
    t->events = events;
    t->v = lat__calloc(LAT_PERF_THREADS_MAX, sizeof *t->v);
    return t->v ? 0 : -ENOMEM;
}

void lat_perf_threads_fini(lat_perf_threads *t) {
    if (!t) return;
    for (int k = 0; k < t->n; k++)
        lat_perf_destroy(t->v[k].p);
    lat__free(t->v);
    memset(t, 0, sizeof *t);
}

static void read_comm(pid_t pid, pid_t tid, char *buf, size_t len) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/comm", (int)pid, (int)tid);
    FILE *f = fopen(path, "r");
    if (!f) return;
    if (fgets(buf, (int)len, f)) buf[strcspn(buf, "\n")] = 0;
    fclose(f);
}

int lat_perf_threads_poll(lat_perf_threads *t, bool at_exec) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)t->pid);
    DIR *d = t->v ? opendir(path) : NULL;
    if (!d) return -ENOENT;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        pid_t tid = (pid_t)atoi(de->d_name);
        int k;
        for (k = 0; k < t->n && t->v[k].tid != tid; k++) {
        }
        if (k < t->n) {
            read_comm(t->pid, tid, t->v[k].comm, sizeof t->v[k].comm);
            continue;
        }
        if (t->n == LAT_PERF_THREADS_MAX) break;
        lat_perf_opts o = {.pid = tid, .enable_on_exec = at_exec};
        lat_perf_thread *th = &t->v[t->n];
        if (lat_perf_create(&th->p, t->events, &o)) continue;
        if (!at_exec) lat_perf_start(th->p);
        th->tid = tid;
        snprintf(th->comm, sizeof th->comm, "?");
        read_comm(t->pid, tid, th->comm, sizeof th->comm);
        t->n++;
    }
    closedir(d);
    return t->n;
}
