/* cmd_sys.c - `latlab sys`: the run conditions a latency figure depends on (CPU,
 * governor, turbo, SMT, isolation, THP, clocksource, kernel, compiler, ...),
 * the CPU topology and where latlab would place its hot threads.  Facts go to
 * stdout (text, Markdown or JSON), cautions to stderr. */
#include "cli.h"

#include "latlab/json.h"
#include "latlab/atomicfile.h"
#include "latlab/error.h"
#include "latlab/topo.h"
#include "latlab/topo_report.h"

#include <jansson.h>
#include <stdio.h>

static const char *json_path, *root_dir;
static bool markdown;

static const cli_opt sys_opts[] = {
    CLI_STR_OPT("json", CLI_PATH, &json_path, "FILE", "also write everything as JSON"),
    CLI_FLAG_OPT("markdown", &markdown, "print the run conditions as a Markdown table"),
    CLI_STR_OPT("root", CLI_PATH, &root_dir, "DIR",
                "read sysfs/procfs under DIR instead of / (saved or test trees)"),
    CLI_END,
};

const cli_spec cmd_sys_spec = {
    .name = "sys",
    .synopsis = "latlab sys [OPTIONS]",
    .about = "Print the run conditions (CPU model, online/isolated/nohz_full CPUs, governor,\n"
             "turbo, SMT, kernel command line, THP, clocksource, TSC flags, virtualisation,\n"
             "caches, kernel, glibc, compiler and flags, LD_PRELOAD, perf_event_paranoid), the\n"
             "CPU topology and the placement latlab would use for 1-3 hot threads.  Missing\n"
             "files read \"unknown\".  Warnings (governor not 'performance', virtual machine,\n"
             "no isolated CPUs, ...) go to stderr.\n",
    .opts = sys_opts,
};

int cmd_sys(int argc, char **argv) {
    int first, prc = cli_parse(&cmd_sys_spec, argc, argv, &first);
    if (prc) return prc < 0 ? CLI_OK : prc;
    if (root_dir) {
        FILE *probe = NULL;
        char path[1024];
        snprintf(path, sizeof path, "%s/.", root_dir);
        if (!(probe = fopen(path, "r")))
            return cli_usage_error("sys", "--root: '%s' is not a readable directory", root_dir);
        fclose(probe);
    }

    int ret = CLI_ERR, rc;
    lat_topo *t = NULL;
    json_t *root = NULL, *jplans = NULL;
    lat_runcond cond;
    rc = lat_runcond_collect(&cond, root_dir);
    if (rc) return cli_lib_error("sys", "collecting run conditions", rc);
    lat_runcond quiet = cond;
    quiet.nwarnings = 0; /* warnings go to stderr below, not into the table */
    if (markdown)
        lat_runcond_write_markdown(&quiet, stdout);
    else
        lat_runcond_write_text(&quiet, stdout);

    rc = lat_topo_load(root_dir, &t);
    if (rc == 0) {
        if (json_path) jplans = lat_topo_plans_json(t);
        lat_topo_write_text(t, stdout);
        lat_topo_write_plans(t, stdout);
    } else {
        printf("\ntopology: unknown (%s)\n", lat_strerror(rc));
    }
    fflush(stdout);
    for (int i = 0; i < cond.nwarnings; i++)
        cli_warn("sys", "%s", cond.warnings[i]);

    if (json_path) {
        root = json_object();
        if (!root) goto oom;
        json_t *jc = lat_runcond_json(&cond);
        json_t *jt = t ? lat_topo_json(t) : json_null();
        if (!jc || !jt) {
            json_decref(jc);
            json_decref(jt);
            goto oom;
        }
        json_object_set_new(root, "run_conditions", jc);
        json_object_set_new(root, "topology", jt);
        json_object_set_new(root, "placement", jplans ? jplans : json_null());
        jplans = NULL;
        rc = lat_write_json_atomic(json_path, root);
        if (rc) {
            ret = cli_error("sys", "%s: %s", json_path, lat_strerror(rc));
            goto out;
        }
    }
    ret = CLI_OK;
    goto out;
oom:
    ret = cli_error("sys", "out of memory");
out:
    json_decref(jplans);
    json_decref(root);
    lat_topo_destroy(t);
    return ret;
}
