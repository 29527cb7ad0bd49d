/* bench_wal.c - a write-ahead log with group commit, in the IO measurement
 * domain: appender threads add a 128-byte record each and wait until it is
 * durable; one flusher thread writes everything pending to a real file in a
 * temporary directory and fsyncs it (one "barrier" per fsync).
 *
 * The lifecycle observer owns the scenario's state outside the timed window:
 * before_sample truncates the log and zeroes the telemetry; after_sample runs
 * once every worker joined (the flusher drains what is pending before it
 * returns) and reports writes_per_barrier (records made durable per fsync)
 * and fsync_service_ms (mean fsync time), which the harness keeps per sample
 * and aggregates in the "scenario" section.  Warm-up samples report too; the
 * harness drops those.  Storage facts go in metadata: the filesystem and
 * direct_io=false.  Directory: $TMPDIR, else /var/tmp. */
#include "latlab/bench.h"

#include "latlab/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#define RECORD_BYTES 128
#define MAX_PENDING 64

typedef struct wal {
    pthread_mutex_t mu;
    pthread_cond_t flushed; /* appenders wait here for durability */
    pthread_cond_t work;    /* the flusher waits here for records */
    int fd;
    uint64_t appended; /* records handed to the log */
    uint64_t durable;  /* records known to be on disk */
    bool flusher_done;
    /* telemetry, reset per sample */
    uint64_t barriers;
    uint64_t fsync_ns;
    uint64_t records_flushed;
    char buf[MAX_PENDING * RECORD_BYTES];
} wal;

static char wal_path[512];

static int wal_prepare(void *arg, uint32_t threads, void **ctx) {
    (void)arg;
    (void)threads;
    wal *w = calloc(1, sizeof *w);
    if (!w) return -ENOMEM;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->flushed, NULL);
    pthread_cond_init(&w->work, NULL);
    w->fd = open(wal_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (w->fd < 0) {
        int e = -errno;
        free(w);
        return e;
    }
    memset(w->buf, 'w', sizeof w->buf);
    *ctx = w;
    return 0;
}

static void wal_release(void *arg, void *ctx) {
    (void)arg;
    wal *w = ctx;
    close(w->fd);
    pthread_cond_destroy(&w->work);
    pthread_cond_destroy(&w->flushed);
    pthread_mutex_destroy(&w->mu);
    free(w);
}

static void appender(void *ctx, const lat_bench_control *ctl, lat_bench_worker_result *out) {
    wal *w = ctx;
    uint64_t ops = 0;
    pthread_mutex_lock(&w->mu);
    while (!lat_bench_should_stop(ctl) && !w->flusher_done) {
        uint64_t mine = ++w->appended;
        pthread_cond_signal(&w->work);
        while (w->durable < mine && !w->flusher_done)
            pthread_cond_wait(&w->flushed, &w->mu);
        if (w->durable >= mine) ops++;
    }
    pthread_mutex_unlock(&w->mu);
    out->operations = ops;
}

static void flusher(void *ctx, const lat_bench_control *ctl, lat_bench_worker_result *out) {
    wal *w = ctx;
    uint64_t ops = 0;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (w->appended == w->durable && !lat_bench_should_stop(ctl)) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 1000000; /* re-check the stop flag every 1 ms */
            if (ts.tv_nsec >= 1000000000) ts.tv_sec++, ts.tv_nsec -= 1000000000;
            pthread_cond_timedwait(&w->work, &w->mu, &ts);
        }
        if (w->appended == w->durable) break; /* stopped and drained */
        uint64_t upto = w->appended, n = upto - w->durable;
        pthread_mutex_unlock(&w->mu);
        size_t bytes = (size_t)(n > MAX_PENDING ? MAX_PENDING : n) * RECORD_BYTES;
        ssize_t wr = write(w->fd, w->buf, bytes);
        uint64_t t0 = lat_mono_ns();
        int frc = fsync(w->fd);
        uint64_t t1 = lat_mono_ns();
        pthread_mutex_lock(&w->mu);
        if (wr < 0 || frc != 0) break; /* appenders are released below */
        w->durable = upto;
        w->barriers++;
        w->fsync_ns += t1 - t0;
        w->records_flushed += n;
        ops++;
        pthread_cond_broadcast(&w->flushed);
    }
    w->flusher_done = true;
    pthread_cond_broadcast(&w->flushed);
    pthread_mutex_unlock(&w->mu);
    out->operations = ops;
    lat_bench_count(out, "fsync", ops);
}

