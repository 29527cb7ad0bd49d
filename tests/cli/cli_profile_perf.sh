#!/bin/bash
# cli_profile_perf.sh - `latlab profile` running perf for real: as root it
# profiles `sleep 0.2` and a CPU-bound child (samples, thread names, the event
# it chose and why), passes a failing command's status on, and names a
# command that cannot run; as nobody (setpriv) with perf_event_paranoid >= 2
# the error names perf_event_paranoid and the sysctl, and --user-only works.
set -u
fail() { echo "FAIL: $*"; exit 1; }
L=${LATLAB:?}
T=$(mktemp -d) && chmod 755 "$T" || fail "no temporary folder"
trap 'rm -rf "$T"' EXIT
command -v perf >/dev/null || { echo "SKIPPED: perf not installed (Debian package linux-perf)"; exit 77; }
par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo unknown)

if [ "$(id -u)" -ne 0 ]; then
    if [ "$par" != unknown ] && [ "$par" -ge 2 ]; then
        "$L" profile -o "$T/p" -- true >/dev/null 2>"$T/err"; rc=$?
        [ $rc -eq 1 ] && grep -q perf_event_paranoid "$T/err" || fail "not root: $rc $(cat "$T/err")"
    fi
    echo "SKIPPED: not root: recording needs root (perf_event_paranoid is $par); only the refusal was checked"
    exit 77
fi

"$L" profile -o "$T/sleep" -- sleep 0.2 >"$T/out" 2>"$T/err" || fail "profile sleep: $(cat "$T/err")"
for o in flame.svg folded.txt top.txt report.html perf.data; do
    [ -e "$T/sleep/$o" ] || fail "profile sleep: no $o"
done
grep -Eq "event (cycles|cpu-clock) at 999 Hz" "$T/err" || fail "the event is not said: $(cat "$T/err")"

# SIGTERM to latlab alone: passed on to perf record and the command, both
# waited for (none left running), outputs complete (perf script reads
# perf.data) and the exit is the signal's (143)
"$L" profile -o "$T/pk" -- sleep 30 >"$T/out" 2>"$T/err" &
lp=$!
perf_pid= sleep_pid=
for _ in $(seq 1 100); do
    perf_pid=$(pgrep -P $lp | head -1)
    [ -n "$perf_pid" ] && sleep_pid=$(pgrep -P "$perf_pid" -x sleep | head -1)
    [ -n "$sleep_pid" ] && break
    sleep 0.1
done
[ -n "$sleep_pid" ] || { kill -KILL $lp; fail "profile sleep 30: perf and sleep did not start"; }
sleep 0.5 # perf records a little
kill -TERM $lp
for _ in $(seq 1 150); do kill -0 $lp 2>/dev/null || break; sleep 0.1; done
kill -0 $lp 2>/dev/null && { kill -KILL $lp; fail "SIGTERM: latlab still running after 15 s"; }
wait $lp; rc=$?
left=$(ps -o pid= -p "$perf_pid,$sleep_pid" | tr -d ' ' | tr '\n' ' ')
[ -z "$left" ] || { kill -KILL $perf_pid $sleep_pid 2>/dev/null; fail "SIGTERM left running: $left"; }
[ $rc -eq 143 ] || fail "SIGTERM: exit $rc, want 143: $(cat "$T/err")"
grep -q "passed on to perf record and the command" "$T/err" || fail "SIGTERM not said: $(cat "$T/err")"
if [ -e "$T/pk/perf.data" ]; then
    perf script -i "$T/pk/perf.data" >/dev/null 2>&1 || fail "SIGTERM: perf.data is not whole"
fi
[ ! -e "$T/pk/flame.svg" ] || tail -c 100 "$T/pk/flame.svg" | grep -q '</svg>' || fail "SIGTERM: flame.svg is cut"
ls "$T/pk" | grep -q '\.tmp\.' && fail "SIGTERM left temporary files: $(ls "$T/pk")"

# a CPU-bound child: ~0.4 s of shell arithmetic gives a few hundred samples
"$L" profile -F 499 -o "$T/cpu" -- sh -c 'i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done' \
    >"$T/out" 2>"$T/err" || fail "profile cpu: $(cat "$T/err")"
python3 - "$T/cpu/folded.txt" <<'PY' || fail "cpu-bound profile: $(head -5 "$T/cpu/folded.txt")"
import sys
n = {}
for l in open(sys.argv[1]):
    s, c = l.rsplit(" ", 1)
    n[s.split(";")[0]] = n.get(s.split(";")[0], 0) + int(c)
