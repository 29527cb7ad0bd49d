/* silence.c - `latlab silence`: what disturbs the chosen CPUs, from ftrace.
 *
 * A private tracefs instance (instances/latlab-silence-<pid>, so the global
 * buffer is never touched) traces sched_switch, sched_wakeup, hardware IRQs,
 * softirqs and x86 IRQ vectors (local timer, IPIs) on the chosen CPUs only,
 * for --seconds or while CMD runs.  Then it reports per-CPU counts, the tasks
 * that took the CPUs (count and time held) and the interrupts, plus ring
 * overruns (events lost).  The reader pins itself off the traced CPUs, or its
 * own wake-ups would fill the trace.  tracefs is mounted if it is not, and
 * everything is undone at the end, also on SIGINT/SIGTERM/SIGHUP; instances
 * left by a killed run (its pid gone) are removed at the next start. */
#include "cli.h"

#include "latlab/json.h"
#include "latlab/atomicfile.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXCPU 1024
#define MAXTASK 512
#define MAXIRQ 128
#define TRACEFS_MAGIC_ 0x74726163

static volatile sig_atomic_t got_signal;
static void on_signal(int sig) {
    got_signal = sig;
}

typedef struct task_stat {
    int pid;
    int cpu;
    char comm[32];
    uint64_t count;   /* times switched in */
    double held_us;   /* time on the CPU */
    uint64_t wakeups; /* sched_wakeup targeting a traced CPU */
} task_stat;

typedef struct irq_stat {
    int cpu;
    char name[48];
    uint64_t count;
} irq_stat;

typedef struct cpu_stat {
    uint64_t sw, wake, irq, softirq, vec, overrun, entries;
    double intruded_us;
} cpu_stat;

typedef struct silence {
    char tracefs[64];
    char inst[256];
    bool mounted, inst_made;
    const char *enabled[16];
    int nenabled;
    int cpus[MAXCPU], ncpus;
    cpu_stat cs[MAXCPU];
    task_stat *tasks;
    int ntasks;
    irq_stat irqs[MAXIRQ];
    int nirqs;
    pid_t child;
    char child_comm[32];
    int *wl; /* the workload: the child and every task it forked (seen on traced CPUs) */
    int nwl;
    int (*forks)[2]; /* parent, child */
    int nforks;
    uint64_t dropped_tasks;
    /* the run */
    char **cmd; /* the workload, or NULL */
    int go[2];  /* the workload waits on it until tracing is on */
    int status;
    bool child_done;
    int reader_cpu;
    uint64_t traced_ns;
    struct sigaction old[3];
} silence;

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

static int inst_write(const silence *s, const char *rel, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", s->inst, rel);
    return write_file(path, text);
}

static bool is_tracefs(const char *dir) {
    struct statfs sf;
    return statfs(dir, &sf) == 0 && (unsigned long)sf.f_type == TRACEFS_MAGIC_;
}

/* Find or mount tracefs.  0 or negative errno (message printed). */
static int find_tracefs(silence *s) {
    if (is_tracefs("/sys/kernel/tracing")) {
        snprintf(s->tracefs, sizeof s->tracefs, "/sys/kernel/tracing");
        return 0;
    }
    if (is_tracefs("/sys/kernel/debug/tracing")) {
        snprintf(s->tracefs, sizeof s->tracefs, "/sys/kernel/debug/tracing");
        return 0;
    }
    if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) < 0) {
        int e = errno;
        cli_error("silence", "no tracefs: cannot mount tracefs on /sys/kernel/tracing: %s%s",
                  strerror(e), e == ENODEV ? " (kernel built without ftrace)" : "");
        return -e;
    }
    s->mounted = true;
    snprintf(s->tracefs, sizeof s->tracefs, "/sys/kernel/tracing");
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

/* Instances left by runs that were killed (their pid is gone), reported on
 * stderr as they are removed: a dead run's instance keeps tracing on with its
 * buffers allocated.  Returns how many were removed. */
static int remove_stale(const silence *s) {
    int removed = 0;
    char dir[256];
    snprintf(dir, sizeof dir, "%s/instances", s->tracefs);
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
        cli_warn("silence", "%s tracefs instance %s left by a run that died (pid %d)",
                 gone ? "removed the" : "could not remove the", path, pid);
        removed += gone;
    }
    closedir(d);
    return removed;
}

