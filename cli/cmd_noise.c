/* cmd_noise.c - `latlab noise`: take a stated share of chosen CPUs in SCHED_FIFO
 * bursts for a while (or until SIGINT/SIGTERM) and print what was taken;
 * and the --noise SPEC option that `latlab pipeline` and `latlab lab` run
 * under (noisecli.h).  The injector is the library's (latlab/noise.h); the
 * flags here are the spec's fields, checked by its parser. */
#include "cli.h"
#include "cliopts.h"
#include "noisecli.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "latlab/clock.h"
#include "latlab/error.h"
#include "latlab/noise_report.h"
#include "latlab/topo.h"

#define CMD "noise"

/* Create and start: 0, or an exit status after the message (flag: the
 * option the spec came from, NULL for `latlab noise`). */
static int start(const char *cmd, const char *flag, const lat_noise_spec *s, lat_noise **out) {
    const char *f = flag ? flag : "--cpus", *pre = flag ? flag : "", *sep = flag ? ": " : "";
    lat_cpuset mine;
    if (lat_thread_affinity(&mine) == 0)
        for (int c = lat_cpuset_next(&s->cpus, 0); c >= 0; c = lat_cpuset_next(&s->cpus, c + 1))
            if (!lat_cpuset_has(&mine, c))
                return cli_error(cmd, "%s: CPU %d is not available to this process", f, c);
    int rc = lat_noise_create(s, 0, out);
    if (rc) return cli_error(cmd, "%s%snoise: %s", pre, sep, lat_strerror(rc));
    rc = lat_noise_start(*out);
    if (rc == 0) return 0;
    lat_noise_destroy(*out);
    *out = NULL;
    if (rc == -EPERM)
        return cli_error(cmd,
                         "%s%sthe noise needs root or CAP_SYS_NICE for its SCHED_FIFO threads "
                         "(%s); run it as root, e.g. `sudo latlab %s ...`",
                         pre, sep, lat_strerror(rc), cmd);
    return cli_error(cmd, "%s%sstarting the noise threads: %s", pre, sep, lat_strerror(rc));
}

/* ---- --noise SPEC ----------------------------------------------------------------------- */

int cli_noise_opt(const char *cmd, const char *flag, const char *v, void *dest) {
    cli_noise *x = dest;
    char why[512];
    if (lat_noise_parse(v, &x->spec, why, sizeof why))
        return cli_usage_error(cmd, "%s: %s", flag, why);
    x->text = v;
    return 0;
}

int cli_noise_begin(cli_noise *x, const char *cmd, const int *hot, int nhot) {
    if (!x->text) return 0;
    bool given = lat_cpuset_count(&x->spec.cpus) > 0;
    for (int i = 0; !given && i < nhot; i++)
        if (hot[i] >= 0) lat_cpuset_add(&x->spec.cpus, hot[i]);
    if (!lat_cpuset_count(&x->spec.cpus))
        return cli_usage_error(cmd, "--noise: no CPUs (give cpus=LIST: the hot threads are not "
                                    "pinned)");
    int rc = start(cmd, "--noise", &x->spec, &x->n);
    if (rc == 0) {
        char spec[4400];
        lat_noise_spec_format(&x->spec, spec, sizeof spec);
        fprintf(stderr, "latlab %s: noise on: %s\n", cmd, spec);
    }
    return rc;
}

void cli_noise_end(cli_noise *x, FILE *f) {
    if (!x->n || x->ran) return;
    lat_noise_stop(x->n, &x->rep);
    /* the per-CPU lines outlive the injector (cli_noise_fini) */
    size_t bytes = (size_t)x->rep.ncpus * sizeof *x->rep.cpu;
    if ((x->cpus = malloc(bytes)) != NULL) memcpy(x->cpus, x->rep.cpu, bytes);
    x->rep.cpu = x->cpus;
    x->rep.ncpus = x->cpus ? x->rep.ncpus : 0;
    x->ran = true;
    lat_noise_report_print(f, &x->spec, &x->rep);
}

json_t *cli_noise_json(const cli_noise *x) {
    return x->ran ? lat_noise_report_json(&x->spec, &x->rep) : NULL;
}

void cli_noise_fini(cli_noise *x) {
    lat_noise_destroy(x->n);
    x->n = NULL;
}

void cli_noise_free(cli_noise *x) {
    cli_noise_fini(x);
    free(x->cpus);
    x->cpus = NULL;
    x->ran = false;
}

/* ---- latlab noise ---------------------------------------------------------------------- */

typedef struct noise_opts {
    lat_noise_spec spec;
    uint64_t duration_ns;
    const char *json;
    bool cpus_seen;
} noise_opts;

static noise_opts no;

/* Every spec flag: the field named as the flag, checked by the library. */
static int opt_field(const char *cmd, const char *flag, const char *v, void *dest) {
    char why[512];
    const char *key = flag[0] == '-' && flag[1] == '-' ? flag + 2 : flag;
    if (lat_noise_spec_set(dest, key, v, why, sizeof why)) return cli_usage_error(cmd, "--%s", why);
    return 0;
}

#define FIELD_ROW(name, mv, help) CLI_CUSTOM_OPT(name, opt_field, &no.spec, mv, help)

