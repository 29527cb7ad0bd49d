#!/usr/bin/env bash
# cli_ci.sh - every printed tail carries its confidence interval, and every
# table of ns its error budget: `latlab co` (lines and JSON, with the CO
# share), `latlab pipeline` (table, budget line, JSON lo/hi beside each
# percentile).  The intervals must bracket the figures they belong to.
set -u
L=${LATLAB:?path of the latlab tool}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null || { echo "SKIPPED: python3 not installed"; exit 77; }

# ---- co: each mode's line is followed by its intervals; the budget says how
# much the correction synthesised; JSON has p99.9_lo_ns/p99.9_hi_ns.
"$L" co --quick --json "$T/co.json" >"$T/co.out" 2>&1 || fail "co exited $?: $(cat "$T/co.out")"
[ "$(grep -Ec '^ +95% CI \(us\) p50 \[[0-9.]+, [0-9.]+\] p99 \[' "$T/co.out")" -eq 3 ] ||
    fail "co interval lines: $(cat "$T/co.out")"
grep -Eq '^error budget: timer clock_monotonic step [0-9.]+ ns; .*CO correction synthesised [0-9.]+% of samples' \
    "$T/co.out" || fail "co budget line: $(cat "$T/co.out")"
python3 - "$T/co.json" <<'PY' || fail "co json: $(cat "$T/co.json")"
import json, sys
d = json.load(open(sys.argv[1]))
for mode in ("closed", "open", "corrected"):
    m = d[mode]
    for p in ("p50", "p99", "p99.9"):
        assert m[p + "_lo_ns"] <= m[p + "_ns"] <= m[p + "_hi_ns"], (mode, p, m)
assert d["percentile_confidence"] == 0.95
b = d["error_budget"]
assert b["timer"] == "clock_monotonic" and b["granularity_ns"] > 0 and b["calibration_ppm"] is None
assert 0 < b["co_synthesised_share"] < 1, b
PY

# ---- pipeline: table lines end with their intervals; a budget line follows.
N=20000
"$L" pipeline --events $N --rate 100000 --oversubscribe --no-counters --json "$T/p.json" \
    >"$T/p.out" 2>&1 || fail "pipeline exited $?: $(cat "$T/p.out")"
grep -Eq '^e2e +p50= *[0-9]+ns p99= *[0-9]+ns p99.9= *[0-9]+ns max= *[0-9]+ns.*  95% CI p50 \[[0-9]+, [0-9]+\] p99 \[[0-9]+, [0-9]+\] p99.9 \[[0-9]+, [0-9]+\]' \
    "$T/p.out" || fail "pipeline table: $(cat "$T/p.out")"
grep -Eq '^error budget: timer tsc step [0-9.]+ ns; stamp [0-9.]+ ns x 2 per figure; calibration [0-9.]+ ppm; histogram resolution [0-9.]+% \(3 sig figs\)' \
    "$T/p.out" || fail "pipeline budget: $(cat "$T/p.out")"
python3 - "$T/p.json" <<'PY' || fail "pipeline json"
import json, sys
d = json.load(open(sys.argv[1]))
for name, s in d["stages_ns"].items():
    for p in ("p50", "p90", "p99", "p99.9", "p99.99"):
        assert s[p + "_lo"] <= s[p] <= s[p + "_hi"], (name, p, s)
    # 20,000 samples cannot bound p99.99 below the max: flagged with its N
    assert s["p99.99_needs_n"] > 20000, s
assert d["error_budget"]["timer"] == "tsc" and d["error_budget"]["stamps_per_figure"] == 2
PY
echo "cli_ci: ok"
