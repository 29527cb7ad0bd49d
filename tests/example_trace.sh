#!/bin/bash
# example_trace.sh - the tracer example (examples/trace_pipeline.c) runs a
# short pipeline, prints every stage once a second, accounts for every event,
# and its interval logs agree with `latlab hist summary`.
set -euo pipefail
: "${LATLAB:?}" "${LAT_BUILD_DIR:?}"
ex="$LAT_BUILD_DIR/examples/trace_pipeline"
[ -x "$ex" ] || { echo "FAIL: $ex not built"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# --help prints the usage and runs nothing; a bad option is a usage error
"$ex" --help >"$tmp/help" || { echo "FAIL: --help exited $?"; exit 1; }
grep -q '^usage: trace_pipeline' "$tmp/help" && ! grep -q '^events ' "$tmp/help" ||
    { echo "FAIL: --help ran the pipeline: $(cat "$tmp/help")"; exit 1; }
rc=0; "$ex" --seconds >/dev/null 2>&1 || rc=$?
[ $rc -eq 2 ] || { echo "FAIL: --seconds without a value exited $rc"; exit 1; }
rc=0; "$ex" --rate 5k >/dev/null 2>&1 || rc=$?
[ $rc -eq 2 ] || { echo "FAIL: --rate 5k exited $rc"; exit 1; }
"$ex" --seconds 2.2 --rate 5000 --hlog "$tmp/run-" >"$tmp/out"
cat "$tmp/out"
for s in q1+wake work q2+wake e2e; do
    grep -q "^interval 0 $s " "$tmp/out" || { echo "FAIL: no interval line for $s"; exit 1; }
done
read -r _ events _ recorded _ dropped _ < <(grep '^events ' "$tmp/out")
[ "$events" -eq 11000 ] && [ $((recorded + dropped)) -eq "$events" ] ||
    { echo "FAIL: events $events recorded $recorded dropped $dropped"; exit 1; }
for f in q1-wake work q2-wake e2e; do
    n=$("$LATLAB" hist summary "$tmp/run-$f.hlog" | awk 'NR==2 {print $2}')
    [ "$n" -eq "$recorded" ] || { echo "FAIL: $f.hlog holds $n values, recorded $recorded"; exit 1; }
done
echo "PASS"
