/* load.h (cli) - what `latlab load`'s two files share: the run's options and
 * results (cli/load.c runs; cli/loadout.c prints the table, the verdict and
 * the JSON). */
#ifndef LATLAB_CLI_LOAD_H
#define LATLAB_CLI_LOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "latlab/hist.h"
#include "latlab/load.h"
#include "latlab/loadverdict.h"

typedef struct load_run {
    const char *target;   /* as given */
    const char *protocol; /* name */
    const char *describe; /* what each request is, one line */
    lat_load_cfg cfg;     /* the whole run's (each sending thread gets its share) */
    int threads;
    lat_hist latency, service, lag; /* the whole run */
    lat_load_counts counts;
    lat_load_verdict verdict;
    int run_rc; /* lat_load_run's result */
} load_run;

/* The final table and the verdict on stdout: 0, or CLI_ERR when stdout failed. */
int load_print(const load_run *r);
/* The JSON result, written atomically: CLI_OK or CLI_ERR after a message. */
int load_write_json(const load_run *r, const char *path);
/* The percentiles the table prints and the verdict judges. */
extern const double load_ps[];
extern const size_t load_nps;

#endif /* LATLAB_CLI_LOAD_H */
