/* cli.c - messages, strict number parsing and option errors shared by every
 * latlab subcommand (see cli.h). */
#include "cli.h"

#include "latlab/error.h"
#include "latlab/linewrap.h"
#include "latlab/topo.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "latlab CMD: <what><message>" on stderr; a usage error adds where help is. */
static void message(const char *cmd, const char *what, bool usage, const char *fmt, va_list ap) {
    fprintf(stderr, "latlab %s: %s", cmd, what);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    if (usage) fprintf(stderr, "Try 'latlab help %s'.\n", cmd);
}

/* The message of a variadic cli_* call (fmt and its arguments). */
#define SAY(cmd, what, usage)                                                                      \
    do {                                                                                           \
        va_list ap;                                                                                \
        va_start(ap, fmt);                                                                         \
        message(cmd, what, usage, fmt, ap);                                                        \
        va_end(ap);                                                                                \
    } while (0)

int cli_usage_error(const char *cmd, const char *fmt, ...) {
    SAY(cmd, "", true);
    return CLI_USAGE;
}

int cli_error(const char *cmd, const char *fmt, ...) {
    SAY(cmd, "", false);
    return CLI_ERR;
}

void cli_warn(const char *cmd, const char *fmt, ...) {
    SAY(cmd, "warning: ", false);
}

void cli_warn_cb(void *cmd, const char *msg) {
    cli_warn(cmd, "%s", msg);
}

volatile sig_atomic_t cli_stop_sig;

static void on_stop(int sig) {
    cli_stop_sig = sig;
}

void cli_stop_catch(const int *sigs, int n, struct sigaction *old) {
    struct sigaction sa = {.sa_handler = on_stop};
    sigemptyset(&sa.sa_mask);
    cli_stop_sig = 0;
    for (int i = 0; i < n; i++)
        sigaction(sigs[i], &sa, &old[i]);
}

