/* session.c - one lab session (see lab_session.h): what the protocol's
 * callbacks collect, the printed header and summary, and the files written
 * at the end (the writers are report.c's). */
#include "latlab/lab_session.h"

#include "lab_internal.h"
#include "latlab/lab_report.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "latlab/atomicfile.h"
#include "latlab/censor.h"
#include "latlab/flight.h"
#include "latlab/json.h"
#include "latlab/pipeline_report.h"
#include "latlab/silence.h"
#include "latlab/stats.h"

int lat_lab_session_init(lat_lab_session *s, const char *out) {
    memset(s, 0, sizeof *s);
    s->out = out;
    snprintf(s->runs_dir, sizeof s->runs_dir, "%s/runs", out);
    s->jruns = json_array();
    return s->jruns ? 0 : -ENOMEM;
}

void lat_lab_session_fini(lat_lab_session *s) {
    if (!s) return;
    json_decref(s->jruns);
    s->jruns = NULL;
    json_decref(s->noise);
    s->noise = NULL;
    lat_lab_replay_fini(&s->replay);
    free(s->flight_dump);
    s->flight_dump = NULL;
    free(s->others.p); /* a lab that failed before its end */
    s->others.p = NULL;
    for (int i = 0; i < 2; i++) {
        lat_lab_silence_stop(&s->sil[i]); /* a tracer still running */
        free(s->sil[i].text);
        s->sil[i].text = NULL;
    }
    lat_lab_prof_fini(&s->prof);
}

int lat_lab_session_setup(lat_lab_session *x, bool over, const char *why, bool root,
                          const char *prof_off) {
    const lat_lab_config *c = &x->cfg;
    x->over = over;
    x->root = root;
    snprintf(x->why, sizeof x->why, "%s", why ? why : "");
    x->cfg.hlog_dir = x->runs_dir;
    char fp[4200]; /* a window from an earlier lab must not pass for this one's */
    snprintf(fp, sizeof fp, "%s/flight-alloc.txt", x->out);
    unlink(fp);
    x->gap_us = (double)x->cfg.pipe.gap_threshold_ns / 1e3;
    lat_lab_prof_init(&x->prof, x->out, 999, prof_off);
    if (!root)
        snprintf(x->silence_note, sizeof x->silence_note,
                 "not root: the silence check (ftrace) needs root; run `sudo latlab lab` for it");
    int rc = lat_runcond_collect(&x->rcnd, NULL);
    if (rc) return rc;
    snprintf(x->banner, sizeof x->banner, "latlab lab: %s shape, %s; %s",
             lat_pipe_shape_name(c->pipe.shape), over ? "oversubscribed" : "pinned", x->why);
    return 0;
}

lat_lab_silence *lat_lab_session_silence(lat_lab_session *x, int conf, unsigned round,
                                         unsigned attempt) {
    if (!x->root || round != 0 || attempt != 0 || (conf != LAT_LAB_BASE && conf != LAT_LAB_NOPIN))
        return NULL;
    lat_lab_silence *s = &x->sil[conf == LAT_LAB_BASE ? 0 : 1];
    s->conf = conf;
    return s;
}

void lat_lab_session_around(lat_lab_session *x, int conf, unsigned round, unsigned attempt,
                            int begin) {
    int side = conf == LAT_LAB_BASE    ? LAT_LAB_PROF_BASE
               : conf == LAT_LAB_SHARE ? LAT_LAB_PROF_SHARE
                                       : -1;
    if (side < 0 || round != 0 || attempt != 0) return;
    if (begin)
        lat_lab_prof_begin(&x->prof, side);
    else
        lat_lab_prof_end(&x->prof, side);
}

