/* pfm.c - optional libpfm4 event names for perf.c.
 *
 * Kept in its own file because libpfm's <perfmon/perf_event.h> redefines the
 * kernel's perf_event_attr: this file passes plain integers back instead.
 * Without LAT_HAVE_LIBPFM (library absent at build time) every lookup says
 * "unknown".  libpfm knows the CPU's event tables even where the kernel has
 * no PMU (a VM), so a name resolving here says nothing about whether it can
 * be counted: perf.c still probes it. */
#include <errno.h>
#include <stdint.h>

int lat__perf_pfm_encode(const char *name, uint32_t *type, uint64_t config[3]);

#ifdef LAT_HAVE_LIBPFM
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <string.h>

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_ok;

static void pfm_init(void) {
    pfm_ok = pfm_initialize() == PFM_SUCCESS;
}

/* 0 and the encoding, or -ENOENT when libpfm does not know the name. */
int lat__perf_pfm_encode(const char *name, uint32_t *type, uint64_t config[3]) {
    pthread_once(&pfm_once, pfm_init);
    if (!pfm_ok) return -ENOENT;
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    pfm_perf_encode_arg_t arg;
    memset(&arg, 0, sizeof arg);
    arg.attr = &attr;
    arg.size = sizeof arg;
    if (pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT, &arg) !=
        PFM_SUCCESS)
        return -ENOENT;
    *type = attr.type;
    config[0] = attr.config;
    config[1] = attr.config1;
    config[2] = attr.config2;
    return 0;
}
#else
int lat__perf_pfm_encode(const char *name, uint32_t *type, uint64_t config[3]) {
    (void)name;
    (void)type;
    (void)config;
    return -ENOENT;
}
#endif
