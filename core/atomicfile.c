/* atomicfile.c - temporary file + fsync + rename (see atomicfile.h). */
#include "latlab/atomicfile.h"

#include "alloc_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct lat_afile {
    FILE *fp;
    char *path;
    char *tmp;
};

/* A target that exists and is not a regular file (/dev/null, a FIFO, a
 * terminal) is written in place: renaming over it would replace the device. */
static int open_in_place(const char *path, lat_afile **out) {
    lat_afile *f = lat__calloc(1, sizeof *f);
    if (!f) return -ENOMEM;
    f->fp = fopen(path, "w");
    if (!f->fp) {
        int e = errno;
        lat__free(f);
        return -e;
    }
    *out = f; /* path and tmp stay NULL: commit only flushes and closes */
    return 0;
}

int lat_afile_open(const char *path, lat_afile **out) {
    if (!path || !*path || !out) return -EINVAL;
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) return -EISDIR;
        if (!S_ISREG(st.st_mode)) return open_in_place(path, out);
    }
    lat_afile *f = lat__calloc(1, sizeof *f);
    if (!f) return -ENOMEM;
    size_t n = strlen(path);
    f->path = lat__strdup(path);
    f->tmp = lat__alloc(n + 16);
    if (!f->path || !f->tmp) goto fail_nomem;
    memcpy(f->tmp, path, n);
    memcpy(f->tmp + n, ".tmp.XXXXXX", 12);
    int fd = mkstemp(f->tmp);
    if (fd < 0) {
        int e = errno;
        lat__free(f->tmp);
        lat__free(f->path);
        lat__free(f);
        return -e;
    }
    (void)fchmod(fd, 0644);
    f->fp = fdopen(fd, "w");
    if (!f->fp) {
        int e = errno;
        close(fd);
        unlink(f->tmp);
        lat__free(f->tmp);
        lat__free(f->path);
        lat__free(f);
        return -e;
    }
    *out = f;
    return 0;
fail_nomem:
    lat__free(f->tmp);
    lat__free(f->path);
    lat__free(f);
    return -ENOMEM;
}

FILE *lat_afile_stream(lat_afile *f) {
    return f ? f->fp : NULL;
}

static void afile_free(lat_afile *f) {
    lat__free(f->tmp);
    lat__free(f->path);
    lat__free(f);
}

int lat_afile_commit(lat_afile *f) {
    if (!f) return -EINVAL;
    int rc = 0;
    if (ferror(f->fp) || fflush(f->fp) != 0) rc = errno ? -errno : -EIO;
    if (rc == 0 && fsync(fileno(f->fp)) != 0 && errno != EINVAL) rc = -errno;
    if (fclose(f->fp) != 0 && rc == 0) rc = -errno;
    if (rc == 0 && f->tmp && rename(f->tmp, f->path) != 0) rc = -errno;
    if (rc != 0 && f->tmp) unlink(f->tmp);
    afile_free(f);
    return rc;
}

void lat_afile_abort(lat_afile *f) {
    if (!f) return;
    fclose(f->fp);
    if (f->tmp) unlink(f->tmp);
    afile_free(f);
}

int lat_write_file_atomic(const char *path, const void *data, size_t len) {
    lat_afile *f;
    int rc = lat_afile_open(path, &f);
    if (rc) return rc;
    if (len && fwrite(data, 1, len, f->fp) != len) {
        rc = errno ? -errno : -EIO;
        lat_afile_abort(f);
        return rc;
    }
    return lat_afile_commit(f);
}

int lat_write_text_atomic(const char *path, const char *text) {
    return lat_write_file_atomic(path, text, text ? strlen(text) : 0);
}

int lat_mkdir_p(const char *path) {
    if (!path || !*path) return -EINVAL;
    char *p = lat__strdup(path);
    if (!p) return -ENOMEM;
    int rc = 0;
    for (char *s = p + 1;; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s = '\0';
            if (mkdir(p, 0755) != 0 && errno != EEXIST) {
                rc = -errno;
                break;
            }
            *s = c;
            if (c == '\0') break;
        }
    }
    if (rc == 0) {
        struct stat st;
        if (stat(path, &st) != 0)
            rc = -errno;
        else if (!S_ISDIR(st.st_mode))
            rc = -ENOTDIR;
    }
    lat__free(p);
    return rc;
}
