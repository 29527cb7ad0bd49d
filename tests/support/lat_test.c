/* lat_test.c - test helpers: counting allocator, CPU count, temporary dirs. */
#include "lat_test.h"

#include "latlab/alloccount.h"
#include "latlab/atomicfile.h"
#include "latlab/hist.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The counting allocator itself is latlab's (latlab/alloccount.h), linked
 * into every test executable. */
int lat_alloc_count_available(void) {
    return lat_alloccount_available();
}
void lat_alloc_count_begin(void) {
    lat_alloccount_begin();
}
uint64_t lat_alloc_count_end(void) {
    return lat_alloccount_end();
}

int lat_test_cpus(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
    return CPU_COUNT(&set);
}

int lat_test_is_root(void) {
    return geteuid() == 0;
}

static char tmpdir[256];

static void rm_tmpdir(void) {
    if (tmpdir[0]) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0) {
        }
    }
}

const char *lat_test_tmpdir(void) {
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/lattest.XXXXXX");
        if (!mkdtemp(tmpdir)) abort();
        atexit(rm_tmpdir);
    }
    return tmpdir;
}

int lat_test_put_file(const char *path, const char *text) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        int rc = lat_mkdir_p(dir);
        if (rc) return errno = -rc, -1;
    }
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    int bad = fprintf(f, "%s\n", text) < 0;
    return fclose(f) || bad ? -1 : 0;
}

int lat_test_xml_check(const char *text) {
    if (system("command -v xmllint >/dev/null 2>&1") != 0) return -1;
    char path[512];
    snprintf(path, sizeof path, "%s/xmlcheck.xml", lat_test_tmpdir());
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    fputs(text, f);
    if (fclose(f)) return 0;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "xmllint --noout '%s'", path);
    return system(cmd) == 0;
}

int lat_test_hist_equal(const lat_hist *a, const lat_hist *b) {
    if (!lat_hist_same_geometry(a, b) || a->total_count != b->total_count ||
        lat_hist_min(a) != lat_hist_min(b) || lat_hist_max(a) != lat_hist_max(b))
        return 0;
    for (int32_t i = 0; i < a->counts_len; i++)
        if (a->counts[i] != b->counts[i]) return 0;
    return 1;
}
