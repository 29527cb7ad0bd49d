#!/usr/bin/env bash
# cli_book_limits.sh - `latlab book replay` and `book itch` on hostile and
# extreme inputs (issue 19 items 2, 4 and 8; issue 20's no-silent-drop, tick
# and execution rules).  Each case failed on the main of 2026-12-01:
#   - a band of INT64_MIN:INT64_MAX crashed (SIGSEGV): now a usage error;
#   - --band 1:268435456 on a 4-line file needed 12.7 GB: now it runs under a
#     150 MB address-space limit;
#   - a 5.7 KB ITCH file naming 50 stocks needed ~10 GB: now under 600 MB;
#   - a NUL byte ended the line silently; a file of zeros exited 0; /dev/zero
#     read until ENOMEM and then exited 0 as if at the end: now exit 1, named;
#   - stdout on /dev/full exited 0: now exit 1.
set -u
LATLAB=${LATLAB:?path of the latlab tool}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# capped KB CMD...: run CMD under an address-space limit.  Sanitizers reserve
# terabytes of shadow memory, so under them the cap is not applied (said once).
capped() {
    local kb=$1
    shift
    if [ -n "${LAT_SANITIZE:-}" ]; then
        echo "note: address-space cap of $kb KB not applied under sanitizers" >&2
        "$@"
    else
        (ulimit -v "$kb"; exec "$@")
    fi
}

# --- band arithmetic: no overflow, range-checked up front
echo 'L 2 8 S 9223372036854775807 3 GTC' >"$tmp/max"
"$LATLAB" book replay "$tmp/max" --band -9223372036854775808:9223372036854775807 >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "full int64 band: exit $rc, want 2 (usage): $(cat "$tmp/err")"
grep -q -- "--band" "$tmp/err" || fail "band error does not name --band: $(cat "$tmp/err")"
"$LATLAB" book replay "$tmp/max" --band 9223372036854775000:9223372036854775807 >"$tmp/out" 2>"$tmp/err" ||
    fail "band at INT64_MAX: exit $?: $(cat "$tmp/err")"
grep -qx "A 2" "$tmp/out" || fail "band at INT64_MAX: $(cat "$tmp/out")"
"$LATLAB" book replay "$tmp/max" --band 1:268435457 >/dev/null 2>&1
[ $? -eq 2 ] || fail "band of 2^28 + 1 ticks should be a usage error"

# --- the widest band allowed, on a 4-line file, in bounded memory
printf 'L 1 1 S 100 5 GTC\nL 2 2 B 99 5 GTC\nL 3 3 S 268435456 1 GTC\nS 0\n' >"$tmp/four"
capped 150000 "$LATLAB" book replay --band 1:268435456 "$tmp/four" >"$tmp/out" 2>"$tmp/err" ||
    fail "2^28 band under a 150 MB address-space limit: exit $?: $(cat "$tmp/err")"
grep -q "^S 0 3 [0-9a-f]* 1 2$" "$tmp/out" || fail "2^28 band snapshot: $(cat "$tmp/out")"
grep -qx "SA 268435456 1 1" "$tmp/out" || fail "2^28 band: far level missing: $(cat "$tmp/out")"

# --- NUL bytes, zeros, /dev/zero
printf 'L 1 1 S 100 5 GTC\nL 2 1 S 101 5 GTC\0 junk\n' >"$tmp/nul"
"$LATLAB" book replay "$tmp/nul" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "NUL byte: exit $rc, want 1"
grep -q "nul:2: NUL byte at column 18" "$tmp/err" || fail "NUL byte: $(cat "$tmp/err")"
grep -q "^A 2" "$tmp/out" && fail "the line with a NUL byte ran"
head -c 1048576 /dev/zero >"$tmp/zeros"
"$LATLAB" book replay "$tmp/zeros" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "1 MiB of zeros: exit $rc, want 1"
grep -q "zeros:1: line longer than 4096 bytes" "$tmp/err" || fail "zeros: $(cat "$tmp/err")"
head -c 100 /dev/zero >"$tmp/zeros100"
"$LATLAB" book replay "$tmp/zeros100" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q ":1: NUL byte at column 1" "$tmp/err" || fail "100 zeros: $(cat "$tmp/err")"
capped 150000 timeout 20 "$LATLAB" book replay /dev/zero >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "/dev/zero: exit $rc, want 1: $(cat "$tmp/err")"
grep -q "/dev/zero:1: line longer than" "$tmp/err" || fail "/dev/zero: $(cat "$tmp/err")"

