/* sys.c - `latlab sys`: the run conditions a latency figure depends on (CPU,
 * governor, turbo, SMT, isolation, THP, clocksource, kernel, compiler, ...),
 * the CPU topology and where latlab would place its hot threads.  Facts go to
 * stdout (text, Markdown or JSON), cautions to stderr. */
#include "cli.h"

#include "latlab/json.h"
#include "latlab/atomicfile.h"
#include "latlab/error.h"
#include "latlab/topo.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static void print_topology(const lat_topo *t) {
    char a[256], b[256];
    lat_cpuset_format(lat_topo_online(t), a, sizeof a);
    lat_cpuset_format(lat_topo_affinity(t), b, sizeof b);
    printf("\ntopology: %d online CPUs (%s), affinity %s\n", lat_topo_ncpus(t), a, b);
    printf("  %-4s %-5s %-4s %-10s %-8s %-10s %s\n", "cpu", "core", "pkg", "siblings", "capacity",
           "max_mhz", "flags");
    const lat_cpuset *on = lat_topo_online(t);
    for (int c = lat_cpuset_next(on, 0); c >= 0; c = lat_cpuset_next(on, c + 1)) {
        lat_topo_cpu ci;
        if (lat_topo_cpu_info(t, c, &ci)) continue;
        char sib[64], cap[24] = "-", mhz[24] = "-";
        lat_cpuset_format(&ci.siblings, sib, sizeof sib);
        if (ci.capacity) snprintf(cap, sizeof cap, "%u", ci.capacity);
        if (ci.max_freq_khz)
            snprintf(mhz, sizeof mhz, "%llu", (unsigned long long)(ci.max_freq_khz / 1000));
        printf("  %-4d %-5d %-4d %-10s %-8s %-10s%s%s\n", c, ci.core_id, ci.package_id, sib, cap,
               mhz, ci.isolated ? " isolated" : "",
               lat_topo_hybrid(t) ? (ci.perf_core ? " P-core" : " E-core") : "");
    }
    const lat_cache *caches;
    int nc = lat_topo_caches(t, &caches);
    for (int i = 0; i < nc; i++) {
        lat_cpuset_format(&caches[i].shared_cpus, a, sizeof a);
        printf("  cache L%d %-11s %8llu KiB  line %u B  shared by %s\n", caches[i].level,
               caches[i].type, (unsigned long long)(caches[i].size_bytes / 1024),
               caches[i].line_bytes, a);
    }
}

static void print_plans(const lat_topo *t, json_t *jplans) {
    printf("\nplacement (hot threads pinned, one cold thread unpinned):\n");
    for (int k = 1; k <= 3; k++) {
        lat_plan p;
        int rc = lat_topo_plan(t, k, 1, 0, &p);
        char cpus[128] = "", cold[128];
        size_t n = 0;
        for (int i = 0; rc == 0 && i < p.nhot && n < sizeof cpus; i++)
            n += (size_t)snprintf(cpus + n, sizeof cpus - n, "%s%d", i ? "," : "", p.hot[i]);
        lat_cpuset_format(&p.cold, cold, sizeof cold);
        if (rc == 0)
            printf("  %d hot: CPUs %s, cold on %s%s%s%s\n", k, cpus, cold, p.note[0] ? "  (" : "",
                   p.note, p.note[0] ? ")" : "");
        else
            printf("  %d hot: refused: %s\n", k, p.note);
        if (jplans) {
            json_t *hot = json_array();
            for (int i = 0; rc == 0 && i < p.nhot; i++)
                json_array_append_new(hot, json_integer(p.hot[i]));
            json_array_append_new(jplans, json_pack("{s:i, s:b, s:o, s:s, s:s}", "hot_threads", k,
                                                    "ok", rc == 0, "hot_cpus", hot, "cold_cpus",
                                                    rc == 0 ? cold : "", "note", p.note));
        }
    }
}

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
        if (json_path) jplans = json_array();
        print_topology(t);
        print_plans(t, jplans);
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