void lat_lab_silence_plan(const lat_lab_session *x, lat_lab_silence *s, const lat_pipe_config *c,
                          char *cpus, size_t cpus_len, char *secs, size_t secs_len) {
    cpus[0] = 0;
    for (int k = 0, n = 0; k < LAT_PIPE_NHOT && (size_t)n < cpus_len; k++)
        if (x->cfg.pipe.cpus[k] >= 0)
            n +=
                snprintf(cpus + n, cpus_len - (size_t)n, "%s%d", n ? "," : "", x->cfg.pipe.cpus[k]);
    snprintf(secs, secs_len, "%.3f", (double)c->events / (double)c->rate_hz + 0.2);
    /* the tracer writes a .part file; it becomes silence-<conf>.txt once complete */
    snprintf(s->path, sizeof s->path, "%s/silence-%s.txt.part", x->out, lat_lab_conf_name(s->conf));
}

void lat_lab_silence_done(lat_lab_silence *s, int status) {
    s->pid = 0;
    s->status = status;
    FILE *f = fopen(s->path, "r");
    if (!f) return;
    char done[sizeof s->path];
    snprintf(done, sizeof done, "%.*s", (int)(strlen(s->path) - 5), s->path);
    rename(s->path, done);
    size_t cap = 65536, n;
    s->text = calloc(1, cap);
    if (s->text) {
        n = fread(s->text, 1, cap - 1, f);
        s->text[n] = 0;
    }
    fclose(f);
}

/* The silence check's tracer thread: the engine, its report in the file. */
struct lat_lab_silence_job {
    pthread_t thread;
    FILE *f;
    int cpus[LAT_PIPE_NHOT];
    lat_silence_config c;
    lat_silence_report r;
    int status;
};

static void job_warn(void *ud, const char *msg) {
    struct lat_lab_silence_job *j = ud;
    fprintf(j->f, "latlab silence: warning: %s\n", msg);
    fflush(j->f);
}

static void *job_main(void *arg) {
    struct lat_lab_silence_job *j = arg;
    char err[1024];
    if (lat_silence_run(&j->c, &j->r, err, sizeof err)) {
        fprintf(j->f, "latlab silence: %s\n", err);
        j->status = 1;
    } else {
        lat_silence_report_print(&j->r, j->f, 10);
    }
    return NULL;
}

static void job_free(struct lat_lab_silence_job *j) {
    if (!j) return;
    if (j->f) fclose(j->f);
    lat_silence_report_fini(&j->r);
    free(j);
}