void cli_stop_restore(const int *sigs, int n, const struct sigaction *old) {
    for (int i = 0; i < n; i++)
        sigaction(sigs[i], &old[i], NULL);
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

/* After getopt_long returned '?' or ':' (optstring starts with ':'): which
 * option was unknown or lacks its argument; returns 2. */
static int getopt_fail(const char *cmd, int c, char **argv) {
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

/* What every number parser checks first: a value is there, starts with no
 * '+' or blank, and (unless negative_ok) no '-'.  what: "number",
 * "duration".  0, or CLI_USAGE after the message. */
static int check_start(const char *cmd, const char *flag, const char *s, const char *what,
                       bool negative_ok) {
    if (!s || !*s) return cli_usage_error(cmd, "%s: needs a %s", flag, what);
    if (*s == '-' && !negative_ok)
        return cli_usage_error(cmd, "%s: '%s' must not be negative", flag, s);
    if (*s == '+' || *s == ' ' || *s == '\t')
        return cli_usage_error(cmd, "%s: '%s' is not a %s", flag, s, what);
    return 0;
}

static bool plain_decimal(const char *s, size_t n);

/* A whole number written with a point or an exponent ("2e5", "1.5e3",
 * "200000.0"), as the double flags take it: one number syntax for every
 * option.  true and *out when s is such a number, whole and >= 0; *big when
 * it is whole but past UINT64_MAX. */
static bool whole_decimal(const char *s, unsigned long long *out, bool *big) {
    *big = false;
    if (!strpbrk(s, ".eE") || !plain_decimal(s, strlen(s))) return false;
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (end == s || *end || !isfinite(d) || d < 0 || d != floor(d)) return false;
    if (d >= 18446744073709551616.0) {
        *big = true;
        return true;
    }
    *out = (unsigned long long)d;
    return true;
}

int cli_parse_u64(const char *cmd, const char *flag, const char *s, uint64_t min, uint64_t max,
                  uint64_t *out) {
    if (check_start(cmd, flag, s, "number", false)) return CLI_USAGE;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end) {
        bool big;
        if (!whole_decimal(s, &v, &big))
            return cli_usage_error(cmd, "%s: '%s' is not a whole number", flag, s);
        errno = big ? ERANGE : 0;
    }
    if (errno == ERANGE || v > max || v < min)
        return cli_usage_error(cmd, "%s: %s is out of range (%llu..%llu)", flag, s,
                               (unsigned long long)min, (unsigned long long)max);
    *out = v;
    return 0;
}

int cli_parse_int(const char *cmd, const char *flag, const char *s, int min, int max, int *out) {
    if (check_start(cmd, flag, s, "number", true)) return CLI_USAGE;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end) {
        unsigned long long u;
        bool big, neg = *s == '-';
        if (!whole_decimal(neg ? s + 1 : s, &u, &big))
            return cli_usage_error(cmd, "%s: '%s' is not a whole number", flag, s);
        errno = big || u > (unsigned long long)LONG_MAX ? ERANGE : 0;
        v = errno ? 0 : neg ? -(long)u : (long)u;
    }
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
    if (check_start(cmd, flag, s, "duration", false)) return CLI_USAGE;
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

/* The one CPU-list grammar is the library's (lat_cpuset_parse, fuzzed); the
 * command line is stricter only in refusing an empty list and whitespace. */
int cli_parse_cpulist(const char *cmd, const char *flag, const char *s, int *cpus, int max,
                      int *n) {
    if (!s || !*s) return cli_usage_error(cmd, "%s: needs a CPU list like 0,2-3", flag);
    lat_cpuset set;
    if (strpbrk(s, " \t\n") || lat_cpuset_parse(s, &set))
        return cli_usage_error(cmd, "%s: '%s' is not a CPU list (like 0,2-3; CPUs below %d)", flag,
                               s, LAT_MAX_CPUS);
    int count = 0;
    for (int c = lat_cpuset_next(&set, 0); c >= 0; c = lat_cpuset_next(&set, c + 1)) {
        if (count >= max) return cli_usage_error(cmd, "%s: too many CPUs in '%s'", flag, s);
        cpus[count++] = c;
    }
    *n = count;
    return 0;
}

int cli_lib_error(const char *cmd, const char *what, int err) {
    return cli_error(cmd, "%s: %s", what, lat_strerror(err));
}

/* ---- the options table --------------------------------------------------------------- */

#define CLI_MAX_OPTS 64

static int parse_choice(const cli_spec *sp, const cli_opt *o, const char *flag, const char *v) {
    const char *c = o->choices;
    for (int i = 0; c && *c; i++) {
        size_t len = strcspn(c, "|");
        if (strlen(v) == len && !strncmp(c, v, len)) {
            *(int *)o->dest = i;
            return 0;
        }
        c += len + (c[len] == '|');
    }
    return cli_usage_error(sp->name, "%s: '%s' is not one of %s", flag, v, o->choices);
}

/* as_short: the option was given by its short name, which messages then use. */
static int parse_value(const cli_spec *sp, const cli_opt *o, bool as_short, const char *v) {
    char flag[80];
    if (as_short)
        snprintf(flag, sizeof flag, "-%c", o->short_name);
    else
        snprintf(flag, sizeof flag, "--%s", o->name);
    /* "--json -- CMD": the '--' ends the options, it is not the value */
    if (o->kind != CLI_FLAG && v && !strcmp(v, "--"))
        return cli_usage_error(sp->name,
                               "%s: needs a value before '--' (a file named '--' is ./--)", flag);
    bool ranged = o->min != 0 || o->max != 0;
    switch (o->kind) {
    case CLI_FLAG:
        *(bool *)o->dest = true;
        return 0;
    case CLI_U64:
        return cli_parse_u64(sp->name, flag, v, ranged ? (uint64_t)o->min : 0,
                             ranged ? (uint64_t)o->max : UINT64_MAX, o->dest);
    case CLI_INT:
        return cli_parse_int(sp->name, flag, v, ranged ? (int)o->min : INT32_MIN,
                             ranged ? (int)o->max : INT32_MAX, o->dest);
    case CLI_DOUBLE:
        return cli_parse_double(sp->name, flag, v, ranged ? o->min : -HUGE_VAL,
                                ranged ? o->max : HUGE_VAL, o->dest);
    case CLI_DURATION: {
        uint64_t ns;
        if (cli_parse_duration_ns(sp->name, flag, v, &ns)) return CLI_USAGE;
        if ((ranged && (double)ns < o->min) || (o->max > 0 && (double)ns > o->max))
            return cli_usage_error(sp->name, "%s: %s is out of range (%gns..%gns)", flag, v, o->min,
                                   o->max);
        *(uint64_t *)o->dest = ns;
        return 0;
    }
    case CLI_PATH:
        if (!*v)
            return cli_usage_error(sp->name, "%s: needs a %s", flag,
                                   o->metavar && !strcmp(o->metavar, "DIR") ? "directory"
                                                                            : "file name");
        /* fall through */
    case CLI_STRING:
        *(const char **)o->dest = v;
        return 0;
    case CLI_CHOICE:
        return parse_choice(sp, o, flag, v);
    case CLI_CUSTOM:
        return o->parse(sp->name, flag, v, o->dest);
    case CLI_HEADING:
        break;
    }
    return CLI_USAGE;
}

/* Does form f take the option typed as "--name" (len chars) or "-c"? */
static bool form_takes(const cli_spec *f, const char *name, size_t len, char c) {
    for (const cli_opt *o = f->opts; o && o->name; o++) {
        if (o->kind == CLI_HEADING) continue;
        if (name ? strlen(o->name) == len && !strncmp(o->name, name, len) : c && o->short_name == c)
            return true;
    }
    return false;
}

/* getopt returned '?' or ':' (c): an option another form of the command
 * takes is named as such; anything else as getopt_fail says. */
static int option_fail(const cli_spec *sp, int c, char **argv) {
    const char *arg = optind > 0 ? argv[optind - 1] : NULL;
    bool is_long = arg && arg[0] == '-' && arg[1] == '-';
    const char *name = is_long ? arg + 2 : NULL;
    size_t len = is_long ? strcspn(name, "=") : 0;
    for (const cli_spec *const *f = sp->forms; c == '?' && f && *f; f++)
        if (*f != sp && form_takes(*f, name, len, (char)optopt)) {
            if (is_long)
                return cli_usage_error(sp->name, "--%.*s: not with this form of '%s' (see --help)",
                                       (int)len, name, sp->name);
            return cli_usage_error(sp->name, "-%c: not with this form of '%s' (see --help)", optopt,
                                   sp->name);
        }
    return getopt_fail(sp->name, c, argv);
}

int cli_parse(const cli_spec *sp, int argc, char **argv, int *first_arg) {
    struct option lo[CLI_MAX_OPTS + 2];
    char shorts[2 * CLI_MAX_OPTS + 4] = "+:h";
    int n = 0, nl = 0, ns = 3;
    if (!sp->stop_at_args) memmove(shorts, shorts + 1, sizeof shorts - 1), ns--;
    for (; sp->opts && sp->opts[n].name && n < CLI_MAX_OPTS; n++) {
        const cli_opt *o = &sp->opts[n];
        if (o->kind == CLI_HEADING) continue;
        lo[nl++] = (struct option){o->name, o->kind == CLI_FLAG ? no_argument : required_argument,
                                   NULL, 256 + n};
        if (o->short_name) {
            shorts[ns++] = o->short_name;
            if (o->kind != CLI_FLAG) shorts[ns++] = ':';
        }
    }
    shorts[ns] = '\0';
    lo[nl] = (struct option){"help", no_argument, NULL, 'h'};
    lo[nl + 1] = (struct option){NULL, 0, NULL, 0};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
        const cli_opt *o = NULL;
        bool as_short = c < 256;
        if (c >= 256 && c < 256 + n) o = &sp->opts[c - 256];
        for (int i = 0; !o && c < 256 && i < n; i++)
            if (c == sp->opts[i].short_name && sp->opts[i].kind != CLI_HEADING) o = &sp->opts[i];
        if (o) {
            if (parse_value(sp, o, as_short, optarg)) return CLI_USAGE;
            if (o->seen) *o->seen = true;
        } else if (c == 'h') {
            cli_help(sp, stdout);
            return -1;
        } else {
            return option_fail(sp, c, argv);
        }
    }
    int nargs = argc - optind;
    if (nargs < sp->min_args)
        return cli_usage_error(sp->name, nargs ? "too few arguments" : "missing argument");
    if (sp->max_args >= 0 && nargs > sp->max_args)
        return cli_usage_error(sp->name, "unexpected argument '%s'", argv[optind + sp->max_args]);
    *first_arg = optind;
    return 0;
}

