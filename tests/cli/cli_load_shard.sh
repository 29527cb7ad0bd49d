#!/usr/bin/env bash
# cli_load_shard.sh - `latlab load --shard I/N --start-at TIME` with a step
# schedule (--rate FROM:TO:STEP/HOLD) against the project's echo peer
# (tests/support/loadpeer.py, always stopped): four shard processes started
# together send, between them, exactly the one schedule (1000/s for 0.5 s,
# then 2000/s for 0.5 s: 1500 requests, 500 and 1000 per step); each
# prints its start skew and carries its shard id in its .hlog and JSON;
# `latlab hist merge` of the four logs holds the sum of their counts.  Misuse
# of the new flags exits 2 naming the flag.  No absolute time is asserted.
set -u
LATLAB=${LATLAB:?path of the latlab tool}
SRC=${LAT_SRC_DIR:?source dir}
PY=$(command -v /usr/bin/python3 || command -v python3) || { echo "SKIPPED: python3 is not installed"; exit 77; }
# shellcheck source=support/servers.sh
. "$SRC/tests/support/servers.sh"

load_usage --duration 127.0.0.1:9 --rate 1000:2000:1000/1s --duration 5s
load_usage --rate 127.0.0.1:9 --rate 1000:2000:0/1s
load_usage --rate 127.0.0.1:9 --rate ramp:1000:2000
load_usage --rate 127.0.0.1:9 --rate 1:1000:1/1s
load_usage --shard 127.0.0.1:9 --rate 100 --seed 1 --shard 4/4
load_usage --shard 127.0.0.1:9 --rate 100 --shard 0/2
load_usage --start-at 127.0.0.1:9 --rate 100 --start-at 1000000000
load_usage --start-at 127.0.0.1:9 --rate 100 --start-at tomorrow

"$PY" "$SRC/tests/support/loadpeer.py" --mode echo --count-file "$tmp/count" >"$tmp/peer.out" 2>"$tmp/peer.log" &
pids+=($!)
port=$(listening_port "$tmp/peer.out") || fail "peer did not start"

N=4
start=$("$PY" -c 'import time; print("%.3f" % (time.time() + 1.5))')
spids=()
for i in $(seq 0 $((N - 1))); do
    "$LATLAB" load "127.0.0.1:$port" --protocol echo --rate 1000:2000:1000/500ms --seed 42 \
        --shard "$i/$N" --start-at "$start" --connections 2 --quiet \
        --hlog "$tmp/s$i.hlog" --json "$tmp/s$i.json" >"$tmp/s$i.out" 2>"$tmp/s$i.err" &
    spids+=($!)
done
for i in $(seq 0 $((N - 1))); do
    wait "${spids[$i]}" || fail "shard $i exit $?"
done

for i in $(seq 0 $((N - 1))); do
    grep -q "^start skew: the first send" "$tmp/s$i.out" || fail "shard $i: no start skew"
    grep -q "^shard $i/$N " "$tmp/s$i.out" || fail "shard $i: no shard line"
    grep -q "^#\[latlab load shard $i/$N seed 42\]" "$tmp/s$i.hlog" || fail "shard $i: no id in .hlog"
done
"$LATLAB" hist merge "$tmp"/s[0-3].hlog -o "$tmp/m.hlog" || fail "hist merge exit $?"
"$LATLAB" hist summary "$tmp/m.hlog" --json "$tmp/m.json" >/dev/null || fail "hist summary exit $?"
# One python for every figure (the machine is slow to start many).
out=$("$PY" - "$tmp" "$N" <<'PY'
import json, sys
tmp, n = sys.argv[1], int(sys.argv[2])
s = [json.load(open("%s/s%d.json" % (tmp, i))) for i in range(n)]
m = {t["tag"]: t["count"] for t in json.load(open(tmp + "/m.json"))["summary"]}
def tot(f): return sum(f(d) for d in s)
bad = []
for i, d in enumerate(s):
    if d["config"]["shard_index"] != i or d["config"]["shards"] != n: bad.append("shard %d: id in JSON" % i)
    if len(d["steps"]) != 2: bad.append("shard %d: %d steps, want 2" % (i, len(d["steps"])))
    if d["start_skew_ns"] is None: bad.append("shard %d: no skew in JSON" % i)
    # a constant schedule: arrival k to shard k mod N, so each has exactly its share
    if d["counts"]["scheduled"] != 375: bad.append("shard %d: %d scheduled, want 375" % (i, d["counts"]["scheduled"]))
# the union is the schedule: 1500 in all, 500 and 1000 by step, each sent once
if tot(lambda d: d["counts"]["scheduled"]) != 1500: bad.append("scheduled %d != 1500" % tot(lambda d: d["counts"]["scheduled"]))
for k, want in ((0, 500), (1, 1000)):
    got = tot(lambda d: d["steps"][k]["scheduled"])
    if got != want: bad.append("step %d: %d scheduled, want %d" % (k, got, want))
done = tot(lambda d: d["counts"]["completed"] + d["counts"]["failed"])
if done != 1500: bad.append("completed + failed %d != 1500" % done)
# the merged log holds the shards' counts added
if m.get("latency") != tot(lambda d: d["latency"]["n"]): bad.append("merged latency %s != the shards' %d" % (m.get("latency"), tot(lambda d: d["latency"]["n"])))
if m.get("latency", 0) + m.get("censored", 0) != tot(lambda d: d["counts"]["completed"]): bad.append("merged latency + censored != the shards' completed")
print("; ".join(bad) if bad else "ok: %d shards, 1500 requests, merged %d kept + %d censored" % (n, m.get("latency", 0), m.get("censored", 0)))
PY
) || fail "checks did not run"
case $out in ok:*) echo "$out" ;; *) fail "$out" ;; esac