/* The job for the plan: the hot CPUs, the seconds, the report file. */
static int job_make(const lat_lab_session *x, lat_lab_silence *s, const lat_pipe_config *c,
                    struct lat_lab_silence_job **out) {
    char cpus[64], secs[32];
    lat_lab_silence_plan(x, s, c, cpus, sizeof cpus, secs, sizeof secs);
    struct lat_lab_silence_job *j = calloc(1, sizeof *j);
    if (!j) return -ENOMEM;
    int n = 0; /* ascending, once each, as `latlab silence --cpus` reads the list */
    for (int cpu = 0; cpu < LAT_SILENCE_MAXCPU && n < LAT_PIPE_NHOT; cpu++)
        for (int k = 0; k < LAT_PIPE_NHOT; k++)
            if (x->cfg.pipe.cpus[k] == cpu) {
                j->cpus[n++] = cpu;
                break;
            }
    int rc = lat_silence_report_init(&j->r, j->cpus, n);
    int fd = rc ? -1 : open(s->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (!rc && (fd < 0 || !(j->f = fdopen(fd, "w")))) rc = -errno;
    if (rc) {
        if (fd >= 0 && !j->f) close(fd);
        job_free(j);
        return rc;
    }
    j->c = (lat_silence_config){.cpus = j->cpus, .ncpus = n, .seconds = strtod(secs, NULL)};
    j->c.buffer_kb = 8192;
    j->c.warn = job_warn;
    j->c.ud = j;
    *out = j;
    return 0;
}

int lat_lab_silence_start(const lat_lab_session *x, lat_lab_silence *s, const lat_pipe_config *c) {
    struct lat_lab_silence_job *j = NULL;
    s->ran = false;
    int rc = job_make(x, s, c, &j);
    if (rc) return rc;
    if ((rc = pthread_create(&j->thread, NULL, job_main, j))) {
        job_free(j);
        return -rc;
    }
    s->job = j;
    s->ran = true;
    struct timespec ts = {0, 100000000}; /* let the tracer set up first */
    nanosleep(&ts, NULL);
    return 0;
}

void lat_lab_silence_stop(lat_lab_silence *s) {
    struct lat_lab_silence_job *j = s->job;
    if (!j) return;
    pthread_join(j->thread, NULL);
    int status = j->status;
    fclose(j->f);
    j->f = NULL;
    job_free(j);
    s->job = NULL;
    lat_lab_silence_done(s, status);
}

static void remember_flight(lat_lab_session *x, const lat_pipe_config *c,
                            const lat_pipe_result *r) {
    lat_flight_verdict fv;
    if (x->flight_done || !r->flight || !r->flight_fired || lat_flight_analyze(r->flight, &fv))
        return;
    if (fv.shape == LAT_FLIGHT_NO_TRIGGER) return;
    x->flight_done = true;
    x->flight_thr = c->flight_threshold_ns;
    snprintf(x->flight_text, sizeof x->flight_text, "%s", fv.text);
    snprintf(x->flight_gap, sizeof x->flight_gap, "%s", r->flight_gap);
    size_t dl = 0;
    FILE *m = open_memstream(&x->flight_dump, &dl);
    if (m) {
        lat_flight_dump(r->flight, m, 10);
        fclose(m);
    }
    char fp[4200];
    snprintf(fp, sizeof fp, "%s/flight-alloc.txt", x->out);
    lat_afile *af = NULL;
    if (lat_afile_open(fp, &af) == 0) {
        FILE *f = lat_afile_stream(af);
        lat_flight_dump(r->flight, f, 0);
        if (r->flight_gap[0]) fprintf(f, "gap: %s\n", r->flight_gap);
        int rc = lat_afile_commit(af);
        if (rc && !x->err) x->err = rc;
    }
}

/* The run's JSON: the pipeline's document plus the lab's fields. */
static json_t *run_json(const lat_lab_session *x, const lat_lab_run_rec *rec,
                        const lat_pipe_config *c, const lat_pipe_result *r, const char *account) {
    json_t *j = lat_pipe_run_json(c, r, x->over, x->why);
    if (!j) return NULL;
    json_object_set_new(j, "experiment", json_string(lat_lab_conf_name(rec->conf)));
    json_object_set_new(j, "round", json_integer(rec->round + 1));
    json_object_set_new(j, "attempt", json_integer(rec->attempt + 1));
    json_object_set_new(j, "set_aside", json_boolean(rec->set_aside));
    if (rec->set_aside) json_object_set_new(j, "why", json_string(rec->why));
    json_object_set_new(j, "platform_text", json_string(account));
    json_object_set_new(j, "floor_before_ns", lat_json_real_or_null(rec->floor_ns));
    json_object_set_new(j, "floor_after_ns", lat_json_real_or_null(rec->floor_after_ns));
    json_object_set_new(j, "lost_share_max", json_real(lat__lab_worst_lost(rec)));
    json_object_set_new(j, "kept_share_work", lat_json_real_or_null(rec->kept_work));
    json_object_set_new(j, "kept_share_e2e", lat_json_real_or_null(rec->kept_e2e));
    json_object_set_new(j, "kept_work_samples", json_integer((json_int_t)rec->cell.kept));
    json_object_set_new(j, "allocs_per_event", lat_json_real_or_null(rec->allocs_per_event));
    json_object_set_new(j, "ipc", lat_json_real_or_null(rec->ipc));
    json_object_set_new(j, "cache_misses_per_event", lat_json_real_or_null(rec->misses_per_event));
    json_t *cell = json_object(); /* what the verdict reads: kept, IPW-corrected, ns */
    for (int q = 0; q < LAT_LAB_NQ; q++) {
        char k[24];
        snprintf(k, sizeof k, "work_p%g", lat_lab_quantile_pct[q]);
        json_object_set_new(cell, k, lat_json_real_or_null(rec->cell.work_q[q]));
        snprintf(k, sizeof k, "e2e_p%g", lat_lab_quantile_pct[q]);
        json_object_set_new(cell, k, lat_json_real_or_null(rec->cell.e2e_q[q]));
    }
    json_object_set_new(cell, "work_body_mean", lat_json_real_or_null(rec->cell.work_mean));
    json_object_set_new(j, "kept_figures_ns", cell);
    return j;
}

void lat_lab_session_record(lat_lab_session *x, const lat_lab_run_rec *rec,
                            const lat_pipe_config *c, const lat_pipe_result *r,
                            const char *account) {
    if (!x->stamps_per_event) {
        x->stamp_cost_ns = r->stamp_cost_ns;
        x->stamps_per_event = r->stamps_per_event;
    }
    json_t *j = run_json(x, rec, c, r, account);
    if (!j) return;
    char name[4300];
    snprintf(name, sizeof name, "%s/%s-r%u%s.json", x->runs_dir, lat_lab_conf_name(rec->conf),
             rec->round + 1, rec->set_aside ? "-set-aside" : "");
    int rc = lat_write_json_atomic(name, j);
    if (rc && !x->err) x->err = rc;
    json_array_append_new(x->jruns, j);
    if (rec->conf == LAT_LAB_ALLOC) remember_flight(x, c, r);
    if ((rec->conf == LAT_LAB_BASE || rec->conf == LAT_LAB_SHARE) && rec->round == 0 &&
        rec->attempt == 0) {
        const lat_pipe_counters *w = &r->thr[LAT_PIPE_WORKER];
        lat_lab_prof_figures(&x->prof,
                             rec->conf == LAT_LAB_BASE ? LAT_LAB_PROF_BASE : LAT_LAB_PROF_SHARE,
                             rec->p50[LAT_PIPE_WORK], rec->p50[LAT_PIPE_E2E],
                             w->cycles > 0 ? w->instructions / w->cycles : NAN, w->cache_misses);
    }
}

int lat_lab_write_all(const lat_lab_session *x, const lat_lab_result *res, const char *json_out,
                      char *failed, size_t len) {
    char p[4200];
    int rc;
    snprintf(p, sizeof p, "%s/LAB.md", x->out);
    if ((rc = lat_lab_write_md(x, res, p)) != 0) goto fail;
    snprintf(p, sizeof p, "%s/lab.json", x->out);
    if ((rc = lat_lab_write_json(x, res, p)) != 0) goto fail;
    snprintf(p, sizeof p, "%s", json_out ? json_out : "");
    if (json_out && (rc = lat_lab_write_json(x, res, json_out)) != 0) goto fail;
    lat_lab_write_svgs(x, res);
    snprintf(p, sizeof p, "%s/report.html", x->out);
    if ((rc = lat_lab_write_html(x, res, p)) != 0) goto fail;
    snprintf(p, sizeof p, "writing a run file");
    if ((rc = x->err) != 0) goto fail;
    return 0;
fail:
    snprintf(failed, len, "%s", p);
    return rc;
}

void lat_lab_print_header(FILE *f, const lat_lab_session *x) {
    const lat_lab_config *c = &x->cfg;
    fprintf(f, "%s\n", x->banner);
    if (c->pipe.shape == LAT_PIPE_COMPACT && !x->over)
        fprintf(f, "note: the compact shape measures q1+wake, work and e2e with two pinned hot "
                   "threads (the consumer runs inside the worker); q2+wake is not measured.\n");
    if (x->over) fprintf(f, "[%s]\n", LAT_PIPE_OVERSUB_STAMP);
    fprintf(f,
            "calibrated %.4f cycles/ns, counter tick %.1f ns; %" PRIu64
            " events per run at %" PRIu64
            "/s, %.0f ms intervals; rounds %u..%u, budget %.0f s; order seed %" PRIu64
            " (replay: --seed %" PRIu64 ")\n",
            c->pipe.cal->cycles_per_ns, c->params.tick_ns, c->pipe.events, c->pipe.rate_hz,
            (double)c->pipe.interval_ns / 1e6, c->min_rounds, c->max_rounds, c->budget_s, c->seed,
            c->seed);
    fprintf(f,
            "samples a platform gap touched are censored; a run with fewer than %" PRIu64
            " kept work samples (the p99.9 needs them) is set aside and repeated, and the rounds "
            "after it run longer\n",
            lat_censor_min_kept(99.9));
    if (x->quick)
        fprintf(f,
                "--quick shows what the lab prints in a few seconds; %u rounds may leave verdicts "
                "inconclusive: leave it out to decide them\n",
                c->max_rounds);
    if (x->silence_note[0]) fprintf(f, "silence check: %s\n", x->silence_note);
    if (x->verbose) {
        fprintf(f, "\nrun conditions:\n");
        lat_runcond_write_text(&x->rcnd, f);
        fprintf(f, "\n");
    } else {
        for (int i = 0; i < x->rcnd.nwarnings; i++)
            fprintf(f, "warning: %s\n", x->rcnd.warnings[i]);
    }
}

static void print_conf(FILE *f, const lat_lab_session *x, const lat_lab_result *res, int cf) {
    char title[160];
    snprintf(title, sizeof title, "== %s (%s), usable runs merged", lat_lab_conf_name(cf),
             lat_lab_conf_flag(cf));
    lat_pipe_result m;
    memset(&m, 0, sizeof m);
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++)
        m.h[s] = res->merged[cf][s];
    if (m.h[LAT_PIPE_E2E])
        lat_pipe_print_table(f, &x->cfg.pipe, &m, x->over, title);
    else
        fprintf(f, "%s: no usable run\n", title);
    char t[1400];
    lat_lab_conf_account(x, res, cf, t, sizeof t);
    fprintf(f, "platform: %s\n", t);
    if (cf == LAT_LAB_BASE) return;
    lat_lab_verdict_text(&res->verdict[cf], t, sizeof t);
    fprintf(f, "verdict %s: %s\n", lat_lab_conf_name(cf), t);
}

