#!/usr/bin/env bash
# cli_ab.sh - `latlab ab` from the outside, on a harness program of known
# truth (tests/peers/abtarget.c, copied under names that set its work): a
# build 30% slower is called slower and --gate exits 1; the same build twice
# is neither slower nor faster; commands 50% apart are told apart; usage
# errors exit 2 naming the flag before any run; a run that fails, hangs, writes
# no JSON, or a B whose benchmarks differ exits 1 naming which, with partial
# results written and marked incomplete, and no file left behind.  Under
# sanitizers the verdicts of the timed cases are printed, not judged (see
# verdict below).
set -u
: "${LATLAB:?}" "${LAT_BUILD_DIR:?}"
T=$LAT_BUILD_DIR/tests/lat_abtarget
[ -x "$T" ] || { echo "SKIPPED: $T not built"; exit 77; }
command -v jq >/dev/null || { echo "SKIPPED: jq not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# run_ab <json> args...: latlab ab with stdout/stderr to $tmp/out, $tmp/err,
# tried again (at most three times) while the run's A/A control voided it:
# that is the tool's safeguard on a host busy with the rest of the suite
# (once, sleep 0.02 read x0.91 against itself over 12 rounds), not a
# verdict; any other reading is judged.  Sets rc.
run_ab() {
    local json=$1 try
    shift
    for try in 1 2 3; do
        "$LATLAB" ab --json "$json" "$@" >"$tmp/out" 2>"$tmp/err"
        rc=$?
        jq -e '.aa_control.failed' "$json" >/dev/null 2>&1 || return 0
        echo "note: the A/A control voided try $try: $(grep 'A/A control' "$tmp/out" | head -1)"
    done
}
# verdict <what> <jq test> <json> <out>: the verdict a case of known truth
# must read.  Under sanitizers the programs' timings are the instrumentation's
# (an ASan build beside a parallel ctest once read a build 30% slower as x0.92
# over 12 rounds): there the run must complete with a well-formed verdict, and
# the verdict it read is printed, not judged.
verdict() {
    if [ -n "${LAT_SANITIZE:-}" ]; then
        jq -e '.complete and (.benchmarks[0].verdict | length) > 0' "$3" >/dev/null ||
            fail "$1: no complete verdict: $(cat "$4")"
        echo "note ($LAT_SANITIZE build, not judged): $1: $(jq -r '.benchmarks[0].verdict' "$3")"
    else
        jq -e "$2" "$3" >/dev/null || fail "$1: wrong verdict: $(cat "$4")"
    fi
}
export LAT_BENCH_NO_PIN=1
for n in abt-w100-e0-x0-r0 abt-w130-e0-x0-r0 abt-w100-e0-x0-r0-more abt-w100-e0-x0-r0-other \
    abt-w100-e0-x0-r0-hang abt-w100-e0-x0-r0-crash; do
    cp "$T" "$tmp/$n"
done
A=$tmp/abt-w100-e0-x0-r0 B=$tmp/abt-w130-e0-x0-r0

# usage errors: exit 2, the flag named, nothing run
usage() { # expect-word args...
    local want=$1; shift
    "$LATLAB" ab "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
    [ $rc -eq 2 ] || fail "'$*' exited $rc, want 2"
    grep -q -- "$want" "$tmp/err" || fail "'$*' did not name $want: $(cat "$tmp/err")"
}
usage "ab" "$A"
usage "--band" --band 200% "$A" "$B"
usage "--budget" --budget 3parsecs "$A" "$B"
"$LATLAB" ab --json /nonexistent/dir/x.json "$A" "$B" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -ne 0 ] && grep -q "/nonexistent/dir" "$tmp/err" || fail "--json into no folder: rc $rc"
[ -s "$tmp/out" ] && fail "--json into no folder still ran: $(cat "$tmp/out")"
usage "/bin/true" /bin/true /bin/true
usage "--min-rounds" --min-rounds 50 --max-rounds 20 "$A" "$B"
usage "--max-rounds" --max-rounds 5000 "$A" "$B"
usage "--pin" --pin nowhere "$A" "$B"
[ -e "$tmp/A-0.json" ] && fail "a usage error ran something"

# 30% slower: slower, with --gate exit 1; JSON, Markdown and SVG written
run_ab "$tmp/s.json" --budget 40s --min-rounds 8 --gate --md "$tmp/s.md" --svg "$tmp" "$A" "$B"
[ $rc -eq 1 ] || [ -n "${LAT_SANITIZE:-}" ] ||
    fail "30% slower with --gate exited $rc, want 1: $(cat "$tmp/out" "$tmp/err")"
verdict "30% slower" '.complete and .benchmarks[0].verdict == "slower" and
    .benchmarks[0].figures[0].b_over_a.ratio > 1.1' "$tmp/s.json" "$tmp/out"
jq -e '.band_edge_share == 0.9 and .reach_est_multiple == 2' "$tmp/s.json" >/dev/null ||
    fail "the stop rule's parameters not in the JSON"
