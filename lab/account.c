/* account.c - the platform account of a pipeline run (see lab_account.h):
 * per hot thread what the platform took, the tail samples that overlapped a
 * gap, and which other processes took the CPUs while the lab ran. */
#include "latlab/lab_account.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab_internal.h"
#include "latlab/clock.h"
#include "latlab/platform.h"

void lat_lab_thread_accounts(const lat_pipe_config *pc, const lat_pipe_result *r,
                             lat_lab_thread_account out[LAT_PIPE_NHOT]) {
    const lat_clock_cal *cal = pc->cal ? pc->cal : lat_clock_default();
    for (int k = 0; k < LAT_PIPE_NHOT; k++) {
        lat_lab_thread_account *a = &out[k];
        const lat_pipe_counters *t = &r->thr[k];
        memset(a, 0, sizeof *a);
        if (!t->ran || !r->gaps[k]) continue;
        a->ran = true;
        a->gaps = r->gaps[k]->count;
        a->lost_ns = (double)lat_clock_to_ns(cal, r->gaps[k]->total);
        a->longest_ns = (double)lat_clock_to_ns(cal, r->gaps[k]->longest);
        /* the gap account starts at the run's start and the loop's clock when
         * the thread reached its loop: a thread that started late lost that
         * span too, so the run it had is the larger of the two */
        a->lost_share = t->loop_ns ? a->lost_ns / fmax((double)t->loop_ns, a->lost_ns) : 0;
        a->wait_ns = r->account[k].have_schedstat ? (double)r->account[k].wait_ns : NAN;
        a->vol = r->account[k].vol_switches;
        a->invol = r->account[k].invol_switches;
        memcpy(a->hist, r->gaps[k]->hist, sizeof a->hist);
    }
}

static void fmt_ms(char *b, size_t n, double ns) {
    if (ns >= 1e6)
        snprintf(b, n, "%.1f ms", ns / 1e6);
    else
        snprintf(b, n, "%.1f us", ns / 1e3);
}

void lat_lab_account_text(char *buf, size_t len, int shape, const lat_lab_thread_account *thr,
                          const lat_pipe_cpustat *cpu, double gap_us) {
    size_t o = 0;
    buf[0] = 0;
    for (int k = 0; k < LAT_PIPE_NHOT && o < len; k++) {
        const lat_lab_thread_account *a = &thr[k];
        if (!a->ran) continue;
        char lost[32], lng[32], wait[64] = "";
        fmt_ms(lost, sizeof lost, a->lost_ns);
        fmt_ms(lng, sizeof lng, a->longest_ns);
        if (!isnan(a->wait_ns)) {
            char w[32];
            fmt_ms(w, sizeof w, a->wait_ns);
            snprintf(wait, sizeof wait, "; run-queue wait %s", w);
        }
        int n =
            snprintf(buf + o, len - o,
                     "%s%s lost %s (%.1f%%) in %" PRIu64
                     " gaps >= %.0f us, longest %s%s; switches %" PRIu64 " vol %" PRIu64 " invol",
                     o ? "; " : "", lat_pipe_role_name(shape, k), lost, 100 * a->lost_share,
                     a->gaps, gap_us, lng, wait, a->vol, a->invol);
        if (n < 0) return;
        o += (size_t)n;
    }
    if (o < len && cpu && !isnan(cpu->steal_pct))
        snprintf(buf + o, len - o, "; hot CPUs: steal %.1f%%, irq %.1f%%, softirq %.1f%%",
                 cpu->steal_pct, cpu->irq_pct, cpu->softirq_pct);
}

void lat_lab_attrib_text(char *buf, size_t len, int shape, const lat_pipe_tail *tail) {
    size_t o = 0;
    buf[0] = 0;
    for (int s = 0; s < LAT_PIPE_NSTAGES && o < len; s++) {
        const lat_pipe_tail *t = &tail[s];
        if (!t->above99 && !t->above999) continue;
        char who[48] = "";
        if (t->thread999 >= 0)
            snprintf(who, sizeof who, " (mostly %s gaps)", lat_pipe_role_name(shape, t->thread999));
        int n = snprintf(buf + o, len - o,
                         "%s%s: %.0f%% of %" PRIu64 " samples above p99 and %.0f%% of %" PRIu64
                         " above p99.9 overlap a gap%s",
                         o ? "; " : "", lat_pipe_stage_name(s),
                         t->above99 ? 100.0 * (double)t->above99_gap / (double)t->above99 : 0.0,
                         t->above99,
                         t->above999 ? 100.0 * (double)t->above999_gap / (double)t->above999 : 0.0,
                         t->above999, who);
        if (n < 0) return;
        o += (size_t)n;
    }
}

void lat_lab_print_account(FILE *f, const lat_pipe_config *c, const lat_pipe_result *r) {
    lat_lab_thread_account thr[LAT_PIPE_NHOT];
    lat_lab_thread_accounts(c, r, thr);
    char buf[1024];
    double gap_us = (double)(c->gap_threshold_ns ? c->gap_threshold_ns : LAT_GAPS_DEFAULT_NS) / 1e3;
    lat_lab_account_text(buf, sizeof buf, c->shape, thr, &r->cpu, gap_us);
    fprintf(f, "platform: %s\n", buf);
    lat_lab_attrib_text(buf, sizeof buf, c->shape, r->tail);
    if (buf[0]) fprintf(f, "attribution: %s\n", buf);
    if (r->flight_gap[0]) fprintf(f, "flight recorder: %s\n", r->flight_gap);
}

/* ---- what else ran ------------------------------------------------------------------------ */

struct lat_lab_proc_ticks {
    int pid;
    uint64_t first, last; /* CPU ticks when first and last seen (first 0: started since begin) */
    char comm[16];
};

