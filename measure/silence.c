/* silence.c - the silence check's engine (silence.h): pure parsers of
 * ftrace's text into a report, its text and JSON renderers, and the
 * root-only tracefs run that feeds them.
 *
 * The parsers are split from tracefs so that they are tested from fixture
 * text without root (tests/measure/test_silence.c) and fuzzed
 * (tests/fuzz/fuzz_silence.c).  The run pins its own thread off the traced
 * CPUs, or its wake-ups would fill the trace. */
#include "latlab/silence.h"
#include "error_internal.h"

#include "latlab/json.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TRACEFS_MAGIC_ 0x74726163

/* ---- the report and its parsers ----------------------------------------------------------- */

int lat_silence_report_init(lat_silence_report *r, const int *cpus, int ncpus) {
    memset(r, 0, sizeof *r);
    r->reader_cpu = -1;
    if (ncpus < 0 || ncpus > LAT_SILENCE_MAXCPU || (ncpus && !cpus)) return -EINVAL;
    for (int i = 0; i < ncpus; i++)
        if (cpus[i] < 0 || cpus[i] >= LAT_SILENCE_MAXCPU) return -EINVAL;
    memcpy(r->cpus, cpus, (size_t)ncpus * sizeof *cpus);
    r->ncpus = ncpus;
    for (int i = 0; i < LAT_SILENCE_MAXCPU; i++)
        r->cs[i].cur_pid = -1, r->cs[i].cur_since = -1;
    r->tasks = calloc(LAT_SILENCE_MAXTASK, sizeof *r->tasks);
    r->wl = calloc(LAT_SILENCE_MAXWL, sizeof *r->wl);
    r->forks = calloc(LAT_SILENCE_MAXWL, sizeof *r->forks);
    return r->tasks && r->wl && r->forks ? 0 : -ENOMEM;
}

void lat_silence_report_fini(lat_silence_report *r) {
    if (!r) return;
    free(r->tasks);
    free(r->wl);
    free(r->forks);
    r->tasks = NULL;
    r->wl = NULL;
    r->forks = NULL;
    r->ntasks = r->nwl = r->nforks = 0;
}

static lat_silence_task *task_slot(lat_silence_report *r, int pid, int cpu, const char *comm) {
    for (int i = 0; i < r->ntasks; i++)
        if (r->tasks[i].pid == pid && r->tasks[i].cpu == cpu) return &r->tasks[i];
    if (r->ntasks == LAT_SILENCE_MAXTASK) {
        r->dropped_tasks++;
        return NULL;
    }
    lat_silence_task *t = &r->tasks[r->ntasks++];
    memset(t, 0, sizeof *t);
    t->pid = pid;
    t->cpu = cpu;
    snprintf(t->comm, sizeof t->comm, "%s", comm);
    return t;
}

static void irq_count(lat_silence_report *r, int cpu, const char *name) {
    for (int i = 0; i < r->nirqs; i++)
        if (r->irqs[i].cpu == cpu && !strcmp(r->irqs[i].name, name)) {
            r->irqs[i].count++;
            return;
        }
    if (r->nirqs == LAT_SILENCE_MAXIRQ) return;
    lat_silence_irq *q = &r->irqs[r->nirqs++];
    q->cpu = cpu;
    snprintf(q->name, sizeof q->name, "%s", name);
    q->count = 1;
}

static bool in_workload(const lat_silence_report *r, int pid) {
    for (int i = 0; i < r->nwl; i++)
        if (r->wl[i] == pid) return true;
    return false;
}

/* Idle (pid 0) and the workload's tasks are not intruders. */
static bool is_workload(const lat_silence_report *r, int pid) {
    return pid == 0 || (r->child > 0 && in_workload(r, pid));
}

