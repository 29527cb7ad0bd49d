/* version.c - lat_version(): the release this library was built as, so a
 * program can tell the library it loaded from the headers it was compiled
 * against (LATLAB_VERSION_STRING, see version.h). */
#include "latlab/version.h"

const char *lat_version(void) {
    return LATLAB_VERSION_STRING;
}