/* One line: the kind, its confidence and the figure behind it; for an
 * undecided one the first clause of its reason. */
static void verdict_line(FILE *f, int cf, const lat_lab_verdict *v) {
    const char *name = lat_lab_conf_name(cf);
    const lat_lab_shift *s50 = &v->shift[LAT_LAB_Q50], *s999 = &v->shift[LAT_LAB_Q999];
    if (v->kind != LAT_LAB_UNDECIDED) {
        fprintf(f, "verdict %s: %s (confidence %.1f%%)", name, lat_lab_kind_name(v->kind),
                100 * v->confidence);
        if (v->kind == LAT_LAB_MEDIAN && !isnan(s50->ratio))
            fprintf(f, ": work p50 x%.2f [%.2f..%.2f]", s50->ratio, s50->lo, s50->hi);
        else if (!isnan(s999->ratio))
            fprintf(f, ": work p99.9 x%.2f [%.2f..%.2f]", s999->ratio, s999->lo, s999->hi);
        fprintf(f, "\n");
        return;
    }
    fprintf(f, "verdict %s: inconclusive on this machine: %.*s\n", name,
            (int)strcspn(v->reason, ";"), v->reason);
}

/* The median over runs of the hot threads' worst lost share. */
static double median_lost(const lat_lab_result *res) {
    double *v = res->nruns ? malloc(res->nruns * sizeof *v) : NULL;
    if (!v) return NAN;
    for (size_t i = 0; i < res->nruns; i++)
        v[i] = lat__lab_worst_lost(&res->runs[i]);
    lat_stats_sort(v, res->nruns);
    double m = v[res->nruns / 2];
    free(v);
    return m;
}