# --- failed writes
if [ -w /dev/full ]; then
    "$LATLAB" book replay "$tmp/four" >/dev/full 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] || fail "stdout on /dev/full: exit $rc, want 1"
    grep -q "No space left on device" "$tmp/err" || fail "/dev/full: $(cat "$tmp/err")"
fi

# --- no silent drops: rejections counted on stderr, exit 3
printf 'L 1 1 S 100 5 GTC\nL 2 1 S 70000 5 GTC\n' >"$tmp/oob"
"$LATLAB" book replay --band 1:65535 "$tmp/oob" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 3 ] || fail "out-of-band order: exit $rc, want 3"
grep -q "rejected ops: 1 (out_of_band 1)" "$tmp/err" || fail "out-of-band summary: $(cat "$tmp/err")"
# the default band holds LOBSTER-scale prices (2^24 ticks)
printf 'L 1 1 S 5850100 5 GTC\n' | "$LATLAB" book replay - >"$tmp/out" 2>/dev/null || fail "default band"

# --- --tick and --price-scale: prices off the tick are malformed lines
printf 'L 1 1 S 5850100 5 GTC\nL 2 1 S 5850150 5 GTC\nL 3 2 B 5850100 2 IOC\n' >"$tmp/tick"
"$LATLAB" book replay --price-scale 10000 --tick 0.01 "$tmp/tick" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "off-tick price: exit $rc, want 1"
grep -q "tick:2: price 5850150 is not on the tick (a multiple of 100)" "$tmp/err" || fail "tick: $(cat "$tmp/err")"
grep -qx "T 1 3 5850100 2" "$tmp/out" || fail "tick: trade missing: $(cat "$tmp/out")"
"$LATLAB" book replay --price-scale 100 --tick 0.001 "$tmp/tick" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q -- "--tick" "$tmp/err" || fail "tick finer than the scale: $(cat "$tmp/err")"

# --- the execution op
printf 'L 1 1 S 100 5 GTC\nE 1 2\nE 1 9\nE 1 3\nE 1 1\n' >"$tmp/exec"
"$LATLAB" book replay "$tmp/exec" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 3 ] || fail "exec: want exit 3 (two rejected)"
printf 'A 1\nT 1 0 100 2\nJ 1 over_execution\nT 1 0 100 3\nD 1\nJ 1 unknown_id\n' | diff -u - "$tmp/out" || fail "exec events"

# --- ITCH: 50 stocks with adds 2^22 ticks apart, in bounded memory
be() { # value bytes -> \x escapes, big-endian
    local v=$1 n=$2 out="" i
    for ((i = n - 1; i >= 0; i--)); do out+=$(printf '\\x%02x' $(((v >> (8 * i)) & 255))); done
    printf '%s' "$out"
}
: >"$tmp/itch"
for loc in $(seq 1 50); do
    for k in 0 1 2; do
        px=$((k == 2 ? 4194300 : k + 1))
        side=$([ $k -eq 2 ] && echo S || echo B)
        printf "\\x00\\x00A$(be "$loc" 2)$(be 0 8)$(be $((loc * 10 + k)) 8)$side$(be 100 4)TEST    $(be $px 4)" >>"$tmp/itch"
    done
done
[ "$(stat -c %s "$tmp/itch")" -eq 5700 ] || fail "itch fixture is $(stat -c %s "$tmp/itch") bytes"
capped 600000 "$LATLAB" book itch "$tmp/itch" >"$tmp/out" 2>"$tmp/err" ||
    fail "50-stock ITCH under a 600 MB limit: exit $?: $(cat "$tmp/err")"
grep -q "0 rejected adds" "$tmp/out" || fail "itch: $(cat "$tmp/out")"
[ "$(grep -c '^[0-9]* *? *3 ' "$tmp/out")" -eq 50 ] || fail "itch: not 50 books of 3: $(cat "$tmp/out")"
"$LATLAB" book itch --tick 0.01 "$tmp/itch" >"$tmp/out" 2>"$tmp/err" || fail "itch --tick: $(cat "$tmp/err")"
grep -q "100 rejected adds" "$tmp/out" || fail "itch --tick: $(cat "$tmp/out")"
"$LATLAB" book itch --price-scale 100 "$tmp/itch" >/dev/null 2>&1
[ $? -eq 2 ] || fail "itch --price-scale 100 should be a usage error"
# /dev/zero is not ITCH: refused at offset 0 without being read to the end
capped 300000 timeout 20 "$LATLAB" book itch /dev/zero >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q "/dev/zero: offset 0: not an ITCH 5.0 message" "$tmp/err" || fail "itch /dev/zero: exit $rc: $(cat "$tmp/err")"
echo "cli_book_limits: ok"
