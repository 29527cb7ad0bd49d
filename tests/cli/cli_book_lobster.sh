#!/usr/bin/env bash
# cli_book_lobster.sh - `latlab book lobster` on LOBSTER-format fixtures
# written by `latlab book lobster-synth` (latlab's own book driven by a random
# order flow, with a few events beyond the depth left out): zero book
# mismatches, the depth-window ones labelled; a corrupted row found with its
# line, level, side and values; each message type; unknown ids; malformed
# lines (column count, non-numeric, off the tick) with line numbers.
set -u
LATLAB=${LATLAB:?path of the latlab tool}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$LATLAB" book lobster-synth "$tmp/fx" --messages 20000 --levels 5 --seed 7 >"$tmp/out" 2>"$tmp/err" ||
    fail "lobster-synth: $(cat "$tmp/err")"
grep -q "20000 messages" "$tmp/out" || fail "synth: $(cat "$tmp/out")"
msg="$tmp/fx/SYNTH_message_5.csv"
ob="$tmp/fx/SYNTH_orderbook_5.csv"
[ "$(wc -l <"$msg")" -eq 20000 ] && [ "$(wc -l <"$ob")" -eq 20000 ] || fail "fixture line counts"
for t in 1 2 3 4 5 6 7; do
    grep -q "^[0-9.]*,$t," "$msg" || fail "fixture has no type $t message"
done

# the replay: every row compared, no book mismatch, depth-window ones labelled
"$LATLAB" book lobster "$msg" --orderbook "$ob" --json "$tmp/r.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/out"
[ $rc -eq 0 ] || fail "replay of the fixture: exit $rc: $(head -5 "$tmp/err")"
grep -q "19999 rows compared on 5 levels, 0 mismatching rows, [1-9][0-9]* more only outside the file's depth" "$tmp/out" ||
    fail "want 0 book mismatches and some outside the depth: $(cat "$tmp/out")"
grep -q "(outside the file's depth)$" "$tmp/err" || fail "depth mismatches not labelled: $(head -3 "$tmp/err")"
grep -v "outside the file's depth\|more reports not shown" "$tmp/err" | grep -q . && fail "unlabelled reports: $(cat "$tmp/err")"
grep -q "pre-window      [1-9]" "$tmp/out" || fail "no pre-window messages applied"
grep -q "throughput .* M messages/s" "$tmp/out" || fail "no messages/s"
grep -q "latency ns      p50" "$tmp/out" || fail "no latency histogram"
for k in '"rows_compared": 19999' '"rows_mismatch": 0' '"messages_per_s":' '"wall_s":' '"by_type":' '"p99_9":'; do
    grep -q "$k" "$tmp/r.json" || fail "json lacks $k"
done

# a corrupted row: found, with line, level, side and both values; exit 3
awk -F, 'BEGIN{OFS=","} NR==777{$4=$4+1} {print}' "$ob" >"$tmp/bad_ob.csv"
"$LATLAB" book lobster "$msg" --orderbook "$tmp/bad_ob.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 3 ] || fail "corrupted row: exit $rc, want 3"
grep -q "1 mismatching rows" "$tmp/out" || fail "corrupted row: $(grep orderbook "$tmp/out")"
want=$(awk -F, 'NR==777{printf "bad_ob.csv:777: level 1 bid: book %s x %s, file %s x %s", $3, $4, $3, $4+1}' "$ob")
grep -qF "$want" "$tmp/err" || fail "corrupted row report: want '$want': $(grep -v depth "$tmp/err")"
grep -q "first mismatch  row 777 level 1 bid" "$tmp/out" || fail "first mismatch line: $(cat "$tmp/out")"

# --levels: fewer is fine, more than the file's is a usage error
"$LATLAB" book lobster "$msg" --orderbook "$ob" --levels 2 >"$tmp/out" 2>/dev/null || fail "--levels 2"
grep -q "rows compared on 2 levels, 0 mismatching rows" "$tmp/out" || fail "--levels 2: $(cat "$tmp/out")"
"$LATLAB" book lobster "$msg" --orderbook "$ob" --levels 6 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q -- "--levels" "$tmp/err" || fail "--levels 6 should be a usage error"

# each message type by hand, with its orderbook rows (2 levels)
cat >"$tmp/m.csv" <<'CSV'
34200.1,1,11,100,585000,1
34200.2,1,12,50,585100,-1
34200.3,1,13,30,585000,1
34200.4,2,11,40,585000,1
34200.5,4,11,10,585000,1
34200.6,5,0,7,585050,-1
34200.7,6,0,500,585050,1
34200.8,7,0,0,-1,-1
34200.9,3,13,30,585000,1
34201.0,7,0,0,1,-1
34201.1,3,99,5,585100,-1
CSV
cat >"$tmp/o.csv" <<'CSV'
9999999999,0,585000,100,9999999999,0,-9999999999,0
585100,50,585000,100,9999999999,0,-9999999999,0
585100,50,585000,130,9999999999,0,-9999999999,0
585100,50,585000,90,9999999999,0,-9999999999,0
585100,50,585000,80,9999999999,0,-9999999999,0
585100,50,585000,80,9999999999,0,-9999999999,0
585100,50,585000,80,9999999999,0,-9999999999,0
585100,50,585000,80,9999999999,0,-9999999999,0
585100,50,585000,50,9999999999,0,-9999999999,0
585100,50,585000,50,9999999999,0,-9999999999,0
585100,45,585000,50,9999999999,0,-9999999999,0
CSV
# line 11 deletes order 99, which rested before the window at 585100 (order 12
# is newer, but the pre-window level holds only what row 1 shows: nothing on
# the ask side), so it is unappliable
"$LATLAB" book lobster "$tmp/m.csv" --orderbook "$tmp/o.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 3 ] || fail "types: exit $rc, want 3 (one unappliable): $(cat "$tmp/out" "$tmp/err")"
grep -q "by type         1 new 3, 2 partial cancel 1, 3 delete 2, 4 visible exec 1, 5 hidden exec 1, 6 cross 1, 7 halt 2" "$tmp/out" ||
    fail "types: $(cat "$tmp/out")"
