/* cli.c - messages, strict number parsing and option errors shared by every
 * latlab subcommand (see cli.h). */
#include "cli.h"

#include "latlab/error.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "latlab %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'latlab help %s'.\n", cmd);
    return CLI_USAGE;
}

int cli_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "latlab %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return CLI_ERR;
}

void cli_warn(const char *cmd, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "latlab %s: warning: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static int progress_shown;

void cli_progress(const char *fmt, ...) {
    if (!isatty(STDERR_FILENO)) return;
    va_list ap;
    fputs("\r\033[K", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
    progress_shown = 1;
}

void cli_progress_done(void) {
    if (progress_shown && isatty(STDERR_FILENO)) fputs("\r\033[K", stderr);
    progress_shown = 0;
}

int cli_getopt_fail(const char *cmd, int c, char **argv) {
    extern int optind, optopt;
    const char *arg = optind > 0 ? argv[optind - 1] : NULL;
    /* A long option: name it as typed (getopt_long sets optopt to its value
     * code, which would print as a short option the user never typed). */
    if (arg && arg[0] == '-' && arg[1] == '-') {
        int len = (int)strcspn(arg, "=");
        if (c == ':') return cli_usage_error(cmd, "option '%.*s' needs a value", len, arg);
        return cli_usage_error(cmd, "unknown option '%.*s'", len, arg);
    }
    if (c == ':') return cli_usage_error(cmd, "option '-%c' needs a value", optopt);
    if (optopt) return cli_usage_error(cmd, "unknown option '-%c'", optopt);
    return cli_usage_error(cmd, "unknown option '%s'", arg ? arg : "?");
}

int cli_parse_u64(const char *cmd, const char *flag, const char *s, uint64_t min, uint64_t max,
                  uint64_t *out) {
    if (!s || !*s) return cli_usage_error(cmd, "%s: needs a number", flag);
    if (*s == '-') return cli_usage_error(cmd, "%s: '%s' must not be negative", flag, s);
    if (*s == '+' || *s == ' ' || *s == '\t')
        return cli_usage_error(cmd, "%s: '%s' is not a number", flag, s);
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end) return cli_usage_error(cmd, "%s: '%s' is not a whole number", flag, s);
    if (errno == ERANGE || v > max || v < min)
        return cli_usage_error(cmd, "%s: %s is out of range (%llu..%llu)", flag, s,
                               (unsigned long long)min, (unsigned long long)max);
    *out = v;
    return 0;
}

int cli_parse_int(const char *cmd, const char *flag, const char *s, int min, int max, int *out) {
    if (!s || !*s) return cli_usage_error(cmd, "%s: needs a number", flag);
    if (*s == '+' || *s == ' ' || *s == '\t')
        return cli_usage_error(cmd, "%s: '%s' is not a number", flag, s);
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end) return cli_usage_error(cmd, "%s: '%s' is not a whole number", flag, s);
    if (errno == ERANGE || v < min || v > max)
        return cli_usage_error(cmd, "%s: %s is out of range (%d..%d)", flag, s, min, max);
    *out = (int)v;
    return 0;
}

/* Plain decimal notation only (as the integer flags): digits, one point, an
 * exponent; no hex ("0x10"), no leading '+', no inf/nan words.  n: the
 * number's length in s. */
static bool plain_decimal(const char *s, size_t n) {
    if (n == 0 || s[0] == '+') return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool sign_ok = (c == '-' && i == 0) ||
                       ((c == '-' || c == '+') && i > 0 && (s[i - 1] == 'e' || s[i - 1] == 'E'));
        if (!(c >= '0' && c <= '9') && c != '.' && c != 'e' && c != 'E' && !sign_ok) return false;
    }
    return true;
}

