/* stallpeer.c - the coordinated-omission test's server (tests/cli/cli_load_co.sh):
 * HTTP/1.1 keep-alive on 127.0.0.1 answering every request with "ok", frozen
 * for STALL_MS every PERIOD_MS (nothing read or answered meanwhile; the
 * freeze ends at an absolute time, so one that starts late still ends on
 * time).  C rather than a script so that answering the backlog a stall left
 * takes microseconds, not milliseconds: the analytic percentiles assume it.
 * Usage: lat_stallpeer STALL_MS PERIOD_MS [MODE]; prints "listening PORT", then
 * "stall MS" after each freeze: its length as it was (a host that runs the
 * server late makes it longer; the test's analytic figures use it).  STALL_MS
 * 0: no freezes.  MODE (tests/cli/cli_load_bounds.sh): ok (the default), mute
 * (read every request, never answer), 503 (answer "503 Service Unavailable"),
 * twice (answer every request twice), delayUS (scripts/load-bench.sh: answer
 * every request US microseconds after it was read, a fixed service time that
 * overlaps across requests: the answers wait in a queue, in order, and the
 * loop sleeps to the next one's time with a nanosecond timeout and a 1 ns
 * timer slack, so they go out within microseconds of it when the server has
 * a CPU). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
static const char unavailable[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 2\r\n\r\nno";
static const char *reply = ok;
static size_t reply_len = sizeof ok - 1;
static int copies = 1; /* answers per request; 0: none */
static uint64_t delay; /* ns from reading a request to answering it (delayUS) */

/* delayUS's answers not yet sent: (fd, due), due non-decreasing. */
#define PENDING (1u << 16)
static struct {
    int fd;
    uint64_t due;
} pending[PENDING];
static uint64_t p_head, p_tail;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t) {
    struct timespec ts = {(time_t)(t / 1000000000u), (long)(t % 1000000000u)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)) {
    }
}

/* Per connection: the last bytes seen, to find "\r\n\r\n" across reads. */
static uint32_t tail[65536];

static void serve(int ep, int fd) {
    char buf[65536], out[sizeof unavailable * 512];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) {
        epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
        close(fd);
        return;
    }
    size_t m = 0;
    uint32_t t = fd < 65536 ? tail[fd] : 0;
    for (ssize_t i = 0; i < n; i++) {
        t = (t << 8) | (uint8_t)buf[i];
        if (delay && t == 0x0d0a0d0a && p_tail - p_head < PENDING) {
            pending[p_tail % PENDING].fd = fd;
            pending[p_tail++ % PENDING].due = now_ns() + delay;
            continue;
        }
        for (int k = 0; t == 0x0d0a0d0a && k < copies && m + reply_len <= sizeof out; k++) {
            memcpy(out + m, reply, reply_len);
            m += reply_len;
        }
    }
    if (fd < 65536) tail[fd] = t;
    if (m && write(fd, out, m) < 0) {
        epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
        close(fd);
    }
}

int main(int argc, char **argv) {
    if (argc != 3 && argc != 4) return 2;
    uint64_t stall = strtoull(argv[1], NULL, 10) * 1000000u;
    uint64_t period = strtoull(argv[2], NULL, 10) * 1000000u;
    const char *mode = argc == 4 ? argv[3] : "ok";
    if (!strcmp(mode, "mute")) {
        copies = 0;
    } else if (!strcmp(mode, "503")) {
        reply = unavailable;
        reply_len = sizeof unavailable - 1;
    } else if (!strcmp(mode, "twice")) {
        copies = 2;
    } else if (!strncmp(mode, "delay", 5) && strtoull(mode + 5, NULL, 10) > 0) {
        delay = strtoull(mode + 5, NULL, 10) * 1000u;
    } else if (strcmp(mode, "ok")) {
        return 2;
    }
    int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (bind(ls, (struct sockaddr *)&a, sizeof a) || listen(ls, 1024) ||
        getsockname(ls, (struct sockaddr *)&a, &al))
        return 1;
    printf("listening %d\n", ntohs(a.sin_port));
    fflush(stdout);
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = ls}, evs[256];
    epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
    uint64_t next = stall ? now_ns() + period : UINT64_MAX;
    for (;;) {
        uint64_t now = now_ns();
        while (p_head < p_tail && pending[p_head % PENDING].due <= now) {
            /* a closed connection's answer fails to write: dropped */
            if (write(pending[p_head % PENDING].fd, reply, reply_len) < 0) {
            }
            p_head++;
        }
        if (now >= next) {
            /* Sleep, then spin the last 2 ms: a woken process can wait for
             * a CPU for milliseconds on a busy host, a running one need not. */
            uint64_t end = next + stall;
            if (end > now + 2000000) sleep_until(end - 2000000);
            while (now_ns() < end) {
            }
            /* The freeze as it was: from its due time to serving again. */
            printf("stall %.3f ms\n", (double)(now_ns() - next) / 1e6);
            fflush(stdout);
            next += period;
            continue;
        }
        uint64_t until = next;
        if (p_head < p_tail && pending[p_head % PENDING].due < until)
            until = pending[p_head % PENDING].due;
        struct timespec to = {(time_t)((until - now) / 1000000000u),
                              (long)((until - now) % 1000000000u)};
        int k = epoll_pwait2(ep, evs, 256, until == UINT64_MAX ? NULL : &to, NULL);
        for (int i = 0; i < k; i++) {
            int fd = evs[i].data.fd;
            if (fd != ls) {
                serve(ep, fd);
                continue;
            }
            int c = accept(ls, NULL, NULL);
            if (c < 0) continue;
            setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            if (c < 65536) tail[c] = 0;
            ev = (struct epoll_event){.events = EPOLLIN, .data.fd = c};
            epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev);
        }
    }
}
