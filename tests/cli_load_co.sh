#!/usr/bin/env bash
# cli_load_co.sh - coordinated omission against a real peer: the project's
# test server (tests/support/loadpeer.py) stalls 100 ms every second.  At a
# constant rate 10% of the requests are delayed, uniformly over 0-100 ms, so
# the analytic p99 is 90 ms and p95 50 ms: `latlab load` must report both
# within 10%, from measured requests only, with constant and with Poisson
# arrivals.  wrk (closed loop) runs against the same server in the same test
# and its figures are printed beside (not asserted: it is the peer shown).
set -u
LATLAB=${LATLAB:?path of the latlab tool}
SRC=${LAT_SRC_DIR:?source dir}
PY=$(command -v /usr/bin/python3 || command -v python3) || { echo "SKIPPED: python3 is not installed"; exit 77; }
# shellcheck source=support/servers.sh
. "$SRC/tests/support/servers.sh"

"$PY" "$SRC/tests/support/loadpeer.py" --stall 0.1 --every 1.0 >"$tmp/peer.out" 2>"$tmp/peer.log" &
pids+=("$!")
port=""
for _ in $(seq 200); do
    port=$(awk '/^listening/{print $2}' "$tmp/peer.out")
    [ -n "$port" ] && break
    sleep 0.05
done
[ -n "$port" ] || fail "peer did not start"

j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
within() { # name value-ns want-ms
    python3 -c "import sys; v=float(sys.argv[1])/1e6; w=float(sys.argv[2]); sys.exit(0 if abs(v-w) <= 0.1*w else 1)" "$2" "$3" ||
        fail "$1 = $(python3 -c "print(round($2/1e6,2))") ms, not within 10% of $3 ms"
}
for arrivals in constant poisson; do
    "$LATLAB" load "http://127.0.0.1:$port/" --rate 1000 --duration 3s --arrivals "$arrivals" \
        --connections 128 --quiet --json "$tmp/$arrivals.json" >"$tmp/$arrivals.out" 2>"$tmp/$arrivals.err" ||
        fail "$arrivals run: exit $?"
    s=$(j "$tmp/$arrivals.json" "d['counts']['scheduled']")
    c=$(j "$tmp/$arrivals.json" "d['counts']['completed']")
    [ "$s" = "$c" ] || fail "$arrivals: completed $c of $s"
    p99=$(j "$tmp/$arrivals.json" "d['latency']['p99_ns']")
    p95=$(j "$tmp/$arrivals.json" "d['latency']['p95_ns']")
    echo "latlab load ($arrivals, open loop): p95 $((p95 / 1000)) us, p99 $((p99 / 1000)) us over $c requests (analytic: 50 ms, 90 ms)"
    within "$arrivals p99" "$p99" 90
    within "$arrivals p95" "$p95" 50
done
if command -v wrk >/dev/null; then
    wrk -t1 -c16 -d3s --latency "http://127.0.0.1:$port/" >"$tmp/wrk.out" 2>&1 || fail "wrk failed"
    echo "wrk (closed loop, same server):"
    sed -n '/Latency Distribution/,/99%/p' "$tmp/wrk.out"
    grep 'Requests/sec' "$tmp/wrk.out"
else
    echo "note: wrk is not installed (scripts/deps.sh test): no closed-loop figures beside"
fi
echo "PASS"
