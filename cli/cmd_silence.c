/* cmd_silence.c - `latlab silence`: what disturbs the chosen CPUs, from ftrace.
 *
 * The check is the library's (latlab/silence.h: a private tracefs instance
 * traces sched_switch, sched_wakeup, hardware IRQs, softirqs and x86 IRQ
 * vectors on the chosen CPUs only, for --seconds or while CMD runs, and the
 * parsers turn the trace into a report of per-CPU counts, the tasks that took
 * the CPUs, the interrupts and ring overruns).  This file parses the options,
 * installs the SIGINT/SIGTERM/SIGHUP handlers that stop the trace (everything
 * is still undone and what was traced reported), and prints the report. */
#include "cli.h"

#include "latlab/silence.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static double seconds;
static bool seconds_given, have_cpus, cleanup_only;
static int top;
static uint64_t buffer_kb;
static const char *json_path, *cpus_arg;

static const cli_opt silence_opts[] = {
    CLI_SEEN_OPT("cpus", CLI_STRING, &cpus_arg, "LIST", "CPUs to trace, e.g. 1 or 2-3 (required)",
                 0, 0, NULL, &have_cpus),
    CLI_SEEN_OPT("seconds", CLI_DOUBLE, &seconds, "S",
                 "how long to trace (default 1); with CMD: until it exits, or at most\n"
                 "S seconds if given (then CMD gets SIGTERM)",
                 0.001, 86400, NULL, &seconds_given),
    CLI_NUM_OPT("top", CLI_INT, &top, "N", "rows in the intruder and interrupt tables (default 10)",
                1, 1000),
    CLI_NUM_OPT("buffer-kb", CLI_U64, &buffer_kb, "N", "trace buffer per CPU in KiB (default 8192)",
                64, 1 << 20),
    CLI_STR_OPT("json", CLI_PATH, &json_path, "FILE", "write the results as JSON (atomically)"),
    CLI_FLAG_OPT("cleanup", &cleanup_only,
                 "only remove tracefs instances left by runs that died (each run\n"
                 "also does so, and says so, before it starts)"),
    CLI_END,
};

const cli_spec cmd_silence_spec = {
    .name = "silence",
    .synopsis =
        "latlab silence --cpus LIST [--seconds S] [--top N] [--json FILE] [-- CMD [ARGS...]]\n"
        "       latlab silence --cleanup",
    .about =
        "The ftrace silence check (root): trace sched_switch, sched_wakeup, IRQs, softirqs and\n"
        "IRQ vectors on the chosen CPUs through a private tracefs instance, then report what ran\n"
        "or interrupted there: counts per CPU, the top intruding tasks (and how long they held\n"
        "the CPU), the top interrupts, and ring overruns.  With CMD (e.g. your workload pinned\n"
        "with taskset), trace while it runs; its own tasks are not counted as intruders.\n"
        "tracefs is mounted if needed; the instance is always removed (also on Ctrl-C).\n",
    .opts = silence_opts,
    .epilog = "Exit: 0 done, 1 not root / no tracefs / tracing failed, 2 usage error; with CMD,\n"
              "CMD's status (127: not found, 126: not runnable, 128+N: killed by signal N).\n"
              "A tracefs mount made by latlab is unmounted when it is done.\n",
    .max_args = -1,
    .stop_at_args = true,
};

static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};

static int cpus[LAT_SILENCE_MAXCPU], ncpus;
static char **cmd; /* the workload, or NULL */

/* Options, checked before any work: 0, -1 after --help, or the exit status. */
static int silence_parse(int argc, char **argv) {
    seconds = 1.0, top = 10, buffer_kb = 8192;
    int first, rc = cli_parse(&cmd_silence_spec, argc, argv, &first);
    if (rc) return rc;
    if (have_cpus &&
        (rc = cli_parse_cpulist("silence", "--cpus", cpus_arg, cpus, LAT_SILENCE_MAXCPU, &ncpus)))
        return rc;
    cmd = first < argc ? argv + first : NULL;
    if (cleanup_only) {
        if (have_cpus || cmd)
            return cli_usage_error("silence", "--cleanup takes no --cpus and no command");
        return 0;
    }
    if (!have_cpus) return cli_usage_error("silence", "--cpus is required (e.g. --cpus 1)");
    long ncpu_conf = sysconf(_SC_NPROCESSORS_CONF);
    for (int i = 0; i < ncpus; i++)
        if (cpus[i] >= ncpu_conf)
            return cli_usage_error("silence",
                                   "--cpus: CPU %d does not exist (this machine has %ld)", cpus[i],
                                   ncpu_conf);
    return 0;
}

static int silence_cleanup_only(void) {
    if (geteuid() != 0) return cli_error("silence", "needs root: --cleanup edits tracefs");
    char err[512];
    int n = lat_silence_cleanup_stale(cli_warn_cb, "silence", err, sizeof err);
    if (n < 0) return cli_error("silence", "%s", err);
    printf("latlab silence --cleanup: %d stale instance%s removed\n", n, n == 1 ? "" : "s");
    return CLI_OK;
}

/* Trace, report: CLI_OK or CLI_ERR after a message. */
static int silence_run(lat_silence_report *r, const struct sigaction old[3]) {
    lat_silence_config c = {.cpus = cpus,
                            .ncpus = ncpus,
                            .seconds = seconds,
                            .seconds_given = seconds_given,
                            .cmd = cmd,
                            .buffer_kb = buffer_kb,
                            .stop = &cli_stop_sig,
                            .child_sig = old,
                            .warn = cli_warn_cb,
                            .ud = "silence"};
    char err[1024];
    if (lat_silence_run(&c, r, err, sizeof err)) return cli_error("silence", "%s", err);
    if (cli_stop_sig)
        cli_warn("silence", "interrupted by signal %d: reporting what was traced",
                 (int)cli_stop_sig);
    lat_silence_report_print(r, stdout, top); /* a failed stdout is main's to report */
    int rc = json_path ? lat_silence_report_write_json(r, json_path) : 0;
    return rc ? cli_lib_error("silence", json_path, rc) : CLI_OK;
}

int cmd_silence(int argc, char **argv) {
    static lat_silence_report R;
    lat_silence_report *r = &R;
    int rc = silence_parse(argc, argv);
    if (rc) return rc < 0 ? CLI_OK : rc;
    if (cleanup_only) return silence_cleanup_only();
    if (geteuid() != 0)
        return cli_error("silence", "needs root: ftrace (tracefs) is root-only; run it with sudo");
    if (lat_silence_report_init(r, cpus, ncpus)) {
        lat_silence_report_fini(r);
        return cli_error("silence", "out of memory");
    }
    struct sigaction old[3];
    cli_stop_catch(sigs, 3, old);
    int ret = silence_run(r, old);
    cli_stop_restore(sigs, 3, old);
    if (cli_stop_sig && ret == CLI_OK) ret = 128 + cli_stop_sig;
    /* With CMD the exit status is CMD's, as with `latlab stat` (127: not found). */
    if (ret == CLI_OK && cmd && r->child_done)
        ret = WIFEXITED(r->status) ? WEXITSTATUS(r->status) : 128 + WTERMSIG(r->status);
    lat_silence_report_fini(r);
    return ret;
}