/* "-o, --output FILE" or "--json FILE" into buf; its length. */
static int opt_left(const cli_opt *o, char *buf, size_t n) {
    char sh[8] = "";
    if (o->short_name) snprintf(sh, sizeof sh, "-%c, ", o->short_name);
    return snprintf(buf, n, "%s--%s%s%s", sh, o->name, o->metavar ? " " : "",
                    o->metavar ? o->metavar : "");
}

/* The option column: as wide as the widest option up to 26 (wider ones
 * put their help on the next line), at least 16. */
static int help_width(const cli_spec *sp) {
    int width = 16;
    char left[128];
    for (int i = 0; sp->opts && sp->opts[i].name; i++) {
        if (sp->opts[i].kind == CLI_HEADING) continue;
        int len = opt_left(&sp->opts[i], left, sizeof left);
        if (len > width && len <= 26) width = len;
    }
    return width;
}

static void help_row(FILE *f, int width, const char *left, const char *help) {
    if ((int)strlen(left) > width)
        fprintf(f, "  %s\n  %-*s  ", left, width, "");
    else
        fprintf(f, "  %-*s  ", width, left);
    for (const char *h = help ? help : ""; *h;) {
        size_t l = strcspn(h, "\n");
        fprintf(f, "%.*s\n", (int)l, h);
        h += l;
        if (*h == '\n' && *++h) fprintf(f, "  %-*s  ", width, "");
    }
    if (!help || !*help) fputc('\n', f);
}

