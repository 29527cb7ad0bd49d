#!/usr/bin/env bash
# cli_load_co.sh - coordinated omission against a real peer: the project's
# test server (tests/peers/stallpeer.c) stalls 100 ms every second.  At a
# constant rate 10% of the requests are delayed, uniformly over 0-100 ms, so
# the analytic p99 is 90 ms and p95 50 ms: `latlab load` must report both
# within 10%, from measured requests only, with constant and with Poisson
# arrivals.  wrk (closed loop) runs against the same server in the same test
# and its figures are printed beside (not asserted: it is the peer shown).
set -u
LATLAB=${LATLAB:?path of the latlab tool}
SRC=${LAT_SRC_DIR:?source dir}
BUILD=${LAT_BUILD_DIR:?build dir}
PEER=$BUILD/tests/lat_stallpeer
[ -x "$PEER" ] || { echo "FAIL: $PEER is not built"; exit 1; }
# shellcheck source=support/servers.sh
. "$SRC/tests/support/servers.sh"

"$PEER" 100 1000 >"$tmp/peer.out" 2>"$tmp/peer.log" &
pids+=("$!")
port=""
port=$(listening_port "$tmp/peer.out") || fail "peer did not start"

j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
bad=""
within() { # name value-ns want-ms: collects what is off in $bad
    python3 -c "import sys; v=float(sys.argv[1])/1e6; w=float(sys.argv[2]); sys.exit(0 if abs(v-w) <= 0.1*w else 1)" "$2" "$3" ||
        bad="$bad; $1 = $(python3 -c "print(round($2/1e6,2))") ms, not within 10% of $3 ms"
}
asserted=0
# Poisson arrivals need more requests for the same precision: the number that
# falls in the stalls varies (sd ~4 ms on the p95 at 3,000 requests; ~1.8 ms at 12,000).
# Both at 1,000/s: after each stall the server drains the requests that queued
# in it, and that drain (the rate over the server's own rate) adds to the wait
# the analytic figures leave out; at 3,000/s it moved the p95 ~5 ms (55.6).
for run in "constant 1000 3s" "poisson 1000 12s"; do
    read -r arrivals rate dur <<<"$run"
    "$LATLAB" load "http://127.0.0.1:$port/" --rate "$rate" --duration "$dur" --arrivals "$arrivals" \
        --connections 256 --quiet --json "$tmp/$arrivals.json" >"$tmp/$arrivals.out" 2>"$tmp/$arrivals.err" ||
        fail "$arrivals run: exit $?"
    s=$(j "$tmp/$arrivals.json" "d['counts']['scheduled']")
    c=$(j "$tmp/$arrivals.json" "d['counts']['completed']")
    [ "$s" = "$c" ] || fail "$arrivals: completed $c of $s"
    p99=$(j "$tmp/$arrivals.json" "d['latency']['p99_ns']")
    p95=$(j "$tmp/$arrivals.json" "d['latency']['p95_ns']")
    # The freezes as the server made them (S ms each, on a busy host a little
    # over 100): a share S/1000 of the requests waits uniformly 0..S, so the
    # p99 is S - 10 ms and the p95 S - 50 ms (90 and 50 for S = 100).
    S=$(awk '/^stall/{s += $2; n++} END {printf "%.3f", n ? s / n : 0}' "$tmp/peer.out")
    want99=$(python3 -c "print($S - 10)")
    want95=$(python3 -c "print($S - 50)")
    echo "latlab load ($arrivals, open loop): p95 $((p95 / 1000)) us, p99 $((p99 / 1000)) us over $c requests (analytic: 50 ms, 90 ms; with the server's mean stall of $S ms: $want95 ms, $want99 ms)"
    within "$arrivals p99" "$p99" "$want99"
    within "$arrivals p95" "$p95" "$want95"
    within "$arrivals p99 (nominal)" "$p99" 90
    # A sending thread the host kept off its CPU stamps completions late: the
    # run's own verdict says how much it lost.  Off figures then are the
    # host's, not a finding (SKIPPED with the reason); on a host that let it
    # run they fail the test.
    loss=$(j "$tmp/$arrivals.json" "round(d['verdict']['platform_loss'] * 100, 1)")
    if [ -n "$bad" ] && [ -n "${LAT_SANITIZE:-}" ]; then
        # instrumented server and sender drain each stall's backlog several times
        # slower: the analytic figures assume that drain is negligible
        echo "SKIPPED ($arrivals): ${bad#; }: a $LAT_SANITIZE build drains the backlog too slowly for the analytic figures"
        bad=""
        continue
    fi
    if [ -n "$bad" ]; then
        python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 5 else 1)" "$loss" ||
            fail "${bad#; } (the sending thread lost only $loss% to the platform)"
        echo "SKIPPED ($arrivals): ${bad#; }: the host took $loss% of the sending thread (>= 5%)"
        bad=""
    else
        asserted=$((asserted + 1))
    fi
done
# Too few connections for the stalls: 8 at 1,000/s, so in each 100 ms freeze
# 8 requests go out and ~90 more wait for a connection.  The generator is idle
# meanwhile: that delay is the wait on the service (the table's wait column),
# not the generator's lag, and the verdict names the wait, never the lag.
"$LATLAB" load "http://127.0.0.1:$port/" --rate 1000 --duration 2s --connections 8 --quiet \
    --json "$tmp/few.json" >"$tmp/few.out" 2>"$tmp/few.err" || fail "few connections: exit $?"
read -r wait99 lag99 lat99 loss < <(j "$tmp/few.json" \
    "d['wait']['p99_ns'], d['lag']['p99_ns'], d['latency']['p99_ns'], d['verdict']['platform_loss'] * 100")
echo "8 connections: latency p99 $((lat99 / 1000)) us = wait $((wait99 / 1000)) us + lag $((lag99 / 1000)) us + service; the sending thread lost $loss%"
grep -q '^verdict.*invalid: .*p99[ :].*waited for a connection' "$tmp/few.out" ||
    fail "8 connections: the verdict does not name the wait: $(tail -1 "$tmp/few.out")"
[ "$wait99" -ge 50000000 ] || fail "8 connections: wait p99 $wait99 ns, want >= 50 ms (the stalls)"
if grep -q '^verdict.*schedule lag' "$tmp/few.out" || [ "$lag99" -ge $((lat99 / 10)) ]; then
    python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 5 else 1)" "$loss" ||
        fail "8 connections: the stalls were read as the generator's lag (p99 $lag99 ns): $(tail -1 "$tmp/few.out")"
    echo "SKIPPED (8 connections): lag p99 $lag99 ns: the host took $loss% of the sending thread (>= 5%)"
fi

if command -v wrk >/dev/null; then
    wrk -t1 -c16 -d3s --latency "http://127.0.0.1:$port/" >"$tmp/wrk.out" 2>&1 || fail "wrk failed"
    echo "wrk (closed loop, same server):"
    sed -n '/Latency Distribution/,/99%/p' "$tmp/wrk.out"
    grep 'Requests/sec' "$tmp/wrk.out"
else
    echo "note: wrk is not installed (scripts/deps.sh test): no closed-loop figures beside"
fi
[ $asserted -gt 0 ] || { echo "SKIPPED: the host kept the sending thread off its CPU in every run"; exit 77; }
echo "PASS"
