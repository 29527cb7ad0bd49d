#!/usr/bin/env bash
# cli_co_busy.sh - `latlab co` carries the platform account `pipeline` does
# (gaps, requests slowed, run-queue wait, switches per loop; in --json) and,
# on a known-busy host (`latlab noise` taking 30% of every CPU, root only),
# warns that its p99.9 is the host's.
set -u
L=${LATLAB:?path of the latlab tool}
T=$(mktemp -d)
noise=
cleanup() {
    [ -n "$noise" ] && kill "$noise" 2>/dev/null && wait "$noise" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$L" co --quick --json "$T/q.json" >"$T/out" 2>"$T/err" || fail "co exited $?: $(cat "$T/err")"
[ "$(grep -c '^ *platform: lost .* gaps >= 10 us (.* requests slowed)' "$T/out")" -eq 2 ] ||
    fail "no platform line per loop: $(cat "$T/out")"
python3 - "$T/q.json" <<'PY' || fail "json platform account"
import json, sys
p = json.load(open(sys.argv[1]))["platform"]
for loop in ("closed", "open"):
    for k in ("gaps", "requests_slowed", "lost_ns", "loop_ns", "busy_host"):
        assert k in p[loop], (loop, k)
PY

if [ "$(id -u)" != 0 ]; then
    echo "SKIPPED (part): the busy-host run needs root (latlab noise uses SCHED_FIFO)"
    exit 0
fi
cpus="0-$(($(nproc) - 1))"
"$L" noise --cpus "$cpus" --share 30% --burst 5ms --duration 20s >/dev/null 2>"$T/noise.err" &
noise=$!
sleep 0.3
kill -0 "$noise" 2>/dev/null || { echo "SKIPPED (part): latlab noise did not start: $(cat "$T/noise.err")"; noise=; exit 0; }
"$L" co closed --events 10000 --stall 10ms --stall-at 100 --json "$T/b.json" >"$T/out" 2>"$T/err" ||
    fail "co under noise exited $?: $(cat "$T/err")"
grep -q "warning: busy host during the closed loop: .* is the host's, not the lesson's" "$T/err" ||
    fail "no busy-host warning under 30% injected noise: $(cat "$T/err" "$T/out")"
grep -q '"busy_host": true' "$T/b.json" || fail "json does not say busy_host"
echo "cli_co_busy: ok"
