#!/usr/bin/env bash
# cli_pipeline_replay.sh - `latlab book itch-gen` and `latlab pipeline --replay`:
# a generated capture is deterministic per seed and replays cleanly; the
# pipeline replay applies every message once and ends with the same books as
# `latlab book itch` on the same file (also at max speed and over two passes);
# bad captures (truncated, unknown type, empty, timestamps going backwards)
# give clear errors or counts; misuse exits 2 naming the flag before any work.
set -u
LATLAB=${LATLAB:?path of the latlab tool}
SRC=${LAT_SRC_DIR:?}
shared=${LAT_SHARED_DIR:-$SRC/../shared}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# The final-books table of either command: the lines after its header.
# (pipeline wraps lines over 100 characters: continuation lines start with 4 spaces)
books() { sed -n '/^locate symbol/,$p' "$1" | sed -e ':a' -e 'N' -e '$!ba' -e 's/\n    / /g'; }

# ---- misuse: exit 2 naming the flag, before any work ----
usage() { # want-flag args...
    local want=$1
    shift
    "$LATLAB" "$@" >"$tmp/out" 2>"$tmp/err"
    [ $? -eq 2 ] || fail "'$*' should exit 2"
    grep -q -- "$want" "$tmp/err" || fail "'$*': message does not name $want: $(cat "$tmp/err")"
}
usage --out book itch-gen --messages 10
usage --out book itch-gen -o ''
usage --messages book itch-gen -o "$tmp/x.itch" --messages 5 --stocks 4
usage --peak-to-mean book itch-gen -o "$tmp/x.itch" --peak-to-mean 0.5
usage --stocks book itch-gen -o "$tmp/x.itch" --stocks 0
usage --burst book itch-gen -o "$tmp/x.itch" --burst 0
[ ! -e "$tmp/x.itch" ] || fail "misuse wrote the output"
usage --speed pipeline --speed x10
usage --loop pipeline --loop 2
usage --max-gap pipeline --max-gap 1ms
usage --replay pipeline --replay ''
usage --speed pipeline --replay "$tmp/none.itch" --speed sideways
usage --loop pipeline --replay "$tmp/none.itch" --loop 0
usage --rate pipeline --replay "$tmp/none.itch" --rate 1000
usage --events pipeline --replay "$tmp/none.itch" --events 10

# ---- the generator ----
"$LATLAB" book itch-gen -o "$tmp/g.itch" --messages 3000 --stocks 3 --rate 300000 --seed 5 >"$tmp/gen" ||
    fail "itch-gen exited $?"
grep -q "3000 messages, 3 stocks" "$tmp/gen" || fail "itch-gen summary: $(cat "$tmp/gen")"
"$LATLAB" book itch-gen -o "$tmp/g2.itch" --messages 3000 --stocks 3 --rate 300000 --seed 5 >/dev/null
cmp -s "$tmp/g.itch" "$tmp/g2.itch" || fail "same seed, different bytes"
"$LATLAB" book itch-gen -o "$tmp/g3.itch" --messages 3000 --stocks 3 --rate 300000 --seed 6 >/dev/null
cmp -s "$tmp/g.itch" "$tmp/g3.itch" && fail "different seeds, same bytes"
"$LATLAB" book itch "$tmp/g.itch" >"$tmp/itch" || fail "book itch on the generated capture"
grep -q "messages        3000 per pass" "$tmp/itch" || fail "reader count"
grep -q "unknown refs    0 " "$tmp/itch" || fail "generated capture has unknown references"
grep -q "anomalies       0 duplicate adds, 0 rejected adds, 0 over-executions" "$tmp/itch" ||
    fail "generated capture has anomalies"

# ---- replay: every message once, the same books as `book itch` ----
replay() { # out args...
    local out=$1
    shift
    "$LATLAB" pipeline --shape compact --oversubscribe --idle backoff --no-counters "$@" \
        >"$out" 2>"$tmp/err" || fail "pipeline $* exited $?: $(cat "$tmp/err")"
}
replay "$tmp/r1" --replay "$tmp/g.itch" --speed x10 --json "$tmp/r1.json"
cat "$tmp/r1"
grep -q "processed:      3000 applied, 0 twice, 0 reframing errors" "$tmp/r1" || fail "exactly once"
grep -q "^send " "$tmp/r1" || fail "no send stage (the producer's lateness)"
sed -e ':a' -e 'N' -e '$!ba' -e 's/\n    / /g' "$tmp/r1" >"$tmp/r1.joined"
grep -q "LCG rounds," "$tmp/r1.joined" && fail "the replay's header claims LCG rounds: $(grep LCG "$tmp/r1")"
grep -q "work the replay's books" "$tmp/r1.joined" || fail "the replay's header does not name its work"
for k in add execute cancel delete replace; do
    grep -q "^  $k " "$tmp/r1" || fail "no work row for $k"
