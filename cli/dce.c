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
#include "ringlab.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "latlab/json.h"
#include "latlab/atomicfile.h"
#include "latlab/clock.h"
#include "latlab/ring.h"

const char cmd_dce_usage[] =
    "usage: latlab dce [--ops N] [--samples N] [--ring ring|seqring] [--cpus A,B] [--json FILE]\n"
    "\n"
    "Warm-up 3: catch dead-code elimination and test a ring's figures against physics.\n"
    "  (1) a multiply-add loop whose result is unused: the optimizer deletes it (~0 ns/op)\n"
    "  (2) the same loop through lat_do_not_optimize(): the real cost\n"
    "  (3) ring push+pop on one thread (everything hot in L1)\n"
    "  (4) the same ring between two pinned CPUs: round trip through two rings and a\n"
    "      streaming run, with the raw cache-line ping-pong between the same CPUs\n"
    "      measured in the same run as the floor.  A cross-core latency more than 10%\n"
    "      below the floor is flagged IMPLAUSIBLE: the harness is lying.\n"
    "\n"
    "options:\n"
    "  --ops N        loop iterations for (1)-(3) (default 20000000)\n"
    "  --samples N    round trips for (4) and for the floor (default 100000)\n"
    "  --ring NAME    ring (cached-index) or seqring (per-slot sequence); default: the\n"
    "                 pipeline's default ring (" LAT_RING_DEFAULT_NAME ")\n"
    "  --cpus A,B     the two CPUs for (4) (default: chosen by the topology planner)\n"
    "  --json FILE    also write the figures as JSON\n"
    "\n"
    "Needs two CPUs; exits 1 with a message on a single-CPU machine or affinity mask.\n";

