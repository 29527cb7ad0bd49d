#!/usr/bin/env bash
# load-bench.sh - `latlab load`'s own figures against nginx (and redis-server)
# on loopback, one generator thread each, every server started here on
# 127.0.0.1 and stopped at exit.  Figures only, never pass/fail:
#   1. schedule lag p50/p99/p99.9 of the requests kept (and the wait on the
#      server's queue, p99, and the latency p99) at 20k, 50k and 100k req/s
#      beside the sending thread's platform loss in the same run and the share
#      of requests censored because of it, with the run's verdict;
#   2. the highest rate one thread holds while the verdict stays valid (rates
#      stepped up), beside wrk's closed-loop throughput with the same
#      connections (1 thread), REPS times in turn, each with its ratio and
#      the server's CPU busy share in wrk's run (every row has it too);
#   3. CPU per request (user + system time / requests) of latlab load and wrk;
#   4. throughput per thread with the same connections, REPS times in turn:
#      latlab load offered more than it can send (--rate MAXRATE for
#      MAXDUR, so the figure is what one thread sends: completed / run time)
#      and wrk -t1 over DUR, each with its CPU per request; over HTTP/1.1
#      and over TLS (nginx with a certificate made here);
#   5. HTTP/2 (h2c, prior knowledge) with H2CONNS connections and H2STREAMS
#      streams each: latlab load --http2 offered more than it sends beside
#      h2load -t1 flat out with the same -c and -m, REPS times in turn, each
#      with its ratio; then latlab's kept lag p50/p99 at H2RATE over h2.
#   6. accuracy against services whose latency is known (tests/peers/
#      stallpeer.c): a fixed service time of FIXED_US, and a freeze of 100 ms
#      every second (analytic p95 50 ms, p99 90 ms), at TRUTH_RATES for
#      TRUTH_DUR, directly and through nginx over TLS (HTTP/1.1 and h2), latlab load beside
#      wrk2 (HTTP/1.1; built from WRK2_SRC/build.sh, or WRK2=path), each
#      figure with its error against the truth.  Section 1 has a TLS row at 20,000/s too.
#   With redis-server and redis-benchmark installed, 1 and 3 against Redis too.
# The machine's conditions (CPUs, load average) are printed first: on a shared
# host the figures are that host's.  With 2 CPUs or more the servers run on
# CPU 0 and every generator (latlab load, wrk, redis-benchmark) on the last
# CPU, so neither takes the other's time (PIN=0: nothing pinned).  256
# connections: a server stall of a few ms then queues at the server, not in
# the generator (with 64, the backlog a full set of connections leaves sets
# latlab load's lag tail, and its verdict says so).
#
# usage: scripts/load-bench.sh [BUILD_DIR]   env: DUR (2s), CONNS (256), RATES ("20000 50000 100000"),
#        REPS (3), MAXRATE (300000), MAXDUR (1s), H2CONNS (16), H2STREAMS (16),
#        H2RATE (20000), FIXED_US (5000), TRUTH_RATES ("2000 20000"), TRUTH_DUR (10s),
#        WRK2 / WRK2_SRC; ONLY=4, ONLY=5 or ONLY=6 runs that section alone
set -euo pipefail
B=${1:-${LAT_BUILD_DIR:-build}}
L=$B/latlab
DUR=${DUR:-2s}
CONNS=${CONNS:-256}
RATES=${RATES:-"20000 50000 100000"}
REPS=${REPS:-3}
MAXRATE=${MAXRATE:-300000}
MAXDUR=${MAXDUR:-1s}
FIXED_US=${FIXED_US:-5000}
TRUTH_RATES=${TRUTH_RATES:-"2000 20000"}
TRUTH_DUR=${TRUTH_DUR:-10s}
ONLY=${ONLY:-}
H2CONNS=${H2CONNS:-16}
H2STREAMS=${H2STREAMS:-16}
H2RATE=${H2RATE:-20000}
PIN=${PIN:-1}
SRV=() GEN=() LCPU=()
if [ "$PIN" = 1 ] && [ "$(nproc)" -ge 2 ]; then
    last=$(($(nproc) - 1))
    SRV=(taskset -c 0) GEN=(taskset -c "$last") LCPU=(--cpu "$last")
