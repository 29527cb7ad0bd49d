/* test_atomicfile.c - atomic result files (core/atomicfile.c): a file being
 * written is invisible until committed, then appears whole; an aborted or
 * failed write (the file size limit hit mid-way) leaves the old file as it
 * was and no temporary behind; a temporary left by a dead process is removed
 * by the next open; a device is written in place, a directory refused;
 * lat_mkdir_p makes parents and accepts existing folders. */
#include "lat_test.h"

#include "latlab/atomicfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[4096];

/* A fresh folder per case, so temporaries are counted for that case only. */
static const char *fresh_dir(const char *name) {
    snprintf(dir, sizeof dir, "%s/%s", lat_test_tmpdir(), name);
    assert_int_equal(lat_mkdir_p(dir), 0);
    return dir;
}

static const char *in_dir(const char *name) {
    static char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

/* The file's content ("" when absent), into a static buffer. */
static const char *content(const char *path) {
    static char buf[1 << 17];
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return buf;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static int temporaries(void) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strstr(e->d_name, ".tmp.") != NULL;
    closedir(d);
    return n;
}

static void test_appears_whole_at_commit(void **s) {
    (void)s;
    fresh_dir("whole");
    const char *path = in_dir("result.txt");
    assert_int_equal(lat_write_text_atomic(path, "old\n"), 0);
    assert_string_equal(content(path), "old\n");
    assert_int_equal(temporaries(), 0);
    lat_afile *f = NULL;
    assert_int_equal(lat_afile_open(path, &f), 0);
    fputs("new, first half ", lat_afile_stream(f));
    fflush(lat_afile_stream(f));
    assert_string_equal(content(path), "old\n"); /* a reader sees the old file */
    assert_int_equal(temporaries(), 1);          /* the new one grows beside it */
    fputs("and second half\n", lat_afile_stream(f));
    assert_int_equal(lat_afile_commit(f), 0);
    assert_string_equal(content(path), "new, first half and second half\n");
    assert_int_equal(temporaries(), 0);
    assert_int_equal(lat_afile_commit(NULL), -EINVAL);
}

static void test_abort_keeps_old(void **s) {
    (void)s;
    fresh_dir("abort");
    const char *path = in_dir("result.txt");
    lat_afile *f = NULL;
    assert_int_equal(lat_afile_open(path, &f), 0);
    fputs("never seen\n", lat_afile_stream(f));
    lat_afile_abort(f);
    assert_int_equal(access(path, F_OK), -1); /* no file appeared */
    assert_int_equal(temporaries(), 0);
    assert_int_equal(lat_write_text_atomic(path, "old\n"), 0);
    assert_int_equal(lat_afile_open(path, &f), 0);
    fputs("never seen\n", lat_afile_stream(f));
    lat_afile_abort(f);
    assert_string_equal(content(path), "old\n");
    assert_int_equal(temporaries(), 0);
    lat_afile_abort(NULL);
}

/* The file size limit makes the write fail part-way (EFBIG, as a full disk
 * would with ENOSPC), also for root. */
static void test_failed_write_keeps_old(void **s) {
    (void)s;
    fresh_dir("failed");
    const char *path = in_dir("result.txt");
    assert_int_equal(lat_write_text_atomic(path, "old\n"), 0);
    static char big[1 << 16];
    memset(big, 'x', sizeof big);
    struct rlimit was, lim;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
    lim = was;
    lim.rlim_cur = 4096;
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    int rc = lat_write_file_atomic(path, big, sizeof big);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &was), 0);
    signal(SIGXFSZ, old_handler);
    assert_true(rc < 0);
    assert_string_equal(content(path), "old\n");
    assert_int_equal(temporaries(), 0);
    /* without the limit the same write goes through, whole */
    assert_int_equal(lat_write_file_atomic(path, big, sizeof big), 0);
    assert_int_equal(strlen(content(path)), sizeof big);
}

static void test_dead_process_temporary_removed(void **s) {
    (void)s;
    fresh_dir("stale");
    const char *path = in_dir("result.txt");
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) _exit(0);
    assert_int_equal(waitpid(child, NULL, 0), child);
    char stale[4300], live[4300];
    snprintf(stale, sizeof stale, "%s.tmp.%ld.AAAAAA", path, (long)child);
    snprintf(live, sizeof live, "%s.tmp.%ld.BBBBBB", path, (long)getpid());
    assert_int_equal(lat_write_text_atomic(stale, "killed run\n"), 0);
    assert_int_equal(lat_write_text_atomic(live, "ours\n"), 0);
    assert_int_equal(temporaries(), 2);
    assert_int_equal(lat_write_text_atomic(path, "done\n"), 0);
    assert_int_equal(access(stale, F_OK), -1); /* the dead process's: removed */
    assert_int_equal(access(live, F_OK), 0);   /* a live process's: kept */
    assert_string_equal(content(path), "done\n");
    unlink(live);
}

static void test_devices_and_folders(void **s) {
    (void)s;
    fresh_dir("special");
    assert_int_equal(lat_write_text_atomic("/dev/null", "discarded\n"), 0);
    struct stat st;
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode)); /* written in place, not replaced */
    assert_int_equal(lat_write_text_atomic(dir, "x"), -EISDIR);
    const char *deep = in_dir("a/b/c");
    assert_int_equal(lat_mkdir_p(deep), 0);
    assert_int_equal(stat(deep, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(lat_mkdir_p(deep), 0); /* existing: fine */
    assert_int_equal(temporaries(), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_appears_whole_at_commit),
        cmocka_unit_test(test_abort_keeps_old),
        cmocka_unit_test(test_failed_write_keeps_old),
        cmocka_unit_test(test_dead_process_temporary_removed),
        cmocka_unit_test(test_devices_and_folders),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