static void cleanup(silence *s) {
    if (s->inst_made) {
        inst_write(s, "tracing_on", "0");
        for (int i = 0; i < s->nenabled; i++) {
            char rel[128];
            snprintf(rel, sizeof rel, "events/%s/enable", s->enabled[i]);
            inst_write(s, rel, "0");
        }
        if (rmdir(s->inst) < 0)
            cli_warn("silence", "could not remove %s: %s", s->inst, strerror(errno));
        s->inst_made = false;
    }
    if (s->mounted) {
        umount2(s->tracefs, MNT_DETACH);
        s->mounted = false;
    }
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

static task_stat *task_slot(silence *s, int pid, int cpu, const char *comm) {
    for (int i = 0; i < s->ntasks; i++)
        if (s->tasks[i].pid == pid && s->tasks[i].cpu == cpu) return &s->tasks[i];
    if (s->ntasks == MAXTASK) {
        s->dropped_tasks++;
        return NULL;
    }
    task_stat *t = &s->tasks[s->ntasks++];
    memset(t, 0, sizeof *t);
    t->pid = pid;
    t->cpu = cpu;
    snprintf(t->comm, sizeof t->comm, "%s", comm);
    return t;
}

static void irq_count(silence *s, int cpu, const char *name) {
    for (int i = 0; i < s->nirqs; i++)
        if (s->irqs[i].cpu == cpu && !strcmp(s->irqs[i].name, name)) {
            s->irqs[i].count++;
            return;
        }
    if (s->nirqs == MAXIRQ) return;
    irq_stat *q = &s->irqs[s->nirqs++];
    q->cpu = cpu;
    snprintf(q->name, sizeof q->name, "%s", name);
    q->count = 1;
}

#define MAXWL 8192

static bool in_workload(const silence *s, int pid) {
    for (int i = 0; i < s->nwl; i++)
        if (s->wl[i] == pid) return true;
    return false;
}

static bool is_workload(const silence *s, int pid, const char *comm) {
    (void)comm;
    return pid == 0 /* idle */ || (s->child > 0 && in_workload(s, pid));
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
    const char *q = e; /* e points at ": name:" */
    while (q > line && (isdigit((unsigned char)q[-1]) || q[-1] == '.'))
        q--;
    return strtod(q, NULL);
}

/* First pass: fork edges, so the workload's descendants are not intruders. */
static void collect_forks(silence *s, int cpu) {
    char path[512], line[1024];
    snprintf(path, sizeof path, "%s/per_cpu/cpu%d/trace", s->inst, cpu);
    FILE *f = fopen(path, "r");
    if (!f) return;
    while (fgets(line, sizeof line, f) && s->nforks < MAXWL) {
        const char *e = strstr(line, ": sched_process_fork: ");
        char a[16], b[16];
        if (e && field(e, "pid", a, sizeof a) && field(e, "child_pid", b, sizeof b)) {
            s->forks[s->nforks][0] = atoi(a);
            s->forks[s->nforks][1] = atoi(b);
            s->nforks++;
        }
    }
    fclose(f);
}

static void build_workload(silence *s) {
    s->nwl = 0;
    if (s->child <= 0) return;
    s->wl[s->nwl++] = s->child;
    for (bool grew = true; grew;) {
        grew = false;
        for (int i = 0; i < s->nforks; i++)
            if (in_workload(s, s->forks[i][0]) && !in_workload(s, s->forks[i][1]) &&
                s->nwl < MAXWL) {
                s->wl[s->nwl++] = s->forks[i][1];
                grew = true;
            }
    }
}

static void parse_cpu(silence *s, int cpu) {
    char path[512];
    snprintf(path, sizeof path, "%s/per_cpu/cpu%d/trace", s->inst, cpu);
    FILE *f = fopen(path, "r");
    if (!f) return;
    cpu_stat *c = &s->cs[cpu];
    char line[1024];
    /* who holds the CPU since when */
    int cur_pid = -1;
    char cur_comm[32] = "";
    double cur_since = -1;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        const char *e;
        char a[64], b[64];
        if ((e = strstr(line, ": sched_switch: "))) {
            c->sw++;
            double ts = stamp_before(line, e);
            char prev_pid[16] = "", next_pid[16] = "", next_comm[32] = "", prev_comm[32] = "";
            field(e, "prev_comm", prev_comm, sizeof prev_comm);
            field(e, "prev_pid", prev_pid, sizeof prev_pid);
            field(e, "next_comm", next_comm, sizeof next_comm);
            field(e, "next_pid", next_pid, sizeof next_pid);
            int pp = atoi(prev_pid), np = atoi(next_pid);
            /* time held by the task switched out, when we saw it come in */
            if (!is_workload(s, pp, prev_comm)) {
                double held = cur_pid == pp && cur_since >= 0 ? (ts - cur_since) * 1e6 : 0;
                task_stat *t = task_slot(s, pp, cpu, prev_comm);
                if (t) t->held_us += held;
                c->intruded_us += held;
            }
            if (!is_workload(s, np, next_comm)) {
                task_stat *t = task_slot(s, np, cpu, next_comm);
                if (t) t->count++;
            }
            cur_pid = np;
            snprintf(cur_comm, sizeof cur_comm, "%s", next_comm);
            cur_since = ts;
        } else if ((e = strstr(line, ": sched_wakeup: "))) {
            c->wake++;
            char comm[32] = "", pid[16] = "";
            field(e, "comm", comm, sizeof comm);
            field(e, "pid", pid, sizeof pid);
            if (!is_workload(s, atoi(pid), comm)) {
                task_stat *t = task_slot(s, atoi(pid), cpu, comm);
                if (t) t->wakeups++;
            }
        } else if ((e = strstr(line, ": irq_handler_entry: "))) {
            c->irq++;
            if (field(e, "name", a, sizeof a) && field(e, "irq", b, sizeof b)) {
                char nm[48];
                snprintf(nm, sizeof nm, "irq %.8s (%.30s)", b, a);
                irq_count(s, cpu, nm);
            }
        } else if ((e = strstr(line, ": softirq_entry: "))) {
            c->softirq++;
            const char *act = strstr(e, "action=");
            char nm[48];
            snprintf(nm, sizeof nm, "softirq %.20s", act ? act + 7 : "?");
            nm[strcspn(nm, "]\n")] = 0;
            irq_count(s, cpu, nm);
        } else if ((e = strstr(line, "_entry: vector="))) {
            c->vec++;
            const char *q = e;
            while (q > line && q[-1] != ' ')
                q--;
            char nm[48];
            snprintf(nm, sizeof nm, "%.*s", (int)(e - q), q);
            irq_count(s, cpu, nm);
        } else {
            continue;
        }
        c->entries++;
    }
    (void)cur_comm;
    fclose(f);
    snprintf(path, sizeof path, "%s/per_cpu/cpu%d/stats", s->inst, cpu);
    f = fopen(path, "r");
    if (f) {
        while (fgets(line, sizeof line, f)) {
            unsigned long long v;
            if (sscanf(line, "overrun: %llu", &v) == 1) c->overrun = v;
        }
        fclose(f);
    }
}

