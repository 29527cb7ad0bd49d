/* lat_test.h - shared helpers for latlab's cmocka tests.
 *
 * Include this instead of cmocka.h.  LAT_SKIP(reason) prints "SKIPPED: reason"
 * and marks the test skipped (never a silent pass).  The counting allocator
 * counts malloc/calloc/realloc/free calls made by the calling thread while
 * counting is on (latlab/alloccount.h interposes the C library's allocator), so it is unavailable
 * under AddressSanitizer (lat_alloc_count_available() says so). */
#ifndef LAT_TEST_H
#define LAT_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#define LAT_SKIP(...)                                                                              \
    do {                                                                                           \
        printf("SKIPPED: ");                                                                       \
        printf(__VA_ARGS__);                                                                       \
        printf("\n");                                                                              \
        fflush(stdout);                                                                            \
        skip();                                                                                    \
    } while (0)

/* 1 when the counting allocator works in this build (not under ASan/TSan). */
int lat_alloc_count_available(void);
/* Start/stop counting allocations made by the calling thread. */
void lat_alloc_count_begin(void);
uint64_t lat_alloc_count_end(void); /* allocation calls since begin */

/* Online CPU count (sched_getaffinity). */
int lat_test_cpus(void);
/* 1 when running as root. */
int lat_test_is_root(void);
/* Path of a fresh temporary directory (removed at exit). */
const char *lat_test_tmpdir(void);
/* Write text and a newline to path, making its parent folders (fake sysfs
 * trees).  0, or -1 with errno. */
int lat_test_put_file(const char *path, const char *text);
/* Is text well-formed XML (xmllint --noout)?  1 yes, 0 no, -1 xmllint missing. */
int lat_test_xml_check(const char *text);

/* Place a pipeline config's compact shape on two CPUs, each hot thread pinned
 * on its own (lat_pipe_place): 1 done, 0 when this machine cannot.  In
 * lat_test_pipe.c: tests of the measure floor and above only. */
struct lat_pipe_config;
int lat_test_place_compact(struct lat_pipe_config *c);

/* 1 when a and b have the same geometry, total, min, max and every count. */
struct lat_hist;
int lat_test_hist_equal(const struct lat_hist *a, const struct lat_hist *b);

#endif
