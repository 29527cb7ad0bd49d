/* atomicfile.h - write result files atomically (temporary file + rename).
 *
 * Readers of a results folder never see a half-written file: output goes to a
 * temporary file in the target's directory, is flushed and fsync'd, and only
 * then renamed over the target.  On any error the target is left as it was.
 * A target that exists and is not a regular file (/dev/null, a FIFO, a
 * terminal) is written in place instead: renaming over it would replace the
 * device.  A directory is -EISDIR.
 * Streaming output (interval logs) goes through the same path: the temporary
 * file grows line by line and replaces the target only when complete. */
#ifndef LATLAB_ATOMICFILE_H
#define LATLAB_ATOMICFILE_H

#include "latlab/compiler.h"

#include <stddef.h>
#include <stdio.h>

typedef struct lat_afile lat_afile;

/* Start writing path (into "<path>.tmp.<pid>.XXXXXX" beside it).  Temporaries
 * of the same target left by a process of this user that no longer exists (a
 * killed run) are removed first.  Returns 0 and *out, or a negative errno. */
LAT_API int lat_afile_open(const char *path, lat_afile **out);
/* The stream to write into; valid until commit/abort. */
LAT_API FILE *lat_afile_stream(lat_afile *f);
/* Flush, fsync, rename into place, free f.  Negative errno on failure (the
 * temporary file is removed and the target untouched).  NULL is -EINVAL. */
LAT_API int lat_afile_commit(lat_afile *f);
/* Discard everything written and free f.  NULL is fine. */
LAT_API void lat_afile_abort(lat_afile *f);

/* Install SIGINT, SIGTERM and SIGHUP handlers (for programs: the library
 * never installs them itself) that remove the temporary files of every
 * lat_afile still open, say on stderr which targets were left as they were,
 * then die of the signal as before.  A signal the process ignores stays
 * ignored; a handler installed later replaces this one for its signal.
 * Returns 0 or a negative errno.  Up to 64 files at once are tracked. */
LAT_API int lat_afile_cleanup_on_signals(void);

/* Convenience: write len bytes / a NUL-terminated string atomically to path. */
LAT_API int lat_write_file_atomic(const char *path, const void *data, size_t len);
LAT_API int lat_write_text_atomic(const char *path, const char *text);

/* Create a directory and its parents (mode 0755); existing ones are fine. */
LAT_API int lat_mkdir_p(const char *path);

#endif /* LATLAB_ATOMICFILE_H */
