/* perf_internal.h - perf.c's test seam: never installed.  Tests reach it
 * through the core/ include path (tests/CMakeLists.txt); programs built
 * against the installed headers cannot see it. */
#ifndef LATLAB_PERF_INTERNAL_H
#define LATLAB_PERF_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>

#include "latlab/perf.h"

/* ---- internal: the kernel interface ------------------------------------------------
 * Every perf_event_open, read, ioctl and close of a counter descriptor goes
 * through this table, so a test can replace the kernel with a scripted PMU
 * (tests/core/test_perf_fake.c: scaling, "not counted", an unschedulable pinned
 * group, EACCES -> exclude_kernel, EINTR, ENOENT reasons) on machines
 * without one.  Each function behaves as the system call: -1 and errno on
 * failure.  NULL restores the real calls.  Set it before opening a set and
 * keep it until the set is closed; not thread-safe. */
typedef struct lat__perf_sys {
    long (*open)(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                 unsigned long flags);
    ssize_t (*read)(int fd, void *buf, size_t len);
    int (*ioctl)(int fd, unsigned long request, uintptr_t arg);
    int (*close)(int fd);
} lat__perf_sys;
void lat__perf_set_sys(const lat__perf_sys *sys);

#endif /* LATLAB_PERF_INTERNAL_H */