/* Copy "key=value" (value up to a space) from line into out. */
static bool field(const char *line, const char *key, char *out, size_t len) {
    const char *p = line;
    size_t kl = strlen(key);
    while ((p = strstr(p, key))) {
        if ((p == line || p[-1] == ' ') && p[kl] == '=') {
            p += kl + 1;
            size_t n = strcspn(p, " \n");
            if (n >= len) n = len - 1;
            memcpy(out, p, n);
            out[n] = 0;
            return true;
        }
        p += kl;
    }
    return false;
}

/* Timestamp (seconds) just before ": event:" at e. */
static double stamp_before(const char *line, const char *e) {
    const char *q = e;
    while (q > line && (isdigit((unsigned char)q[-1]) || q[-1] == '.'))
        q--;
    return strtod(q, NULL);
}

void lat_silence_fork_line(lat_silence_report *r, const char *line) {
    if (r->nforks >= LAT_SILENCE_MAXWL) return;
    const char *e = strstr(line, ": sched_process_fork: ");
    char a[16], b[16];
    if (e && field(e, "pid", a, sizeof a) && field(e, "child_pid", b, sizeof b)) {
        r->forks[r->nforks][0] = atoi(a);
        r->forks[r->nforks][1] = atoi(b);
        r->nforks++;
    }
}

void lat_silence_build_workload(lat_silence_report *r) {
    r->nwl = 0;
    if (r->child <= 0) return;
    r->wl[r->nwl++] = r->child;
    for (bool grew = true; grew;) {
        grew = false;
        for (int i = 0; i < r->nforks; i++)
            if (in_workload(r, r->forks[i][0]) && !in_workload(r, r->forks[i][1]) &&
                r->nwl < LAT_SILENCE_MAXWL) {
                r->wl[r->nwl++] = r->forks[i][1];
                grew = true;
            }
    }
}

static void on_switch(lat_silence_report *r, int cpu, const char *line, const char *e) {
    lat_silence_cpu *c = &r->cs[cpu];
    c->sw++;
    double ts = stamp_before(line, e);
    char prev_pid[16] = "", next_pid[16] = "", next_comm[32] = "", prev_comm[32] = "";
    field(e, "prev_comm", prev_comm, sizeof prev_comm);
    field(e, "prev_pid", prev_pid, sizeof prev_pid);
    field(e, "next_comm", next_comm, sizeof next_comm);
    field(e, "next_pid", next_pid, sizeof next_pid);
    int pp = atoi(prev_pid), np = atoi(next_pid);
    /* time held by the task switched out, when we saw it come in */
    if (!is_workload(r, pp)) {
        double held = c->cur_pid == pp && c->cur_since >= 0 ? (ts - c->cur_since) * 1e6 : 0;
        lat_silence_task *t = task_slot(r, pp, cpu, prev_comm);
        if (t) t->held_us += held;
        c->intruded_us += held;
    }
    if (!is_workload(r, np)) {
        lat_silence_task *t = task_slot(r, np, cpu, next_comm);
        if (t) t->count++;
    }
    c->cur_pid = np;
    c->cur_since = ts;
}

static void on_wakeup(lat_silence_report *r, int cpu, const char *e) {
    r->cs[cpu].wake++;
    char comm[32] = "", pid[16] = "";
    field(e, "comm", comm, sizeof comm);
    field(e, "pid", pid, sizeof pid);
    if (!is_workload(r, atoi(pid))) {
        lat_silence_task *t = task_slot(r, atoi(pid), cpu, comm);
        if (t) t->wakeups++;
    }
}