grep -q "slower" "$tmp/s.md" || fail "no Markdown summary"
grep -q "<svg" "$tmp/known_chain.svg" || fail "no SVG shift function"
grep -q "could have seen" "$tmp/out" || fail "no minimum detectable effect column"
grep -q "every run measures on CPU [0-9]" "$tmp/err" || fail "no measuring CPU: $(cat "$tmp/err")"
# a round's runs took turns sample by sample; --whole-runs runs them one by one
jq -e '.turns == true' "$tmp/s.json" >/dev/null || fail "harness runs did not take turns"
grep -q "taking turns sample by sample" "$tmp/err" || fail "turns not said: $(cat "$tmp/err")"
"$LATLAB" ab --whole-runs --budget 1s --min-rounds 3 --json "$tmp/w.json" "$A" "$A" \
    >"$tmp/out" 2>"$tmp/err" || fail "--whole-runs exited $?: $(cat "$tmp/err")"
jq -e '.turns == false and .rounds >= 1' "$tmp/w.json" >/dev/null ||
    fail "--whole-runs: $(cat "$tmp/w.json")"

# the same build twice (at a strict level): never slower nor faster
run_ab "$tmp/aa.json" --budget 25s --min-rounds 8 --alpha 0.001 --gate "$A" "$A"
[ $rc -eq 0 ] || [ -n "${LAT_SANITIZE:-}" ] ||
    fail "A against A exited $rc: $(cat "$tmp/out" "$tmp/err")"
verdict "A against A" '.benchmarks[0].verdict != "slower" and
    .benchmarks[0].verdict != "faster"' "$tmp/aa.json" "$tmp/out"

# commands 50% apart
run_ab "$tmp/c.json" --kind command --budget 20s --min-rounds 8 'sleep 0.02' 'sleep 0.03'
[ $rc -eq 0 ] || fail "commands exited $rc: $(cat "$tmp/err")"
verdict "commands 50% apart" '.benchmarks[0].name == "command" and
    .benchmarks[0].verdict == "slower"' "$tmp/c.json" "$tmp/out"
# a command that keeps at most one CPU busy is pinned whole; --pin none pins nothing
grep -q "every run is pinned to CPU [0-9]" "$tmp/err" || fail "sleep not pinned: $(cat "$tmp/err")"
"$LATLAB" ab --kind command --pin none --budget 1s true true >"$tmp/out" 2>"$tmp/err" ||
    fail "--pin none exited $?: $(cat "$tmp/err")"
grep -q "pinned\|measures on" "$tmp/err" && fail "--pin none placed the runs: $(cat "$tmp/err")"

# Google Benchmark programs, unchanged: 30% slower is slower (benchmark name kept)
G=$LAT_BUILD_DIR/tests/lat_abtarget_gb
if [ -x "$G" ]; then
    cp "$G" "$tmp/abtgb-w100"; cp "$G" "$tmp/abtgb-w130"
    run_ab "$tmp/g.json" --budget 20s --min-rounds 8 --reps 3 --args "--benchmark_min_time=0.01" \
        "$tmp/abtgb-w100" "$tmp/abtgb-w130"
    [ $rc -eq 0 ] || fail "Google Benchmark programs exited $rc: $(cat "$tmp/err")"
    jq -e '.benchmarks[0].name == "BM_chain" and
        ([.benchmarks[0].figures[].figure] == ["time", "cpu"])' "$tmp/g.json" >/dev/null ||
        fail "Google Benchmark figures: $(cat "$tmp/out" "$tmp/err")"
    verdict "Google Benchmark 30% slower" '.benchmarks[0].verdict == "slower"' \
        "$tmp/g.json" "$tmp/out"
else
    echo "note: $G not built (no Google Benchmark): its mode is not checked here"
fi

# runtime errors: exit 1, named, partial results marked incomplete, and the
# runs' files gone with their private folder (under TMPDIR)
mkdir "$tmp/t"
runtime() { # expect-text args...
    local want=$1; shift
    rm -f "$tmp/e.json"
    TMPDIR=$tmp/t timeout 60 "$LATLAB" ab --json "$tmp/e.json" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    [ -z "$(ls -A "$tmp/t")" ] || fail "'$*' left files: $(ls -R "$tmp/t")"
    rm -rf "${tmp:?}/t/"*
    [ $rc -eq 1 ] || fail "'$*' exited $rc, want 1"
    grep -q -- "$want" "$tmp/err" || fail "'$*' did not say '$want': $(cat "$tmp/err")"
    jq -e '.complete == false and (.stopped | length) > 0' "$tmp/e.json" >/dev/null ||
        fail "'$*': no incomplete JSON: $(cat "$tmp/e.json" 2>&1)"
}
runtime "exited with status 3" --kind command 'echo oops >&2; exit 3' 'true'
runtime "oops" --kind command 'echo oops >&2; exit 3' 'true'
runtime "timeout" --kind command --timeout 1s 'sleep 30' 'true'
runtime "JSON report" --kind harness /bin/true /bin/true
runtime "missing from A: known/more" "$A" "$tmp/abt-w100-e0-x0-r0-more"
runtime "suite 'abother'" "$A" "$tmp/abt-w100-e0-x0-r0-other"
# while taking turns: B hangs in a sample (the round's deadline kills all three
# runs), B exits midway (A and A2 go on, then the run stops naming B)
runtime "B (.*-hang) in round 1 did not end within its timeout" --timeout 1s "$A" \
    "$tmp/abt-w100-e0-x0-r0-hang"
runtime "B (.*-crash) in round 1 exited with status 3: abtarget: exiting" "$A" \
    "$tmp/abt-w100-e0-x0-r0-crash"

if [ $fails -eq 0 ]; then echo "PASS: cli_ab"; else exit 1; fi
