/* latlab.h - umbrella header: includes every public latlab header. */

/* Stable headers keep their API within a major version (the soname's
 * number).  Core floor (libc, zlib, pthreads): compiler version error alloc
 * atomicfile clock hist hlog hlog_merge hlog_processor hlog_follow ring perf
 * topo topo_report flight gaps stats budget pingpong.  Measure floor: trace (no jansson); json
 * report bench http prom (jansson). */

/* Experimental headers may change in any release: the demo pipeline and
 * its report, the lab floor (lab_*.h, lab.h; in liblatlab-lab), the
 * platform account, injected platform noise, per-sample censoring, the
 * paired-comparison engine (paired), two builds compared (ab) and the
 * preemption probe, profiling, the counting malloc interposer, the load
 * generator (load, loadproto, loadverdict, loadrun, loadtarget, loadtls,
 * loadh2),
 * the coordinated-omission demonstration (co), per-thread counter sets
 * (perf_threads), a command run under counters (perf_child) and its report
 * (perf_report), the summary of an
 * interval log (hlog_summary), the inputs of a plot (plotset), a live tail
 * row (tailrow), what injected noise took (noise_report), a stream that
 * wraps long lines (linewrap). */

/* Each experimental header refuses to compile unless LATLAB_EXPERIMENTAL is
 * defined before it is included, and this header includes them only then
 * (zstd's ZSTD_STATIC_LINKING_ONLY pattern).  tests/headers.sh fails when a
 * public header is missing here.  latlab/core.h includes the core floor
 * alone. */

/* Linking: liblatlab.so (pkg-config latlab, CMake latlab::latlab) exports the
 * stable API alone (the functions marked LAT_API); liblatlab.a
 * (latlab::latlab_static) holds everything.  The experimental parts link
 * statically only, with liblatlab.a: pkg-config latlab-experimental, CMake
 * latlab::experimental (both define LATLAB_EXPERIMENTAL). */
#ifndef LATLAB_LATLAB_H
#define LATLAB_LATLAB_H

#include "latlab/compiler.h"
#include "latlab/version.h"
#include "latlab/error.h"
#include "latlab/alloc.h"
#include "latlab/atomicfile.h"
#include "latlab/clock.h"
#include "latlab/hist.h"
#include "latlab/hlog.h"
#include "latlab/hlog_merge.h"
#include "latlab/hlog_processor.h"
#include "latlab/hlog_follow.h"
#include "latlab/ring.h"
#include "latlab/perf.h"
#include "latlab/topo.h"
#include "latlab/topo_report.h"
#include "latlab/flight.h"
#include "latlab/gaps.h"
#include "latlab/stats.h"
#include "latlab/pingpong.h"
#include "latlab/budget.h"
#include "latlab/json.h"
#include "latlab/report.h"
#include "latlab/trace.h"
#include "latlab/bench.h"
#include "latlab/http.h"
#include "latlab/prom.h"

#ifdef LATLAB_EXPERIMENTAL
#include "latlab/alloccount.h"
#include "latlab/platform.h"
#include "latlab/flame.h"
#include "latlab/profile.h"
#include "latlab/pipeline.h"
#include "latlab/pipeline_report.h"
/* the lab floor: liblatlab-lab (and liblatbook for its replay round) */
#include "latlab/lab_verdict.h"
#include "latlab/lab.h"
#include "latlab/lab_placement.h"
#include "latlab/lab_account.h"
#include "latlab/lab_profile.h"
#include "latlab/lab_replay.h"
#include "latlab/lab_session.h"
#include "latlab/lab_report.h"
#include "latlab/noise.h"
#include "latlab/noise_report.h"
#include "latlab/linewrap.h"
#include "latlab/censor.h"
#include "latlab/paired.h"
#include "latlab/ab.h"
#include "latlab/abrun.h"
#include "latlab/silence.h"
#include "latlab/preempt.h"
#include "latlab/co.h"
#include "latlab/perf_threads.h"
#include "latlab/perf_child.h"
#include "latlab/perf_report.h"
#include "latlab/hlog_summary.h"
#include "latlab/plotset.h"
#include "latlab/tailrow.h"
/* the load generator (latlab load) */
#include "latlab/loadproto.h"
#include "latlab/load.h"
#include "latlab/loadverdict.h"
#include "latlab/loadrun.h"
#include "latlab/loadsched.h"
#include "latlab/loadtarget.h"
#include "latlab/loadtls.h"
#include "latlab/loadh2.h"
#endif

#endif /* LATLAB_LATLAB_H */
