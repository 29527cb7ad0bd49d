#!/usr/bin/env bash
# cli_input_bounds.sh - memory and time follow the data a log holds, not what
# it declares or how long it runs on.  A 2 KB log whose 20 lines each declare
# 5 significant digits up to 2^62 (one count each) is refused by `latlab top`
# (its cumulative histograms would pass 256 MiB) and `latlab plot` (the
# decoding cap: slots in proportion to the log's bytes), each naming the file
# and the byte offset, under an address-space limit the old behaviour broke
# (~1 GB).  A 20 MiB line after a good one and an endless stream of header
# lines are refused by `top` (line and header caps) instead of read whole,
# and a stage's cumulative count passing 2^63 - 1 is refused, not wrapped.
set -u
L=${LATLAB:?path of the latlab tool}
command -v timeout >/dev/null || { echo "SKIPPED: no timeout(1)"; exit 77; }
case "${LAT_SANITIZE:-}" in
*address*) echo "SKIPPED: address-space limits do not suit ASan"; exit 77 ;;
esac
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

hdr() {
    printf '#[Histogram log format version 1.3]\n#[StartTime: 0.000 (seconds since epoch), Thu Jan 01 00:00:00 UTC 1970]\n'
    printf '#[BaseTime: 0.000 (seconds since epoch)]\n"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"\n'
}
# 5 digits, 1..2^62, one count at 2^61 (47 MB of slots decoded)
BIG=HISTFAAAACF4XpNpmSzMwMDAygABMJrRAcqw/wCh//8/z8oEAFglBZU=
# 3 digits, one value of 1000 counted 2^62 - 1 times
HUGE=HISTFAAAACh4XpNpmSzMwMDAzQABzFCaEch0M9ixgMH+A0TgPP+//xBQDwC1Gw2q

{ hdr; for i in $(seq 0 19); do echo "Tag=t$i,0.000,1.000,2305860601399.738,$BIG"; done; } >"$T/tags.hlog"
{ hdr; for i in $(seq 0 59); do echo "0.000,1.000,2305860601399.738,$BIG"; done; } >"$T/lines.hlog"

# 700 MB of address space: far more than any bounded run needs.
lim() { (ulimit -v 700000 && timeout 60 "$@"); }

lim "$L" top --no-follow "$T/tags.hlog" >/dev/null 2>"$T/err"
rc=$?
[ $rc = 1 ] || fail "top on 20 wide tags: exit $rc, want 1 ($(tail -1 "$T/err"))"
grep -q "tags.hlog: byte [0-9]*: stage t[0-9]*: .*past the cap of 256 MiB" "$T/err" ||
    fail "top on 20 wide tags: no cap naming file and offset: $(tail -1 "$T/err")"

lim "$L" plot "$T/lines.hlog" -o "$T/p.svg" >/dev/null 2>"$T/err"
rc=$?
[ $rc = 1 ] || fail "plot of 60 wide lines: exit $rc, want 1 ($(tail -1 "$T/err"))"
grep -q "lines.hlog:[0-9]*: byte [0-9]*: .*past the cap" "$T/err" ||
    fail "plot of 60 wide lines: no cap naming file and offset: $(tail -1 "$T/err")"

lim "$L" hist summary "$T/lines.hlog" >/dev/null 2>"$T/err"
[ $? = 1 ] && grep -q "past the cap" "$T/err" || fail "hist summary of 60 wide lines: $(tail -1 "$T/err")"

# A line of 20 MiB after a good one: refused, not read whole.
{ hdr; echo "Tag=a,0.000,1.000,0.001,$HUGE"; head -c 20000000 /dev/zero | tr '\0' A; echo; } >"$T/long.hlog"
lim "$L" top --no-follow "$T/long.hlog" >/dev/null 2>"$T/err"
rc=$?
[ $rc = 1 ] && grep -q "long.hlog:6: byte [0-9]*: line longer than" "$T/err" ||
    fail "top on a 20 MiB line: exit $rc: $(tail -1 "$T/err")"

# An endless stream: header lines without end are refused at 1 MiB.
yes '#[Comment: header]' | lim "$L" top --no-follow /dev/stdin >/dev/null 2>"$T/err"
rc=${PIPESTATUS[1]}
[ $rc = 1 ] && grep -q "header lines .* past 1048576 bytes" "$T/err" ||
    fail "top on endless header lines: exit $rc: $(tail -1 "$T/err")"

# Counts that do not fit: the cumulative total would pass 2^63 - 1.
{ hdr; echo "Tag=a,0.000,1.000,0.001,$HUGE"; echo "Tag=a,1.000,1.000,0.001,$HUGE"; echo "Tag=a,2.000,1.000,0.001,$HUGE"; } >"$T/sum.hlog"
lim "$L" top --no-follow "$T/sum.hlog" >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 1 ] && grep -q "sum.hlog: byte [0-9]*: stage a: the cumulative count would pass" "$T/err" ||
    fail "top on counts passing 2^63: exit $rc: $(tail -1 "$T/err")"
grep -q "cum_p99.9=1.000" "$T/out" || fail "top on counts passing 2^63: first intervals not shown: $(cat "$T/out")"

[ $fails = 0 ] && echo "PASS" || exit 1
