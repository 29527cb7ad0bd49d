/* http_internal.h - the test seam of measure/http.c (never installed): the
 * name lookup that lat_http_resolve runs on its helper thread, replaceable so
 * that a test can hold a lookup as long as it likes. */
#ifndef LATLAB_HTTP_INTERNAL_H
#define LATLAB_HTTP_INTERNAL_H

#include <netdb.h>

typedef int (*lat_http_getaddrinfo_fn)(const char *host, const char *port,
                                       const struct addrinfo *hints, struct addrinfo **res);

/* Replace getaddrinfo for names (NULL: back to getaddrinfo).  Not
 * thread-safe: call while no lookup runs. */
void lat__http_set_resolver(lat_http_getaddrinfo_fn fn);

#endif /* LATLAB_HTTP_INTERNAL_H */
