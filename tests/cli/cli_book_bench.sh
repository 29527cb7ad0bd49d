#!/usr/bin/env bash
# cli_book_bench.sh - `latlab book bench`: every scenario runs (small sizes),
# writes .hlog + .hgrm per scenario, BENCH.md with run conditions, tables,
# loop type, health and a tail paragraph, report.html and bench.json; open
# loop runs are labelled and kept apart; bad input is a usage error.
set -u
LATLAB=${LATLAB:?path of the latlab tool}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$LATLAB" book bench all --warmup 500 --measured 5000 --also-open-loop 1000000 --out "$tmp/o" \
    --json "$tmp/b.json" >"$tmp/out" 2>"$tmp/err" || fail "bench exited $?: $(cat "$tmp/err")"
cat "$tmp/out"
for s in add_only cancel_only aggressive_walk mixed_70_20_10 thin_book_sweep mass_cancel_burst \
         snapshot_capture; do
    [ -s "$tmp/o/$s.hlog" ] || fail "no $s.hlog"
    [ -s "$tmp/o/$s.hgrm" ] || fail "no $s.hgrm"
    grep -q "^#\[StartTime" "$tmp/o/$s.hlog" || fail "$s.hlog has no header"
    grep -q "Percentile" "$tmp/o/$s.hgrm" || fail "$s.hgrm has no table"
    "$LATLAB" plot "$tmp/o/$s.hgrm" -o "$tmp/$s.svg" >/dev/null 2>"$tmp/perr" ||
        fail "plot of $s.hgrm: $(cat "$tmp/perr")"
    grep -q "^## $s (closed loop)" "$tmp/o/BENCH.md" || fail "BENCH.md lacks $s"
    grep -q "^$s .*closed" "$tmp/out" || fail "stdout lacks $s"
done
[ -s "$tmp/o/mixed_70_20_10.open.hlog" ] || fail "no open-loop hlog"
md="$tmp/o/BENCH.md"
grep -q "^## Run conditions" "$md" || fail "no run conditions"
grep -q "| seed | 0xA5A5A5A5" "$md" || fail "no seed"
grep -q "cpu_model" "$md" || fail "no cpu model"
grep -q "^## Closed loop (pure service time)" "$md" || fail "no closed-loop table"
grep -q "^## Open loop (latency from the intended arrival time)" "$md" || fail "no open-loop table"
grep -q "^## mixed_70_20_10 (open loop)" "$md" || fail "no open-loop section"
[ "$(grep -c '^\*\*Where the tail comes from.\*\*' "$md")" -eq 8 ] || fail "tail paragraphs"
# the method once, per benchmark only its figures
[ "$(grep -c "timer's own floor" "$md")" -eq 1 ] || fail "the method is repeated: $(grep -c "timer's own floor" "$md")"
long=$(grep '^\*\*Where the tail comes from.\*\*' "$md" | awk 'length > 700' | wc -l)
[ "$long" -eq 0 ] || fail "$long tail paragraphs over 700 characters"
[ "$(grep -c '^Workload health: crossing submits' "$md")" -eq 8 ] || fail "health lines"
grep -q "add_only.*" "$md" && grep -q "crossing submits 0.0% (0/5000)" "$md" || fail "add_only crossed"
grep -q "<html" "$tmp/o/report.html" || fail "no report.html"
grep -q '"scenario": "mixed_70_20_10"' "$tmp/b.json" || fail "json"
cmp -s "$tmp/b.json" "$tmp/o/bench.json" || fail "--json differs from bench.json"

# usage errors
"$LATLAB" book bench no_such_scenario --quick --out "$tmp/x" 2>"$tmp/err" >/dev/null
[ $? -eq 2 ] && grep -q "unknown scenario" "$tmp/err" || fail "bad scenario"
"$LATLAB" book bench mixed_70_20_10 --open-loop zero --out "$tmp/x" 2>"$tmp/err" >/dev/null
[ $? -eq 2 ] && grep -q -- "--open-loop" "$tmp/err" || fail "bad --open-loop"
"$LATLAB" book bench mixed_70_20_10 --measured 0 --out "$tmp/x" 2>/dev/null >/dev/null
[ $? -eq 2 ] || fail "--measured 0"
echo "cli_book_bench: ok"
