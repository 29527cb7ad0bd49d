#!/usr/bin/env bash
# cli_book_itch.sh - `latlab book itch` on ../shared/data/ritch_ex.itch: the
# message counts of its README, 117 unknown references, three stocks; and
# truncated / garbage input ending with an error that names the offset.
set -u
LATLAB=${LATLAB:?path of the latlab tool}
SRC=${LAT_SRC_DIR:?}
shared=${LAT_SHARED_DIR:-$SRC/../shared}
itch="$shared/data/ritch_ex.itch"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Synthetic garbage and truncation (independent of the capture).
printf '\0\0\xee\1\2\3' >"$tmp/garbage"
"$LATLAB" book itch "$tmp/garbage" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || fail "garbage: want exit 1"
grep -q "offset 0: not an ITCH 5.0 message" "$tmp/err" || fail "garbage: $(cat "$tmp/err")"

if [ ! -r "$itch" ]; then
    echo "SKIPPED: $itch not found (CI clones the repository with shared/ beside it)"
    exit 77
fi
"$LATLAB" book itch "$itch" --json "$tmp/r.json" >"$tmp/out" 2>"$tmp/err" || fail "itch exited $?: $(cat "$tmp/err")"
cat "$tmp/out"
grep -q "messages        12012 per pass" "$tmp/out" || fail "message count"
grep -q "A 4997 D 1745 E 198 F 3 H 3 P 5000 R 3 S 6 U 12 X 45" "$tmp/out" || fail "per-type counts"
grep -q "unknown refs    117 " "$tmp/out" || fail "unknown references"
for s in ALC BOB CHAR; do grep -q " $s " "$tmp/out" || fail "no top of book for $s"; done
grep -q '"unknown_refs": 117' "$tmp/r.json" || fail "json"
# The sample capture starts mid-day: its three final books are crossed, and said.
[ "$(grep -c 'CROSSED (bid above ask)$' "$tmp/out")" = 3 ] || fail "crossed books not marked"
grep -q "^3 books are crossed or locked" "$tmp/out" || fail "crossed books not said"
grep -q '"crossed": true' "$tmp/r.json" || fail "crossed books not in the json"

# Truncated: cut inside a message; the error names the offset of that frame.
head -c 1000 "$itch" >"$tmp/cut"
"$LATLAB" book itch "$tmp/cut" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || fail "truncated: want exit 1"
grep -Eq "offset [0-9]+: truncated message" "$tmp/err" || fail "truncated: $(cat "$tmp/err")"
# Garbage in the middle.
head -c 2000 "$itch" >"$tmp/mid"
printf '\0\0\xee' >>"$tmp/mid"
tail -c +2004 "$itch" | head -c 500 >>"$tmp/mid"
"$LATLAB" book itch "$tmp/mid" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -Eq "offset [0-9]+: " "$tmp/err" || fail "mid garbage: $(cat "$tmp/err")"

# Paced replay (open loop) at a high speed-up, and --loop.
"$LATLAB" book itch "$itch" --pace x1000000 >"$tmp/out" || fail "paced run"
grep -q "paced (open loop" "$tmp/out" || fail "paced label"
"$LATLAB" book itch "$itch" --loop 3 >"$tmp/out" || fail "loop"
grep -q "3 passes" "$tmp/out" || fail "loop count"
"$LATLAB" book itch "$itch" --pace sideways >/dev/null 2>&1
[ $? -eq 2 ] || fail "bad --pace should exit 2"

# The figures of one short pass are measured (thread CPU time in ns, not
# getrusage ticks) and printed with the unit their size needs.
"$LATLAB" book itch "$itch" >"$tmp/out" || fail "single pass"
grep -q "^on-CPU .* [0-9.]* [kM]* *messages per CPU-second (0\.[0-9]* s of CPU" "$tmp/out" ||
    fail "single pass on-CPU: $(grep on-CPU "$tmp/out")"
grep -Eq "^(throughput|on-CPU) .* 0\.00 M|for 0% of" "$tmp/out" && fail "zero figures: $(grep -E '^(throughput|on-CPU)' "$tmp/out")"
# --max-gap: paced at the capture's timestamps, every gap cut to 1 us, the
# run takes ~12 ms instead of hours; the cut gaps are counted.
timeout 60 "$LATLAB" book itch "$itch" --pace original --max-gap 1us --json "$tmp/g.json" >"$tmp/out" ||
    fail "--max-gap run exited $?"
grep -Eq "^max gap +1000 ns: [1-9][0-9]* gaps cut" "$tmp/out" || fail "gaps cut: $(cat "$tmp/out")"
grep -Eq "^throughput +[0-9.]+ [kM]? ?messages/s" "$tmp/out" || fail "paced throughput"
grep -q " 0\.00 M messages" "$tmp/out" && fail "paced rate printed as 0.00 M"
grep -q "spins to each due time" "$tmp/out" || fail "paced on-CPU not explained"
grep -q '"gaps_cut": [1-9]' "$tmp/g.json" || fail "gaps_cut not in the json"
for bad in "--max-gap 0 --pace original" "--max-gap 1xs --pace original" "--max-gap 1ms"; do
    # shellcheck disable=SC2086
    "$LATLAB" book itch "$itch" $bad >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || fail "'$bad' exited $rc, want 2"
    grep -q -- "--max-gap" "$tmp/err" || fail "'$bad' does not name --max-gap: $(cat "$tmp/err")"
done
echo "cli_book_itch: ok"
