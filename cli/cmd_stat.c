/* cmd_stat.c - `latlab stat`: count performance events of a command, like
 * `perf stat`, for machines without perf.
 *
 * The child is forked and held on a pipe until its counters are open (pid =
 * child, inherit, enable_on_exec), so counting starts exactly at exec and
 * covers every thread and process it creates.  Events that cannot be counted
 * are listed with the library's reason; context switches fall back to the
 * child's rusage where the kernel refuses.  --per-thread also opens a set per
 * thread of the child, found by polling /proc/PID/task every 10 ms (threads
 * that live less than that appear only in the total).  The child's exit status
 * is ours: its exit code, 128+N when killed by signal N, 127/126 when it could
 * not be run. */
#include "cli.h"
#include "cliopts.h"

#include "latlab/error.h"
#include "latlab/perf.h"
#include "latlab/perf_child.h"
#include "latlab/perf_report.h"
#include "latlab/perf_threads.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

static cli_list events_given; /* each -e adds to the list, as with perf stat */
static bool per_thread;
static const char *json_path;

static const cli_opt stat_opts[] = {
    CLI_SHORT_OPT("events", 'e', CLI_CUSTOM, &events_given, "LIST",
                  "comma-separated events (default: " LAT_PERF_DEFAULT_EVENTS ")\n"
                  "names: cycles instructions branches branch-misses\n"
                  "cache-references cache-misses LLC-load-misses\n"
                  "L1-dcache-load-misses stalled-cycles-frontend\n"
                  "stalled-cycles-backend task-clock context-switches\n"
                  "cpu-migrations page-faults minor-faults major-faults, raw rNNNN,\n"
                  "pmu/event=0x..,umask=0x../ ; suffix :u or :k for user/kernel only;\n"
                  "given more than once, the lists add up",
                  cli_list_add),
    CLI_FLAG_OPT("per-thread", &per_thread,
                 "also count each thread of CMD (threads are found by polling\n"
                 "every 10 ms; shorter-lived ones are only in the total)"),
    CLI_STR_OPT("json", CLI_PATH, &json_path, "FILE", "write the results as JSON (atomically)"),
    CLI_END,
};

const cli_spec cmd_stat_spec = {
    .name = "stat",
    .synopsis = "latlab stat [-e LIST] [--per-thread] [--json FILE] [--] CMD [ARGS...]",
    .about = "Run CMD and count performance events over its whole life (all its threads and\n"
             "children), like `perf stat`.  Events that cannot be counted on this machine are\n"
             "listed with the reason; counts multiplexed on the PMU are scaled and show their\n"
             "coverage.  The exit status is CMD's (128+N if killed by signal N; 127 if it\n"
             "could not be found, 126 if it could not be run).\n",
    .opts = stat_opts,
    .max_args = -1,
    .stop_at_args = true,
};

typedef lat_perf_child stat_run;

/* Options, the command and the event list, checked before anything is forked:
 * 0, -1 after --help, or the exit status. */
static int stat_parse(int argc, char **argv, stat_run *r) {
    static char joined[4096]; /* the -e lists joined (static: reachable until exit) */
    int first, rc = cli_parse(&cmd_stat_spec, argc, argv, &first);
    if (rc) return rc;
    if (first >= argc) return cli_usage_error("stat", "no command given (latlab stat -- CMD)");
    r->cmd = argv + first;
    if (events_given.n) {
        if (cli_list_join(&events_given, ",", joined, sizeof joined) >= sizeof joined)
            return cli_usage_error("stat", "-e: the event list is too long");
        if (!joined[0]) return cli_usage_error("stat", "-e: empty event list");
        r->events = joined;
    }
    /* validate the list before forking so a typo is a usage error */
    char err[256];
    lat_perf *probe;
    lat_perf_opts o = {.err = err, .err_len = sizeof err};
    rc = lat_perf_create(&probe, r->events, &o);
    if (rc == LAT_EFORMAT || rc == -E2BIG || rc == -ENOENT)
        return cli_usage_error("stat", "-e: %s", err[0] ? err : lat_strerror(rc));
    if (rc) return cli_lib_error("stat", "opening counters", rc);
    lat_perf_destroy(probe);
    return 0;
}

/* The report on stderr, as perf stat's (the child owns stdout), and --json. */
static int report(const stat_run *r, int exit_code) {
    lat_perf_report rep = {r->cmd,         r->p,           r->cnt,
                           r->n,           &r->d,          r->wall_ns,
                           r->ru.ru_utime, r->ru.ru_stime, r->per_thread ? &r->ts : NULL,
                           exit_code};
    lat_perf_report_print(&rep, stderr);
    fflush(stderr);
    if (WIFSIGNALED(r->status))
        cli_warn("stat", "'%s' was killed by signal %d (%s)", r->cmd[0], WTERMSIG(r->status),
                 strsignal(WTERMSIG(r->status)));
    return json_path ? cli_write_json("stat", json_path, lat_perf_report_json(&rep)) : 0;
}

int cmd_stat(int argc, char **argv) {
    static stat_run r; /* big (counts); one per process */
    int rc = stat_parse(argc, argv, &r);
    if (rc) return rc < 0 ? CLI_OK : rc;
    r.per_thread = per_thread;
    if (lat_perf_child_start(&r) || lat_perf_child_wait(&r)) {
        lat_perf_child_fini(&r);
        return cli_error("stat", "%s", r.err);
    }
    if (r.sig)
        cli_warn("stat", "%s: passed on to '%s'; its counts until then are reported",
                 strsignal(r.sig), r.cmd[0]);
    int exec_err, code = lat_perf_child_exit(&r, &exec_err);
    if (exec_err) {
        cli_error("stat", "cannot run '%s': %s", r.cmd[0], strerror(exec_err));
    } else {
        if ((rc = lat_perf_child_read(&r)) < 0)
            cli_warn("stat", "reading counters: %s", lat_strerror(rc));
        if (report(&r, code) && code == 0) code = CLI_ERR;
    }
    lat_perf_child_fini(&r);
    return code;
}