fi
PATH=$PATH:/usr/sbin
# shellcheck source=../tests/support/nginx.sh
. "$(dirname "$0")/../tests/support/nginx.sh"
"$(dirname "$0")/deps.sh" bench
for t in nginx wrk python3 openssl; do command -v $t >/dev/null || { echo "needs $t (scripts/deps.sh test)" >&2; exit 1; }; done
tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$tmp"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done; return 1; }
# CPU seconds (user+sys) a command used; its output goes to $tmp/cpu.out
cpu_of() {
    CPU_OUT=$tmp/cpu.out python3 - "$@" <<'PY' >"$tmp/cpu.s"
import resource, subprocess, sys
import os
subprocess.run(sys.argv[1:], stdout=open(os.environ["CPU_OUT"], "w"), stderr=subprocess.STDOUT)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(r.ru_utime + r.ru_stime)
PY
    cat "$tmp/cpu.s"
}
j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
# The server's CPU (CPU 0 when pinned) busy over a run, in %: "-" when not pinned.
# Where it is near 100% in wrk's closed-loop run, wrk's figure is the
# server's capacity as much as wrk's, and no open-loop rate at it is stable.
cpu0() { grep '^cpu0 ' /proc/stat; }
busy_of() { # /proc/stat line before, after
    [ ${#SRV[@]} -gt 0 ] || { echo -; return; }
    python3 -c "import sys
a, b = ([int(x) for x in v.split()[1:9]] for v in sys.argv[1:3])
d = [y - x for x, y in zip(a, b)]
t = sum(d)
print('%.0f' % (100.0 * (t - d[3] - d[4]) / t if t else 0))" "$1" "$2"
}

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "placement: ${SRV[*]:-servers not pinned}; generators: ${GEN[*]:-not pinned}"

port=$(free_port)
nginx_conf "$tmp/nginx" "$port" off
"${SRV[@]}" nginx -c "$tmp/nginx/nginx.conf" -p "$tmp/nginx" 2>"$tmp/nginx.err" &
pids+=("$!")
wait_port "$port" || { echo "nginx did not start" >&2; exit 1; }
# The same nginx answer over TLS (a certificate made here), and a TLS front
# for stallpeer (proxy_pass, upstream keep-alive) in section 5.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -keyout "$tmp/tls.key" -out "$tmp/tls.pem" \
    -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >"$tmp/openssl.log" 2>&1
tls_conf() { # dir port location-body
    nginx_conf "$1" "$2" off
    sed -i -e "s|listen 127.0.0.1:$2;|listen 127.0.0.1:$2 ssl; ssl_certificate $tmp/tls.pem; ssl_certificate_key $tmp/tls.key;|" \
        -e "s|location / { return 200 \"ok\"; }|location / { $3 }|" "$1/nginx.conf"
}
tport=$(free_port)
tls_conf "$tmp/nginx-tls" "$tport" 'return 200 "ok";'
"${SRV[@]}" nginx -c "$tmp/nginx-tls/nginx.conf" -p "$tmp/nginx-tls" 2>"$tmp/nginx-tls.err" &
pids+=("$!")
wait_port "$tport" || { echo "nginx (TLS) did not start" >&2; exit 1; }

# One latlab run: prints a table row; sets valid=True/False.
row() { # label rate target proto-args...
    local label=$1 rate=$2 target=$3
    shift 3
    local cpu s0
    s0=$(cpu0)
    cpu=$(cpu_of "$L" load "$target" "$@" "${LCPU[@]}" --rate "$rate" --duration "$DUR" --connections "$CONNS" \
        --quiet --json "$tmp/r.json")
    valid=$(j "$tmp/r.json" "d['verdict']['valid']")
    python3 - "$tmp/r.json" "$label" "$rate" "$cpu" "$(busy_of "$s0" "$(cpu0)")" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); lag = d["lag"]; c = d["counts"]; v = d["verdict"]
run_s = c["run_ns"] / 1e9
print("%-7s %8s %9.0f %8.1f %8.1f %8.1f %9.1f %9.1f %8.2f%% %8.2f%% %9.2f %8s  %s" % (
    sys.argv[2], sys.argv[3], c["completed"] / run_s if run_s else 0, lag["p50_ns"] / 1e3,
    lag["p99_ns"] / 1e3, lag["p99.9_ns"] / 1e3, d["wait"]["p99_ns"] / 1e3,
    d["latency"]["p99_ns"] / 1e3, v["platform_loss"] * 100,
    v["late_after_gap_share"] * 100, float(sys.argv[4]) / max(c["completed"], 1) * 1e6,
    sys.argv[5] + ("%" if sys.argv[5] != "-" else ""),
    "valid" if v["valid"] else "invalid: " + v["reason"][:70]))
PY
}
hdr() {
    printf '%-7s %8s %9s %8s %8s %8s %9s %9s %9s %9s %9s %8s  %s\n' server rate achieved "lag p50" "lag p99" "p99.9" \
        "wait p99" "lat p99" "loss" "censored" "cpu us/req" "srv busy" verdict
}

# 4: latlab offered more than one thread sends, then wrk, REPS times in turn.
throughput() {
    echo
    echo "4. throughput per thread, $CONNS connections: latlab load --rate $MAXRATE for $MAXDUR (more than it sends) vs wrk -t1 -d$DUR"
    printf '%-4s %-6s %-7s %10s %10s %11s\n' rep wire tool "req/s" requests "cpu us/req"
    for i in $(seq "$REPS"); do
        for url in "http://127.0.0.1:$port/" "https://127.0.0.1:$tport/"; do
            local cpu wire=${url%%:*} tls=()
            [ "$wire" = https ] && tls=(--insecure)
            cpu=$(cpu_of "$L" load "$url" "${tls[@]}" "${LCPU[@]}" --rate "$MAXRATE" --duration "$MAXDUR" \
                --connections "$CONNS" --timeout 30s --quiet --json "$tmp/t.json")
            python3 - "$tmp/t.json" "$i" "$cpu" "$wire" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["counts"]
print("%-4s %-6s %-7s %10.0f %10d %11.2f" % (sys.argv[2], sys.argv[4], "latlab", c["completed"] / (c["run_ns"] / 1e9),
      c["completed"], float(sys.argv[3]) / max(c["completed"], 1) * 1e6))
PY
            cpu=$(cpu_of "${GEN[@]}" wrk -t1 -c"$CONNS" -d"${DUR%s}s" "$url")
            python3 - "$tmp/cpu.out" "$i" "$cpu" "$wire" <<'PY'
import re, sys
w = open(sys.argv[1]).read()
n = int(re.search(r"(\d+) requests in", w).group(1))
print("%-4s %-6s %-7s %10.0f %10d %11.2f" % (sys.argv[2], sys.argv[4], "wrk", float(re.search(r"Requests/sec:\s*([\d.]+)", w).group(1)),
      n, float(sys.argv[3]) / max(n, 1) * 1e6))
PY
        done
    done
    echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# 5: latlab load and wrk2 against stallpeer's known latencies, direct and over TLS.
truth() {
    local sp=$B/tests/lat_stallpeer w2=${WRK2:-} src=${WRK2_SRC:-$(dirname "$0")/../../shared/peers/wrk2}
    [ -x "$sp" ] || { echo "6. skipped: $sp not built"; return; }
    if [ -z "$w2" ] && [ -x "$src/build.sh" ]; then
        "$src/build.sh" "$tmp/wrk2" >"$tmp/wrk2-build.log" 2>&1 && w2=$tmp/wrk2/wrk2
    fi
    [ -n "$w2" ] || echo "(wrk2 not available: set WRK2=path or WRK2_SRC=dir with build.sh; latlab alone)"
    echo
    echo "6. accuracy against known latency (ms), $CONNS connections, $TRUTH_DUR per run; error = figure - truth"
    printf '%-16s %-6s %7s %-7s %9s %9s %9s %9s %9s  %s\n' server wire rate tool p50 p95 p99 "err p50" "err p99" note
    for mode in "delay$FIXED_US" stall; do
        local sargs=(0 1000 "delay$FIXED_US") truth50=$((FIXED_US * 1000)) truth95=$((FIXED_US * 1000)) truth99=$((FIXED_US * 1000))
        [ "$mode" = stall ] && sargs=(100 1000) truth50=0 truth95=50000000 truth99=90000000
        "${SRV[@]}" "$sp" "${sargs[@]}" >"$tmp/sp.out" &
        pids+=("$!")
        local spp=""
        for _ in $(seq 100); do spp=$(awk '/^listening/{print $2}' "$tmp/sp.out"); [ -n "$spp" ] && break; sleep 0.05; done
        local fp
        fp=$(free_port)
        tls_conf "$tmp/nginx-front" "$fp" "proxy_pass http://sp; proxy_http_version 1.1; proxy_set_header Connection \"\";"
        sed -i -e "s|^http {|http { upstream sp { server 127.0.0.1:$spp; keepalive 512; }|" \
            -e "s|listen 127.0.0.1:$fp ssl;|listen 127.0.0.1:$fp ssl http2; http2_max_concurrent_streams 1024;|" \
            "$tmp/nginx-front/nginx.conf"
        "${SRV[@]}" nginx -c "$tmp/nginx-front/nginx.conf" -p "$tmp/nginx-front" 2>"$tmp/nginx-front.err" &
        pids+=("$!")
        wait_port "$fp" || { echo "nginx (TLS front) did not start" >&2; return; }
        for r in $TRUTH_RATES; do
            for url in "http://127.0.0.1:$spp/" "https://127.0.0.1:$fp/" "h2://127.0.0.1:$fp/"; do
                local wire=${url%%:*} tls=()
                [ "$wire" = https ] && tls=(--insecure)
                [ "$wire" = h2 ] && tls=(--insecure --http2) url=https${url#h2}
                if [ "$wire" = h2 ] && "$L" load --http2 "$url" --rate 1 --duration 1ms --quiet 2>&1 |
                    grep -q "without HTTP/2"; then continue; fi
                "$L" load "$url" "${tls[@]}" "${LCPU[@]}" --rate "$r" --duration "$TRUTH_DUR" --connections "$CONNS" \
                    --quiet --json "$tmp/k.json" >/dev/null 2>&1
                python3 - "$tmp/k.json" "$mode" "$wire" "$r" "$truth50" "$truth95" "$truth99" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); l = d["latency"]; v = d["verdict"]
t50, t95, t99 = (float(x) for x in sys.argv[5:8])
e = lambda f, t: "%+.3f" % ((f - t) / 1e6)
print("%-16s %-6s %7s %-7s %9.3f %9.3f %9.3f %9s %9s  %s" % (sys.argv[2], sys.argv[3], sys.argv[4], "latlab",
      l["p50_ns"] / 1e6, l["p95_ns"] / 1e6, l["p99_ns"] / 1e6, e(l["p50_ns"], t50) if t50 else "-",
      e(l["p99_ns"], t99), ("valid" if v["valid"] else "invalid") + ", loss %.1f%%" % (v["platform_loss"] * 100)))
PY
                [ -n "$w2" ] && [ "$wire" != h2 ] || continue
                "${GEN[@]}" "$w2" -t1 -c"$CONNS" -d"$TRUTH_DUR" -R"$r" --latency "$url" >"$tmp/w2.out" 2>&1
                python3 - "$tmp/w2.out" "$mode" "$wire" "$r" "$truth50" "$truth95" "$truth99" <<'PY'
import re, sys
w = open(sys.argv[1]).read()
unit = {"us": 1e3, "ms": 1e6, "s": 1e9, "m": 6e10}
def pct(p):
    m = re.search(r"^\s*%s\s+([\d.]+)(us|ms|s|m)\s*$" % re.escape(p), w, re.M)
    return float(m.group(1)) * unit[m.group(2)] if m else float("nan")
p50, p95, p99 = pct("50.000%"), pct("95.000%") if "95.000%" in w else float("nan"), pct("99.000%")
t50, t95, t99 = (float(x) for x in sys.argv[5:8])
e = lambda f, t: "%+.3f" % ((f - t) / 1e6)
rps = re.search(r"Requests/sec:\s*([\d.]+)", w)
print("%-16s %-6s %7s %-7s %9.3f %9.3f %9.3f %9s %9s  %s" % (sys.argv[2], sys.argv[3], sys.argv[4], "wrk2",
      p50 / 1e6, p95 / 1e6, p99 / 1e6, e(p50, t50) if t50 else "-", e(p99, t99),
      "achieved %s req/s" % (rps.group(1) if rps else "?")))
PY
            done
        done
        kill "${pids[@]: -2}" 2>/dev/null
        wait "${pids[@]: -2}" 2>/dev/null
    done
    echo "truth: $FIXED_US us at p50/p95/p99 for delay$FIXED_US; 50 and 90 ms at p95/p99 for the stall (the loopback round trip, tens of us, is in every figure; wrk2 prints no p95 in its table)"
}
if [ "$ONLY" = 4 ]; then throughput; exit 0; fi

# 5: HTTP/2 against an h2c nginx: latlab load --http2 flat out vs h2load -t1, then the lag at H2RATE.
http2() {
    command -v h2load >/dev/null || { echo; echo "5. HTTP/2: skipped (needs h2load: nghttp2-client)"; return; }
    "$L" load --http2 http://127.0.0.1:1/ --rate 1 --duration 1ms --quiet 2>&1 | grep -q "without HTTP/2" &&
        { echo; echo "5. HTTP/2: skipped (this latlab was built without nghttp2)"; return; }
    local h2port cpu
    h2port=$(free_port)
    nginx_conf "$tmp/nginx-h2" "$h2port" off
    sed -i "s|listen 127.0.0.1:$h2port;|listen 127.0.0.1:$h2port http2; http2_max_concurrent_streams 1024;|" \
        "$tmp/nginx-h2/nginx.conf"
    "${SRV[@]}" nginx -c "$tmp/nginx-h2/nginx.conf" -p "$tmp/nginx-h2" 2>"$tmp/nginx-h2.err" &
    pids+=("$!")
    wait_port "$h2port" || { echo "nginx (h2c) did not start" >&2; exit 1; }
    local url=http://127.0.0.1:$h2port/
    echo
    echo "5. HTTP/2 (h2c) per thread, $H2CONNS connections x $H2STREAMS streams: latlab load --http2 --rate $MAXRATE for $MAXDUR vs h2load -t1 -D ${DUR%s}"
    printf '%-4s %-7s %10s %10s %11s %7s\n' rep tool "req/s" requests "cpu us/req" ratio
    for i in $(seq "$REPS"); do
        cpu=$(cpu_of "$L" load --http2 "$url" "${LCPU[@]}" --rate "$MAXRATE" --duration "$MAXDUR" \
            --connections "$H2CONNS" --inflight "$H2STREAMS" --timeout 30s --quiet --json "$tmp/h2.json")
        local lrps
        lrps=$(j "$tmp/h2.json" "d['counts']['completed'] / (d['counts']['run_ns'] / 1e9)")
        python3 -c "import sys; print('%-4s %-7s %10.0f %10d %11.2f' % (sys.argv[1], 'latlab', float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]) / max(int(sys.argv[3]), 1) * 1e6))" \
            "$i" "$lrps" "$(j "$tmp/h2.json" "d['counts']['completed']")" "$cpu"
        cpu=$(cpu_of "${GEN[@]}" h2load -t1 -c"$H2CONNS" -m"$H2STREAMS" -D "${DUR%s}" "$url")
        python3 - "$tmp/cpu.out" "$i" "$cpu" "$lrps" <<'PY'
import re, sys
w = open(sys.argv[1]).read()
rps = float(re.search(r"finished in [\d.]+\w+, ([\d.]+) req/s", w).group(1))
n = int(re.search(r"requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded", w).group(1))
print("%-4s %-7s %10.0f %10d %11.2f %7.2f" % (sys.argv[2], "h2load", rps, n,
      float(sys.argv[3]) / max(n, 1) * 1e6, float(sys.argv[4]) / rps))
PY
    done
    "$L" load --http2 "$url" "${LCPU[@]}" --rate "$H2RATE" --duration "$DUR" --connections "$H2CONNS" \
        --inflight "$H2STREAMS" --quiet --json "$tmp/h2lag.json" >/dev/null
    python3 - "$tmp/h2lag.json" "$H2RATE" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); c = d["counts"]
print("latlab load --http2 at %s req/s: completed %d, failed %d, lag p50 %.1f us, p99 %.1f us (kept requests), "
      "latency p99 %.1f us, censored %.2f%%; %s" % (
      sys.argv[2], c["completed"], c["failed"], d["lag"]["p50_ns"] / 1e3,
      d["lag"]["p99_ns"] / 1e3, d["latency"]["p99_ns"] / 1e3, d["verdict"]["late_after_gap_share"] * 100,
      "valid" if d["verdict"]["valid"] else "invalid: " + d["verdict"]["reason"][:70]))
PY
}
if [ "$ONLY" = 5 ]; then http2; exit 0; fi
if [ "$ONLY" = 6 ]; then truth; exit 0; fi

echo
echo "1. schedule lag (us) against nginx, $CONNS connections, $DUR per rate, one sending thread"
hdr
for r in $RATES; do row nginx "$r" "127.0.0.1:$port"; done
row tls 20000 "https://127.0.0.1:$tport/" --insecure

echo
echo "2. highest rate with a valid verdict (stepped), beside wrk closed loop (1 thread, $CONNS connections), REPS ($REPS) times in turn"
summary=()
for i in $(seq "$REPS"); do
    best=0
    for r in 10000 20000 30000 40000 50000 60000 80000 100000 150000; do
        row nginx "$r" "127.0.0.1:$port" >"$tmp/row"
        cat "$tmp/row"
        # every rate is tried: a low one can be invalid for too few samples
        if [ "$valid" = True ]; then best=$r; fi
    done
    s0=$(cpu0)
    wcpu=$(cpu_of "${GEN[@]}" wrk -t1 -c"$CONNS" -d"${DUR%s}s" "http://127.0.0.1:$port/")
    wbusy=$(busy_of "$s0" "$(cpu0)")
    cp "$tmp/cpu.out" "$tmp/wrk.out"
    wrps=$(awk '/Requests\/sec/{print $2}' "$tmp/wrk.out")
    wreq=$(awk '/requests in/{print $1}' "$tmp/wrk.out")
    summary+=("rep $i: latlab load highest valid rate $best req/s; wrk $wrps req/s closed loop, the server's CPU busy $wbusy%; ratio $(python3 -c "print(round($best / $wrps, 2))")")
done
printf '%s\n' "${summary[@]}"
echo
echo "3. CPU per request: wrk $(python3 -c "print(round($wcpu / max($wreq, 1) * 1e6, 2))") us (its run: $wreq requests); latlab load: the cpu us/req column above (its sending thread spins between sends, so the figure falls as the rate rises)"

throughput
http2
truth

if command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null; then
    rport=$(free_port)
    "${SRV[@]}" redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly no >"$tmp/redis.log" 2>&1 &
    pids+=("$!")
    wait_port "$rport"
    echo
    echo "redis-server: latlab load (GET {key}, 100 keys) and redis-benchmark (GET, $CONNS clients, no pipelining)"
    hdr
    for r in $RATES; do row redis "$r" "127.0.0.1:$rport" --protocol redis --redis-cmd 'GET {key}' --key-space 100; done
    bcpu=$(cpu_of "${GEN[@]}" redis-benchmark -p "$rport" -t get -n 200000 -c "$CONNS" -q)
    tr '\r' '\n' <"$tmp/cpu.out" | grep -a 'GET:' | tail -1
    echo "redis-benchmark CPU per request: $(python3 -c "print(round($bcpu / 200000 * 1e6, 2))") us"
fi