/* The interrupt lines: 1 when the line was one. */
static int on_interrupt(lat_silence_report *r, int cpu, const char *line) {
    lat_silence_cpu *c = &r->cs[cpu];
    const char *e;
    char a[64], b[64], nm[48];
    if ((e = strstr(line, ": irq_handler_entry: "))) {
        c->irq++;
        if (field(e, "name", a, sizeof a) && field(e, "irq", b, sizeof b)) {
            snprintf(nm, sizeof nm, "irq %.8s (%.30s)", b, a);
            irq_count(r, cpu, nm);
        }
    } else if ((e = strstr(line, ": softirq_entry: "))) {
        c->softirq++;
        const char *act = strstr(e, "action=");
        snprintf(nm, sizeof nm, "softirq %.20s", act ? act + 7 : "?");
        nm[strcspn(nm, "]\n")] = 0;
        irq_count(r, cpu, nm);
    } else if ((e = strstr(line, "_entry: vector="))) {
        c->vec++;
        const char *q = e;
        while (q > line && q[-1] != ' ')
            q--;
        snprintf(nm, sizeof nm, "%.*s", (int)(e - q) < 47 ? (int)(e - q) : 47, q);
        irq_count(r, cpu, nm);
    } else {
        return 0;
    }
    return 1;
}

void lat_silence_trace_line(lat_silence_report *r, int cpu, const char *line) {
    if (cpu < 0 || cpu >= LAT_SILENCE_MAXCPU || line[0] == '#') return;
    const char *e;
    if ((e = strstr(line, ": sched_switch: ")))
        on_switch(r, cpu, line, e);
    else if ((e = strstr(line, ": sched_wakeup: ")))
        on_wakeup(r, cpu, e);
    else if (!on_interrupt(r, cpu, line))
        return;
    r->cs[cpu].entries++;
}

void lat_silence_stats_line(lat_silence_report *r, int cpu, const char *line) {
    unsigned long long v;
    if (cpu >= 0 && cpu < LAT_SILENCE_MAXCPU && sscanf(line, "overrun: %llu", &v) == 1)
        r->cs[cpu].overrun = v;
}

/* Each line of text (up to 1023 bytes, as the file reader takes them). */
static void each_line(lat_silence_report *r, int cpu, const char *text,
                      void (*fn)(lat_silence_report *, int, const char *)) {
    char line[1024];
    while (*text) {
        size_t n = strcspn(text, "\n");
        size_t k = n < sizeof line - 1 ? n : sizeof line - 1;
        memcpy(line, text, k);
        line[k] = 0;
        fn(r, cpu, line);
        text += n + (text[n] == '\n');
    }
}

static void fork_fn(lat_silence_report *r, int cpu, const char *line) {
    (void)cpu;
    lat_silence_fork_line(r, line);
}

void lat_silence_parse_forks(lat_silence_report *r, const char *text) {
    each_line(r, 0, text, fork_fn);
}

void lat_silence_parse_trace(lat_silence_report *r, int cpu, const char *text) {
    each_line(r, cpu, text, lat_silence_trace_line);
}

void lat_silence_parse_stats(lat_silence_report *r, int cpu, const char *text) {
    each_line(r, cpu, text, lat_silence_stats_line);
}

/* ---- renderers ---------------------------------------------------------------------------- */

