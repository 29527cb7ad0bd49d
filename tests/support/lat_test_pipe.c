/* lat_test_pipe.c - the test helper that needs the pipeline (liblatlab):
 * apart from lat_test.c, which needs the core floor alone, so the core's
 * tests link liblatlab-core and nothing above it (tests/CMakeLists.txt). */
#include "lat_test.h"

#include <stdbool.h>

#include "latlab/pipeline.h"
#include "latlab/topo.h"

int lat_test_place_compact(lat_pipe_config *c) {
    lat_topo *t = NULL;
    if (lat_test_cpus() < 2 || lat_topo_load(NULL, &t) != 0) return 0;
    bool over = false;
    char why[256];
    int rc = lat_pipe_place(c, LAT_PIPE_COMPACT, t, false, &over, why, sizeof why);
    lat_topo_destroy(t);
    return rc == 0 && !over;
}