total = sum(n.values())
assert total >= 20, n
assert n.get("sh", 0) >= 0.8 * total, n
print(f"cpu-bound: {total} samples, threads {n}")
PY
if command -v xmllint >/dev/null; then xmllint --noout "$T/cpu/flame.svg" || fail "flame.svg not XML"; fi
grep -q "samples of" "$T/out" || fail "no summary: $(cat "$T/out")"

# the command fails: its status, the profile still written
"$L" profile -o "$T/st" -- sh -c 'exit 3' >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 1 ] || fail "failing command: exit $rc"
grep -q "status 3" "$T/err" || fail "status not said: $(cat "$T/err")"
[ -s "$T/st/folded.txt" ] || [ -e "$T/st/folded.txt" ] || fail "no profile written for a failing command"
"$L" profile -o "$T/nx" -- /nonexistent/cmd >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && grep -q "cannot run the command" "$T/err" || fail "missing command: $rc $(cat "$T/err")"

# the profiling step on its own, small: both rounds profiled, the comparison printed and written
"$L" profile lab --events 20000 --rate 100000 -o "$T/lab" >"$T/out" 2>"$T/err" ||
    fail "profile lab: $(cat "$T/err") $(cat "$T/out")"
for want in "profiling: sampling profiles" "largest share difference" "work p50 in the same rounds" \
    "profiling overhead"; do
    grep -qF "$want" "$T/out" || fail "profile lab: no '$want' in: $(cat "$T/out")"
done
for o in profile-baseline/flame.svg profile-share-line/flame.svg profile-share-line/folded.txt \
    profile-diff.txt PROFILES.md report.html; do
    [ -s "$T/lab/$o" ] || fail "profile lab: no $o"
done
grep -Eq '^(producer|worker);' "$T/lab/profile-baseline/folded.txt" ||
    fail "profile lab: threads not named: $(head -3 "$T/lab/profile-baseline/folded.txt")"

# as nobody
if ! command -v setpriv >/dev/null; then
    echo "SKIPPED: setpriv missing (util-linux): the unprivileged check did not run"
    exit 77
fi
if ! setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$L"; then
    echo "SKIPPED: nobody cannot execute $L: the unprivileged check did not run"
    exit 77
fi
mkdir -p "$T/nobody" && chmod 777 "$T/nobody"
if [ "$par" -ge 2 ]; then
    setpriv --reuid=nobody --regid=nogroup --clear-groups "$L" profile -o "$T/nobody/p" -- true \
        >/dev/null 2>"$T/err"; rc=$?
    [ $rc -eq 1 ] || fail "nobody: exit $rc: $(cat "$T/err")"
    grep -q "perf_event_paranoid is $par" "$T/err" && grep -q "sysctl kernel.perf_event_paranoid" "$T/err" ||
        fail "nobody: the error does not name perf_event_paranoid: $(cat "$T/err")"
    # the lab says why the profiling step did not run, and goes on
    setpriv --reuid=nobody --regid=nogroup --clear-groups "$L" lab --quick --out "$T/nobody/lab" \
        >"$T/out" 2>"$T/err" || fail "nobody: lab --quick failed: $(tail -3 "$T/err")"
    grep -A2 '^profiling:' "$T/out" | grep -q "not run: .*perf_event_paranoid is $par" ||
        fail "nobody: the lab does not say why the profiling step did not run: $(grep -A3 '^profiling:' "$T/out")"
    grep -q "perf_event_paranoid" "$T/nobody/lab/LAB.md" || fail "nobody: LAB.md says nothing of the profiling step"
    if [ "$par" -eq 2 ]; then
        setpriv --reuid=nobody --regid=nogroup --clear-groups "$L" profile --user-only \
            -o "$T/nobody/u" -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' \
            >/dev/null 2>"$T/err" || fail "nobody --user-only: $(cat "$T/err")"
        grep -q ':u at' "$T/err" || fail "user-only event not said: $(cat "$T/err")"
        ! grep -q '_\[k\]' "$T/nobody/u/folded.txt" || fail "user-only profile has kernel frames"
    fi
else
    echo "SKIPPED: perf_event_paranoid is $par (< 2): an unprivileged user may profile; refusal not checked"
    exit 77
fi
echo "cli_profile_perf: ok"
