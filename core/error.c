/* error.c - lat_strerror(): sentences for negative errno and LAT_E* codes;
 * lat__errf: an error's sentence into the caller's buffer; lat__write_status:
 * a stream's write error with its errno (ENOSPC, not EIO). */
#include "latlab/error.h"

#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error_internal.h"

const char *lat_strerror(int err) {
    switch (err) {
    case 0:
        return "success";
    case LAT_EFORMAT:
        return "malformed input";
    case LAT_ETRUNCATED:
        return "input is truncated";
    case LAT_ECOOKIE:
        return "unknown format cookie";
    case LAT_ECOMPRESS:
        return "compressed data is corrupt or could not be compressed";
    case LAT_EGEOMETRY:
        return "value or index outside the histogram's geometry";
    case LAT_ETOOFEW_CPUS:
        return "not enough CPUs for the requested placement";
    case LAT_EINCOMPATIBLE:
        return "incompatible inputs";
    case LAT_ENOTCOUNTED:
        return "not counted (the counter never ran)";
    case LAT_ENOPMU:
        return "not supported on this machine (no hardware PMU; virtual machine?)";
    case LAT_EHTTP:
        return "the HTTP peer answered with an error status or a malformed response";
    default:
        break;
    }
    if (err < LAT_EADDRINFO && err >= LAT_EADDRINFO - 200)
        return gai_strerror(err - LAT_EADDRINFO); /* the resolver's own words */
    if (err < 0 && err > -4096) {
        /* strerror() is not guaranteed thread-safe; the GNU strerror_r returns
         * a pointer to a static, immutable string for known codes. */
        static __thread char buf[96];
        return strerror_r(-err, buf, sizeof buf);
    }
    return "unknown error";
}

int lat__errf(char *buf, size_t n, int rc, const char *fmt, ...) {
    if (buf && n) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, n, fmt, ap);
        va_end(ap);
    }
    return rc;
}

int lat__write_status(FILE *f, int flush) {
    int before = errno;
    if (!flush && !ferror(f)) return 0;
    /* stdio drops a buffer it failed to write, and what was written since
     * is still buffered: flushing it fails the same way, with a fresh errno
     * (the one the first failure left may be gone: a formatting call's
     * ERANGE once read "Numerical result out of range" for a full disk) */
    errno = 0;
    if (fflush(f) != 0) return errno > 0 ? -errno : -EIO;
    if (!ferror(f)) return 0;
    return before > 0 && before != ERANGE && before != EDOM ? -before : -EIO;
}
