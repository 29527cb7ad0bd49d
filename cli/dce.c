/* dce.c - `latlab dce`: warm-up 3, the dead-code-elimination trap and the
 * plausibility ladder for a ring.
 *
 * (1) a multiply-add loop whose result is unused (the optimizer deletes it:
 * ~0 ns/op), (2) the same loop through lat_do_not_optimize(), (3) push+pop of
 * the pipeline's default ring on one thread (hot in L1), (4) the same ring
 * between two pinned CPUs: a round trip through two rings and a streaming run,
 * next to the raw cache-line ping-pong between the same CPUs measured in the
 * same run.  A cross-core latency below the ping-pong floor cannot be real: it
 * is printed as IMPLAUSIBLE (the harness is lying).  Streaming throughput is
 * not bounded by the floor (many items are in flight) and is not judged. */
#include "cli.h"
#include "cliopts.h"
#include "ringbench.h"

#include "latlab/pingpong.h"

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "latlab/json.h"
#include "latlab/atomicfile.h"
#include "latlab/clock.h"
#include "latlab/ring.h"

static uint64_t ops = 20000000, samples = 100000;
static const char *cpulist, *json_path;
static int ring_choice = LAT_RING_DEFAULT_SEQ; /* 0 ring, 1 seqring */

static const cli_opt dce_opts[] = {
    CLI_NUM_OPT("ops", CLI_U64, &ops, "N", "loop iterations for (1)-(3) (default 20000000)", 1000,
                10000000000.0),
    CLI_NUM_OPT("samples", CLI_U64, &samples, "N",
                "round trips for (4) and for the floor (default 100000)", 100, 100000000),
    CLI_CHOICE_OPT("ring", &ring_choice, "ring|seqring",
                   "ring (cached-index) or seqring (per-slot sequence); default: the\n"
                   "pipeline's default ring (" LAT_RING_DEFAULT_NAME ")"),
    CLI_STR_OPT("cpus", CLI_STRING, &cpulist, "A,B",
                "the two CPUs for (4) (default: chosen by the topology planner)"),
    CLI_STR_OPT("json", CLI_PATH, &json_path, "FILE", "also write the figures as JSON"),
    CLI_END,
};

const cli_spec cmd_dce_spec = {
    .name = "dce",
    .synopsis =
        "latlab dce [--ops N] [--samples N] [--ring ring|seqring] [--cpus A,B] [--json FILE]",
    .about =
        "Warm-up 3: catch dead-code elimination and test a ring's figures against physics.\n"
        "  (1) a multiply-add loop whose result is unused: the optimizer deletes it (~0 ns/op)\n"
        "  (2) the same loop through lat_do_not_optimize(): the real cost\n"
        "  (3) ring push+pop on one thread (everything hot in L1)\n"
        "  (4) the same ring between two pinned CPUs: round trip through two rings and a\n"
        "      streaming run, with the raw cache-line ping-pong between the same CPUs\n"
        "      measured in the same run as the floor.  A cross-core latency more than 10%\n"
        "      below the floor is flagged IMPLAUSIBLE: the harness is lying.\n",
    .opts = dce_opts,
    .epilog = "Needs two CPUs; exits 1 with a message on a single-CPU machine or affinity mask.\n",
};

typedef struct dce_figs {
    int cpus[2];
    const char *ring;
    double trap_ns, barrier_ns, st_ns, mops, stream_ns, ratio;
    lat_pingpong_result floor;
    ringbench_lat cross;
    bool implausible, trap_sprung;
} dce_figs;

