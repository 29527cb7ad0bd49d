/* fuzz_load_memcached.c - `latlab load`'s memcached response parser (lat_loadproto_feed)
 * on arbitrary bytes from a server: see load_fuzz.h for what must hold. */
#include "load_fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    static const lat_loadproto_opts o = {.kind = LAT_LOADPROTO_MEMCACHED};
    return load_fuzz_one(&o, data, size);
}