static int by_held(const void *a, const void *b) {
    const lat_silence_task *x = a, *y = b;
    if (x->held_us != y->held_us) return x->held_us < y->held_us ? 1 : -1;
    return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static int by_count(const void *a, const void *b) {
    const lat_silence_irq *x = a, *y = b;
    return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

void lat_silence_report_sort(lat_silence_report *r) {
    qsort(r->tasks, (size_t)r->ntasks, sizeof *r->tasks, by_held);
    qsort(r->irqs, (size_t)r->nirqs, sizeof *r->irqs, by_count);
}

static uint64_t print_cpus(const lat_silence_report *r, FILE *f) {
    fprintf(f, "silence check: CPU%s ", r->ncpus > 1 ? "s" : "");
    for (int i = 0; i < r->ncpus; i++)
        fprintf(f, "%s%d", i ? "," : "", r->cpus[i]);
    fprintf(f, " traced for %.3f s", (double)r->traced_ns / 1e9);
    if (r->reader_cpu >= 0) fprintf(f, " (reader on CPU %d)", r->reader_cpu);
    if (r->cmd)
        fprintf(f, ", workload '%s' pid %d (%d tasks)", r->child_comm[0] ? r->child_comm : r->cmd,
                r->child, r->nwl);
    fprintf(f, "\n\n  %4s %12s %12s %8s %8s %8s %12s %9s\n", "cpu", "sched_switch", "sched_wakeup",
            "irq", "softirq", "vectors", "intruded_us", "overrun");
    uint64_t total_overrun = 0;
    for (int i = 0; i < r->ncpus; i++) {
        const lat_silence_cpu *cs = &r->cs[r->cpus[i]];
        fprintf(f, "  %4d %12llu %12llu %8llu %8llu %8llu %12.1f %9llu\n", r->cpus[i],
                (unsigned long long)cs->sw, (unsigned long long)cs->wake,
                (unsigned long long)cs->irq, (unsigned long long)cs->softirq,
                (unsigned long long)cs->vec, cs->intruded_us, (unsigned long long)cs->overrun);
        total_overrun += cs->overrun;
    }
    return total_overrun;
}

static void print_tables(const lat_silence_report *r, FILE *f, int top) {
    fprintf(f, "\n  top intruding tasks (switched in on a traced CPU%s):\n",
            r->cmd ? ", not the workload" : "");
    if (!r->ntasks)
        fprintf(f, "    none\n");
    else
        fprintf(f, "    %4s %8s %8s %12s  %s\n", "cpu", "switched", "wakeups", "held_us", "task");
    for (int i = 0; i < r->ntasks && i < top; i++)
        fprintf(f, "    %4d %8llu %8llu %12.1f  %s-%d\n", r->tasks[i].cpu,
                (unsigned long long)r->tasks[i].count, (unsigned long long)r->tasks[i].wakeups,
                r->tasks[i].held_us, r->tasks[i].comm, r->tasks[i].pid);
    fprintf(f, "\n  top interrupts:\n");
    if (!r->nirqs)
        fprintf(f, "    none\n");
    else
        fprintf(f, "    %4s %8s  %s\n", "cpu", "count", "source");
    for (int i = 0; i < r->nirqs && i < top; i++)
        fprintf(f, "    %4d %8llu  %s\n", r->irqs[i].cpu, (unsigned long long)r->irqs[i].count,
                r->irqs[i].name);
}

int lat_silence_report_print(lat_silence_report *r, FILE *f, int top) {
    uint64_t total_overrun = print_cpus(r, f);
    lat_silence_report_sort(r);
    print_tables(r, f, top);
    if (total_overrun)
        fprintf(f,
                "\n  warning: %llu events were lost (ring overrun); raise --buffer-kb or trace "
                "for less time\n",
                (unsigned long long)total_overrun);
    if (r->dropped_tasks)
        fprintf(f, "\n  note: more than %d distinct tasks; the rest are not in the table\n",
                LAT_SILENCE_MAXTASK);
    if (r->cmd && r->child_done) {
        if (WIFEXITED(r->status))
            fprintf(f, "\n  workload exited with status %d\n", WEXITSTATUS(r->status));
        else if (WIFSIGNALED(r->status))
            fprintf(f, "\n  workload killed by signal %d\n", WTERMSIG(r->status));
    }
    return lat__write_status(f, 1);
}

static json_t *cpus_json(const lat_silence_report *r) {
    json_t *cpus = json_array();
    for (int i = 0; i < r->ncpus; i++) {
        const lat_silence_cpu *cs = &r->cs[r->cpus[i]];
        json_t *o = json_object();
        json_object_set_new(o, "cpu", json_integer(r->cpus[i]));
        json_object_set_new(o, "sched_switch", json_integer((json_int_t)cs->sw));
        json_object_set_new(o, "sched_wakeup", json_integer((json_int_t)cs->wake));
        json_object_set_new(o, "irq", json_integer((json_int_t)cs->irq));
        json_object_set_new(o, "softirq", json_integer((json_int_t)cs->softirq));
        json_object_set_new(o, "vectors", json_integer((json_int_t)cs->vec));
        json_object_set_new(o, "intruded_us", json_real(cs->intruded_us));
        json_object_set_new(o, "overrun", json_integer((json_int_t)cs->overrun));
        json_array_append_new(cpus, o);
    }
    return cpus;
}

static json_t *tasks_json(const lat_silence_report *r) {
    json_t *tasks = json_array();
    for (int i = 0; i < r->ntasks; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "cpu", json_integer(r->tasks[i].cpu));
        json_object_set_new(o, "pid", json_integer(r->tasks[i].pid));
        json_object_set_new(o, "comm", json_string(r->tasks[i].comm));
        json_object_set_new(o, "switched_in", json_integer((json_int_t)r->tasks[i].count));
        json_object_set_new(o, "wakeups", json_integer((json_int_t)r->tasks[i].wakeups));
        json_object_set_new(o, "held_us", json_real(r->tasks[i].held_us));
        json_array_append_new(tasks, o);
    }
    return tasks;
}

int lat_silence_report_write_json(const lat_silence_report *r, const char *path) {
    json_t *root = json_object(), *irqs = json_array();
    json_object_set_new(root, "traced_ns", json_integer((json_int_t)r->traced_ns));
    json_object_set_new(root, "reader_cpu", json_integer(r->reader_cpu));
    json_object_set_new(root, "interrupted", json_boolean(r->interrupted));
    for (int i = 0; i < r->nirqs; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "cpu", json_integer(r->irqs[i].cpu));
        json_object_set_new(o, "source", json_string(r->irqs[i].name));
        json_object_set_new(o, "count", json_integer((json_int_t)r->irqs[i].count));
        json_array_append_new(irqs, o);
    }
    json_object_set_new(root, "cpus", cpus_json(r));
    json_object_set_new(root, "intruders", tasks_json(r));
    json_object_set_new(root, "interrupts", irqs);
    int rc = lat_write_json_atomic(path, root);
    json_decref(root);
    return rc;
}

