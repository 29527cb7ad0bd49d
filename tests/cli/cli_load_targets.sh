#!/usr/bin/env bash
# cli_load_targets.sh - `latlab load --targets FILE` against the project's
# HTTP peer (tests/support/loadpeer.py, always stopped), which answers 404
# on /missing: a file of two targets (items weight 3, missing weight 1)
# sends them 3:1 exactly (round robin); the per-target counts add up to the
# run's, the error replies are missing's alone; the table names each target
# and the worst tail; the JSON has a targets array; the .hlog has a
# latency.NAME tag per target; a request shorter than the default one goes
# out whole.  Two shards of a random pick send, between
# them, each target exactly as often as one generator does.  Misuse and a
# bad file exit 2 naming the flag (and the file's line) before any work.
set -u
LATLAB=${LATLAB:?path of the latlab tool}
SRC=${LAT_SRC_DIR:?source dir}
PY=$(command -v /usr/bin/python3 || command -v python3) || { echo "SKIPPED: python3 is not installed"; exit 77; }
# shellcheck source=support/servers.sh
. "$SRC/tests/support/servers.sh"

"$PY" "$SRC/tests/support/loadpeer.py" --status /missing=404 --count-file "$tmp/count" \
    >"$tmp/peer.out" 2>"$tmp/peer.log" &
pids+=($!)
port=$(listening_port "$tmp/peer.out") || fail "peer did not start"
T="http://127.0.0.1:$port"

cat >"$tmp/t.txt" <<EOT
# two endpoints of one service
GET $T/items name=items weight=3
Accept: text/plain

POST /missing name=missing
Content-Type: application/json
@body.json
EOT
printf '{"a":1}' >"$tmp/body.json"

# ---- misuse, bad files: exit 2 before any work ---------------------------------------------
load_usage "--targets: http only" "$T" --rate 10 --targets "$tmp/t.txt" --method POST
load_usage "--targets: http only" "$T/x" --rate 10 --targets "$tmp/t.txt"
load_usage "--targets: http only" "127.0.0.1:$port" --protocol redis --rate 10 --targets "$tmp/t.txt"
load_usage "--targets-pick: needs --targets" "$T" --rate 10 --targets-pick random
load_usage "--targets-pick" "$T" --rate 10 --targets "$tmp/t.txt" --targets-pick sometimes
load_usage "--targets: $tmp/none.txt: No such file" "$T" --rate 10 --targets "$tmp/none.txt"
printf 'GET /a\n\nGET http://127.0.0.1:1/b\n' >"$tmp/bad.txt"
load_usage "--targets: $tmp/bad.txt line 3: URL 'http://127.0.0.1:1/b': not on the run's origin" \
    "$T" --rate 10 --targets "$tmp/bad.txt"
printf 'GET /a\nAccept text\n' >"$tmp/bad.txt"
load_usage "--targets: $tmp/bad.txt line 2: not 'Header: value'" "$T" --rate 10 --targets "$tmp/bad.txt"
printf 'GET /a\n@nothere.json\n' >"$tmp/bad.txt"
load_usage "--targets: $tmp/bad.txt line 2: body file '$tmp/nothere.json'" "$T" --rate 10 \
    --targets "$tmp/bad.txt"

