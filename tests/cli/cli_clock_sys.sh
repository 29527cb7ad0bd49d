#!/usr/bin/env bash
# cli_clock_sys.sh - `latlab clock` and `latlab sys` from the outside: every
# flag's bad forms exit 2 naming the flag, help is the same both ways, unknown
# commands exit 2, --json writes valid JSON, --root reads a fake tree.
set -u
: "${LATLAB:?set LATLAB to the latlab binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect_usage FLAG ARGS...: exit 2 and FLAG named on stderr
expect_usage() {
    local flag=$1; shift
    "$LATLAB" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    [ $rc -eq 2 ] || fail "'$*' exited $rc, want 2"
    grep -q -- "$flag" "$tmp/err" || fail "'$*' did not name $flag: $(cat "$tmp/err")"
}

# --- latlab clock: bad values for each flag ---
for v in "" abc 0 60001 -5 12x 1.5 99999999999999999999999; do
    expect_usage --window-ms clock --window-ms "$v"
done
for v in "" abc -1 3601 1e400 nan 2s 0.0001; do
    expect_usage --drift-s clock --drift-s "$v"
done
for v in "" abc 999 100000001 -1 10k; do
    expect_usage --samples clock --samples "$v"
done
expect_usage --json clock --json ""
expect_usage --window-ms clock --window-ms
expect_usage --json clock --json
expect_usage --bogus clock --bogus
expect_usage stray clock stray
# --- latlab sys ---
expect_usage --json sys --json ""
expect_usage --json sys --json
expect_usage --root sys --root ""
expect_usage --root sys --root "$tmp/does-not-exist"
expect_usage --root sys --root
expect_usage --bogus sys --bogus
expect_usage stray sys stray

# --- help both ways, unknown commands ---
for c in clock sys; do
    "$LATLAB" help "$c" >"$tmp/h1" || fail "latlab help $c failed"
    "$LATLAB" "$c" --help >"$tmp/h2" || fail "latlab $c --help failed"
    cmp -s "$tmp/h1" "$tmp/h2" || fail "latlab help $c differs from latlab $c --help"
    grep -q "usage: latlab $c" "$tmp/h1" || fail "help for $c has no usage line"
done
"$LATLAB" no-such-command >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "unknown command did not exit 2"
grep -q "no-such-command" "$tmp/err" || fail "unknown command not named"
"$LATLAB" help no-such-command >/dev/null 2>&1
[ $? -eq 2 ] || fail "help for an unknown command did not exit 2"

# --- a short real run of each, with JSON ---
"$LATLAB" clock --window-ms 5 --drift-s 0.05 --samples 1000 --json "$tmp/clock.json" >"$tmp/clock.txt" 2>"$tmp/err" ||
    fail "latlab clock failed: $(cat "$tmp/err")"
python3 -m json.tool "$tmp/clock.json" >/dev/null || fail "clock JSON does not parse"
for k in calibrations spread_ppm drift read_cost_p50 granularity_cycles invariant_tsc run_conditions; do
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert sys.argv[2] in d" "$tmp/clock.json" "$k" ||
        fail "clock JSON lacks $k"
done
[ "$(grep -c '^calibration: ' "$tmp/clock.txt")" -eq 3 ] || fail "clock did not print three calibrations"
grep -q 'window: os=.*tsc=.*drift=' "$tmp/clock.txt" || fail "clock printed no drift line"
grep -q 'read cost   unfenced p50=.*fenced p50=.*clock_gettime p50=' "$tmp/clock.txt" || fail "no read cost line"
"$LATLAB" clock --window-ms 5 --drift-s 0 --samples 1000 >"$tmp/clock0.txt" 2>&1 || fail "--drift-s 0 failed"
grep -q 'drift=' "$tmp/clock0.txt" && fail "--drift-s 0 still checked drift"
"$LATLAB" clock --window-ms 5 --drift-s 0 --samples 1000 --json "$tmp/no/such/dir/x.json" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || fail "unwritable --json did not exit 1"

"$LATLAB" sys --json "$tmp/sys.json" >"$tmp/sys.txt" 2>"$tmp/err" || fail "latlab sys failed"
python3 -m json.tool "$tmp/sys.json" >/dev/null || fail "sys JSON does not parse"
grep -q '^governor ' "$tmp/sys.txt" || fail "sys text lacks governor"
grep -q 'warning' "$tmp/sys.txt" && fail "sys printed warnings to stdout"
"$LATLAB" sys --markdown >"$tmp/sys.md" 2>/dev/null || fail "sys --markdown failed"
grep -q '^| condition | value |' "$tmp/sys.md" || fail "sys --markdown has no table"

# --- a fake tree: 4 CPUs, 2 isolated, powersave ---
r="$tmp/root"
mkdir -p "$r/sys/devices/system/cpu" "$r/proc"
echo 0-3 >"$r/sys/devices/system/cpu/online"
echo 2-3 >"$r/sys/devices/system/cpu/isolated"
for c in 0 1 2 3; do
    mkdir -p "$r/sys/devices/system/cpu/cpu$c/topology" "$r/sys/devices/system/cpu/cpu$c/cpufreq"
    echo $c >"$r/sys/devices/system/cpu/cpu$c/topology/thread_siblings_list"
    echo powersave >"$r/sys/devices/system/cpu/cpu$c/cpufreq/scaling_governor"
done
"$LATLAB" sys --root "$r" --json "$tmp/fake.json" >"$tmp/fake.txt" 2>"$tmp/fake.err" || fail "sys --root failed"
grep -q '^governor  *powersave' "$tmp/fake.txt" || fail "fake governor not read"
grep -q "governor is 'powersave'" "$tmp/fake.err" || fail "no governor warning on stderr"
grep -q '2 hot: CPUs 2,3' "$tmp/fake.txt" || fail "fake placement did not prefer isolated CPUs: $(grep hot: "$tmp/fake.txt")"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['topology']['isolated']=='2-3'; assert d['placement'][1]['hot_cpus']==[2,3]" "$tmp/fake.json" ||
    fail "fake JSON wrong"

# Results go to a device or FIFO in place: an atomic rename over /dev/null (as
# root) would replace the device with a regular file.
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/fifo.out" &
reader=$!
"$LATLAB" sys --json "$tmp/fifo" >/dev/null 2>&1 || fail "sys --json FIFO failed"
if [ -p "$tmp/fifo" ]; then wait $reader; else
    fail "the FIFO was replaced by a regular file"
    kill $reader 2>/dev/null
fi
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/fifo.out" || fail "FIFO got no JSON"
"$LATLAB" sys --json "$tmp" >/dev/null 2>"$tmp/dir.err" && fail "sys --json DIR succeeded"
grep -q "Is a directory" "$tmp/dir.err" || fail "sys --json DIR: $(cat "$tmp/dir.err")"

if [ $fails -ne 0 ]; then
    echo "$fails failure(s)"
    exit 1
fi
echo "cli_clock_sys: all checks passed"
