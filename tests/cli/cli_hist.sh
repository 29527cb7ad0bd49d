#!/usr/bin/env bash
# cli_hist.sh - `latlab hist`: tags, summary, percentiles (text, CSV, JSON,
# -o), merge, and the errors: corrupt or truncated logs exit 1 naming the file,
# line and reason (and leave -o targets untouched); bad flags exit 2.
set -u
LATLAB=${LATLAB:?path of the latlab tool}
SRC=${LAT_SRC_DIR:?source dir}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# 4 intervals of 100,000 values written by latlab; the third is tagged B.
log=$SRC/tests/fuzz/corpus/fuzz_hlog_read/latlab_tagged.hlog
[ -f "$log" ] || fail "missing $log"

out=$("$LATLAB" hist tags "$log") || fail "tags exit $?"
[ "$out" = $'(untagged)\nB' ] || fail "tags printed: $out"

out=$("$LATLAB" hist summary "$log" --json "$tmp/s.json") || fail "summary exit $?"
echo "$out"
echo "$out" | grep -Eq '^\(untagged\) +300000 ' || fail "summary untagged count"
echo "$out" | grep -Eq '^B +100000 ' || fail "summary B count"
grep -q '"p99_99"' "$tmp/s.json" || fail "summary json"

"$LATLAB" hist percentiles "$log" -o "$tmp/p.hgrm" --json "$tmp/p.json" 2>"$tmp/err" || fail "percentiles exit $?"
# no --scale: the unit comes from the data (a median of 701 ns prints in ns, not 0.001 ms)
grep -q "values divided by 1 (the median is 701" "$tmp/err" || fail "auto scale: $(cat "$tmp/err")"
grep -Eq '^ +701\.000 0\.5' "$tmp/p.hgrm" || fail "auto scale table: $(sed -n 4,8p "$tmp/p.hgrm")"
"$LATLAB" hist percentiles "$log" --intervals 2>"$tmp/err" | grep -q ': I:' || fail "auto scale --intervals"
grep -q "values divided by 1 " "$tmp/err" || fail "auto scale --intervals: $(cat "$tmp/err")"
head -1 "$tmp/p.hgrm" | grep -q '^#\[Overall percentile distribution between 0.000 and <Infinite>' || fail "hgrm header"
grep -q '^#\[Max     = ' "$tmp/p.hgrm" || fail "hgrm footer"
grep -q '"count": 300000' "$tmp/p.json" || fail "percentiles json: $(cat "$tmp/p.json")"
"$LATLAB" hist percentiles "$log" --tag B --scale 1 --ticks 2 --csv | sed -n 4p |
    grep -Eq '^[0-9]+\.000,0\.000000000000,[0-9]+,1\.00$' || fail "csv row"
n=$("$LATLAB" hist percentiles "$log" --intervals | grep -c ': I:')
[ "$n" = 3 ] || fail "intervals: $n lines"
n=$("$LATLAB" hist percentiles "$log" --intervals --start 1 --end 1.5 | grep -c ': I:')
[ "$n" = 1 ] || fail "range: $n lines"

cp "$log" "$tmp/other.hlog"
"$LATLAB" hist merge "$log" "$tmp/other.hlog" -o "$tmp/m.hlog" || fail "merge exit $?"
head -1 "$tmp/m.hlog" | grep -qF '#[Histogram log format version 1.3]' || fail "merge header"
"$LATLAB" hist summary "$tmp/m.hlog" | grep -Eq '^\(untagged\) +600000 ' || fail "merged count"
# One file named twice (the same path, or a link to it) is read once, and said.
ln -s "$log" "$tmp/link.hlog"
"$LATLAB" hist merge "$log" "$tmp/link.hlog" "$log" -o "$tmp/m1.hlog" 2>"$tmp/err" || fail "merge twice exit $?"
"$LATLAB" hist summary "$tmp/m1.hlog" | grep -Eq '^\(untagged\) +300000 ' || fail "merge counted a file twice"
[ "$(grep -c 'is the same file as' "$tmp/err")" = 2 ] || fail "merge twice message: $(cat "$tmp/err")"

# A killed run's temporary of the same target (its process gone) is removed by
# the next write; a live process's, or one of another naming, stays.
dead=$(sh -c 'echo $$')
sleep 30 & live=$!
: >"$tmp/m1.hlog.tmp.$dead.AbCdEf"
: >"$tmp/m1.hlog.tmp.$live.AbCdEf"
: >"$tmp/m1.hlog.tmp.XyZ123"
"$LATLAB" hist merge "$log" -o "$tmp/m1.hlog" || fail "merge over stale temporaries"
kill $live
[ ! -e "$tmp/m1.hlog.tmp.$dead.AbCdEf" ] || fail "a dead run's temporary stayed"
[ -e "$tmp/m1.hlog.tmp.$live.AbCdEf" ] || fail "a live process's temporary was removed"
[ -e "$tmp/m1.hlog.tmp.XyZ123" ] || fail "a temporary of another naming was removed"
rm -f "$tmp"/m1.hlog.tmp.*