/* ---- the root-only half: tracefs ---------------------------------------------------------- */

static const char *const events[] = {
    "sched/sched_switch",
    "sched/sched_wakeup",
    "irq/irq_handler_entry",
    "irq/softirq_entry",
    "irq_vectors/local_timer_entry",
    "irq_vectors/reschedule_entry",
    "irq_vectors/call_function_entry",
    "irq_vectors/call_function_single_entry",
    "irq_vectors/irq_work_entry",
    "sched/sched_process_fork",
};
#define NEVENTS (sizeof events / sizeof events[0])

typedef struct tracer {
    const lat_silence_config *c;
    char tracefs[64];
    char inst[256];
    bool mounted, inst_made;
    const char *enabled[NEVENTS];
    int nenabled;
    int go[2]; /* the workload waits on it until tracing is on */
    void (*warn)(void *ud, const char *msg);
    void *ud;
} tracer;

static void warnf(const tracer *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warnf(const tracer *t, const char *fmt, ...) {
    if (!t->warn) return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    t->warn(t->ud, msg);
}

static int write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) return -errno;
    size_t len = strlen(text);
    ssize_t n = write(fd, text, len);
    int e = errno;
    close(fd);
    if (n < 0) return -e;
    return (size_t)n == len ? 0 : -EIO;
}

static int inst_write(const tracer *t, const char *rel, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", t->inst, rel);
    return write_file(path, text);
}

static bool is_tracefs(const char *dir) {
    struct statfs sf;
    return statfs(dir, &sf) == 0 && (unsigned long)sf.f_type == TRACEFS_MAGIC_;
}

/* Find or mount tracefs.  0 or negative errno (message in err). */
static int find_tracefs(tracer *t, char *err, size_t errlen) {
    static const char *const dirs[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
    for (int i = 0; i < 2; i++)
        if (is_tracefs(dirs[i])) {
            snprintf(t->tracefs, sizeof t->tracefs, "%s", dirs[i]);
            return 0;
        }
    if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) < 0) {
        int e = errno;
        snprintf(err, errlen, "no tracefs: cannot mount tracefs on /sys/kernel/tracing: %s%s",
                 strerror(e), e == ENODEV ? " (kernel built without ftrace)" : "");
        return -e;
    }
    t->mounted = true;
    snprintf(t->tracefs, sizeof t->tracefs, "/sys/kernel/tracing");
    return 0;
}