static const cli_opt noise_table[] = {
    CLI_SEEN_OPT("cpus", CLI_CUSTOM, &no.spec, "LIST", "CPUs to take time from (e.g. 0-1)", 0, 0,
                 opt_field, &no.cpus_seen),
    FIELD_ROW("share", "PCT", "share of each CPU taken by bursts: 10% or 0.1 (<= 50%)"),
    FIELD_ROW("burst", "DUR", "length of one burst: 50us (1 us..100 ms)"),
    FIELD_ROW("rate", "HZ", "bursts per second per CPU: 2kHz (0.1 Hz..50 kHz)"),
    FIELD_ROW("stall", "LEN/EVERY",
              "also a LEN stall every EVERY, e.g. 5ms/2s (LEN <= 100 ms;\n"
              "with the bursts at most 50%)"),
    FIELD_ROW("jitter", "PCT",
              "spread of the idle time between bursts, 0..90%\n"
              "(default 50%; 0: a fixed period)"),
    FIELD_ROW("seed", "N", "the schedule's PRNG seed (default 1): same seed, same bursts"),
    FIELD_ROW("prio", "N",
              "SCHED_FIFO priority 1..49 (default 1: above every normal\n"
              "thread; raise it above SCHED_FIFO threads to disturb)"),
    CLI_NUM_OPT("duration", CLI_DURATION, &no.duration_ns, "DUR",
                "how long (default 10s; 0: until SIGINT or SIGTERM)", 0, 0),
    CLI_STR_OPT("json", CLI_PATH, &no.json, "FILE", "also write what was taken as JSON"),
    CLI_END,
};

const cli_spec cmd_noise_spec = {
    .name = CMD,
    .synopsis = "latlab noise --cpus LIST [--share PCT] [--burst DUR] [--rate HZ] [OPTIONS]",
    .about =
        "Injected platform noise: one SCHED_FIFO thread per CPU busy-spins in bursts, taking\n"
        "the CPU from normal threads as a hypervisor or an interrupt storm would, so that a\n"
        "measurement can be run under a known loss.  Give two of --share, --burst and --rate\n"
        "(share = burst x rate; three must agree within 1%).  Bursts follow a schedule drawn\n"
        "from --seed: the idle time between bursts is spread by --jitter around its mean.\n"
        "Safety: every burst is bounded (100 ms), the total per CPU is capped at 50%, stop is\n"
        "immediate, and the kernel's RT throttling (sched_rt_runtime_us) stays a backstop.\n"
        "Needs root (or CAP_SYS_NICE).  At the end it prints what it took per CPU: bursts,\n"
        "stalls, time taken (each burst counted from when it was due), the share of the run,\n"
        "the wake-up cost, bursts rescheduled after a late wake.\n"
        "The same fields form the SPEC of `latlab pipeline --noise` and `latlab lab --noise`:\n"
        "  cpus=0-1,share=10%,burst=50us,rate=2kHz,stall=5ms/2s,jitter=50%,seed=1,prio=1\n"
        "(any order; two of share/burst/rate; cpus left out: the hot threads' CPUs).\n",
    .opts = noise_table,
    .epilog = "exit: 0 ok, 1 runtime error (not root, CPU not available), 2 usage error.\n",
};

/* Wait for the duration (0: forever) or a signal. */
static void wait_run(uint64_t duration_ns) {
    uint64_t t0 = lat_mono_ns();
    while (!cli_stop_sig && (!duration_ns || lat_mono_ns() - t0 < duration_ns)) {
        uint64_t left = duration_ns ? duration_ns - (lat_mono_ns() - t0) : 100000000u;
        if (left > 100000000u) left = 100000000u;
        struct timespec ts = {0, (long)left};
        nanosleep(&ts, NULL);
    }
}

int cmd_noise(int argc, char **argv) {
    memset(&no, 0, sizeof no);
    lat_noise_spec_default(&no.spec);
    no.duration_ns = 10000000000ull;
    int first, rc = cli_parse(&cmd_noise_spec, argc, argv, &first);
    if (rc) return rc < 0 ? CLI_OK : rc;
    char why[512];
    if (!no.cpus_seen) return cli_usage_error(CMD, "--cpus: needed (the CPUs to take time from)");
    if (lat_noise_spec_resolve(&no.spec, why, sizeof why)) return cli_usage_error(CMD, "--%s", why);
    lat_noise *n = NULL;
    if ((rc = start(CMD, NULL, &no.spec, &n)) != 0) return rc;
    static const int sigs[2] = {SIGINT, SIGTERM};
    struct sigaction old[2];
    cli_stop_catch(sigs, 2, old);
    wait_run(no.duration_ns);
    lat_noise_report rep;
    lat_noise_stop(n, &rep);
    cli_stop_restore(sigs, 2, old);
    if (cli_stop_sig) printf("stopped by %s\n", cli_stop_sig == SIGINT ? "SIGINT" : "SIGTERM");
    lat_noise_report_print(stdout, &no.spec, &rep);
    rc = no.json ? cli_write_json(CMD, no.json, lat_noise_report_json(&no.spec, &rep)) : CLI_OK;
    lat_noise_destroy(n);
    return rc;
}
