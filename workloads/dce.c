/* dce.c - the verdict, text and JSON of `latlab dce`'s figures (see dce.h). */
#include "dce.h"

#include <jansson.h>

void lat__dce_judge(lat__dce_figs *f) {
    f->stream_ns = 1e3 / f->mops;
    f->ratio = f->cross.p50_ns / f->floor.p50_ns;
    f->implausible = f->cross.p50_ns < 0.9 * f->floor.p50_ns;
    f->trap_sprung = f->trap_ns < 0.1 * f->barrier_ns;
}

void lat__dce_print(const lat__dce_figs *f, double cycles_per_ns, FILE *out) {
    double hop_ns = f->cross.p50_ns / 2;
    fprintf(out, "latlab dce: CPUs %d and %d, %.4f cycles/ns, %s ring\n", f->cpus[0], f->cpus[1],
            cycles_per_ns, f->ring);
    fprintf(out, "  (1) multiply-add, result unused        %8.3f ns/op   %s\n", f->trap_ns,
            f->trap_sprung ? "<- the optimizer deleted the loop: this is not a measurement"
                           : "(the loop survived: this compiler did not delete it)");
    fprintf(out, "  (2) multiply-add, lat_do_not_optimize  %8.3f ns/op\n", f->barrier_ns);
    fprintf(out,
            "  (3) %-7s push+pop, one thread       %8.3f ns/op   (hot in L1: no core boundary)\n",
            f->ring, f->st_ns);
    fprintf(out, "  (4) %-7s between CPU %d and CPU %d:\n", f->ring, f->cpus[0], f->cpus[1]);
    fprintf(out, "        round trip   p50 %7.1f ns  p99 %7.1f ns  (one hop %.1f ns)\n",
            f->cross.p50_ns, f->cross.p99_ns, hop_ns);
    fprintf(
        out,
        "        streaming    %7.2f ns/item, %.1f Mops/s (pipelined: not bounded by the floor)\n",
        f->stream_ns, f->mops);
    fprintf(out, "      floor: cache-line ping-pong, same CPUs, same run\n");
    fprintf(out, "        round trip   p50 %7.1f ns  p99 %7.1f ns  (one hop %.1f ns)\n",
            f->floor.p50_ns, f->floor.p99_ns, f->floor.p50_ns / 2);
    if (f->implausible)
        fprintf(out,
                "  verdict: IMPLAUSIBLE: the ring's round trip (%.1f ns) is below the floor "
                "(%.1f ns): the harness is lying\n",
                f->cross.p50_ns, f->floor.p50_ns);
    else
        fprintf(
            out,
            "  verdict: plausible: round trip %.2fx the floor; same-thread %.1f ns vs cross-core "
            "hop %.1f ns (%.0fx)\n",
            f->ratio, f->st_ns, hop_ns, hop_ns / f->st_ns);
}

json_t *lat__dce_json(const lat__dce_figs *f, double cycles_per_ns, uint64_t ops,
                      uint64_t samples) {
    json_t *j = json_pack("{s:s, s:[i,i], s:f, s:s, s:I, s:I}", "command", "dce", "cpus",
                          f->cpus[0], f->cpus[1], "cycles_per_ns", cycles_per_ns, "ring", f->ring,
                          "ops", (json_int_t)ops, "samples", (json_int_t)samples);
    if (!j) return NULL;
    json_object_set_new(j, "trap_ns_per_op", json_real(f->trap_ns));
    json_object_set_new(j, "trap_sprung", json_boolean(f->trap_sprung));
    json_object_set_new(j, "barrier_ns_per_op", json_real(f->barrier_ns));
    json_object_set_new(j, "same_thread_ns_per_op", json_real(f->st_ns));
    json_object_set_new(j, "cross_rtt_p50_ns", json_real(f->cross.p50_ns));
    json_object_set_new(j, "cross_rtt_p99_ns", json_real(f->cross.p99_ns));
    json_object_set_new(j, "cross_rtt_p999_ns", json_real(f->cross.p999_ns));
    json_object_set_new(j, "cross_stream_ns_per_item", json_real(f->stream_ns));
    json_object_set_new(j, "cross_stream_mops", json_real(f->mops));
    json_object_set_new(j, "floor_rtt_p50_ns", json_real(f->floor.p50_ns));
    json_object_set_new(j, "floor_rtt_p99_ns", json_real(f->floor.p99_ns));
    json_object_set_new(j, "rtt_vs_floor", json_real(f->ratio));
    json_object_set_new(j, "implausible", json_boolean(f->implausible));
    return j;
}
