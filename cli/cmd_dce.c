/* cmd_dce.c - `latlab dce`: warm-up 3, the dead-code-elimination trap and the
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
#include "dce.h"
#include "pipeplace.h"
#include "bakeoff_rings.h"

#include "latlab/pingpong.h"

#include <stdbool.h>
#include <stdio.h>

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

int cmd_dce(int argc, char **argv) {
    int first, rc = cli_parse(&cmd_dce_spec, argc, argv, &first);
    if (rc) return rc < 0 ? CLI_OK : rc;
    lat__dce_figs f = {.ring = NULL};
    if ((rc = cli_pick_two_cpus("dce", cpulist, f.cpus))) return rc;
    lat__bakeoff_kind kind = ring_choice ? LAT_BAKEOFF_SEQRING : LAT_BAKEOFF_RING;
    const lat_clock_cal *cal = lat_clock_default();
    f.ring = lat__bakeoff_kind_name(kind);

    lat__bakeoff_dce_pair(ops, &f.trap_ns, &f.barrier_ns);
    f.st_ns = lat__bakeoff_same_thread_ns(kind, 8, ops);
    if (f.st_ns < 0) return cli_error("dce", "same-thread run failed (items lost or reordered)");
    int err = lat_pingpong(f.cpus[0], f.cpus[1], samples, &f.floor);
    if (!err) err = lat__bakeoff_roundtrip(kind, 1024, f.cpus[0], f.cpus[1], samples, &f.cross);
    if (!err)
        err = lat__bakeoff_throughput(kind, 8, 4096, f.cpus[0], f.cpus[1], samples * 20, &f.mops,
                                      NULL);
    if (err) return cli_lib_error("dce", "cross-core run", err);
    lat__dce_judge(&f);
    lat__dce_print(&f, cal->cycles_per_ns, stdout);
    return json_path ? cli_write_json("dce", json_path,
                                      lat__dce_json(&f, cal->cycles_per_ns, ops, samples))
                     : CLI_OK;
}
