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
 * twice (answer every request twice). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
static const char unavailable[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 2\r\n\r\nno";
static const char *reply = ok;
static size_t reply_len = sizeof ok - 1;
static int copies = 1; /* answers per request; 0: none */

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
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = ls}, evs[256];
    epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
    uint64_t next = stall ? now_ns() + period : UINT64_MAX;
    for (;;) {
        uint64_t now = now_ns();
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
        int k =
            epoll_wait(ep, evs, 256, next == UINT64_MAX ? -1 : (int)((next - now) / 1000000u) + 1);
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
