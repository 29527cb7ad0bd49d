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
command -v jq >/dev/null || { echo "SKIPPED: jq not installed (make test installs it)"; exit 77; }

# ---- co: each mode's line is followed by its intervals; the budget says how
# much the correction synthesised; JSON has p99.9_lo_ns/p99.9_hi_ns.
"$L" co --quick --json "$T/co.json" >"$T/co.out" 2>&1 || fail "co exited $?: $(cat "$T/co.out")"
[ "$(grep -Ec '^ +95% CI \(us\) p50 \[[0-9.]+, [0-9.]+\] p99 \[' "$T/co.out")" -eq 3 ] ||
    fail "co interval lines: $(cat "$T/co.out")"
grep -Eq '^error budget: timer clock_monotonic step [0-9.]+ ns; .*CO correction synthesised [0-9.]+% of samples' \
    "$T/co.out" || fail "co budget line: $(cat "$T/co.out")"
jq -e '[.closed, .open, .corrected][] as $m | ["p50", "p99", "p99.9"][] as $p
       | ($m[$p + "_lo_ns"] <= $m[$p + "_ns"] and $m[$p + "_ns"] <= $m[$p + "_hi_ns"])' \
    "$T/co.json" | grep -q false && fail "co json interval: $(cat "$T/co.json")"
jq -e '.percentile_confidence == 0.95 and .error_budget.timer == "clock_monotonic"
       and .error_budget.granularity_ns > 0 and .error_budget.calibration_ppm == null
       and .error_budget.co_synthesised_share > 0 and .error_budget.co_synthesised_share < 1' \
    "$T/co.json" >/dev/null || fail "co json budget: $(cat "$T/co.json")"

# ---- pipeline: table lines are followed by their intervals; a budget line follows.
N=20000
"$L" pipeline --events $N --rate 100000 --oversubscribe --no-counters --json "$T/p.json" \
    >"$T/p.out" 2>&1 || fail "pipeline exited $?: $(cat "$T/p.out")"
# (lines over 100 characters are wrapped: continuation lines start with 4 spaces)
sed -i -e ':a' -e 'N' -e '$!ba' -e 's/\n    / /g' "$T/p.out"
grep -A1 -E '^e2e +p50= *[0-9]+ns p99= *[0-9]+ns p99.9= *[0-9]+ns max= *[0-9]+ns' "$T/p.out" |
    grep -Eq '^  95% CI p50 \[[0-9]+, [0-9]+\] p99 \[[0-9]+, [0-9]+\] p99.9 \[[0-9]+, [0-9]+\]' ||
    fail "pipeline table: $(cat "$T/p.out")"
grep -Eq '^error budget: timer tsc step [0-9.]+ ns; stamp [0-9.]+ ns x 2 per figure; calibration [0-9.]+ ppm; histogram resolution [0-9.]+% \(3 sig figs\)' \
    "$T/p.out" || fail "pipeline budget: $(cat "$T/p.out")"
jq -e '.stages_ns | to_entries[] | .value as $s | ["p50", "p90", "p99", "p99.9", "p99.99"][] as $p
       | ($s[$p + "_lo"] <= $s[$p] and $s[$p] <= $s[$p + "_hi"])' "$T/p.json" | grep -q false &&
    fail "pipeline json interval"
# 20,000 samples cannot bound p99.99 below the max: flagged with the samples it needs
jq -e '[.stages_ns[] | .["p99.99_needs_n"] > 20000] | all' "$T/p.json" >/dev/null ||
    fail "pipeline json needs_n"
jq -e '.error_budget.timer == "tsc" and .error_budget.stamps_per_figure == 2' "$T/p.json" \
    >/dev/null || fail "pipeline json budget"
echo "cli_ci: ok"
