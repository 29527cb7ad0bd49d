#!/usr/bin/env bash
# cli_bench_optail.sh - the shipped per-operation tail benchmark
# (bench/bench_optail, run by `make bench`) records every operation with
# lat_bench_record_ns and prints its tail for both cases (a short run).
set -u
D=${LAT_BUILD_DIR:?set LAT_BUILD_DIR to the build directory}/bench
B=$D/bench_optail
[ -d "$D" ] || { echo "SKIPPED: benchmarks are off in this build (no $D)"; exit 77; }
[ -x "$B" ] || { echo "FAIL: $B not built although the benchmarks are"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export LAT_BENCH_NO_PIN=1
"$B" --quick --cooldown-ms 0 --seed 1 >"$tmp/out" 2>"$tmp/err" || fail "exited $?: $(tail -3 "$tmp/err")"
cat "$tmp/out"
for c in doubling reserved; do
    grep -q "Append/$c" "$tmp/out" || fail "no Append/$c in the output"
done
n=$(grep -c "per-op tail ([1-9][0-9]* recorded): p50 .* p99.9 .* max " "$tmp/out")
[ "$n" -eq 2 ] || fail "$n per-op tail lines, want 2"
grep -q "per-op tail 95% CI: p50 \[" "$tmp/out" || fail "no tail intervals"
grep -q 'bench_\*' "${LAT_SRC_DIR:?}/Makefile" || fail "make bench no longer runs bench/bench_*"
echo "cli_bench_optail: ok"
