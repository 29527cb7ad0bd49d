/* latlab.h - umbrella header: includes every public latlab header.
 * Core floor (libc, zlib, pthreads): compiler error alloc atomicfile clock
 * hist hlog ring perf topo flight.  Measure floor: trace (no jansson); json
 * report bench http prom (jansson), load loadproto loadverdict.  Workloads: pipeline.  latlab/core.h
 * includes the core alone. */
#ifndef LATLAB_LATLAB_H
#define LATLAB_LATLAB_H

#include "latlab/compiler.h"
#include "latlab/error.h"
#include "latlab/alloc.h"
#include "latlab/atomicfile.h"
#include "latlab/clock.h"
#include "latlab/hist.h"
#include "latlab/hlog.h"
#include "latlab/ring.h"
#include "latlab/perf.h"
#include "latlab/topo.h"
#include "latlab/flight.h"
#include "latlab/json.h"
#include "latlab/pipeline.h"
#include "latlab/report.h"
#include "latlab/flame.h"
#include "latlab/profile.h"
#include "latlab/trace.h"
#include "latlab/bench.h"
#include "latlab/http.h"
#include "latlab/prom.h"
#include "latlab/loadproto.h"
#include "latlab/load.h"
#include "latlab/loadverdict.h"

#endif /* LATLAB_LATLAB_H */
