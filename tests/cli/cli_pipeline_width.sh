#!/usr/bin/env bash
# cli_pipeline_width.sh - `latlab pipeline` reads in a 100-column terminal: a
# short run prints no stdout or stderr line over 100 characters (long lines
# wrap, continuation lines indented by 4), and the content survives the
# wrapping (each stage's row, then its intervals; the platform account).
set -u
L=${LATLAB:?path of the latlab tool}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$L" pipeline --shape compact --events 2000 >"$T/out" 2>"$T/err" || fail "pipeline exited $?: $(cat "$T/err")"
cat "$T/out"
for f in out err; do
    long=$(awk 'length > 100' "$T/$f")
    [ -z "$long" ] || fail "std$f lines over 100 characters:"$'\n'"$long"
done
grep -A1 -E '^e2e +p50= *[0-9]+ns p99= *[0-9]+ns p99.9= *[0-9]+ns max= *[0-9]+ns *$' "$T/out" |
    grep -q '^  95% CI p50 \[' || fail "e2e row without its intervals on the next line"
sed -e ':a' -e 'N' -e '$!ba' -e 's/\n    / /g' "$T/out" >"$T/joined"
grep -Eq '^platform: producer lost .* worker lost .* hot CPUs: steal' "$T/joined" ||
    fail "the platform line does not join back: $(grep -A3 '^platform' "$T/out")"
# stdout on a full device still fails through the wrapping stream
"$L" pipeline --shape compact --events 1000 >/dev/full 2>"$T/err"
rc=$?
[ $rc -eq 1 ] || fail "stdout on /dev/full exited $rc, want 1"
grep -q "No space left on device" "$T/err" || fail "/dev/full: $(cat "$T/err")"
echo "cli_pipeline_width: ok"
