#!/usr/bin/env bash
# cli_top_follow.sh - `latlab top` follows interval logs by name, like tail -F:
# a log renamed over the followed one, and one rewritten in place, are read
# again from their start (said on stderr) instead of the old inode being read
# forever or a mid-line offset being parsed; a missing log is waited for; a
# running `latlab pipeline --hlog-dir` (which writes e2e.hlog.tmp.* and
# renames it at the end) is followed while it runs, every logged event counted once,
# and a second run into the same folder is followed too.
set -u
L=${LATLAB:?path of the latlab tool}
SRC=${LAT_SRC_DIR:?source dir}
T=$(mktemp -d)
tpid=
trap '[ -n "$tpid" ] && kill "$tpid" 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; [ -f "$T/err" ] && cat "$T/err"; exit 1; }
# wait_for N FILE PATTERN: until FILE has at least N lines matching PATTERN (10 s at most)
wait_for() {
    for _ in $(seq 1 100); do
        [ "$(grep -c -- "$3" "$2" 2>/dev/null)" -ge "$1" ] && return 0
        sleep 0.1
    done
    return 1
}

v1=$SRC/tests/fuzz/corpus/fuzz_hlog_read/latlab_tagged.hlog # 4 intervals: 3 untagged, 1 tagged B
sed 's/^#\[StartTime: 1700000000.000/#[StartTime: 1700000100.000/' "$v1" >"$T/v2"
cmp -s "$v1" "$T/v2" && fail "v2 is v1"

# ---- a rename over the followed file, then an in-place rewrite ----
cp "$v1" "$T/f.hlog"
"$L" top --plain "$T/f.hlog" >"$T/out" 2>"$T/err" &
tpid=$!
wait_for 4 "$T/out" 'count=' || fail "first read: $(cat "$T/out")"
cp "$T/v2" "$T/f.new" && mv "$T/f.new" "$T/f.hlog"
wait_for 8 "$T/out" 'count=' || fail "renamed-over log not followed: $(wc -l <"$T/out") lines"
grep -q "f.hlog was replaced: reading it from its start" "$T/err" || fail "replacement not said"
cat "$v1" >"$T/f.hlog" # truncated and written again, the same inode
wait_for 12 "$T/out" 'count=' || fail "rewritten log not followed: $(wc -l <"$T/out") lines"
grep -Eq "f.hlog was (truncated|rewritten in place): reading it from its start" "$T/err" ||
    fail "rewrite not said"
kill -0 "$tpid" 2>/dev/null || fail "top exited: $(cat "$T/err")"
kill "$tpid"; wait "$tpid" 2>/dev/null; tpid=

# ---- a pipeline's logs, followed while it runs; two runs into one folder ----
EV=20000
run() { "$L" pipeline --shape compact --events $EV --rate 20000 --hlog-dir "$T/d" --hlog-interval 100ms >/dev/null 2>"$T/perr" ||
    fail "pipeline: $(cat "$T/perr")"; }
mkdir "$T/d"
"$L" top --plain "$T/d/e2e.hlog" >"$T/out" 2>"$T/err" &
tpid=$!
wait_for 1 "$T/err" 'does not exist yet' || fail "a missing log is not waited for"
sum() { awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^count=/) s += substr($i, 7) } END { print s + 0 }' "$T/out"; }
# what the log holds (events dropped by a busy host are in neither)
logged() { "$L" hist summary "$T/d/e2e.hlog" | awk 'NR == 2 { print $2 }'; }
run
wait_for 1 "$T/err" 'following the run in progress that writes .*e2e.hlog.tmp.' || fail "the run in progress was not followed"
want=$(logged)
[ "$want" -gt 0 ] || fail "the first run logged nothing"
for _ in $(seq 1 30); do [ "$(sum)" -ge "$want" ] && break; sleep 0.1; done
[ "$(sum)" -eq "$want" ] || fail "first run: top counted $(sum) events, the log holds $want"
grep -q "was replaced" "$T/err" && fail "the temporary renamed over the log was read twice"
run
want=$((want + $(logged)))
for _ in $(seq 1 30); do [ "$(sum)" -ge "$want" ] && break; sleep 0.1; done
[ "$(sum)" -eq "$want" ] || fail "two runs: top counted $(sum) events, the logs hold $want"
kill -0 "$tpid" 2>/dev/null || fail "top exited: $(cat "$T/err")"
cat "$T/err"
echo "cli_top_follow: ok"
