/* book_cli.c - helpers the `latlab book` subcommands share (see book_cli.h):
 * the --tick/--price-scale combination, the check of stdout and the .hgrm
 * file.  Kept apart from cli/cmd_book.c, which dispatches to the subcommands, so
 * the subcommands' files call these without calling back into the
 * dispatcher. */
#include "book_cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "latlab/atomicfile.h"
#include "latlab/error.h"
#include "latlab/hist.h"
#include "latlab/hlog.h"
#include "opstream.h"

int64_t book_cli_tick(const char *cmd, const book_price_flags *pf) {
    uint64_t scale = pf->scale ? pf->scale : 1;
    if (!pf->tick) return 1;
    int64_t u;
    if (book_tick_units(pf->tick, scale, &u)) {
        cli_usage_error(cmd,
                        "--tick: '%s' is not a positive decimal that is a whole number of "
                        "input units at --price-scale %" PRIu64,
                        pf->tick, scale);
        return -1;
    }
    return u;
}

int book_cli_check_stdout(const char *cmd) {
    if (fflush(stdout) == 0 && !ferror(stdout)) return CLI_OK;
    return cli_error(cmd, "writing stdout: %s", strerror(errno ? errno : EIO));
}

int book_cli_write_hgrm(const char *cmd, const char *path, const lat_hist *h) {
    lat_afile *af;
    int err = lat_afile_open(path, &af);
    if (!err) {
        err = lat_hist_write_percentiles(lat_afile_stream(af), h, 5, 1.0, false);
        if (err)
            lat_afile_abort(af);
        else
            err = lat_afile_commit(af);
    }
    return err ? cli_lib_error(cmd, path, err) : CLI_OK;
}
