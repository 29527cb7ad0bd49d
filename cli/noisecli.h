/* noisecli.h - injected platform noise on the command line: `latlab noise`
 * (cli/cmd_noise.c) and the --noise SPEC option of `latlab pipeline` and
 * `latlab lab`, which run their measurement under the injector
 * (latlab/noise.h) and print and record what it took. */
#ifndef LATLAB_CLI_NOISECLI_H
#define LATLAB_CLI_NOISECLI_H

#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "latlab/noise.h"

struct json_t;

/* --noise: the spec as given and parsed, the injector while it runs, and
 * its report once stopped. */
typedef struct cli_noise {
    const char *text; /* NULL: no --noise */
    lat_noise_spec spec;
    lat_noise *n;
    lat_noise_report rep;       /* its cpu lines: cpus */
    lat_noise_cpu_report *cpus; /* malloc'd by cli_noise_end */
    bool ran;                   /* rep is filled */
} cli_noise;

/* The options-table parser of --noise SPEC (dest: a cli_noise): a bad spec
 * is a usage error naming the flag and the field. */
int cli_noise_opt(const char *cmd, const char *flag, const char *v, void *dest);
#define CLI_NOISE_ROW(x)                                                                           \
    CLI_CUSTOM_OPT("noise", cli_noise_opt, &(x), "SPEC",                                           \
                   "run under injected platform noise (root): SCHED_FIFO\n"                        \
                   "bursts take a share of CPUs, e.g. share=10%,burst=50us\n"                      \
                   "(CPUs: cpus=LIST, else the hot threads'); see\n"                               \
                   "`latlab help noise` for SPEC")

/* Start the injector when --noise was given (CPUs: the spec's, else
 * hot[0..nhot) where >= 0).  0, or an exit status after the message (not
 * root: 1 with the reason). */
int cli_noise_begin(cli_noise *x, const char *cmd, const int *hot, int nhot);
/* Stop it (when running) and print what it took on f. */
void cli_noise_end(cli_noise *x, FILE *f);
/* What it took as JSON (new reference), NULL when it did not run. */
struct json_t *cli_noise_json(const cli_noise *x);
/* Stop and free the injector (idempotent; the report stays). */
void cli_noise_fini(cli_noise *x);
/* cli_noise_fini and free the report too. */
void cli_noise_free(cli_noise *x);

#endif
