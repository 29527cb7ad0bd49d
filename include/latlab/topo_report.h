/* topo_report.h - the CPU topology as text (online CPUs and affinity, one row
 * per CPU: core, package, siblings, capacity, max MHz, isolated, P/E core;
 * the caches) and where latlab would place 1, 2 and 3 hot threads with one
 * cold thread (lat_topo_plan), as `latlab sys` prints them.  Writes only to
 * the FILE it is given.  Not hot; thread-safe on distinct streams. */
#ifndef LATLAB_TOPO_REPORT_H
#define LATLAB_TOPO_REPORT_H

#include "latlab/compiler.h"

#include <stdio.h>

#include "latlab/topo.h"

/* "\ntopology: N online CPUs (...), affinity ...", the CPU table, the caches. */
LAT_API void lat_topo_write_text(const lat_topo *t, FILE *f);

/* "\nplacement (...):" and one line per plan (or why it was refused). */
LAT_API void lat_topo_write_plans(const lat_topo *t, FILE *f);

#endif