static int by_held(const void *a, const void *b) {
    const task_stat *x = a, *y = b;
    if (x->held_us != y->held_us) return x->held_us < y->held_us ? 1 : -1;
    return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static int by_count(const void *a, const void *b) {
    const irq_stat *x = a, *y = b;
    return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double seconds;
static bool seconds_given, have_cpus, cleanup_only;
static int top;
static uint64_t buffer_kb;
static const char *json_path, *cpus_arg;

static const cli_opt silence_opts[] = {
    CLI_SEEN_OPT("cpus", CLI_STRING, &cpus_arg, "LIST", "CPUs to trace, e.g. 1 or 2-3 (required)",
                 0, 0, NULL, &have_cpus),
    CLI_SEEN_OPT("seconds", CLI_DOUBLE, &seconds, "S",
                 "how long to trace (default 1); with CMD: until it exits, or at most\n"
                 "S seconds if given (then CMD gets SIGTERM)",
                 0.001, 86400, NULL, &seconds_given),
    CLI_NUM_OPT("top", CLI_INT, &top, "N", "rows in the intruder and interrupt tables (default 10)",
                1, 1000),
    CLI_NUM_OPT("buffer-kb", CLI_U64, &buffer_kb, "N", "trace buffer per CPU in KiB (default 8192)",
                64, 1 << 20),
    CLI_STR_OPT("json", CLI_PATH, &json_path, "FILE", "write the results as JSON (atomically)"),
    CLI_FLAG_OPT("cleanup", &cleanup_only,
                 "only remove tracefs instances left by runs that died (each run\n"
                 "also does so, and says so, before it starts)"),
    CLI_END,
};

const cli_spec cmd_silence_spec = {
    .name = "silence",
    .synopsis =
        "latlab silence --cpus LIST [--seconds S] [--top N] [--json FILE] [-- CMD [ARGS...]]\n"
        "       latlab silence --cleanup",
    .about =
        "The ftrace silence check (root): trace sched_switch, sched_wakeup, IRQs, softirqs and\n"
        "IRQ vectors on the chosen CPUs through a private tracefs instance, then report what ran\n"
        "or interrupted there: counts per CPU, the top intruding tasks (and how long they held\n"
        "the CPU), the top interrupts, and ring overruns.  With CMD (e.g. your workload pinned\n"
        "with taskset), trace while it runs; its own tasks are not counted as intruders.\n"
        "tracefs is mounted if needed; the instance is always removed (also on Ctrl-C).\n",
    .opts = silence_opts,
    .epilog = "Exit: 0 done, 1 not root / no tracefs / tracing failed, 2 usage error; with CMD,\n"
              "CMD's status (127: not found, 126: not runnable, 128+N: killed by signal N).\n"
              "A tracefs mount made by latlab is unmounted when it is done.\n",
    .max_args = -1,
    .stop_at_args = true,
};

static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};

/* Options, checked before any work: 0, -1 after --help, or the exit status. */
static int silence_parse(silence *s, int argc, char **argv) {
    seconds = 1.0, top = 10, buffer_kb = 8192;
    int first, rc = cli_parse(&cmd_silence_spec, argc, argv, &first);
    if (rc) return rc;
    if (have_cpus &&
        (rc = cli_parse_cpulist("silence", "--cpus", cpus_arg, s->cpus, MAXCPU, &s->ncpus)))
        return rc;
    s->cmd = first < argc ? argv + first : NULL;
    if (cleanup_only) {
        if (have_cpus || s->cmd)
            return cli_usage_error("silence", "--cleanup takes no --cpus and no command");
        return 0;
    }
    if (!have_cpus) return cli_usage_error("silence", "--cpus is required (e.g. --cpus 1)");
    long ncpu_conf = sysconf(_SC_NPROCESSORS_CONF);
    for (int i = 0; i < s->ncpus; i++)
        if (s->cpus[i] >= ncpu_conf)
            return cli_usage_error("silence",
                                   "--cpus: CPU %d does not exist (this machine has %ld)",
                                   s->cpus[i], ncpu_conf);
    return 0;
}

static int silence_cleanup_only(silence *s) {
    if (geteuid() != 0) return cli_error("silence", "needs root: --cleanup edits tracefs");
    if (find_tracefs(s)) return CLI_ERR;
    int n = remove_stale(s);
    printf("latlab silence --cleanup: %d stale instance%s removed\n", n, n == 1 ? "" : "s");
    cleanup(s); /* unmounts tracefs if we mounted it */
    return CLI_OK;
}

/* The private instance: CPU mask, buffer, events.  0 or -1 after a message. */
static int setup_instance(silence *s) {
    remove_stale(s);
    snprintf(s->inst, sizeof s->inst, "%.63s/instances/latlab-silence-%d", s->tracefs,
             (int)getpid());
    if (mkdir(s->inst, 0700) < 0) {
        cli_error("silence", "cannot create tracefs instance %s: %s", s->inst, strerror(errno));
        return -1;
    }
    s->inst_made = true;
    char mask[MAXCPU / 4 + MAXCPU / 32 + 8], num[32];
    cpumask_hex(s->cpus, s->ncpus, mask, sizeof mask);
    int rc;
    if ((rc = inst_write(s, "tracing_on", "0")) || (rc = inst_write(s, "tracing_cpumask", mask))) {
        cli_error("silence", "configuring the instance: %s", strerror(-rc));
        return -1;
    }
    snprintf(num, sizeof num, "%llu", (unsigned long long)buffer_kb);
    if (inst_write(s, "buffer_size_kb", num))
        cli_warn("silence", "could not set buffer_size_kb=%s", num);
    for (size_t i = 0; i < NEVENTS; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "events/%s/enable", events[i]);
        if (inst_write(s, rel, "1") == 0)
            s->enabled[s->nenabled++] = events[i];
        else if (i < 2) {
            cli_error("silence", "cannot enable %s in %s", events[i], s->inst);
            return -1;
        }
    }
    inst_write(s, "trace", "");
    return 0;
}