static void remove_instance(const char *dir) {
    char path[1024];
    snprintf(path, sizeof path, "%s/tracing_on", dir);
    write_file(path, "0");
    for (size_t i = 0; i < NEVENTS; i++) {
        snprintf(path, sizeof path, "%s/events/%s/enable", dir, events[i]);
        write_file(path, "0");
    }
    rmdir(dir);
}

/* Instances left by runs that were killed (their pid is gone), each named in
 * a warning as it is removed: a dead run's instance keeps tracing on with
 * its buffers allocated.  Returns how many were removed. */
static int remove_stale(const tracer *t) {
    int removed = 0;
    char dir[256];
    snprintf(dir, sizeof dir, "%s/instances", t->tracefs);
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        int pid;
        char extra;
        if (sscanf(de->d_name, "latlab-silence-%d%c", &pid, &extra) != 1) continue;
        if (pid <= 0 || kill(pid, 0) == 0 || errno != ESRCH) continue;
        char path[600];
        snprintf(path, sizeof path, "%.300s/%.256s", dir, de->d_name);
        remove_instance(path);
        bool gone = access(path, F_OK) != 0;
        warnf(t, "%s tracefs instance %s left by a run that died (pid %d)",
              gone ? "removed the" : "could not remove the", path, pid);
        removed += gone;
    }
    closedir(d);
    return removed;
}

static void cleanup(tracer *t) {
    if (t->inst_made) {
        inst_write(t, "tracing_on", "0");
        for (int i = 0; i < t->nenabled; i++) {
            char rel[128];
            snprintf(rel, sizeof rel, "events/%s/enable", t->enabled[i]);
            inst_write(t, rel, "0");
        }
        if (rmdir(t->inst) < 0) warnf(t, "could not remove %s: %s", t->inst, strerror(errno));
        t->inst_made = false;
    }
    if (t->mounted) {
        umount2(t->tracefs, MNT_DETACH);
        t->mounted = false;
    }
}

int lat_silence_cleanup_stale(void (*warn)(void *ud, const char *msg), void *ud, char *err,
                              size_t errlen) {
    tracer t = {.warn = warn, .ud = ud};
    int rc = find_tracefs(&t, err, errlen);
    if (rc) return rc;
    int n = remove_stale(&t);
    cleanup(&t); /* unmounts tracefs if we mounted it */
    return n;
}

/* tracing_cpumask: comma-separated 32-bit hex words, most significant first. */
static void cpumask_hex(const int *cpus, int n, char *buf, size_t len) {
    int maxcpu = 0;
    for (int i = 0; i < n; i++)
        if (cpus[i] > maxcpu) maxcpu = cpus[i];
    int words = maxcpu / 32 + 1;
    size_t off = 0;
    for (int w = words - 1; w >= 0; w--) {
        uint32_t m = 0;
        for (int i = 0; i < n; i++)
            if (cpus[i] / 32 == w) m |= 1u << (cpus[i] % 32);
        off += (size_t)snprintf(buf + off, len - off, "%s%08x", w == words - 1 ? "" : ",", m);
        if (off >= len) break;
    }
}

