/* loadtarget.c - `latlab load`'s TARGET split into host, port, path and
 * scheme (http://, https://).  See loadtarget.h.  Its own file so that the
 * engine (load.c) keeps to connections and the schedule. */
#include "latlab/loadtarget.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int lat_loadtarget_split(const char *t, char *host, size_t hn, char *port, const char **path,
                         const char **why, bool *tls_out) {
    const char *s = t, *def_port = NULL;
    *path = NULL;
    *why = NULL;
    bool tls = !strncmp(s, "https://", 8);
    if (tls_out) *tls_out = tls;
    if (tls || !strncmp(s, "http://", 7)) {
        s += tls ? 8 : 7;
        def_port = tls ? "443" : "80";
        const char *sl = strchr(s, '/');
        *path = sl;
    }
    size_t len = *path ? (size_t)(*path - s) : strlen(s);
    const char *hs = s, *he, *ps = NULL;
    if (*s == '[') {
        he = memchr(s, ']', len);
        if (!he) return *why = ": no ']'", -EINVAL;
        hs = s + 1;
        if (he + 1 < s + len && he[1] == ':') ps = he + 2;
    } else {
        const char *c = memchr(s, ':', len);
        he = c ? c : s + len;
        if (c) ps = c + 1;
    }
    size_t hl = (size_t)(he - hs), pl = ps ? (size_t)(s + len - ps) : 0;
    if (!hl || hl >= hn) return *why = ": no host", -EINVAL;
    if (!ps && !def_port) return *why = " is not HOST:PORT", -EINVAL;
    memcpy(host, hs, hl);
    host[hl] = 0;
    if (ps) {
        if (!pl || pl > 5 || strspn(ps, "0123456789") < pl) return *why = ": bad port", -EINVAL;
        memcpy(port, ps, pl);
        port[pl] = 0;
        long pn = strtol(port, NULL, 10);
        if (pn < 1 || pn > 65535) return *why = ": port out of range (1-65535)", -EINVAL;
    } else {
        strcpy(port, def_port);
    }
    return 0;
}