# Corrupt and truncated input: exit 1, file:line: reason; -o target untouched.
echo keep >"$tmp/keep.hgrm"
head -c 3000 "$log" >"$tmp/trunc.hlog"
"$LATLAB" hist percentiles "$tmp/trunc.hlog" -o "$tmp/keep.hgrm" 2>"$tmp/err"
rc=$?
[ $rc = 1 ] || fail "truncated: exit $rc"
grep -q "trunc.hlog:[0-9][0-9]*: " "$tmp/err" || fail "truncated message: $(cat "$tmp/err")"
[ "$(cat "$tmp/keep.hgrm")" = keep ] || fail "-o target was touched"
cat "$tmp/err"
sed '6s/HISTF/HIS!F/' "$log" >"$tmp/bad.hlog"
"$LATLAB" hist summary "$tmp/bad.hlog" 2>"$tmp/err"; rc=$?
[ $rc = 1 ] || fail "corrupt: exit $rc"
grep -q "bad.hlog:6: bad histogram" "$tmp/err" || fail "corrupt message: $(cat "$tmp/err")"
sed '5s/^0.000,/0.0x0,/' "$log" >"$tmp/bad2.hlog"
"$LATLAB" hist tags "$tmp/bad2.hlog" 2>"$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "bad2.hlog:5: bad start timestamp" "$tmp/err" || fail "bad field: $rc $(cat "$tmp/err")"
"$LATLAB" hist tags "$tmp/nope.hlog" 2>/dev/null; [ $? = 1 ] || fail "missing file not exit 1"

# Usage errors: exit 2 naming the flag.
# --ci: two more columns that parse, bound each row's value, and never shrink
# as the percentile grows past the median; the CSV form has 6 fields; JSON
# carries lo/hi; without --ci there is no trace of them (interop test: Java).
"$LATLAB" hist percentiles "$log" --ci --scale 1 >"$tmp/ci.txt" || fail "--ci exit $?"
awk 'NR>4 && !/^#/ && NF>0 {
       lo = $(NF-1); hi = $NF; v = $1
       if (lo + 0 > v + 0 || v + 0 > hi + 0) { print "row " NR ": " $0; bad = 1 }
       if ($2 + 0 >= 0.5 && (lo + 0 < plo || hi + 0 < phi)) { print "shrank at row " NR; bad = 1 }
       if ($2 + 0 >= 0.5) { plo = lo; phi = hi }
       rows++ }
     END { if (bad || rows < 20) exit 1 }' "$tmp/ci.txt" || fail "--ci rows: $(head -20 "$tmp/ci.txt")"
sed -n 3p "$tmp/ci.txt" | grep -Eq 'CI_Low +CI_High$' || fail "--ci header"
grep -q '^#\[CI      = 95% confidence' "$tmp/ci.txt" || fail "--ci footer"
"$LATLAB" hist percentiles "$log" --ci --csv --confidence 99 --tag B | awk -F, '!/^#/ && NF!=6 {exit 1}' ||
  fail "--ci --csv fields"
"$LATLAB" hist percentiles "$log" --scale 1 | grep -q 'CI_' && fail "CI columns without --ci"
"$LATLAB" hist percentiles "$log" --json "$tmp/ci.json" -o /dev/null || fail "json exit"
grep -q '"lo":' "$tmp/ci.json" && grep -q '"hi":' "$tmp/ci.json" || fail "percentile json lo/hi"
grep -q '"p99_9_lo":' "$tmp/s.json" || fail "summary json lo"
"$LATLAB" hist summary "$log" | grep -Eq '^  95% CI p50 \[[0-9.]+, [0-9.]+\]' || fail "summary CI line"
"$LATLAB" hist percentiles "$log" --confidence 7 2>/dev/null; [ $? = 2 ] || fail "--confidence 7"
"$LATLAB" hist tags "$log" --confidence 0.9 2>/dev/null; [ $? = 2 ] || fail "tags --confidence"
"$LATLAB" hist percentiles "$log" --ci --intervals 2>"$tmp/err"; [ $? = 2 ] && grep -q -- --ci "$tmp/err" ||
  fail "--ci --intervals"
"$LATLAB" hist percentiles "$log" --ticks 0 2>"$tmp/err"; [ $? = 2 ] || fail "--ticks 0"
grep -q -- '--ticks' "$tmp/err" || fail "--ticks not named"
"$LATLAB" hist percentiles "$log" --bogus 2>/dev/null; [ $? = 2 ] || fail "unknown flag"
"$LATLAB" hist percentiles 2>/dev/null; [ $? = 2 ] || fail "no file"
"$LATLAB" hist merge "$log" 2>/dev/null; [ $? = 2 ] || fail "merge without -o"
"$LATLAB" hist frobnicate 2>/dev/null; [ $? = 2 ] || fail "unknown subcommand"
"$LATLAB" hist --help | grep -q 'latlab hist percentiles' || fail "help"
echo "cli_hist: ok"
