/* cliopts.c - subcommand groups and repeatable options on top of the options
 * table (see cliopts.h): the dispatch, the help generated from each
 * subcommand's spec, and the list collector. */
#include "cliopts.h"

#include <errno.h>
#include <string.h>

#include <jansson.h>

#include "latlab/atomicfile.h"
#include "latlab/error.h"
#include "latlab/json.h"

const cli_sub *cli_group_find(const cli_spec *g, const char *name) {
    for (const cli_sub *s = g->subs; name && s->name; s++)
        if (!strcmp(s->name, name)) return s;
    return NULL;
}

/* "a, b or c" into buf. */
static void list_names(const cli_spec *g, char *buf, size_t n) {
    size_t len = 0, count = 0;
    for (const cli_sub *s = g->subs; s->name; s++)
        count++;
    buf[0] = '\0';
    for (size_t i = 0; i < count && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s",
                                i == 0           ? ""
                                : i + 1 == count ? " or "
                                                 : ", ",
                                g->subs[i].name);
}

int cli_group_run(const cli_spec *g, int argc, char **argv) {
    char names[256];
    list_names(g, names, sizeof names);
    if (argc < 2) return cli_usage_error(g->name, "needs a subcommand: %s", names);
    const char *name = argv[1];
    if (!strcmp(name, "help") || !strcmp(name, "-h") || !strcmp(name, "--help")) {
        cli_help_for(g, NULL, stdout);
        return CLI_OK;
    }
    const cli_sub *s = cli_group_find(g, name);
    if (s) return s->fn(argc - 1, argv + 1);
    return cli_usage_error(g->name, "unknown subcommand '%s' (%s)", name, names);
}

static void group_help(const cli_spec *g, FILE *f) {
    int width = 0;
    for (const cli_sub *s = g->subs; s->name; s++)
        if ((int)strlen(s->name) > width) width = (int)strlen(s->name);
    /* the command's own form (no subcommand word) comes first */
    if (g->synopsis) fprintf(f, "usage: %s\n", g->synopsis);
    for (const cli_sub *s = g->subs; s->name; s++) {
        fputs(s == g->subs && !g->synopsis ? "usage: " : "       ", f);
        fprintf(f, "%s\n", s->spec->synopsis);
    }
    if (g->about) fprintf(f, "\n%s", g->about);
    if (g->opts) cli_help_options(g, f);
    fputs("\nsubcommands:\n", f);
    for (const cli_sub *s = g->subs; s->name; s++)
        fprintf(f, "  %-*s  %s\n", width, s->name, s->summary);
    fprintf(f, "\n'latlab help %s SUBCOMMAND' for one subcommand's help.\n", g->name);
    for (const cli_sub *s = g->subs; s->name; s++) {
        fprintf(f, "\n---- %s %s\n", g->name, s->name);
        cli_help(s->spec, f);
    }
    if (g->epilog) fprintf(f, "\n%s", g->epilog);
}

void cli_help_for(const cli_spec *sp, const char *sub, FILE *f) {
    const cli_sub *s = sp->subs ? cli_group_find(sp, sub) : NULL;
    if (s)
        cli_help(s->spec, f);
    else if (sp->subs)
        group_help(sp, f);
    else
        cli_help(sp, f);
}

int cli_parse_one(const cli_spec *sp, int argc, char **argv, const char *need, const char **arg) {
    int first, rc = cli_parse(sp, argc, argv, &first);
    if (rc) return rc;
    if (first != argc - 1) return cli_usage_error(sp->name, "%s", need);
    *arg = argv[first];
    return 0;
}

int cli_parse_pace(const char *cmd, const char *flag, const char *s, double max, double *speed) {
    if (!strcmp(s, "max")) {
        *speed = 0;
        return 0;
    }
    if (!strcmp(s, "original")) {
        *speed = 1;
        return 0;
    }
    if (s[0] == 'x') return cli_parse_double(cmd, flag, s + 1, 1e-3, max, speed);
    return cli_usage_error(cmd, "%s: '%s' is not original, xN or max", flag, s);
}

int cli_list_add(const char *cmd, const char *flag, const char *value, void *dest) {
    cli_list *l = dest;
    if (l->n >= CLI_LIST_MAX)
        return cli_usage_error(cmd, "%s: given more than %d times", flag, CLI_LIST_MAX);
    l->v[l->n++] = value;
    return 0;
}

size_t cli_list_join(const cli_list *l, const char *sep, char *buf, size_t n) {
    size_t len = 0;
    if (n) buf[0] = '\0';
    for (int i = 0; i < l->n; i++) {
        size_t room = len < n ? n - len : 0;
        len += (size_t)snprintf(room ? buf + len : NULL, room, "%s%s", i ? sep : "", l->v[i]);
    }
    return len;
}

int cli_write_json(const char *cmd, const char *path, json_t *doc) {
    int err = doc ? lat_write_json_atomic(path, doc) : -ENOMEM;
    json_decref(doc);
    return err ? cli_lib_error(cmd, path, err) : CLI_OK;
}

int cli_out_open(cli_out *o, const char *cmd, const char *path) {
    o->af = NULL;
    o->f = stdout;
    if (!path) return CLI_OK;
    int rc = lat_afile_open(path, &o->af);
    if (rc < 0) return cli_error(cmd, "%s: %s", path, lat_strerror(rc));
    o->f = lat_afile_stream(o->af);
    return CLI_OK;
}

int cli_out_close(cli_out *o, const char *cmd, const char *path, int status) {
    if (!o->af) return status; /* stdout: checked once for every command in latlab.c */
    if (status != CLI_OK) {
        lat_afile_abort(o->af);
        return status;
    }
    int rc = lat_afile_commit(o->af);
    return rc < 0 ? cli_error(cmd, "%s: %s", path, lat_strerror(rc)) : CLI_OK;
}