/* Fork the workload, held on the go pipe until tracing is on.  0 or -1. */
static int start_child(silence *s) {
    if (pipe2(s->go, O_CLOEXEC)) {
        cli_error("silence", "pipe: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    s->child = fork();
    if (s->child < 0) {
        cli_error("silence", "fork: %s", strerror(errno));
        return -1;
    }
    if (s->child == 0) {
        char b;
        for (int i = 0; i < 3; i++)
            sigaction(sigs[i], &s->old[i], NULL);
        close(s->go[1]);
        if (read(s->go[0], &b, 1) != 1) _exit(127);
        execvp(s->cmd[0], s->cmd);
        fprintf(stderr, "latlab silence: cannot run '%s': %s\n", s->cmd[0], strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
    }
    close(s->go[0]);
    s->go[0] = -1;
    return 0;
}

/* The workload inherited our CPU set; the reader moves off the traced CPUs. */
static void move_reader_off(silence *s) {
    cpu_set_t mine, off;
    s->reader_cpu = -1;
    CPU_ZERO(&off);
    if (sched_getaffinity(0, sizeof mine, &mine) == 0) {
        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
            if (!CPU_ISSET(cpu, &mine)) continue;
            bool traced = false;
            for (int i = 0; i < s->ncpus; i++)
                traced |= s->cpus[i] == cpu;
            if (!traced) {
                CPU_SET(cpu, &off);
                if (s->reader_cpu < 0) s->reader_cpu = cpu;
            }
        }
    }
    if (s->reader_cpu >= 0)
        sched_setaffinity(0, sizeof off, &off);
    else
        cli_warn("silence", "every CPU we may run on is traced: the reader's own activity will "
                            "show up in the trace");
}

static bool child_exited(const silence *s) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    /* WNOWAIT: keep the zombie so its comm stays readable */
    return waitid(P_PID, (id_t)s->child, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           si.si_pid == s->child;
}

/* Tracing on, the workload released, then wait: --seconds, the workload's
 * exit or a signal.  0 or -1 after a message. */
static int trace(silence *s) {
    int rc;
    if ((rc = inst_write(s, "tracing_on", "1"))) {
        cli_error("silence", "tracing_on: %s", strerror(-rc));
        return -1;
    }
    uint64_t t0 = mono_ns();
    if (s->cmd) {
        if (write(s->go[1], "g", 1) != 1) {
            cli_error("silence", "starting '%s': %s", s->cmd[0], strerror(errno));
            return -1;
        }
        close(s->go[1]);
        s->go[1] = -1;
    }
    uint64_t limit = (uint64_t)(seconds * 1e9);
    while (!got_signal) {
        uint64_t el = mono_ns() - t0;
        if ((!s->cmd || seconds_given) && el >= limit) break;
        if (s->cmd && child_exited(s)) break;
        uint64_t left = s->cmd && !seconds_given ? 20000000ull : limit - el;
        if (left > 20000000ull) left = 20000000ull;
        struct timespec d = {0, (long)left};
        nanosleep(&d, NULL);
    }
    inst_write(s, "tracing_on", "0");
    s->traced_ns = mono_ns() - t0;
    return 0;
}

/* The workload's name (before it is reaped), then its end. */
static void finish_child(silence *s) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/comm", (int)s->child);
    FILE *f = fopen(path, "r");
    if (f) {
        if (fgets(s->child_comm, sizeof s->child_comm, f))
            s->child_comm[strcspn(s->child_comm, "\n")] = 0;
        fclose(f);
    }
    if ((got_signal || seconds_given) && !child_exited(s))
        kill(s->child, got_signal ? got_signal : SIGTERM);
    while (waitpid(s->child, &s->status, 0) < 0 && errno == EINTR) {
    }
    s->child_done = true;
}

static uint64_t print_cpus(const silence *s) {
    printf("silence check: CPU%s ", s->ncpus > 1 ? "s" : "");
    for (int i = 0; i < s->ncpus; i++)
        printf("%s%d", i ? "," : "", s->cpus[i]);
    printf(" traced for %.3f s", (double)s->traced_ns / 1e9);
    if (s->reader_cpu >= 0) printf(" (reader on CPU %d)", s->reader_cpu);
    if (s->cmd)
        printf(", workload '%s' pid %d (%d tasks)", s->child_comm[0] ? s->child_comm : s->cmd[0],
               (int)s->child, s->nwl);
    printf("\n\n  %4s %12s %12s %8s %8s %8s %12s %9s\n", "cpu", "sched_switch", "sched_wakeup",
           "irq", "softirq", "vectors", "intruded_us", "overrun");
    uint64_t total_overrun = 0;
    for (int i = 0; i < s->ncpus; i++) {
        const cpu_stat *cs = &s->cs[s->cpus[i]];
        printf("  %4d %12llu %12llu %8llu %8llu %8llu %12.1f %9llu\n", s->cpus[i],
               (unsigned long long)cs->sw, (unsigned long long)cs->wake,
               (unsigned long long)cs->irq, (unsigned long long)cs->softirq,
               (unsigned long long)cs->vec, cs->intruded_us, (unsigned long long)cs->overrun);
        total_overrun += cs->overrun;
    }
    return total_overrun;
}

static void print_report(silence *s) {
    uint64_t total_overrun = print_cpus(s);
    qsort(s->tasks, (size_t)s->ntasks, sizeof *s->tasks, by_held);
    qsort(s->irqs, (size_t)s->nirqs, sizeof *s->irqs, by_count);
    printf("\n  top intruding tasks (switched in on a traced CPU%s):\n",
           s->cmd ? ", not the workload" : "");
    if (!s->ntasks)
        printf("    none\n");
    else
        printf("    %4s %8s %8s %12s  %s\n", "cpu", "switched", "wakeups", "held_us", "task");
    for (int i = 0; i < s->ntasks && i < top; i++)
        printf("    %4d %8llu %8llu %12.1f  %s-%d\n", s->tasks[i].cpu,
               (unsigned long long)s->tasks[i].count, (unsigned long long)s->tasks[i].wakeups,
               s->tasks[i].held_us, s->tasks[i].comm, s->tasks[i].pid);
    printf("\n  top interrupts:\n");
    if (!s->nirqs)
        printf("    none\n");
    else
        printf("    %4s %8s  %s\n", "cpu", "count", "source");
    for (int i = 0; i < s->nirqs && i < top; i++)
        printf("    %4d %8llu  %s\n", s->irqs[i].cpu, (unsigned long long)s->irqs[i].count,
               s->irqs[i].name);
    if (total_overrun)
        printf("\n  warning: %llu events were lost (ring overrun); raise --buffer-kb or trace "
               "for less time\n",
               (unsigned long long)total_overrun);
    if (s->dropped_tasks)
        printf("\n  note: more than %d distinct tasks; the rest are not in the table\n", MAXTASK);
    if (s->cmd && s->child_done) {
        if (WIFEXITED(s->status))
            printf("\n  workload exited with status %d\n", WEXITSTATUS(s->status));
        else if (WIFSIGNALED(s->status))
            printf("\n  workload killed by signal %d\n", WTERMSIG(s->status));
    }
    fflush(stdout);
}

static json_t *cpus_json(const silence *s) {
    json_t *cpus = json_array();
    for (int i = 0; i < s->ncpus; i++) {
        const cpu_stat *cs = &s->cs[s->cpus[i]];
        json_t *o = json_object();
        json_object_set_new(o, "cpu", json_integer(s->cpus[i]));
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

static json_t *tasks_json(const silence *s) {
    json_t *tasks = json_array();
    for (int i = 0; i < s->ntasks; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "cpu", json_integer(s->tasks[i].cpu));
        json_object_set_new(o, "pid", json_integer(s->tasks[i].pid));
        json_object_set_new(o, "comm", json_string(s->tasks[i].comm));
        json_object_set_new(o, "switched_in", json_integer((json_int_t)s->tasks[i].count));
        json_object_set_new(o, "wakeups", json_integer((json_int_t)s->tasks[i].wakeups));
        json_object_set_new(o, "held_us", json_real(s->tasks[i].held_us));
        json_array_append_new(tasks, o);
    }
    return tasks;
}

static int write_json(const silence *s) {
    json_t *root = json_object(), *irqs = json_array();
    json_object_set_new(root, "traced_ns", json_integer((json_int_t)s->traced_ns));
    json_object_set_new(root, "reader_cpu", json_integer(s->reader_cpu));
    json_object_set_new(root, "interrupted", json_boolean(got_signal != 0));
    for (int i = 0; i < s->nirqs; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "cpu", json_integer(s->irqs[i].cpu));
        json_object_set_new(o, "source", json_string(s->irqs[i].name));
        json_object_set_new(o, "count", json_integer((json_int_t)s->irqs[i].count));
        json_array_append_new(irqs, o);
    }
    json_object_set_new(root, "cpus", cpus_json(s));
    json_object_set_new(root, "intruders", tasks_json(s));
    json_object_set_new(root, "interrupts", irqs);
    int rc = lat_write_json_atomic(json_path, root);
    json_decref(root);
    return rc ? cli_lib_error("silence", json_path, rc) : CLI_OK;
}

/* Trace, read the trace, report: CLI_OK or CLI_ERR after a message. */
static int silence_run(silence *s) {
    if (setup_instance(s) || (s->cmd && start_child(s))) return CLI_ERR;
    move_reader_off(s);
    if (trace(s)) return CLI_ERR;
    if (s->cmd) finish_child(s);
    if (got_signal)
        cli_warn("silence", "interrupted by signal %d: reporting what was traced", (int)got_signal);
    for (int i = 0; i < s->ncpus; i++)
        collect_forks(s, s->cpus[i]);
    build_workload(s);
    for (int i = 0; i < s->ncpus; i++)
        parse_cpu(s, s->cpus[i]);
    print_report(s);
    return json_path ? write_json(s) : CLI_OK;
}

/* Everything undone: the pipe, an unreleased child, the instance, the handlers. */
static void teardown(silence *s) {
    if (s->go[0] >= 0) close(s->go[0]);
    if (s->go[1] >= 0) close(s->go[1]); /* an unreleased child sees EOF and exits */
    if (s->child > 0 && !s->child_done) {
        kill(s->child, SIGTERM);
        while (waitpid(s->child, NULL, 0) < 0 && errno == EINTR) {
        }
    }
    cleanup(s);
    for (int i = 0; i < 3; i++)
        sigaction(sigs[i], &s->old[i], NULL);
    free(s->tasks);
    free(s->wl);
    free(s->forks);
    s->tasks = NULL;
}

int cmd_silence(int argc, char **argv) {
    static silence S;
    silence *s = &S;
    memset(s, 0, sizeof *s);
    s->go[0] = s->go[1] = -1;
    int rc = silence_parse(s, argc, argv);
    if (rc) return rc < 0 ? CLI_OK : rc;
    if (cleanup_only) return silence_cleanup_only(s);
    if (geteuid() != 0)
        return cli_error("silence", "needs root: ftrace (tracefs) is root-only; run it with sudo");
    if (find_tracefs(s)) return CLI_ERR;
    s->tasks = calloc(MAXTASK, sizeof *s->tasks);
    s->wl = calloc(MAXWL, sizeof *s->wl);
    s->forks = calloc(MAXWL, sizeof *s->forks);
    if (!s->tasks || !s->wl || !s->forks) {
        free(s->tasks);
        free(s->wl);
        free(s->forks);
        return cli_error("silence", "out of memory");
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; i++)
        sigaction(sigs[i], &sa, &s->old[i]);
    int ret = silence_run(s);
    teardown(s);
    if (got_signal && ret == CLI_OK) ret = 128 + got_signal;
    /* With CMD the exit status is CMD's, as with `latlab stat` (127: not found). */
    if (ret == CLI_OK && s->cmd && s->child_done)
        ret = WIFEXITED(s->status) ? WEXITSTATUS(s->status) : 128 + WTERMSIG(s->status);
    return ret;
}