j() { # file python-expression-on-d
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

# ---- one run: 400 requests, 3:1 exactly; counts add up; error replies are missing's --------
"$LATLAB" load "$T" --targets "$tmp/t.txt" --rate 400 --duration 1s --seed 5 --connections 4 \
    --quiet --json "$tmp/r.json" --hlog "$tmp/r.hlog" >"$tmp/r.out" 2>"$tmp/r.err" ||
    fail "targets run: exit $?"
j "$tmp/r.json" '"ok" if d["counts"]["scheduled"] == 400 and d["counts"]["completed"] == 400 else d["counts"]' |
    grep -qx ok || fail "targets run: not every request completed: $(cat "$tmp/r.out")"
python3 - "$tmp/r.json" <<'PY' || fail "targets run: per-target JSON: $(cat "$tmp/r.out")"
import json, sys
d = json.load(open(sys.argv[1]))
t = {x["name"]: x for x in d["targets"]}
assert list(t) == ["items", "missing"], list(t)
assert (t["items"]["sent"], t["missing"]["sent"]) == (300, 100), t
for k in ("sent", "completed", "error_replies"):
    assert sum(x[k] for x in t.values()) == d["counts"][k], k
assert sum(x["censored"] + x["latency"]["n"] for x in t.values()) == d["counts"]["completed"]
assert t["missing"]["error_replies"] == t["missing"]["completed"] == 100, t["missing"]
assert t["items"]["error_replies"] == 0 and t["items"]["failed"] == 0, t["items"]
assert (t["items"]["weight"], t["missing"]["method"], t["missing"]["path"]) == (3, "POST", "/missing")
assert sum(x["worst_tail"] for x in t.values()) <= 1
assert d["targets"][0]["latency"]["p50_ns"] > 0
PY
grep -q "^per target (round-robin pick" "$tmp/r.out" || fail "no per-target table: $(cat "$tmp/r.out")"
grep -Eq "^items +3 +300 +300 +0 +0 " "$tmp/r.out" || fail "items row: $(grep ^items "$tmp/r.out")"
grep -Eq "^missing +1 +100 +100 +0 +100 " "$tmp/r.out" || fail "missing row: $(grep ^missing "$tmp/r.out")"
grep -q "^worst tail: " "$tmp/r.out" || fail "no worst tail line"
for tag in latency.items latency.missing latency; do
    grep -q "^Tag=$tag," "$tmp/r.hlog" || fail "hlog: no $tag lines: $(cut -c1-40 "$tmp/r.hlog")"
done

# ---- /metrics: each target's latency as stage latency.NAME, its count the JSON's -------------
"$LATLAB" load "$T" --targets "$tmp/t.txt" --rate 400 --duration 1s --seed 5 --connections 4 \
    --quiet --metrics 127.0.0.1:0 --metrics-linger 4 --json "$tmp/m.json" >"$tmp/m.out" 2>"$tmp/m.err" &
mp=$!
pids+=($mp)
python3 - "$tmp/m.err" "$tmp/m.txt" <<'PY' || fail "no /metrics while lingering: $(cat "$tmp/m.err")"
import re, sys, time, urllib.request
for _ in range(200):
    m = re.search(r"serving (http://\S+/metrics)", open(sys.argv[1]).read())
    if m:
        break
    time.sleep(0.05)
time.sleep(2)  # the 1 s run is over: the final state, served while lingering
open(sys.argv[2], "w").write(urllib.request.urlopen(m.group(1), timeout=5).read().decode())
PY
wait "$mp" || fail "metrics run: exit $?"
python3 - "$tmp/m.json" "$tmp/m.txt" <<'PY' || fail "/metrics per target: $(grep _count "$tmp/m.txt")"
import json, re, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
for t in d["targets"]:
    m = re.search(r'_count\{[^}]*stage="latency\.%s"[^}]*\} (\d+)' % t["name"], text)
    assert m and int(m.group(1)) == t["latency"]["n"], (t["name"], m and m.group(1), t["latency"]["n"])
PY

# ---- requests shorter than TARGET's own (a 2-letter method): every byte sent, all answered ----
printf 'GO /\n' >"$tmp/short.txt"
"$LATLAB" load "$T" --targets "$tmp/short.txt" --rate 100 --duration 200ms --quiet \
    --json "$tmp/short.json" >/dev/null 2>&1 || fail "short request: exit $?"
[ "$(j "$tmp/short.json" 'd["targets"][0]["completed"]')" = 20 ] || fail "short request: not 20 answered"

# ---- shards: 2 of a random pick send each target as often as one generator -----------------
"$LATLAB" load "$T" --targets "$tmp/t.txt" --targets-pick random --rate 400 --duration 1s \
    --seed 9 --connections 4 --quiet --json "$tmp/one.json" >/dev/null 2>&1 || fail "random run: exit $?"
for i in 0 1; do
    "$LATLAB" load "$T" --targets "$tmp/t.txt" --targets-pick random --rate 400 --duration 1s \
        --seed 9 --shard "$i/2" --connections 2 --quiet --json "$tmp/s$i.json" >/dev/null 2>&1 ||
        fail "shard $i: exit $?"
done
python3 - "$tmp/one.json" "$tmp/s0.json" "$tmp/s1.json" <<'PY' || fail "shards: per-target sends differ"
import json, sys
one, s0, s1 = (json.load(open(f)) for f in sys.argv[1:])
want = [x["sent"] for x in one["targets"]]
got = [a["sent"] + b["sent"] for a, b in zip(s0["targets"], s1["targets"])]
assert sum(want) == 400 and got == want, (want, got)
assert want != [300, 100], want  # random, not round robin
PY
echo "ok: --targets per target (3:1 exact, errors where the 404s are), JSON, .hlog tags, shards"
