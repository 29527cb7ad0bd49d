#!/usr/bin/env bash
# cli_strict_args.sh - argument rules every command shares, checked before any
# work: empty output paths exit 2 naming the flag; an output file in a missing
# directory exits 1 at once; durations are plain decimal, at most one day and
# not below 1 ns; float flags take no hex or '+'; and the small cases an
# adversarial pass found (octal seeds, --hlog-interval without --hlog-dir,
# plot -o x.png, co's defaults, "line -1", empty logs, `help help`).
set -u
L=${LATLAB:?path of the latlab tool}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect RC NEEDLE ARGS...: exit status RC and NEEDLE on stderr, within 10 s
expect() {
    local want=$1 needle=$2
    shift 2
    timeout 10 "$L" "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    [ $rc -eq "$want" ] || fail "'$*' exited $rc, want $want: $(head -2 "$T/err")"
    grep -q -- "$needle" "$T/err" || fail "'$*' did not say '$needle': $(head -2 "$T/err")"
}

"$L" pipeline --shape compact --events 1000 --hlog-dir "$T/logs" >/dev/null 2>&1 || fail "fixture run"
log=$T/logs/e2e.hlog

# empty output paths, every command that writes files
expect 2 "--json: empty path" clock --json ''
expect 2 "--json: empty path" sys --json ''
expect 2 "--json: empty path" dce --json ''
expect 2 "--json: empty path" co --quick --json ''
expect 2 "--json: empty path" bakeoff ring --json ''
expect 2 "--json: empty path" stat --json '' -- true
expect 2 "--json: empty path" silence --cpus 0 --json ''
expect 2 "--json: empty path" pipeline --json ''
expect 2 "--hlog-dir: empty path" pipeline --hlog-dir ''
expect 2 "--flight-out: empty path" pipeline --flight-threshold 1ms --flight-out ''
expect 2 "--out: empty path" lab --quick --out ''
expect 2 "--json: empty path" lab --quick --json ''
expect 2 "--json: empty path" hist summary "$log" --json ''
expect 2 "-o (--output/--out): empty path" hist merge "$log" -o ''
expect 2 "--output: empty path" hist percentiles "$log" --output=
expect 2 "-o (--output/--out): empty path" plot "$log" -o ''
expect 2 "--out: empty path" book bench mixed_70_20_10 --quick --out ''
expect 2 "--json: empty path" book replay --json '' /dev/null
# arguments after -- belong to the child
"$L" stat -- sh -c 'exit 0' --json '' >/dev/null 2>&1 || fail "stat: a child's '--json \"\"' was taken as ours"

# output files never create directories: refused before the run
expect 1 "No such file or directory" clock --json "$T/no/such/dir/x.json"
expect 1 "No such file or directory" co --quick --json "$T/no/such/x.json"
expect 1 "No such file or directory" hist merge "$log" -o "$T/no/such/m.hlog"
# a file where a folder should be: the kernel's reason, not "does not exist"
: >"$T/afile"
expect 1 "afile: Not a directory" hist summary "$log" --json "$T/afile/x.json"
# a folder where a file should be: refused before any work (the lab would
# otherwise run every round first), for every command with --json/--flight-out
mkdir -p "$T/adir"
expect 1 "--json: $T/adir: Is a directory" lab --quick --out "$T/lab1" --json "$T/adir"
expect 1 "--json: $T/adir: Is a directory" pipeline --events 1000 --json "$T/adir"
expect 1 "--flight-out: $T/adir: Is a directory" pipeline --events 1000 --flight-out "$T/adir"
# a table built from a minority of the events says so, and the run fails unless asked
expect 1 "dropped .*% of the samples (--sample-ring N larger, or --allow-drops)" \
    pipeline --events 20000 --sample-ring 2
grep -q '^\[warning: these figures come from [0-9]* of 20000 events' "$T/out" ||
    fail "the table of a run that dropped samples does not say so"
timeout 10 "$L" pipeline --events 20000 --sample-ring 2 --allow-drops >"$T/out" 2>&1 ||
    fail "--allow-drops: exit $?"
# an input that is not what it claims: read before the first round, not after all of them
printf 'garbage' >"$T/bad.itch"
expect 1 "--replay: $T/bad.itch: offset 0: not an ITCH 5.0 message" lab --quick --out "$T/lab2" \
    --replay "$T/bad.itch"
grep -q '^round' "$T/out" && fail "lab --replay bad.itch ran rounds before refusing the capture"
# output directories are created with their parents
"$L" pipeline --shape compact --events 500 --hlog-dir "$T/new/parents/d" >/dev/null 2>&1 &&
    [ -f "$T/new/parents/d/e2e.hlog" ] || fail "--hlog-dir did not create its parents"

# numbers: decimal only, durations bounded
expect 2 "not a decimal number" clock --drift-s 0x10
expect 2 "not a decimal number" clock --drift-s +1
expect 2 "not a duration" co --quick --service 0x10ms
expect 2 "above the maximum duration" co --quick --service 1e10s
expect 2 "above the maximum duration" co --quick --service 9300000000000000000
expect 2 "below 1 ns" pipeline --flight-threshold 1e-20
expect 2 "only with --hlog-dir" pipeline --hlog-interval 10ms
expect 2 "must be a power of two" bakeoff ring --capacity 1000
expect 2 "plot writes .svg or .html" plot "$log" -o "$T/x.png"

# book bench --seed is decimal: 010 is ten
"$L" book bench mixed_70_20_10 --quick --seed 010 --out "$T/bb" >/dev/null 2>&1 || fail "book bench --seed 010"
grep -q '"seed": *10[,}]\?' "$T/bb/bench.json" || fail "--seed 010 was not read as 10: $(grep -o '"seed": *[0-9]*' "$T/bb/bench.json")"

# co: a default the user never typed is not an error
"$L" co --events 500 closed >/dev/null 2>"$T/err" || fail "co --events 500 failed: $(cat "$T/err")"
expect 2 "--stall-at" co --events 500 --stall-at 600

# --flight-baseline of a missing file: no "line -1"
expect 1 "flight-baseline" pipeline --flight-threshold auto --flight-baseline "$T/none.json"
grep -q "line -1" "$T/err" && fail "--flight-baseline says line -1: $(cat "$T/err")"

# an empty log is an error for every hist subcommand
: >"$T/empty.hlog"
expect 1 "no intervals" hist tags "$T/empty.hlog"
expect 1 "no intervals" hist summary "$T/empty.hlog"
expect 1 "no intervals" hist percentiles "$T/empty.hlog"

# help help
"$L" help help >"$T/out" 2>&1 || fail "latlab help help exited $?"
grep -q "usage: latlab help" "$T/out" || fail "help help: $(cat "$T/out")"

[ $fails -eq 0 ] && echo "cli_strict_args: all passed"
exit $((fails > 0))
