#!/bin/bash
# cli_silence.sh - `latlab silence`: usage errors (exit 2, naming the flag),
# non-root refusal (exit 1 with a message), and as root: traces a pinned
# spinner, reports events on its CPU, leaves no tracefs instance behind, also
# when stopped by SIGTERM.
set -u
L=${LATLAB:?}
T=$(mktemp -d)
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$L" silence --seconds 1 >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && grep -q -- '--cpus' "$T/err" || fail "missing --cpus: rc $rc $(cat "$T/err")"
"$L" silence --cpus x >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && grep -q -- '--cpus' "$T/err" || fail "bad --cpus: rc $rc $(cat "$T/err")"
"$L" silence --cpus 0 --seconds -1 >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && grep -q -- '--seconds' "$T/err" || fail "bad --seconds: rc $rc $(cat "$T/err")"
"$L" silence --cpus 0 --frobnicate >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && grep -q -- '--frobnicate' "$T/err" || fail "unknown flag: rc $rc $(cat "$T/err")"
"$L" silence --cpus 4096 >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] || fail "absent CPU: rc $rc"

if [ "$(id -u)" != 0 ]; then
    "$L" silence --cpus 0 --seconds 0.1 >/dev/null 2>"$T/err"; rc=$?
    [ $rc -eq 1 ] && grep -q 'needs root' "$T/err" || fail "non-root: rc $rc $(cat "$T/err")"
    echo "SKIPPED: not root: the tracing half needs root"
    exit 77
fi

# as nobody: exit 1 with the message
if command -v setpriv >/dev/null; then
    setpriv --reuid=65534 --regid=65534 --clear-groups "$L" silence --cpus 0 --seconds 0.1 \
        >/dev/null 2>"$T/err"; rc=$?
    [ $rc -eq 1 ] && grep -q 'needs root' "$T/err" || fail "as nobody: rc $rc $(cat "$T/err")"
fi

CPUS=$(nproc)
CPU=$((CPUS - 1))
instances() { ls /sys/kernel/tracing/instances 2>/dev/null | grep -c '^latlab-silence-' ; }

# a pinned spinner on CPU $CPU while we trace it
"$L" silence --cpus $CPU --json "$T/s.json" -- taskset -c $CPU \
    sh -c 'timeout 0.5 sh -c "while :; do :; done"; exit 0' >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && grep -q 'no tracefs' "$T/err"; then
    echo "SKIPPED: no tracefs here: $(cat "$T/err")"
    exit 77
fi
[ $rc -eq 0 ] || fail "silence exited $rc: $(cat "$T/err")"
grep -Eq "^ +$CPU +[0-9]+" "$T/out" || fail "no row for CPU $CPU: $(cat "$T/out")"
python3 - "$T/s.json" "$CPU" <<'PY' || fail "json: $(cat "$T/out")"
import json, sys
d = json.load(open(sys.argv[1])); cpu = int(sys.argv[2])
row = [c for c in d["cpus"] if c["cpu"] == cpu][0]
# a 0.5 s spinner on a non-isolated CPU sees at least timer interrupts or switches
assert row["sched_switch"] + row["irq"] + row["vectors"] + row["softirq"] > 0, row
assert "overrun" in row
PY
[ "$(instances)" = 0 ] || fail "instance left behind: $(ls /sys/kernel/tracing/instances)"

# SIGTERM mid-trace: still cleaned up
"$L" silence --cpus $CPU --seconds 20 >"$T/out2" 2>&1 &
pid=$!
for i in $(seq 50); do
    [ "$(instances)" != 0 ] && break
    sleep 0.1
done
[ "$(instances)" != 0 ] || fail "no instance appeared while tracing"
kill -TERM $pid
wait $pid; rc=$?
[ $rc -eq 143 ] || fail "SIGTERM exit $rc: $(cat "$T/out2")"
[ "$(instances)" = 0 ] || fail "instance left after SIGTERM: $(ls /sys/kernel/tracing/instances)"

# with CMD, its failure is the exit status
"$L" silence --cpus $CPU --seconds 0.5 -- /nonexistent >/dev/null 2>&1; rc=$?
[ $rc -eq 127 ] || fail "silence -- /nonexistent exited $rc, want 127"
"$L" silence --cpus $CPU -- sh -c 'exit 3' >/dev/null 2>&1; rc=$?
[ $rc -eq 3 ] || fail "silence -- sh -c 'exit 3' exited $rc, want 3"

# a dead run's instance (tracing on) is reported and removed by --cleanup and by the next run
we_mounted=
if ! grep -q ' /sys/kernel/tracing tracefs ' /proc/mounts; then
    mount -t tracefs nodev /sys/kernel/tracing || fail "cannot mount tracefs"
    we_mounted=1
    trap 'umount /sys/kernel/tracing 2>/dev/null; rm -rf "$T"' EXIT
fi
sh -c 'exit 0' & dead=$!
wait $dead
stale=/sys/kernel/tracing/instances/latlab-silence-$dead
mkdir "$stale" && echo 1 >"$stale/tracing_on" || fail "cannot make a stale instance"
"$L" silence --cleanup >"$T/out" 2>"$T/err" || fail "--cleanup exited $?: $(cat "$T/err")"
grep -q "1 stale instance removed" "$T/out" || fail "--cleanup: $(cat "$T/out")"
grep -q "latlab-silence-$dead" "$T/err" || fail "--cleanup did not name the instance: $(cat "$T/err")"
[ -d "$stale" ] && fail "--cleanup left $stale"
mkdir "$stale" || fail "cannot make a stale instance"
"$L" silence --cpus $CPU --seconds 0.1 >/dev/null 2>"$T/err" || fail "run after a dead one: $(cat "$T/err")"
grep -q "removed the tracefs instance .*latlab-silence-$dead" "$T/err" || fail "the next run did not report the stale instance: $(cat "$T/err")"
[ -d "$stale" ] && fail "the next run left $stale"
# a tracefs mount latlab makes is undone
if [ -n "$we_mounted" ]; then
    umount /sys/kernel/tracing
    trap 'rm -rf "$T"' EXIT
    "$L" silence --cpus $CPU --seconds 0.1 >/dev/null 2>"$T/err" || fail "run with tracefs unmounted: $(cat "$T/err")"
    grep -q ' /sys/kernel/tracing tracefs ' /proc/mounts && fail "latlab left its tracefs mount"
fi
echo ok