/* The private instance: CPU mask, buffer, events.  0 or negative errno. */
static int setup_instance(tracer *t, char *err, size_t errlen) {
    remove_stale(t);
    snprintf(t->inst, sizeof t->inst, "%.63s/instances/latlab-silence-%d", t->tracefs,
             (int)getpid());
    if (mkdir(t->inst, 0700) < 0) {
        int e = errno;
        snprintf(err, errlen, "cannot create tracefs instance %s: %s", t->inst, strerror(e));
        return -e;
    }
    t->inst_made = true;
    char mask[LAT_SILENCE_MAXCPU / 4 + LAT_SILENCE_MAXCPU / 32 + 8], num[32];
    cpumask_hex(t->c->cpus, t->c->ncpus, mask, sizeof mask);
    int rc;
    if ((rc = inst_write(t, "tracing_on", "0")) || (rc = inst_write(t, "tracing_cpumask", mask))) {
        snprintf(err, errlen, "configuring the instance: %s", strerror(-rc));
        return rc;
    }
    snprintf(num, sizeof num, "%llu", (unsigned long long)t->c->buffer_kb);
    if (inst_write(t, "buffer_size_kb", num)) warnf(t, "could not set buffer_size_kb=%s", num);
    for (size_t i = 0; i < NEVENTS; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "events/%s/enable", events[i]);
        if ((rc = inst_write(t, rel, "1")) == 0)
            t->enabled[t->nenabled++] = events[i];
        else if (i < 2) {
            snprintf(err, errlen, "cannot enable %s in %s", events[i], t->inst);
            return rc;
        }
    }
    inst_write(t, "trace", "");
    return 0;
}

static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};

/* Fork the workload, held on the go pipe until tracing is on.  0 or
 * negative errno. */
static int start_child(tracer *t, lat_silence_report *r, char *err, size_t errlen) {
    char **cmd = t->c->cmd;
    if (pipe2(t->go, O_CLOEXEC)) {
        int e = errno;
        snprintf(err, errlen, "pipe: %s", strerror(e));
        return -e;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        snprintf(err, errlen, "fork: %s", strerror(e));
        return -e;
    }
    if (pid == 0) {
        char b;
        for (int i = 0; t->c->child_sig && i < 3; i++)
            sigaction(sigs[i], &t->c->child_sig[i], NULL);
        close(t->go[1]);
        if (read(t->go[0], &b, 1) != 1) _exit(127);
        execvp(cmd[0], cmd);
        /* the workload's own stderr, as a shell would say it */
        fprintf(stderr, "latlab silence: cannot run '%s': %s\n", cmd[0], strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
    }
    r->child = pid;
    close(t->go[0]);
    t->go[0] = -1;
    return 0;
}

/* The workload inherited our CPU set; the reader moves off the traced CPUs. */
static void move_reader_off(const tracer *t, lat_silence_report *r) {
    cpu_set_t mine, off;
    r->reader_cpu = -1;
    CPU_ZERO(&off);
    if (sched_getaffinity(0, sizeof mine, &mine) == 0) {
        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
            if (!CPU_ISSET(cpu, &mine)) continue;
            bool traced = false;
            for (int i = 0; i < r->ncpus; i++)
                traced |= r->cpus[i] == cpu;
            if (!traced) {
                CPU_SET(cpu, &off);
                if (r->reader_cpu < 0) r->reader_cpu = cpu;
            }
        }
    }
    if (r->reader_cpu >= 0)
        sched_setaffinity(0, sizeof off, &off);
    else
        warnf(t, "every CPU we may run on is traced: the reader's own activity will show up in "
                 "the trace");
}

static bool child_exited(int pid) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    /* WNOWAIT: keep the zombie so its comm stays readable */
    return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool stopped(const lat_silence_config *c) {
    return c->stop && *c->stop;
}

/* Tracing on, the workload released, then wait: the seconds, the workload's
 * exit or a stop.  0 or negative errno. */