int cli_parse_double(const char *cmd, const char *flag, const char *s, double min, double max,
                     double *out) {
    if (!s || !*s) return cli_usage_error(cmd, "%s: needs a number", flag);
    if (!plain_decimal(s, strlen(s)))
        return cli_usage_error(cmd, "%s: '%s' is not a decimal number", flag, s);
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end) return cli_usage_error(cmd, "%s: '%s' is not a number", flag, s);
    if (errno == ERANGE || isnan(v) || isinf(v) || v < min || v > max)
        return cli_usage_error(cmd, "%s: %s is out of range (%g..%g)", flag, s, min, max);
    *out = v;
    return 0;
}

int cli_parse_duration_ns(const char *cmd, const char *flag, const char *s, uint64_t *out_ns) {
    if (!s || !*s) return cli_usage_error(cmd, "%s: needs a duration", flag);
    if (*s == '-') return cli_usage_error(cmd, "%s: '%s' must not be negative", flag, s);
    if (*s == '+' || *s == ' ' || *s == '\t')
        return cli_usage_error(cmd, "%s: '%s' is not a duration", flag, s);
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno == ERANGE || isnan(v) || isinf(v) || !plain_decimal(s, (size_t)(end - s)))
        return cli_usage_error(cmd, "%s: '%s' is not a duration", flag, s);
    double mul;
    if (!*end || !strcmp(end, "ns"))
        mul = 1;
    else if (!strcmp(end, "us"))
        mul = 1e3;
    else if (!strcmp(end, "ms"))
        mul = 1e6;
    else if (!strcmp(end, "s"))
        mul = 1e9;
    else
        return cli_usage_error(cmd, "%s: '%s' has an unknown unit (use ns, us, ms or s)", flag, s);
    double ns = v * mul;
    if (ns > (double)CLI_DURATION_MAX_NS)
        return cli_usage_error(cmd, "%s: %s is above the maximum duration (%.0f s)", flag, s,
                               (double)CLI_DURATION_MAX_NS / 1e9);
    if (ns > 0 && ns < 0.5)
        return cli_usage_error(cmd, "%s: %s is below 1 ns (the unit of every duration)", flag, s);
    *out_ns = (uint64_t)llround(ns);
    return 0;
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int cli_parse_cpulist(const char *cmd, const char *flag, const char *s, int *cpus, int max,
                      int *n) {
    int count = 0;
    if (!s || !*s) return cli_usage_error(cmd, "%s: needs a CPU list like 0,2-3", flag);
    const char *p = s;
    while (*p) {
        char *end;
        if (*p < '0' || *p > '9')
            return cli_usage_error(cmd, "%s: '%s' is not a CPU list", flag, s);
        long a = strtol(p, &end, 10), b = a;
        if (*end == '-') {
            p = end + 1;
            if (*p < '0' || *p > '9')
                return cli_usage_error(cmd, "%s: '%s' is not a CPU list", flag, s);
            b = strtol(p, &end, 10);
        }
        if (a < 0 || b < a || b > 4095)
            return cli_usage_error(cmd, "%s: bad range in '%s'", flag, s);
        for (long c = a; c <= b; c++) {
            if (count >= max) return cli_usage_error(cmd, "%s: too many CPUs in '%s'", flag, s);
            cpus[count++] = (int)c;
        }
        if (*end == ',') {
            p = end + 1;
            if (!*p) return cli_usage_error(cmd, "%s: '%s' is not a CPU list", flag, s);
        } else if (*end) {
            return cli_usage_error(cmd, "%s: '%s' is not a CPU list", flag, s);
        } else {
            p = end;
        }
    }
    qsort(cpus, (size_t)count, sizeof *cpus, cmp_int);
    int u = 0;
    for (int i = 0; i < count; i++)
        if (u == 0 || cpus[u - 1] != cpus[i]) cpus[u++] = cpus[i];
    *n = u;
    return 0;
}

int cli_lib_error(const char *cmd, const char *what, int err) {
    return cli_error(cmd, "%s: %s", what, lat_strerror(err));
}
