#!/bin/bash
# cli_stat.sh - `latlab stat`: counts a child, lists task-clock, passes exit
# codes through, explains unsupported events, rejects bad flags with exit 2.
set -u
L=${LATLAB:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# the report is on stderr (as perf stat's); stdout is the child's alone
"$L" stat -- echo child-output >"$T/out" 2>"$T/err" || fail "stat -- echo exited $?"
[ "$(cat "$T/out")" = child-output ] || fail "stdout is not the child's alone: $(cat "$T/out")"
grep -q 'task-clock' "$T/err" || fail "no task-clock in: $(cat "$T/err")"
grep -Eq '[0-9.]+ msec +task-clock' "$T/err" || fail "task-clock not counted: $(cat "$T/err")"
# -e twice adds; task-clock with a :k suffix and per-thread columns carry their unit
"$L" stat -e task-clock -e page-faults -e task-clock:k --per-thread -- true 2>"$T/err" >/dev/null ||
    fail "stat -e -e exited $?"
grep -Eq 'page-faults' "$T/err" && grep -Eq '[0-9.]+ msec +task-clock ' "$T/err" ||
    fail "a second -e replaced the first: $(cat "$T/err")"
grep -Eq '[0-9.]+ msec +task-clock:k' "$T/err" || fail "task-clock:k without msec: $(cat "$T/err")"
awk '/Per thread/ { t = 1; next } t && /^  [0-9]/ { if ($0 !~ /msec/) bad = 1 } END { exit bad }' "$T/err" ||
    fail "per-thread task-clock without a unit: $(cat "$T/err")"

"$L" stat -- sh -c 'exit 7' >/dev/null 2>&1; rc=$?
[ $rc -eq 7 ] || fail "exit 7 came back as $rc"
"$L" stat -- false >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] || fail "false came back as $rc"
"$L" stat -- sh -c 'kill -KILL $$' >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 137 ] || fail "SIGKILL came back as $rc"
grep -q 'signal 9' "$T/err" || fail "no signal warning: $(cat "$T/err")"
"$L" stat -- /nonexistent/cmd >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 127 ] || fail "missing command came back as $rc"
grep -q "cannot run '/nonexistent/cmd'" "$T/err" || fail "no message: $(cat "$T/err")"

# every event either has a number or a reason
"$L" stat -e task-clock,page-faults,cycles,instructions,context-switches --json "$T/s.json" -- \
    sh -c 'i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done' >"$T/out" 2>&1 || fail "stat -e exited $?"
for e in cycles instructions; do
    if grep -q "<not supported> *$e" "$T/out"; then
        grep -Eq "^  $e +(not supported|not permitted)" "$T/out" || fail "$e without a reason: $(cat "$T/out")"
    fi
done
python3 - "$T/s.json" <<'PY' || fail "json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["exit_status"] == 0
ev = {e["name"]: e for e in d["events"]}
assert ev["task-clock"]["state"] == "counted" and ev["task-clock"]["value"] > 0
assert ev["page-faults"]["value"] > 0
for e in d["events"]:
    if e["state"] == "unavailable":
        assert e["reason"] and e["value"] is None, e
    else:
        assert e["value"] is not None, e
PY

# usage errors name the flag
"$L" stat --bogus -- true >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && grep -q -- '--bogus' "$T/err" || fail "bad flag: rc $rc $(cat "$T/err")"
"$L" stat -e cyclez -- true >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && grep -q "cyclez" "$T/err" || fail "bad event: rc $rc $(cat "$T/err")"
"$L" stat -e >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] || fail "-e without value: rc $rc"
"$L" stat >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] || fail "no command: rc $rc"

# --per-thread: a table with the main thread
"$L" stat --per-thread -e task-clock -- sh -c 'true' >"$T/out" 2>&1 || fail "per-thread exited $?"
grep -q 'Per thread' "$T/out" || fail "no per-thread table: $(cat "$T/out")"
# "--json -- CMD": the '--' is not a file name (exit 2, nothing written)
(cd "$T" && "$L" stat --json -- true >/dev/null 2>"$T/err"); rc=$?
[ $rc -eq 2 ] && grep -q -- "--json: needs a value before '--'" "$T/err" || fail "--json --: $rc $(cat "$T/err")"
[ ! -e "$T/--" ] || fail "--json -- wrote a file named --"

# SIGTERM to latlab alone: passed on to CMD, waited for, its counts reported
# (JSON written whole), CMD's status (143) is ours; no child left running
"$L" stat --json "$T/t.json" -- sleep 30 >/dev/null 2>"$T/err" &
lp=$!
child=
for _ in $(seq 1 100); do child=$(pgrep -P $lp -x sleep); [ -n "$child" ] && break; sleep 0.05; done
[ -n "$child" ] || { kill -KILL $lp; fail "stat: sleep did not start"; }
kill -TERM $lp
for _ in $(seq 1 100); do kill -0 $lp 2>/dev/null || break; sleep 0.1; done
kill -0 $lp 2>/dev/null && { kill -KILL $lp $child; fail "SIGTERM: stat still running"; }
wait $lp; rc=$?
kill -0 "$child" 2>/dev/null && { kill -KILL "$child"; fail "SIGTERM left sleep running"; }
[ $rc -eq 143 ] || fail "SIGTERM: exit $rc, want 143"
grep -q "passed on to 'sleep'" "$T/err" || fail "SIGTERM not said: $(cat "$T/err")"
jq -e '.' "$T/t.json" >/dev/null 2>&1 || python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/t.json" ||
    fail "SIGTERM: the JSON is not whole"
echo "ok"