static void print_figs(const dce_figs *f, double cycles_per_ns) {
    double hop_ns = f->cross.p50_ns / 2;
    printf("latlab dce: CPUs %d and %d, %.4f cycles/ns, %s ring\n", f->cpus[0], f->cpus[1],
           cycles_per_ns, f->ring);
    printf("  (1) multiply-add, result unused        %8.3f ns/op   %s\n", f->trap_ns,
           f->trap_sprung ? "<- the optimizer deleted the loop: this is not a measurement"
                          : "(the loop survived: this compiler did not delete it)");
    printf("  (2) multiply-add, lat_do_not_optimize  %8.3f ns/op\n", f->barrier_ns);
    printf("  (3) %-7s push+pop, one thread       %8.3f ns/op   (hot in L1: no core boundary)\n",
           f->ring, f->st_ns);
    printf("  (4) %-7s between CPU %d and CPU %d:\n", f->ring, f->cpus[0], f->cpus[1]);
    printf("        round trip   p50 %7.1f ns  p99 %7.1f ns  (one hop %.1f ns)\n", f->cross.p50_ns,
           f->cross.p99_ns, hop_ns);
    printf(
        "        streaming    %7.2f ns/item, %.1f Mops/s (pipelined: not bounded by the floor)\n",
        f->stream_ns, f->mops);
    printf("      floor: cache-line ping-pong, same CPUs, same run\n");
    printf("        round trip   p50 %7.1f ns  p99 %7.1f ns  (one hop %.1f ns)\n", f->floor.p50_ns,
           f->floor.p99_ns, f->floor.p50_ns / 2);
    if (f->implausible)
        printf("  verdict: IMPLAUSIBLE: the ring's round trip (%.1f ns) is below the floor "
               "(%.1f ns): the harness is lying\n",
               f->cross.p50_ns, f->floor.p50_ns);
    else
        printf(
            "  verdict: plausible: round trip %.2fx the floor; same-thread %.1f ns vs cross-core "
            "hop %.1f ns (%.0fx)\n",
            f->ratio, f->st_ns, hop_ns, hop_ns / f->st_ns);
}

static int write_json(const dce_figs *f, double cycles_per_ns) {
    json_t *j = json_pack("{s:s, s:[i,i], s:f, s:s, s:I, s:I}", "command", "dce", "cpus",
                          f->cpus[0], f->cpus[1], "cycles_per_ns", cycles_per_ns, "ring", f->ring,
                          "ops", (json_int_t)ops, "samples", (json_int_t)samples);
    if (!j) return -ENOMEM;
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
    return cli_write_json("dce", json_path, j);
}

int cmd_dce(int argc, char **argv) {
    int first, rc = cli_parse(&cmd_dce_spec, argc, argv, &first);
    if (rc) return rc < 0 ? CLI_OK : rc;
    dce_figs f = {.ring = NULL};
    if ((rc = cli_pick_two_cpus("dce", cpulist, f.cpus))) return rc;
    ringbench_kind kind = ring_choice ? RL_SEQRING : RL_RING;
    const lat_clock_cal *cal = lat_clock_default();
    f.ring = ringbench_kind_name(kind);

    ringbench_dce_pair(ops, &f.trap_ns, &f.barrier_ns);
    f.st_ns = ringbench_same_thread_ns(kind, 8, ops);
    if (f.st_ns < 0) return cli_error("dce", "same-thread run failed (items lost or reordered)");
    int err = lat_pingpong(f.cpus[0], f.cpus[1], samples, &f.floor);
    if (!err) err = ringbench_roundtrip(kind, 1024, f.cpus[0], f.cpus[1], samples, &f.cross);
    if (!err)
        err =
            ringbench_throughput(kind, 8, 4096, f.cpus[0], f.cpus[1], samples * 20, &f.mops, NULL);
    if (err) return cli_lib_error("dce", "cross-core run", err);
    f.stream_ns = 1e3 / f.mops;
    f.ratio = f.cross.p50_ns / f.floor.p50_ns;
    f.implausible = f.cross.p50_ns < 0.9 * f.floor.p50_ns;
    f.trap_sprung = f.trap_ns < 0.1 * f.barrier_ns;
    print_figs(&f, cal->cycles_per_ns);
    return json_path ? write_json(&f, cal->cycles_per_ns) : CLI_OK;
}