void cli_help_options(const cli_spec *sp, FILE *f) {
    bool sections = sp->opts && sp->opts[0].name && sp->opts[0].kind == CLI_HEADING;
    fputs(sections ? "\n" : "\noptions:\n", f);
    int width = help_width(sp);
    for (int i = 0; sp->opts && sp->opts[i].name; i++) {
        const cli_opt *o = &sp->opts[i];
        if (o->kind == CLI_HEADING) {
            fprintf(f, "%s:\n", o->help);
            continue;
        }
        char left[128];
        opt_left(o, left, sizeof left);
        help_row(f, width, left, o->help);
    }
    help_row(f, width, "-h, --help", "this text");
}

void cli_help(const cli_spec *sp, FILE *f) {
    fprintf(f, "usage: %s\n", sp->synopsis);
    if (sp->about) fprintf(f, "\n%s", sp->about);
    cli_help_options(sp, f);
    if (sp->epilog) fprintf(f, "\n%s", sp->epilog);
}

int cli_wrapped(int (*fn)(int, char **), int argc, char **argv) {
    FILE *out = stdout, *wo = lat_linewrap_create(out, CLI_WRAP_WIDTH);
    if (wo) stdout = wo;
    int rc = fn(argc, argv);
    stdout = out;
    if (wo && fclose(wo) && rc == CLI_OK) rc = CLI_ERR;
    return rc;
}
