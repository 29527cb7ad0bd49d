#!/usr/bin/env bash
# cli_load_findmax.sh - `latlab load --find-max --slo pNN=DUR` against servers
# whose capacity is known, on 127.0.0.1 (always stopped, by PID):
#   - a queue: one request served at a time, each for 4 ms of the server's
#     clock (replies at absolute times, so its own overheads do not lower the
#     capacity): 250 requests/s exactly.  Steps of 100/s and two bisections
#     must find a rate within [150, 250] (never above the capacity) and say
#     the next one failed because of the service; exit 0, with the JSON's
#     find_max and the SVG;
#   - the same queue under an objective no rate can hold (p50 <= 1 ms, the
#     service time being 4 ms): exit 4, the first rate named as failed, by
#     how much its p50 broke the objective;
#   - a service that answers every request 10 ms after it came, concurrently
#     (no capacity of its own) through 2 connections: they carry 200/s, so
#     the search stops below 200/s and names the connections.
# Misuse exits 2 naming the flag.  Holds are short; a busy machine can spoil
# a rate's run (the run or the generator named, not the service): the first
# case then says so and searches again, up to three times.  The test runs
# alone in the suite (tests/CMakeLists.txt): beside another load test's
# spinning threads most of a 2 s run at 250/s was censored.
set -u
LATLAB=${LATLAB:?path of the latlab tool}
SRC=${LAT_SRC_DIR:?source dir}
PY=$(command -v /usr/bin/python3 || command -v python3) || { echo "SKIPPED: python3 is not installed"; exit 77; }
# shellcheck source=support/servers.sh
. "$SRC/tests/support/servers.sh"

load_usage "--find-max: needs --slo" 127.0.0.1:9 --rate 100:200:50/1s --find-max
load_usage "only with --find-max" 127.0.0.1:9 --rate 100 --slo p99=5ms
load_usage "only with --find-max" 127.0.0.1:9 --rate 100 --svg "$tmp/x.svg"
load_usage "'p100=5ms' is not pNN=DURATION" 127.0.0.1:9 --rate 100 --find-max --slo p100=5ms
load_usage "'5' is not a duration" 127.0.0.1:9 --rate 100 --find-max --slo p99=5
load_usage "p99 has two objectives" 127.0.0.1:9 --rate 100 --find-max --slo p99=5ms,p99=6ms
load_usage "steps going up" 127.0.0.1:9 --rate 400:100:100/1s --find-max --slo p99=5ms
load_usage "steps going up" 127.0.0.1:9 --rate ramp:100:400/2s --find-max --slo p99=5ms
load_usage "--find-max: not with" 127.0.0.1:9 --rate 100 --find-max --slo p99=5ms --hlog "$tmp/x.hlog"
load_usage "--bisect" 127.0.0.1:9 --rate 100 --find-max --slo p99=5ms --bisect 17

# The server: MODE queue (one at a time, SERVICE_MS each) or delay (each
# answered SERVICE_MS after it came, whatever else is in flight).
cat >"$tmp/srv.py" <<'PY'
import collections, selectors, socket, sys, time
mode, service = sys.argv[1], float(sys.argv[2]) / 1e3
OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
sel = selectors.DefaultSelector()
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", 0))
ls.listen(256)
ls.setblocking(False)
sel.register(ls, selectors.EVENT_READ)
print("listening", ls.getsockname()[1], flush=True)
due = collections.deque()  # (time, connection), in time order either way
free = 0.0  # queue: when the server is next free
bufs = {}
while True:
    now = time.monotonic()
    while due and due[0][0] <= now:
        c = due.popleft()[1]
        try:
            c.sendall(OK)
        except OSError:
            pass
    timeout = max(0.0, due[0][0] - now) if due else None
    for key, _ in sel.select(timeout):
        s = key.fileobj
        if s is ls:
            c, _ = ls.accept()
            c.setblocking(False)
            c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sel.register(c, selectors.EVENT_READ)
            bufs[c] = b""
            continue
        try:
            d = s.recv(65536)
        except OSError:
            d = b""
        if not d:
            sel.unregister(s)
            bufs.pop(s, None)
            s.close()
            continue
        b = bufs[s] + d
        t = time.monotonic()
        while b"\r\n\r\n" in b:
            _, b = b.split(b"\r\n\r\n", 1)
            if mode == "queue":
                free = max(free, t) + service
                due.append((free, s))
            else:
                due.append((t + service, s))
        bufs[s] = b
PY

start_srv() { # mode service_ms: sets port
    "$PY" "$tmp/srv.py" "$1" "$2" >"$tmp/srv$1.out" 2>"$tmp/srv$1.log" &
    pids+=($!)
    port=$(listening_port "$tmp/srv$1.out") || fail "server $1 did not start"
}