done
for a in "busiest 1 ms:" "busiest 100 us:" "longest burst:" "q1 depth peak:" "backlog peak:" "late sends:"; do
    grep -q "$a" "$tmp/r1" || fail "no arrival figure '$a'"
done
diff <(books "$tmp/itch") <(books "$tmp/r1") || fail "books differ from book itch"
grep -q '"q1_peak_depth"' "$tmp/r1.json" || fail "json has no arrival figures"
grep -q '"work_by_kind_ns"' "$tmp/r1.json" || fail "json has no per-kind work"

replay "$tmp/r2" --replay "$tmp/g.itch" --speed max
grep -q "all due at once (back to back)" "$tmp/r2" || fail "max speed"
diff <(books "$tmp/itch") <(books "$tmp/r2") || fail "max speed: books differ"
replay "$tmp/r3" --replay "$tmp/g.itch" --speed x50 --loop 2
grep -q "processed:      6000 applied, 0 twice" "$tmp/r3" || fail "two passes"
grep -q "^  pass reset n=1 " "$tmp/r3" || fail "pass reset row"
diff <(books "$tmp/itch") <(books "$tmp/r3") || fail "two passes: books differ"

# The lab's round: the same pipeline at the capture's mean rate, then the replay.
replay "$tmp/r6" --replay "$tmp/g.itch" --speed x10 --with-steady --json "$tmp/r6.json"
grep -q "^steady: 3000 events at " "$tmp/r6" || fail "with-steady: no steady table"
grep -q "^replay: .* on its own timestamps" "$tmp/r6" || fail "with-steady: no replay table"
grep -q '"steady"' "$tmp/r6.json" && grep -q '"q1_peak_depth"' "$tmp/r6.json" || fail "with-steady json"
usage --with-steady pipeline --with-steady
usage --with-steady pipeline --replay "$tmp/g.itch" --with-steady --hlog-dir "$tmp/h"

# ---- bad captures ----
head -c 1000 "$tmp/g.itch" >"$tmp/cut.itch"
"$LATLAB" pipeline --replay "$tmp/cut.itch" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || fail "truncated: want exit 1"
grep -Eq "cut.itch: offset [0-9]+: truncated message" "$tmp/err" || fail "truncated: $(cat "$tmp/err")"
printf '\0\0\xee\1\2\3' >"$tmp/bad.itch"
"$LATLAB" pipeline --replay "$tmp/bad.itch" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "bad.itch: offset 0: not an ITCH 5.0 message" "$tmp/err" ||
    fail "unknown type: $(cat "$tmp/err")"
: >"$tmp/empty.itch"
"$LATLAB" pipeline --replay "$tmp/empty.itch" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "no ITCH messages" "$tmp/err" || fail "empty: $(cat "$tmp/err")"
"$LATLAB" pipeline --replay "$tmp/missing.itch" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "missing.itch" "$tmp/err" || fail "missing file: $(cat "$tmp/err")"
# Timestamps going backwards: two system events, the second 1 us earlier.
ev() { printf '\0\14S\0\0\0\0'"$1"'O'; }
{ ev '\0\0\0\0\47\20'; ev '\0\0\0\0\43\50'; ev '\0\0\0\0\47\21'; } >"$tmp/back.itch"
replay "$tmp/r4" --replay "$tmp/back.itch"
grep -q "backwards:      1 timestamps lower" "$tmp/r4" || fail "backwards not counted: $(cat "$tmp/r4")"
grep -q "processed:      3 applied" "$tmp/r4" || fail "backwards: not every message applied"

# ---- the shared capture (a day of timestamps: cut the quiet hours) ----
itch="$shared/data/ritch_ex.itch"
if [ -r "$itch" ]; then
    "$LATLAB" book itch "$itch" >"$tmp/ritch" || fail "book itch on the shared capture"
    replay "$tmp/r5" --replay "$itch" --speed x100 --max-gap 20us
    grep -q "processed:      12012 applied, 0 twice" "$tmp/r5" || fail "shared capture: exactly once"
    grep -q "117 unknown refs" "$tmp/r5" || fail "shared capture: unknown refs"
    diff <(books "$tmp/ritch") <(books "$tmp/r5") || fail "shared capture: books differ"
    grep -q "^3 books are crossed or locked" "$tmp/r5" || fail "shared capture: crossed books not said"
else
    echo "note: $itch not found; shared-capture part not run"
fi
echo "cli_pipeline_replay: ok"
