/* topo_report.c - the topology and the placement plans as `latlab sys`
 * prints them (see topo_report.h). */
#include "latlab/topo_report.h"

void lat_topo_write_text(const lat_topo *t, FILE *f) {
    char a[256], b[256];
    lat_cpuset_format(lat_topo_online(t), a, sizeof a);
    lat_cpuset_format(lat_topo_affinity(t), b, sizeof b);
    fprintf(f, "\ntopology: %d online CPUs (%s), affinity %s\n", lat_topo_ncpus(t), a, b);
    fprintf(f, "  %-4s %-5s %-4s %-10s %-8s %-10s %s\n", "cpu", "core", "pkg", "siblings",
            "capacity", "max_mhz", "flags");
    const lat_cpuset *on = lat_topo_online(t);
    for (int c = lat_cpuset_next(on, 0); c >= 0; c = lat_cpuset_next(on, c + 1)) {
        lat_topo_cpu ci;
        if (lat_topo_cpu_info(t, c, &ci)) continue;
        char sib[64], cap[24] = "-", mhz[24] = "-";
        lat_cpuset_format(&ci.siblings, sib, sizeof sib);
        if (ci.capacity) snprintf(cap, sizeof cap, "%u", ci.capacity);
        if (ci.max_freq_khz)
            snprintf(mhz, sizeof mhz, "%llu", (unsigned long long)(ci.max_freq_khz / 1000));
        fprintf(f, "  %-4d %-5d %-4d %-10s %-8s %-10s%s%s\n", c, ci.core_id, ci.package_id, sib,
                cap, mhz, ci.isolated ? " isolated" : "",
                lat_topo_hybrid(t) ? (ci.perf_core ? " P-core" : " E-core") : "");
    }
    const lat_cache *caches;
    int nc = lat_topo_caches(t, &caches);
    for (int i = 0; i < nc; i++) {
        lat_cpuset_format(&caches[i].shared_cpus, a, sizeof a);
        fprintf(f, "  cache L%d %-11s %8llu KiB  line %u B  shared by %s\n", caches[i].level,
                caches[i].type, (unsigned long long)(caches[i].size_bytes / 1024),
                caches[i].line_bytes, a);
    }
}

void lat_topo_write_plans(const lat_topo *t, FILE *f) {
    fprintf(f, "\nplacement (hot threads pinned, one cold thread unpinned):\n");
    for (int k = 1; k <= 3; k++) {
        lat_plan p;
        int rc = lat_topo_plan(t, k, 1, 0, &p);
        char cpus[128] = "", cold[128];
        size_t n = 0;
        for (int i = 0; rc == 0 && i < p.nhot && n < sizeof cpus; i++)
            n += (size_t)snprintf(cpus + n, sizeof cpus - n, "%s%d", i ? "," : "", p.hot[i]);
        lat_cpuset_format(&p.cold, cold, sizeof cold);
        if (rc == 0)
            fprintf(f, "  %d hot: CPUs %s, cold on %s%s%s%s\n", k, cpus, cold,
                    p.note[0] ? "  (" : "", p.note, p.note[0] ? ")" : "");
        else
            fprintf(f, "  %d hot: refused: %s\n", k, p.note);
    }
}
