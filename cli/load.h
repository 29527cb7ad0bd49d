/* load.h (cli) - what `latlab load`'s two files share: the run's options and
 * results (cli/cmd_load.c parses and runs; cli/loadout.c writes: the live line
 * and the interval log during the run, then the table, the verdict, the
 * JSON and the .hgrm). */
#ifndef LATLAB_CLI_LOAD_H
#define LATLAB_CLI_LOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "latlab/atomicfile.h"
#include "latlab/hist.h"
#include "latlab/hlog.h"
#include "latlab/load.h"
#include "latlab/loadh2.h"
#include "latlab/loadrun.h"
#include "latlab/loadtarget.h"
#include "latlab/prom.h"
#include "latlab/loadverdict.h"
#include "promcli.h"

typedef struct load_run {
    const char *target;   /* as given */
    const char *protocol; /* name */
    const char *describe; /* what each request is, one line */
    lat_load_cfg cfg;     /* the whole run's (each sending thread gets its share) */
    int threads;
    lat_hist h[LAT_LOAD_NSERIES]; /* the whole run, by lat_load_series */
    lat_load_counts counts;
    lat_load_verdict verdict;
    int run_rc; /* lat_load_run's result */
    /* the schedule: --rate as given (NULL: replay), the run step by step,
     * --start-at (ns since the epoch; 0: none); the shard is cfg.phase of cfg.stride */
    const char *rate_spec;
    lat_loadsched_steps *steps;
    uint64_t start_ns;
    lat_loadsched_findmax *findmax; /* --find-max: the search (the figures are its last run's) */
} load_run;

/* The final table and the verdict (--find-max: the search instead) on
 * stdout: 0, or CLI_ERR when stdout failed. */
int load_print(const load_run *r);
/* The JSON result (with --find-max's as find_max), written atomically: CLI_OK or CLI_ERR after
 * a message. */
int load_write_json(const load_run *r, const char *path);
/* The percentiles the table prints and the verdict judges. */
extern const double load_ps[];
extern const size_t load_nps;

/* The run's writers while it goes (cli/loadout.c). */
typedef struct load_live {
    load_run *r;      /* its totals get each interval */
    const char *hlog; /* --hlog or NULL */
    bool quiet;       /* no live line */
    lat_afile *hf;
    lat_hlog_writer w;
    double t0_s; /* the run's start, wall-clock s */
    uint64_t last_completed;
    int hlog_rc;
    const cli_prom *prom; /* --metrics, --push */
    lat_prom_server *srv; /* serving --metrics or NULL */
} load_live;

/* The series names by lat_load_series: latency, service, lag, wait, censored. */
extern const char *const load_series[LAT_LOAD_NSERIES];
/* The run's series, then (--targets) each target's latency as its tag,
 * latency.NAME: the stages of /metrics and --push.  Returns their count. */
#define LOAD_STAGES_MAX (LAT_LOAD_NSERIES + LAT_LOADTARGETS_MAX)
int load_stages(const load_run *r, const char **names, const lat_hist **h);
/* lat_loadrun_tick_fn: the interval into r's totals, the log, /metrics and
 * the live line (ud: a load_live). */
void load_tick(void *ud, const lat_loadrun_tick *t);
/* Before the run: open --hlog and serve --metrics (each only when asked);
 * 0 or CLI_ERR after a message.  After it (rc: the run's status so far):
 * stop serving, commit the log (abort it when rc is not 0); returns rc, or
 * CLI_ERR after a message when the log failed. */
int load_live_open(load_live *lv);
int load_live_close(load_live *lv, int rc);
/* The latency distribution as Java's .hgrm (us), atomically: 0 or CLI_ERR. */
int load_write_hgrm(const lat_hist *h, const char *path);

#endif /* LATLAB_CLI_LOAD_H */
