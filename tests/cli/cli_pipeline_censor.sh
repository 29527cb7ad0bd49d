#!/usr/bin/env bash
# cli_pipeline_censor.sh - `latlab pipeline` prints, per stage, the kept share
# and the net figures beside the gross ones (lines under 100 characters), and
# its JSON carries the censoring: per stage kept + censored = judged, the net
# and censored histograms hold them, judged + not judged = recorded.  No
# timing is asserted: how much a busy host censors is its own business.
set -u
: "${LATLAB:?set LATLAB to the latlab binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

over=()
[ "$(nproc)" -ge 2 ] || over=(--oversubscribe)
"$LATLAB" pipeline --shape compact --events 20000 --rate 100000 "${over[@]}" \
    --json "$tmp/p.json" >"$tmp/out" 2>"$tmp/err" || fail "run exited $?: $(cat "$tmp/err")"

sed -n '/^censoring:/,$p' "$tmp/out" >"$tmp/cens"
[ -s "$tmp/cens" ] || fail "no censoring section: $(cat "$tmp/out")"
for s in q1+wake work e2e; do
    grep -q "^$s *kept .*% of samples, .*% of time" "$tmp/cens" || fail "no kept line for $s"
done
[ "$(grep -c '^  gross p50=' "$tmp/cens")" -eq 3 ] || fail "want 3 gross lines"
[ "$(grep -c '^  net   p50=.*weighted p99.9=' "$tmp/cens")" -eq 3 ] || fail "want 3 net lines"
long=$(awk 'length($0) >= 100' "$tmp/cens")
[ -z "$long" ] || fail "lines of 100 characters or more: $long"

python3 - "$tmp/p.json" <<'PY' || fail "censoring JSON: see above"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["censoring"]
assert c["judged"] + c["not_judged"] == d["counts"]["recorded"], c
for name in ("q1+wake", "work", "e2e"):
    s = c["stages"][name]
    out = s["censored_gap"] + s["censored_backlog"] + s["censored_unknown"]
    assert s["kept"] + out == c["judged"], (name, s)
    assert s["net_ns"]["count"] == s["kept"], (name, s)
    assert s["censored_ns"]["count"] == out, (name, s)
    assert 0 <= s["kept_share"] <= 1, s
    for k in ("p99", "p99.9", "p99.99"):
        assert isinstance(s["supports"][k], bool)
    assert set(s["net_weighted_ns"]) == {"p50", "p99", "p99.9"}
    assert "p99.9" in d["stages_ns"][name]  # the gross figures stay where they were
PY

[ $fails -eq 0 ] || exit 1
echo "ok"
