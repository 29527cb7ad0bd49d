/* version.h - which latlab release these headers belong to.
 *
 * The macros are the version of the headers a program was compiled against;
 * lat_version() is the version of the library it runs with (the shared
 * library may be newer than the headers, within the same major version: the
 * soname's number).  The numbers follow CMakeLists.txt's project(VERSION ...);
 * configuring the build fails when the two disagree. */
#ifndef LATLAB_VERSION_H
#define LATLAB_VERSION_H

#include "latlab/compiler.h"

#define LATLAB_VERSION_MAJOR 0
#define LATLAB_VERSION_MINOR 1
#define LATLAB_VERSION_PATCH 0
#define LATLAB_VERSION_STRING "0.1.0"
/* One comparable number: MAJOR * 10000 + MINOR * 100 + PATCH (0.1.0 -> 100). */
#define LATLAB_VERSION_NUMBER                                                                      \
    (LATLAB_VERSION_MAJOR * 10000 + LATLAB_VERSION_MINOR * 100 + LATLAB_VERSION_PATCH)

/* The library's own version as "MAJOR.MINOR.PATCH" (static storage, never
 * NULL); thread-safe.  Compare with LATLAB_VERSION_STRING to tell the headers
 * a program was built with from the library it loaded. */
LAT_API const char *lat_version(void);

#endif /* LATLAB_VERSION_H */
