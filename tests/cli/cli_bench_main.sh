#!/usr/bin/env bash
# cli_bench_main.sh - what every LAT_BENCH_MAIN program does from the outside,
# on bench/bench_contention (a ~1 s concurrent benchmark): --list/--filter,
# usage errors exit 2 naming the flag, --json writes the report, --compare
# with itself finds nothing changed, --compare with a baseline whose samples
# were made 3x faster calls the run regressed and --gate then exits 1, an
# incompatible baseline is refused with the reason, --compare auto picks the
# newest compatible report in $LAT_BENCH_RESULTS_DIR, LAT_BENCH_RUNNER_CPU places the
# measuring thread.
set -u
: "${LAT_BUILD_DIR:?set LAT_BUILD_DIR to the build directory}"
B=$LAT_BUILD_DIR/bench/bench_contention
if [ ! -x "$B" ]; then
    echo "SKIPPED: $B not built (benchmarks are off in this build)"
    exit 77
fi
command -v jq >/dev/null || { echo "SKIPPED: jq not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
export LAT_BENCH_NO_PIN=1
short=(--quick --cooldown-ms 0)

"$B" --list >"$tmp/list" || fail "--list exited $?"
grep -qx "Contention/rwlock_readers_vs_writer" "$tmp/list" || fail "--list: $(cat "$tmp/list")"
"$B" --list --filter nomatch >"$tmp/list" || fail "--list --filter exited $?"
[ -s "$tmp/list" ] && fail "--filter nomatch still lists: $(cat "$tmp/list")"
"$B" --filter nomatch >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "run with no match exited $rc, want 1"

for args in "--seed abc" "--seed -1" "--cooldown-ms x" "--materiality 150" "--bogus" "--json"; do
    set -- $args
    "$B" "$@" >/dev/null 2>"$tmp/err"; rc=$?
    [ $rc -eq 2 ] || fail "'$args' exited $rc, want 2"
    grep -q -- "$1" "$tmp/err" || fail "'$args' did not name $1: $(cat "$tmp/err")"
done
"$B" --help | grep -q -- "--compare" || fail "--help does not describe --compare"

"$B" "${short[@]}" --seed 7 --json "$tmp/a.json" >"$tmp/out" 2>"$tmp/err" || fail "--json run exited $?"
jq -e '.schema_version == 1 and .suite == "contention" and (.results | length) == 1
       and .case_order.seed == 7 and (.results[0].roles | length) == 2
       and (.results[0].samples.ns_per_op | length) == (.results[0].stats.ns_per_op.n)
       and (.run_conditions | has("bench_pin"))' "$tmp/a.json" >/dev/null ||
    fail "report content: $(head -c 400 "$tmp/a.json")"
grep -q "role optimistic_reader x3" "$tmp/out" || fail "no per-role table"

# LAT_BENCH_RUNNER_CPU names the measuring thread's CPU, even beside LAT_BENCH_NO_PIN
for c in $(python3 -c 'import os; s = sorted(os.sched_getaffinity(0)); print(s[0], s[-1])'); do
    LAT_BENCH_RUNNER_CPU=$c "$B" "${short[@]}" --json "$tmp/c.json" >/dev/null 2>&1 || fail "CPU $c: exit $?"
    jq -e ".run_conditions.bench_runner_cpu == $c" "$tmp/c.json" >/dev/null ||
        fail "LAT_BENCH_RUNNER_CPU=$c measured on CPU $(jq .run_conditions.bench_runner_cpu "$tmp/c.json")"
done
grep -q "workers combined" "$tmp/out" || fail "no combined table"

# Itself as baseline: nothing regressed (the gate passes).
"$B" "${short[@]}" --compare "$tmp/a.json" --gate >"$tmp/out" 2>"$tmp/err"; rc=$?
grep -q "comparison with" "$tmp/out" || fail "no comparison printed: $(cat "$tmp/err")"

# A baseline 50x faster: regressed (far beyond any scatter of a loaded
# machine), and --gate exits 1.
jq '.results[].samples.ns_per_op |= map(. / 50)' "$tmp/a.json" >"$tmp/fast.json"
"$B" "${short[@]}" --compare "$tmp/fast.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] || fail "compare without --gate exited $rc"
grep -q "rwlock_readers_vs_writer .* regressed$" "$tmp/out" || fail "50x slower not called regressed: $(cat "$tmp/out")"
"$B" "${short[@]}" --compare "$tmp/fast.json" --gate >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "--gate with a regression exited $rc, want 1"

# Incompatible: different metadata.
jq '.results[0].metadata.filesystem = "xfs"' "$tmp/a.json" >"$tmp/meta.json"
"$B" "${short[@]}" --compare "$tmp/meta.json" --gate >"$tmp/out" 2>"$tmp/err"; rc=$?
grep -q "not comparable: .*metadata" "$tmp/err" || fail "metadata change not refused: $(cat "$tmp/err")"
[ $rc -eq 0 ] || fail "incompatible baseline exited $rc (a refusal is not a regression)"
# Corrupt baseline: exit 1 naming the file.
printf '{"schema_version": 1, "results": [' >"$tmp/bad.json"
"$B" "${short[@]}" --compare "$tmp/bad.json" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "corrupt baseline exited $rc, want 1"
grep -q "bad.json" "$tmp/err" || fail "corrupt baseline not named: $(cat "$tmp/err")"

# --compare auto: the first run finds none and saves; the second compares with it.
export LAT_BENCH_RESULTS_DIR=$tmp/results
"$B" "${short[@]}" --compare auto >"$tmp/out" 2>"$tmp/err" || fail "auto #1 exited $?"
grep -q "no compatible baseline" "$tmp/err" || fail "auto #1: $(cat "$tmp/err")"
[ "$(ls "$tmp/results" | wc -l)" -eq 1 ] || fail "auto #1 did not save a report"
"$B" "${short[@]}" --compare auto >"$tmp/out" 2>"$tmp/err" || fail "auto #2 exited $?"
grep -q "comparison with $tmp/results/" "$tmp/out" || fail "auto #2 did not compare: $(cat "$tmp/err")"

[ $fails -eq 0 ] && echo "cli_bench_main: all checks passed"
exit $((fails > 0))