grep -q "m.csv:11: unknown order id, and no pre-window quantity at that price" "$tmp/err" || fail "unknown id: $(cat "$tmp/err")"
grep -q "10 rows compared on 2 levels, 1 mismatching rows" "$tmp/out" || fail "types rows: $(cat "$tmp/out")"
grep -q "o.csv:11: level 1 ask: book 585100 x 50, file 585100 x 45" "$tmp/err" || fail "types mismatch: $(cat "$tmp/err")"

# without an orderbook: unknown ids are reported with their line, exit 3
printf '34200.1,3,5,10,585000,1\n34200.2,1,6,10,585000,1\n' >"$tmp/u.csv"
"$LATLAB" book lobster "$tmp/u.csv" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 3 ] && grep -q "u.csv:1: unknown order id" "$tmp/err" || fail "unknown id without orderbook: $(cat "$tmp/err")"

# malformed lines: reported with line numbers, exit 1
cat >"$tmp/bad.csv" <<'CSV'
34200.1,1,11,100,585000,1
34200.2,1,12,50,585100
34200.3,1,13,x,585000,1
34200.4,1,14,10,585050,1
34200.5,9,15,10,585000,1
34200.6,1,16,10,585000,0
CSV
"$LATLAB" book lobster "$tmp/bad.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "malformed: exit $rc, want 1"
for want in "bad.csv:2: 5 columns, want 6" "bad.csv:3: size is not an integer" \
            "bad.csv:4: price 585050 is not a positive multiple of the tick (100)" \
            "bad.csv:5: type is not 1..7: '9'" "bad.csv:6: direction is not 1 or -1"; do
    grep -qF "$want" "$tmp/err" || fail "malformed: want '$want': $(cat "$tmp/err")"
done
# a malformed orderbook row stops the replay naming its line
sed '5s/^585100,50/585100,abc/' "$tmp/o.csv" >"$tmp/o_bad.csv"
"$LATLAB" book lobster "$tmp/m.csv" --orderbook "$tmp/o_bad.csv" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "o_bad.csv:5: level 1: size is not an integer in 0..2^32-1" "$tmp/err" || fail "bad row: $(cat "$tmp/err")"
# --tick 0.005 at scale 10000 makes 585050 valid
"$LATLAB" book lobster --tick 0.005 "$tmp/bad.csv" 2>"$tmp/err" >/dev/null
grep -q "bad.csv:4" "$tmp/err" && fail "--tick 0.005 should accept 585050"
# The file contradicting itself: each kind counted, reported with its line,
# exit 3 (0 with --lenient); a crossing add is refused (the book never crosses).
cat >"$tmp/x.csv" <<'CSV'
34200.1,1,21,100,585000,1
34200.2,1,22,50,585200,-1
34200.3,1,23,10,584900,-1
34200.4,3,21,100,585100,1
34200.3,1,24,10,585300,-1
34200.5,1,25,10,585300,1
CSV
"$LATLAB" book lobster "$tmp/x.csv" --json "$tmp/x.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 3 ] || fail "inconsistent: exit $rc, want 3: $(cat "$tmp/out" "$tmp/err")"
for want in "x.csv:3: a sell at or below the resting bid (the book would cross)" \
            "x.csv:4: price differs from the resting order's (applied by id)" \
            "x.csv:5: timestamp earlier than the previous message's" \
            "x.csv:6: a buy at or above the resting ask (the book would cross)" "--lenient"; do
    grep -qF -- "$want" "$tmp/err" || fail "inconsistent: want '$want': $(cat "$tmp/err")"
done
grep -q "inconsistent    2 crossing adds refused, 1 with another price or direction than their order's, 1 times going backwards" \
    "$tmp/out" || fail "inconsistent counts: $(cat "$tmp/out")"
grep -q '"crossing_adds": 2' "$tmp/x.json" || fail "inconsistent json: $(cat "$tmp/x.json")"
"$LATLAB" book lobster "$tmp/x.csv" --lenient >/dev/null 2>&1 || fail "--lenient: exit $?"
# an empty message file is no replay: exit 1, said
: >"$tmp/empty.csv"
"$LATLAB" book lobster "$tmp/empty.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q "empty.csv: no messages" "$tmp/err" || fail "empty: exit $rc: $(cat "$tmp/err")"
echo "cli_book_lobster: ok"