int cmd_dce(int argc, char **argv) {
    static const struct option opts[] = {
        {"ops", required_argument, NULL, 'o'},  {"samples", required_argument, NULL, 's'},
        {"ring", required_argument, NULL, 'r'}, {"cpus", required_argument, NULL, 'c'},
        {"json", required_argument, NULL, 'j'}, {NULL, 0, NULL, 0},
    };
    uint64_t ops = 20000000, samples = 100000;
    const char *cpulist = NULL, *json_path = NULL;
    rl_kind kind = LAT_RING_DEFAULT_SEQ ? RL_SEQRING : RL_RING;
    int c, rc;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            if ((rc = cli_parse_u64("dce", "--ops", optarg, 1000, 10000000000ull, &ops))) return rc;
            break;
        case 's':
            if ((rc = cli_parse_u64("dce", "--samples", optarg, 100, 100000000ull, &samples)))
                return rc;
            break;
        case 'r':
            if (!strcmp(optarg, "ring"))
                kind = RL_RING;
            else if (!strcmp(optarg, "seqring"))
                kind = RL_SEQRING;
            else
                return cli_usage_error("dce", "--ring: '%s' is not ring or seqring", optarg);
            break;
        case 'c':
            if (!*optarg) return cli_usage_error("dce", "--cpus: needs a CPU list");
            cpulist = optarg;
            break;
        case 'j':
            if (!*optarg) return cli_usage_error("dce", "--json: needs a file name");
            json_path = optarg;
            break;
        default:
            return cli_getopt_fail("dce", c, argv);
        }
    }
    if (optind < argc) return cli_usage_error("dce", "unexpected argument '%s'", argv[optind]);

    int cpus[2];
    if ((rc = rl_pick_cpus("dce", cpulist, cpus))) return rc;
    const lat_clock_cal *cal = lat_clock_default();
    const char *rname = rl_kind_name(kind);

    double trap_ns, barrier_ns;
    rl_dce_pair(ops, &trap_ns, &barrier_ns);
    double st_ns = rl_same_thread_ns(kind, 8, ops);
    if (st_ns < 0) return cli_error("dce", "same-thread run failed (items lost or reordered)");

    rl_lat floor_lat, ring_lat;
    double mops = 0;
    int err = rl_pingpong(cpus[0], cpus[1], samples, &floor_lat);
    if (!err) err = rl_roundtrip(kind, 1024, cpus[0], cpus[1], samples, &ring_lat);
    if (!err) err = rl_throughput(kind, 8, 4096, cpus[0], cpus[1], samples * 20, &mops, NULL);
    if (err) return cli_lib_error("dce", "cross-core run", err);

    double hop_ns = ring_lat.p50_ns / 2, floor_hop_ns = floor_lat.p50_ns / 2;
    double stream_ns = 1e3 / mops;
    double ratio = ring_lat.p50_ns / floor_lat.p50_ns;
    int implausible = ring_lat.p50_ns < 0.9 * floor_lat.p50_ns;
    int trap_sprung = trap_ns < 0.1 * barrier_ns;

    printf("latlab dce: CPUs %d and %d, %.4f cycles/ns, %s ring\n", cpus[0], cpus[1],
           cal->cycles_per_ns, rname);
    printf("  (1) multiply-add, result unused        %8.3f ns/op   %s\n", trap_ns,
           trap_sprung ? "<- the optimizer deleted the loop: this is not a measurement"
                       : "(the loop survived: this compiler did not delete it)");
    printf("  (2) multiply-add, lat_do_not_optimize  %8.3f ns/op\n", barrier_ns);
    printf("  (3) %-7s push+pop, one thread       %8.3f ns/op   (hot in L1: no core boundary)\n",
           rname, st_ns);
    printf("  (4) %-7s between CPU %d and CPU %d:\n", rname, cpus[0], cpus[1]);
    printf("        round trip   p50 %7.1f ns  p99 %7.1f ns  (one hop %.1f ns)\n", ring_lat.p50_ns,
           ring_lat.p99_ns, hop_ns);
    printf(
        "        streaming    %7.2f ns/item, %.1f Mops/s (pipelined: not bounded by the floor)\n",
        stream_ns, mops);
    printf("      floor: cache-line ping-pong, same CPUs, same run\n");
    printf("        round trip   p50 %7.1f ns  p99 %7.1f ns  (one hop %.1f ns)\n", floor_lat.p50_ns,
           floor_lat.p99_ns, floor_hop_ns);
    if (implausible)
        printf("  verdict: IMPLAUSIBLE: the ring's round trip (%.1f ns) is below the floor "
               "(%.1f ns): the harness is lying\n",
               ring_lat.p50_ns, floor_lat.p50_ns);
    else
        printf(
            "  verdict: plausible: round trip %.2fx the floor; same-thread %.1f ns vs cross-core "
            "hop %.1f ns (%.0fx)\n",
            ratio, st_ns, hop_ns, hop_ns / st_ns);

    if (json_path) {
        json_t *j = json_object();
        json_object_set_new(j, "command", json_string("dce"));
        json_t *jc = json_array();
        json_array_append_new(jc, json_integer(cpus[0]));
        json_array_append_new(jc, json_integer(cpus[1]));
        json_object_set_new(j, "cpus", jc);
        json_object_set_new(j, "cycles_per_ns", json_real(cal->cycles_per_ns));
        json_object_set_new(j, "ring", json_string(rname));
        json_object_set_new(j, "ops", json_integer((json_int_t)ops));
        json_object_set_new(j, "samples", json_integer((json_int_t)samples));
        json_object_set_new(j, "trap_ns_per_op", json_real(trap_ns));
        json_object_set_new(j, "trap_sprung", json_boolean(trap_sprung));
        json_object_set_new(j, "barrier_ns_per_op", json_real(barrier_ns));
        json_object_set_new(j, "same_thread_ns_per_op", json_real(st_ns));
        json_object_set_new(j, "cross_rtt_p50_ns", json_real(ring_lat.p50_ns));
        json_object_set_new(j, "cross_rtt_p99_ns", json_real(ring_lat.p99_ns));
        json_object_set_new(j, "cross_rtt_p999_ns", json_real(ring_lat.p999_ns));
        json_object_set_new(j, "cross_stream_ns_per_item", json_real(stream_ns));
        json_object_set_new(j, "cross_stream_mops", json_real(mops));
        json_object_set_new(j, "floor_rtt_p50_ns", json_real(floor_lat.p50_ns));
        json_object_set_new(j, "floor_rtt_p99_ns", json_real(floor_lat.p99_ns));
        json_object_set_new(j, "rtt_vs_floor", json_real(ratio));
        json_object_set_new(j, "implausible", json_boolean(implausible));
        err = lat_write_json_atomic(json_path, j);
        json_decref(j);
        if (err) return cli_lib_error("dce", json_path, err);
    }
    return CLI_OK;
}