/* A verdict left undecided while the host took the hot threads' time: what
 * took it, and what would decide it here. */
static void busy_advice(FILE *f, const lat_lab_session *x, const lat_lab_result *res) {
    bool undecided = false, aside = false;
    for (int cf = 1; cf < LAT_LAB_NCONF; cf++) {
        const lat_lab_verdict *v = &res->verdict[cf];
        undecided |= v->kind == LAT_LAB_UNDECIDED && !v->host_bound;
        aside |= v->set_aside > 0;
    }
    double lost = median_lost(res);
    if (!undecided || !(aside || res->lengthened[0] || lost >= x->cfg.max_run_lost)) return;
    fprintf(f, "busy host: the hot threads lost a median %.0f%% of each run to other work",
            100 * lost);
    if (x->others_text[0]) fprintf(f, "; beside the lab %s", x->others_text);
    if (x->quick)
        fprintf(f, ".  To decide: close %s, and leave out --quick\n",
                x->others_text[0] ? "those" : "what else runs here");
    else
        fprintf(f, ".  To decide: close %s, or give the lab longer (--budget %.0f)\n",
                x->others_text[0] ? "those" : "what else runs here", 4 * x->cfg.budget_s);
}

void lat_lab_print_summary(FILE *f, const lat_lab_session *x, const lat_lab_result *res) {
    char lost[300];
    lat_lab_lost_summary(x, res, lost, sizeof lost);
    char place[200];
    lat_lab_placement_text(&res->placement, place, sizeof place);
    fprintf(f, "\n%u rounds in %.1f s; stopped: %s\nplatform: %s\nplacement: %s\n", res->rounds,
            res->wall_s, res->stop, lost, place);
    if (res->lengthened[0]) fprintf(f, "%s\n", res->lengthened);
    if (!x->verbose) {
        for (int cf = 1; cf < LAT_LAB_NCONF; cf++)
            verdict_line(f, cf, &res->verdict[cf]);
        busy_advice(f, x, res);
        return;
    }
    for (int cf = 0; cf < LAT_LAB_NCONF; cf++)
        print_conf(f, x, res, cf);
    if (x->flight_done) {
        fprintf(f,
                "\nflight recorder (alloc, threshold = baseline e2e p99.9 = %" PRIu64 " ns): %s\n",
                x->flight_thr, x->flight_text);
        if (x->flight_gap[0]) fprintf(f, "flight recorder: %s\n", x->flight_gap);
    }
    busy_advice(f, x, res);
}

void lat_lab_print_run(FILE *f, const lat_lab_session *x, const lat_lab_run_rec *rec) {
    char line[2048];
    lat_lab_run_line(x, rec, line, sizeof line);
    fprintf(f, "%s\n", line);
    fflush(f);
}

void lat_lab_print_replay(FILE *f, const lat_lab_session *x) {
    if (x->replay.ran && x->verbose)
        fprintf(f, "\nreplay round (%s):\n%s", x->replay.capture, x->replay.text);
    else if (x->replay.ran)
        fprintf(f, "replay round: %s\n", x->replay.brief);
}

const char *lat_lab_progress_line(const lat_lab_session *x, int conf, unsigned round,
                                  unsigned attempt, const lat_pipe_config *c, char *buf,
                                  size_t len) {
    snprintf(buf, len, "round %u (at least %u), %.0f s of %.0f: %s%s, %" PRIu64 " events...",
             round + 1, x->cfg.min_rounds, (double)(lat_mono_ns() - x->others.t0_ns) / 1e9,
             x->cfg.budget_s, lat_lab_conf_name(conf),
             attempt ? " (repeat: too few kept samples)" : "", c->events);
    return buf;
}