/* pid's CPU time (utime + stime) in clock ticks and its command name into
 * t->last; false when gone. */
static bool proc_ticks(int pid, struct lat_lab_proc_ticks *t) {
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return false;
    bool ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    char *open = ok ? strchr(line, '(') : NULL, *close = ok ? strrchr(line, ')') : NULL;
    if (!open || !close || close < open) return false;
    size_t n = (size_t)(close - open - 1);
    if (n >= sizeof t->comm) n = sizeof t->comm - 1;
    if (memchr(open + 1, '/', n)) n = (size_t)((char *)memchr(open + 1, '/', n) - open - 1);
    memcpy(t->comm, open + 1, n);
    t->comm[n] = 0;
    unsigned long long ut, st; /* fields 14 and 15: the 12th and 13th after the name */
    if (sscanf(close + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
        return false;
    t->pid = pid;
    t->first = t->last = ut + st;
    return true;
}

/* All CPUs' busy ticks: user, nice, system, irq, softirq (/proc/stat). */
static uint64_t busy_ticks(void) {
    lat_cpustat c;
    return lat_cpustat_read(NULL, -1, &c) == 0 ? c.user + c.nice + c.system + c.irq + c.softirq : 0;
}

static uint64_t self_ticks(void) {
    struct lat_lab_proc_ticks t;
    return proc_ticks((int)getpid(), &t) ? t.last : 0;
}

static int by_pid(const void *a, const void *b) {
    const struct lat_lab_proc_ticks *x = a, *y = b;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

int lat_lab_others_begin(lat_lab_others *o) {
    memset(o, 0, sizeof *o);
    o->t0_ns = lat_mono_ns(); /* the lab's start, also when nothing else can be read */
    o->p = malloc(LAT_LAB_OTHERS_MAX * sizeof *o->p);
    if (!o->p) return -ENOMEM;
    o->busy = busy_ticks(), o->self = self_ticks();
    lat_lab_others_sample(o);
    for (size_t i = 0; i < o->n; i++) /* running before: only what they take from now on */
        o->p[i].first = o->p[i].last;
    return o->n ? 0 : -ENOENT;
}

void lat_lab_others_sample(lat_lab_others *o) {
    DIR *d = o->p ? opendir("/proc") : NULL;
    if (!d) return;
    int self = (int)getpid();
    size_t known = o->n;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (!isdigit((unsigned char)e->d_name[0])) continue;
        struct lat_lab_proc_ticks t;
        int pid = atoi(e->d_name);
        if (pid == self || !proc_ticks(pid, &t)) continue;
        struct lat_lab_proc_ticks *was = bsearch(&t, o->p, known, sizeof *o->p, by_pid);
        if (was && t.last >= was->last) { /* a kernel thread's name can change */
            was->last = t.last;
        } else if (was) { /* the pid went to another process */
            *was = t;
            was->first = 0;
        } else if (o->n < LAT_LAB_OTHERS_MAX) { /* started since the last look */
            t.first = 0;
            o->p[o->n++] = t;
        }
    }
    closedir(d);
    if (o->n > known) qsort(o->p, o->n, sizeof *o->p, by_pid);
}

static int by_ticks(const void *a, const void *b) {
    const struct lat_lab_proc_ticks *x = a, *y = b;
    return x->last < y->last ? 1 : x->last > y->last ? -1 : strcmp(x->comm, y->comm);
}

void lat_lab_others_end(lat_lab_others *o, char *buf, size_t len, double *cpus) {
    buf[0] = 0;
    *cpus = 0;
    lat_lab_others_sample(o);
    double secs = (double)(lat_mono_ns() - o->t0_ns) / 1e9, hz = (double)sysconf(_SC_CLK_TCK);
    /* each process's ticks while seen, summed per name into the first entry
     * of that name (last holds the sum) */
    size_t k = 0;
    for (size_t i = 0; i < o->n; i++) {
        struct lat_lab_proc_ticks t = o->p[i];
        t.last -= t.first;
        size_t j = 0;
        while (j < k && strcmp(o->p[j].comm, t.comm))
            j++;
        if (j < k)
            o->p[j].last += t.last;
        else
            o->p[k++] = t;
    }
    if (k) qsort(o->p, k, sizeof *o->p, by_ticks);
    uint64_t busy = busy_ticks() - o->busy, self = self_ticks() - o->self;
    *cpus = o->p && busy > self && secs > 0 && hz > 0 ? (double)(busy - self) / hz / secs : 0;
    int used = *cpus >= 0.05 ? snprintf(buf, len, "other processes took %.1f CPUs", *cpus) : 0;
    double named = 0;
    for (size_t i = 0; used > 0 && i < k && i < 3; i++) {
        double c = (double)o->p[i].last / hz / secs;
        if (c < 0.05) break;
        int w = snprintf(buf + used, len - (size_t)used, "%s%s %.1f",
                         i ? ", " : " (busiest: ", o->p[i].comm, c);
        if (w < 0 || (size_t)w + 40 >= len - (size_t)used) break;
        used += w;
        named += c;
        if (i + 1 == k || i == 2 || (double)o->p[i + 1].last / hz / secs < 0.05)
            used += snprintf(buf + used, len - (size_t)used, ")");
    }
    if (used > 0 && named < *cpus / 2) /* processes that came and went between looks */
        snprintf(buf + used, len - (size_t)used, ", most of it in short-lived processes");
    free(o->p);
    memset(o, 0, sizeof *o);
}

double lat__lab_worst_lost(const lat_lab_run_rec *r) {
    double w = 0;
    for (int k = 0; k < LAT_PIPE_NHOT; k++)
        if (r->thr[k].ran) w = fmax(w, r->thr[k].lost_share);
    return w;
}