static int trace(tracer *t, lat_silence_report *r, char *err, size_t errlen) {
    const lat_silence_config *c = t->c;
    int rc;
    if ((rc = inst_write(t, "tracing_on", "1"))) {
        snprintf(err, errlen, "tracing_on: %s", strerror(-rc));
        return rc;
    }
    uint64_t t0 = mono_ns();
    if (c->cmd) {
        if (write(t->go[1], "g", 1) != 1) {
            int e = errno;
            snprintf(err, errlen, "starting '%s': %s", c->cmd[0], strerror(e));
            return -e;
        }
        close(t->go[1]);
        t->go[1] = -1;
    }
    uint64_t limit = (uint64_t)(c->seconds * 1e9);
    while (!stopped(c)) {
        uint64_t el = mono_ns() - t0;
        if ((!c->cmd || c->seconds_given) && el >= limit) break;
        if (c->cmd && child_exited(r->child)) break;
        uint64_t left = c->cmd && !c->seconds_given ? 20000000ull : limit - el;
        if (left > 20000000ull) left = 20000000ull;
        struct timespec d = {0, (long)left};
        nanosleep(&d, NULL);
    }
    inst_write(t, "tracing_on", "0");
    r->traced_ns = mono_ns() - t0;
    return 0;
}

/* The workload's name (before it is reaped), then its end. */
static void finish_child(const lat_silence_config *c, lat_silence_report *r) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/comm", r->child);
    FILE *f = fopen(path, "r");
    if (f) {
        if (fgets(r->child_comm, sizeof r->child_comm, f))
            r->child_comm[strcspn(r->child_comm, "\n")] = 0;
        fclose(f);
    }
    int sig = c->stop ? (int)*c->stop : 0;
    if ((sig || c->seconds_given) && !child_exited(r->child)) kill(r->child, sig ? sig : SIGTERM);
    while (waitpid(r->child, &r->status, 0) < 0 && errno == EINTR) {
    }
    r->child_done = true;
}

/* Feed one per-CPU file of the instance, line by line. */
static void feed_file(const tracer *t, lat_silence_report *r, int cpu, const char *name,
                      void (*fn)(lat_silence_report *, int, const char *)) {
    char path[512], line[1024];
    snprintf(path, sizeof path, "%s/per_cpu/cpu%d/%s", t->inst, cpu, name);
    FILE *f = fopen(path, "r");
    if (!f) return;
    while (fgets(line, sizeof line, f))
        fn(r, cpu, line);
    fclose(f);
}

/* Fork edges first (the workload's descendants are not intruders), then
 * each CPU's trace and stats. */
static void read_trace(const tracer *t, lat_silence_report *r) {
    for (int i = 0; i < r->ncpus; i++)
        feed_file(t, r, r->cpus[i], "trace", fork_fn);
    lat_silence_build_workload(r);
    for (int i = 0; i < r->ncpus; i++) {
        feed_file(t, r, r->cpus[i], "trace", lat_silence_trace_line);
        feed_file(t, r, r->cpus[i], "stats", lat_silence_stats_line);
    }
}

/* Everything undone: the pipe, an unreleased child, the instance. */
static void teardown(tracer *t, lat_silence_report *r) {
    if (t->go[0] >= 0) close(t->go[0]);
    if (t->go[1] >= 0) close(t->go[1]); /* an unreleased child sees EOF and exits */
    if (r->child > 0 && !r->child_done) {
        kill(r->child, SIGTERM);
        while (waitpid(r->child, NULL, 0) < 0 && errno == EINTR) {
        }
    }
    cleanup(t);
}

int lat_silence_run(const lat_silence_config *c, lat_silence_report *r, char *err, size_t errlen) {
    tracer t = {.c = c, .go = {-1, -1}, .warn = c->warn, .ud = c->ud};
    if (errlen) err[0] = 0;
    r->cmd = c->cmd ? c->cmd[0] : NULL;
    int rc = find_tracefs(&t, err, errlen);
    if (rc) return rc;
    if (!(rc = setup_instance(&t, err, errlen)) &&
        (!c->cmd || !(rc = start_child(&t, r, err, errlen)))) {
        move_reader_off(&t, r);
        rc = trace(&t, r, err, errlen);
    }
    if (!rc) {
        if (c->cmd) finish_child(c, r);
        r->interrupted = stopped(c);
        read_trace(&t, r);
    }
    teardown(&t, r);
    return rc;
}
