/* test_linewrap.c - line-wrapping streams (core/linewrap.c): a line over the
 * width is broken at the last space that fits, its continuations indented by
 * four; short lines pass untouched; a word longer than the width is left
 * whole; an unfinished line is forwarded at close; a write error of the
 * target stream makes the wrapper's writes and close fail. */
#include "lat_test.h"

#include "latlab/linewrap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* What text, written through a wrapper of width to a memory stream, becomes. */
static char *wrapped(const char *text, size_t width) {
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    assert_non_null(mem);
    FILE *w = lat_linewrap_create(mem, width);
    assert_non_null(w);
    assert_int_equal(fputs(text, w) >= 0, 1);
    assert_int_equal(fclose(w), 0);
    assert_int_equal(fclose(mem), 0);
    return buf;
}

static void expect(const char *text, size_t width, const char *want) {
    char *got = wrapped(text, width);
    assert_string_equal(got, want);
    free(got);
}

static void test_short_lines_untouched(void **state) {
    (void)state;
    expect("short line\n\n  indented, still short\n", 30,
           "short line\n\n  indented, still short\n");
    /* exactly the width: not broken */
    expect("aaaa bbbb cccc dddd\n", 20, "aaaa bbbb cccc dddd\n");
}

static void test_long_lines_broken_at_spaces(void **state) {
    (void)state;
    expect("aaaa bbbb cccc dddd eeee ffff\n", 20, "aaaa bbbb cccc dddd\n    eeee ffff\n");
    /* three pieces: every continuation indented by four, within the width */
    expect("one two three four five six seven eight nine ten eleven\n", 20,
           "one two three four\n    five six seven\n    eight nine ten\n    eleven\n");
    /* a width under 20 counts as 20 */
    expect("aaaa bbbb cccc dddd eeee ffff\n", 5, "aaaa bbbb cccc dddd\n    eeee ffff\n");
}

static void test_long_word_left_whole(void **state) {
    (void)state;
    const char *word = "abcdefghijklmnopqrstuvwxyz0123456789"; /* 36 > 20 */
    char in[128], want[128];
    snprintf(in, sizeof in, "%s tail\n", word);
    snprintf(want, sizeof want, "%s\n    tail\n", word);
    expect(in, 20, want);
    snprintf(in, sizeof in, "x %s\n", word);
    snprintf(want, sizeof want, "x\n    %s\n", word);
    expect(in, 20, want);
}

static void test_unfinished_line_forwarded(void **state) {
    (void)state;
    expect("done\npartial", 20, "done\npartial");
}

static void test_write_error_propagates(void **state) {
    (void)state;
    FILE *full = fopen("/dev/full", "w");
    if (!full) LAT_SKIP("no /dev/full");
    FILE *w = lat_linewrap_create(full, 40);
    assert_non_null(w);
    errno = 0;
    int put = fputs("a line that cannot be written\n", w); /* line-buffered: written now */
    if (put != EOF) assert_int_equal(fflush(w), EOF);
    assert_int_equal(errno, ENOSPC); /* the target's errno, kept */
    assert_true(ferror(w));
    assert_int_equal(fclose(w), EOF);
    fclose(full);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_short_lines_untouched),
        cmocka_unit_test(test_long_lines_broken_at_spaces),
        cmocka_unit_test(test_long_word_left_whole),
        cmocka_unit_test(test_unfinished_line_forwarded),
        cmocka_unit_test(test_write_error_propagates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