# ---- a queue of 250 requests/s -----------------------------------------------------------
start_srv queue 4
# A rate failed by the run alone (too few samples left once the platform's gaps
# were censored) or by the generator says nothing of the service: the search is
# run again, up to three times, when its answer names only them.
for try in 1 2 3; do
    "$LATLAB" load "127.0.0.1:$port" --rate 100:500:100/2s --find-max --slo p95=40ms --bisect 2 \
        --json "$tmp/q.json" --svg "$tmp/q.svg" --quiet >"$tmp/q.out" 2>"$tmp/q.err"
    rc=$?
    grep -Eq '^next rate [0-9]+ req/s failed: the (run|generator):' "$tmp/q.out" || break
    echo "queue, search $try: the platform spoiled the failing rate's run, searching again:"
    grep '^next rate' "$tmp/q.out"
    sleep 1 # the queue's backlog from the last rate run drains
done
[ $rc = 0 ] || fail "queue: exit $rc (want 0): $(tail -3 "$tmp/q.out")"
grep -Eq '^highest rate holding p95 <= 40.0 ms: [0-9]+ req/s \(p95 [0-9.]+ [mu]s \[' "$tmp/q.out" ||
    fail "queue: no answer line: $(cat "$tmp/q.out")"
grep -Eq '^next rate [0-9]+ req/s failed: the service' "$tmp/q.out" ||
    fail "queue: the failure not the service's: $(cat "$tmp/q.out")"
grep -q '<svg' "$tmp/q.svg" && grep -q 'p95 &lt;= 40.0 ms' "$tmp/q.svg" &&
    grep -q 'offered rate (requests/s)' "$tmp/q.svg" ||
    fail "queue: no plot of latency by rate with the objective"
"$PY" - "$tmp/q.json" <<'PY' || fail "queue: JSON"
import json, sys
f = json.load(open(sys.argv[1]))["find_max"]
rates = [t["rate_hz"] for t in f["tries"]]
m, x = f["max_rate_hz"], f["next_failed"]
print("found %s req/s (capacity 250), next failed %s; tried %s" % (m, x and x["rate_hz"], rates))
assert m is not None and 150 <= m <= 250, ("max outside [150, 250]", m)
assert x is not None and x["rate_hz"] > m and not x["held"], x
# the steps up to the first failure, none above it; then only rates between the last held and it
k = [t["held"] for t in f["tries"]].index(False)
assert k >= 1 and rates[:k + 1] == [100.0 * (i + 1) for i in range(k + 1)], ("steps", rates)
assert all(rates[k - 1] < r < rates[k] for r in rates[k + 1:]), ("bisections", rates)
assert len(rates) <= k + 3, ("more than 2 bisections", rates)
assert f["slos"] == [{"percentile": 95.0, "limit_ns": 40000000}], f["slos"]
assert f["max"]["slos"][0]["latency_ns"] <= 40000000 and f["max"]["held"], f["max"]
PY

# ---- no rate holds: exit 4 --------------------------------------------------------------
"$LATLAB" load "127.0.0.1:$port" --rate 50:150:50/500ms --find-max --slo p50=1ms --quiet \
    >"$tmp/n.out" 2>"$tmp/n.err"
rc=$?
[ $rc = 4 ] || fail "none held: exit $rc (want 4): $(cat "$tmp/n.out")"
grep -q '^no rate holding p50 <= 1.0 ms' "$tmp/n.out" || fail "none held: no such line: $(cat "$tmp/n.out")"
grep -Eq '^the first rate, 50 req/s failed: the service: p50 [0-9.]+ ms .*> 1.0 ms by [0-9.]+ ms' "$tmp/n.out" ||
    fail "none held: the first rate's failure: $(cat "$tmp/n.out")"
[ "$(grep -c ' req/s: ' "$tmp/n.out")" = 1 ] || fail "none held: a rate after the first failure was run"

# ---- 2 connections to a 10 ms service: they carry 200/s -------------------------------------
start_srv delay 10
"$LATLAB" load "127.0.0.1:$port" --rate 100:400:50/1s --find-max --slo p90=50ms --connections 2 \
    --quiet >"$tmp/c.out" 2>"$tmp/c.err"
rc=$?
[ $rc = 0 ] || fail "connections: exit $rc (want 0): $(cat "$tmp/c.out")"
m=$(sed -n 's/^highest rate holding .*: \([0-9]*\) req\/s .*/\1/p' "$tmp/c.out")
echo "connections: found $m req/s (2 connections x 10 ms carry 200/s)"
[ -n "$m" ] && [ "$m" -ge 100 ] && [ "$m" -lt 200 ] || fail "connections: max $m outside [100, 200)"
grep -Eq '^next rate [0-9]+ req/s failed: .*the connections' "$tmp/c.out" ||
    fail "connections: not named: $(cat "$tmp/c.out")"
echo PASS
