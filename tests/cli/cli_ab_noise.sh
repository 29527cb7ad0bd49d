#!/usr/bin/env bash
# cli_ab_noise.sh - `latlab ab` on a busy machine: with 10% of every CPU taken
# by injected bursts (latlab noise, root) and then with a busy loop on the
# last CPU, a build 30% slower is still called slower and the same build
# twice is still neither slower nor faster.  Runs alone (it loads every CPU).
set -u
: "${LATLAB:?}" "${LAT_BUILD_DIR:?}"
T=$LAT_BUILD_DIR/tests/lat_abtarget
if [ -n "${LAT_SANITIZE:-}" ]; then
    echo "SKIPPED: a $LAT_SANITIZE build times the instrumentation, not the programs (cli_ab runs the code paths)"
    exit 77
fi
[ -x "$T" ] || { echo "SKIPPED: $T not built"; exit 77; }
command -v jq >/dev/null || { echo "SKIPPED: jq not installed"; exit 77; }
tmp=$(mktemp -d)
bg=""
trap '[ -n "$bg" ] && kill $bg 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
export LAT_BENCH_NO_PIN=1
cp "$T" "$tmp/abt-w100-e0-x0-r0"; cp "$T" "$tmp/abt-w130-e0-x0-r0"
A=$tmp/abt-w100-e0-x0-r0 B=$tmp/abt-w130-e0-x0-r0
last=$(($(nproc) - 1))

# latlab ab, tried again (at most three times) while its A/A control voided
# the run: the tool's own safeguard on a disturbed host, not a verdict
ab() { # json args...
    local json=$1 try
    shift
    for try in 1 2 3; do
        "$LATLAB" ab --json "$json" "$@" >"$tmp/out" 2>&1
        jq -e '.aa_control.failed' "$json" >/dev/null 2>&1 || return 0
        echo "note: the A/A control voided try $try"
    done
}
check() { # condition
    ab "$tmp/s.json" --budget 30s --min-rounds 8 "$A" "$B"
    jq -e '.benchmarks[0].verdict == "slower"' "$tmp/s.json" >/dev/null ||
        fail "$1: 30% slower not called slower: $(cat "$tmp/out")"
    ab "$tmp/a.json" --budget 30s --min-rounds 8 --alpha 0.001 "$A" "$A"
    jq -e '.benchmarks[0].verdict != "slower" and .benchmarks[0].verdict != "faster"' \
        "$tmp/a.json" >/dev/null || fail "$1: A against A called a change: $(cat "$tmp/out")"
    echo "$1: $(jq -r '.benchmarks[0].verdict + " " + (.rounds|tostring) + " rounds, kept " +
        (.benchmarks[0].figures[0].kept_a|tostring)' "$tmp/s.json") / A against A: $(jq -r \
        '.benchmarks[0].verdict' "$tmp/a.json")"
}

if [ "$(id -u)" -eq 0 ]; then
    "$LATLAB" noise --cpus "0-$last" --share 10% --burst 50us --duration 0 >/dev/null 2>&1 &
    bg=$!
    sleep 0.3
    kill -0 $bg 2>/dev/null && check "10% injected noise" || echo "note: latlab noise did not start"
    kill $bg 2>/dev/null; wait $bg 2>/dev/null; bg=""
else
    echo "note: not root: the injected-noise half is SKIPPED (latlab noise needs SCHED_FIFO)"
fi
taskset -c "$last" sh -c 'while :; do :; done' &
bg=$!
check "a neighbour spinning on CPU $last"
kill $bg 2>/dev/null; wait $bg 2>/dev/null; bg=""

if [ $fails -eq 0 ]; then echo "PASS: cli_ab_noise"; else exit 1; fi