static void before_sample(void *ud, void *ctx, const lat_bench_sample_info *info) {
    (void)ud;
    (void)info;
    wal *w = ctx;
    if (ftruncate(w->fd, 0) != 0) { /* a fresh log per sample */
    }
    w->barriers = w->fsync_ns = w->records_flushed = 0;
}

static void after_sample(void *ud, void *ctx, const lat_bench_sample_info *info,
                         lat_bench_metrics *out) {
    (void)ud;
    wal *w = ctx;
    /* Quiescent: every worker joined and the flusher drained before returning. */
    if (info->phase == LAT_BENCH_WARMUP) return; /* the harness would drop them anyway */
    double wpb = w->barriers ? (double)w->records_flushed / (double)w->barriers : 0;
    double fms = w->barriers ? (double)w->fsync_ns / (double)w->barriers / 1e6 : 0;
    lat_bench_metric(out, "writes_per_barrier", wpb, "writes");
    lat_bench_metric(out, "fsync_service_ms", fms, "ms");
}

static const char *fs_name(const char *dir) {
    struct statfs s;
    if (statfs(dir, &s) != 0) return "unknown";
    switch ((unsigned long)s.f_type) {
    case EXT4_SUPER_MAGIC:
        return "ext4"; /* also ext2/ext3: same magic */
    case TMPFS_MAGIC:
        return "tmpfs";
    case OVERLAYFS_SUPER_MAGIC:
        return "overlay";
    case XFS_SUPER_MAGIC:
        return "xfs";
    case BTRFS_SUPER_MAGIC:
        return "btrfs";
    default:
        return "other";
    }
}

static char tmpdir[256];

static void cleanup(void) {
    if (wal_path[0]) unlink(wal_path);
    if (tmpdir[0]) rmdir(tmpdir);
}

static int reg(lat_bench_runner *r) {
    const char *base = getenv("TMPDIR");
    if (!base || !*base) base = "/var/tmp";
    snprintf(tmpdir, sizeof tmpdir, "%s/latlab-wal.XXXXXX", base);
    if (!mkdtemp(tmpdir)) return -errno;
    snprintf(wal_path, sizeof wal_path, "%s/wal.log", tmpdir);
    atexit(cleanup);

    static const lat_bench_worker workers[] = {
        {"appender", 3, appender},
        {"flusher", 1, flusher},
    };
    lat_bench_group *g = lat_bench_concurrent_group_create(r, "Storage");
    if (!g) return -ENOMEM;
    int rc;
    if ((rc = lat_bench_group_domain(g, LAT_BENCH_IO)) ||
        (rc = lat_bench_group_metadata(g, "filesystem", fs_name(tmpdir))) ||
        (rc = lat_bench_group_metadata(g, "direct_io", "false")) ||
        (rc = lat_bench_group_sample_duration(g, 50000000ull)) ||
        (rc = lat_bench_group_lifecycle(g,
                                        &(lat_bench_lifecycle){before_sample, after_sample, NULL})))
        return rc;
    return lat_bench_add_concurrent(g, &(lat_bench_concurrent_def){
                                           .name = "wal_group_commit",
                                           .workers = workers,
                                           .n_workers = 2,
                                           .prepare = wal_prepare,
                                           .release = wal_release,
                                       });
}

LAT_BENCH_MAIN_FLAGS("wal", reg, LAT_BENCH_MAIN_QUICK)
