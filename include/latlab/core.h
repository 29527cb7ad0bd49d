/* core.h - the core floor's headers alone: what liblatlab-core provides with
 * only libc, zlib and pthreads (no jansson, no experiments, no test hooks). */
#ifndef LATLAB_CORE_H
#define LATLAB_CORE_H

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
#include "latlab/stats.h"

#ifdef LATLAB_EXPERIMENTAL
#include "latlab/noise.h"        /* experimental: injected platform noise */
#include "latlab/censor.h"       /* experimental: per-sample censoring */
#include "latlab/preempt.h"      /* experimental: the rseq preemption probe */
#include "latlab/perf_threads.h" /* experimental: per-thread counter sets */
#include "latlab/linewrap.h"     /* experimental: a stream that wraps long lines */
#include "latlab/perf_child.h"   /* experimental: a command run under counters */
#endif

#endif /* LATLAB_CORE_H */
