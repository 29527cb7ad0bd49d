#!/bin/bash
# cli_plot.sh - `latlab plot`: SVG from .hlog and .hgrm inputs parses as XML
# (xmllint), has one path per series with points in percentile order, axis
# labels that match the data, a note for empty and one-value inputs; the plot
# of Java's .hgrm for a log equals the plot of the log itself; HTML and JSON
# outputs; bad flags exit 2 naming the flag; corrupt or unreadable input
# exits 1 naming the file and line and leaves no output behind.
set -u
L=${LATLAB:?}
D=${LAT_SRC_DIR:?}/tests/data/plot
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v xmllint >/dev/null || { echo "SKIPPED: xmllint not installed (Debian libxml2-utils)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIPPED: python3 not installed"; exit 77; }

# check SVG NSERIES MAXTICK_MIN MAXTICK_MAX YTITLE XTICKS: structure of a plot.
check() {
    xmllint --noout "$1" || fail "$1 is not well-formed XML"
    python3 - "$@" <<'PY' || fail "structure of $1"
import re, sys
import xml.etree.ElementTree as ET
path, nseries, lo, hi, ytitle, xticks = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5], sys.argv[6]
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(path).getroot()
assert root.tag == ns + "svg", root.tag
assert float(root.get("width")) > 0 and float(root.get("height")) > 0
paths = root.findall(".//" + ns + "path")
assert len(paths) == nseries, f"{len(paths)} paths, want {nseries}"
for p in paths:
    pts = [tuple(map(float, xy.split(","))) for xy in re.findall(r"[-0-9.]+,[-0-9.]+", p.get("d"))]
    assert len(pts) == int(p.get("data-points")), p.get("data-label")
    for a, b in zip(pts, pts[1:]):
        assert b[0] >= a[0], f"{p.get('data-label')}: x goes back {a} -> {b}"
        assert b[1] <= a[1], f"{p.get('data-label')}: value goes down {a} -> {b}"
def texts(cls):
    return [t.text for t in root.iter(ns + "text") if t.get("class") == cls]
xt = "|".join(texts("lat-xtick"))
assert xt == xticks, f"x ticks {xt}, want {xticks}"
yt = texts("lat-ytitle")
assert yt == [ytitle], f"y title {yt}, want {ytitle}"
if lo >= 0:
    top = float(texts("lat-ytick")[-1])
    assert lo <= top <= hi, f"top y tick {top} not in [{lo}, {hi}]"
PY
}

# Two files, one with two tags: three series; alloc's max is 115.2us.
"$L" plot "$D/two_tags.hlog" "$D/alloc.hlog" --slo 2us -o "$T/a.svg" >"$T/out" 2>"$T/err" ||
    fail "plot exited $?: $(cat "$T/err")"
check "$T/a.svg" 3 115.2 200 "latency (us)" "0%|90%|99%|99.9%|99.99%|99.999%|max"
grep -q '>two_tags:e2e</text>' "$T/a.svg" || fail "legend label two_tags:e2e"
grep -q '>two_tags:stage1</text>' "$T/a.svg" || fail "legend label two_tags:stage1"
grep -q '>SLO 2us</text>' "$T/a.svg" || fail "SLO label"
grep -Eq '^alloc +100000 +411ns' "$T/out" || fail "summary table: $(cat "$T/out")"

# --tag picks one tag; a file without it is an empty series with a warning.
"$L" plot "$D/two_tags.hlog" "$D/alloc.hlog" --tag e2e --label base --label other --log-y \
    --theme dark -o "$T/b.svg" >/dev/null 2>"$T/err" || fail "plot --tag exited $?"
check "$T/b.svg" 2 -1 0 "latency (log scale)" "0%|90%|99%|99.9%|99.99%|99.999%|max"
grep -q "no interval tagged 'e2e'" "$T/err" || fail "no warning for missing tag: $(cat "$T/err")"
grep -q '>other (no samples)</text>' "$T/b.svg" || fail "empty series not in legend"
grep -q '>100ns</text>' "$T/b.svg" || fail "log axis from 100ns"
grep -q '>100us</text>' "$T/b.svg" || fail "log axis to 100us"
grep -q 'prefers-color-scheme' "$T/b.svg" && fail "--theme dark still follows the viewer"

# .hgrm text in us, and the CSV variant in ns.
"$L" plot "$D/alloc_us.hgrm" --unit us -o "$T/c.svg" >"$T/out" 2>&1 || fail "hgrm: $(cat "$T/out")"
check "$T/c.svg" 1 3.717 8 "latency (us)" "0%|90%|99%|99.9%|99.99%|99.999%|max"
grep -Eq '^alloc_us +50000 +410ns' "$T/out" || fail "hgrm summary: $(cat "$T/out")"
"$L" plot "$D/alloc.csv" -o "$T/d.svg" >"$T/out" 2>&1 || fail "csv: $(cat "$T/out")"
check "$T/d.svg" 1 3.717 8 "latency (us)" "0%|90%|99%|99.9%|99.99%|99.999%|max"

# Empty and single-value inputs: a valid plot with a note.
"$L" plot "$D/empty.hlog" -o "$T/e.svg" >/dev/null 2>"$T/err" || fail "empty exited $?"
check "$T/e.svg" 1 -1 0 "latency (us)" "0%|90%|99%|99.9%"
grep -q 'no samples to plot' "$T/e.svg" || fail "no note for an empty log"
"$L" plot "$D/one_value.hlog" -o "$T/f.svg" >/dev/null 2>&1 || fail "one value exited $?"
check "$T/f.svg" 1 1.5 2 "latency (us)" "0%|90%|max"
"$L" plot "$D/one_value.hlog" --log-y -o "$T/g.svg" >/dev/null 2>&1 || fail "one value log exited $?"
check "$T/g.svg" 1 -1 0 "latency (log scale)" "0%|90%|max"
grep -Eq 'nan|inf' "$T/g.svg" && fail "NaN/inf in one-value log plot"

# Java's HistogramLogProcessor turns the log into an .hgrm; plotting that text
# must draw exactly the picture latlab draws from the histogram itself.
JAR=/usr/share/java/hdrhistogram.jar
if command -v java >/dev/null && [ -f "$JAR" ]; then
    java -cp "$JAR" org.HdrHistogram.HistogramLogProcessor -i "$D/two_tags.hlog" -tag e2e \
        -outputValueUnitRatio 1 -o "$T/java" >/dev/null 2>&1 || fail "HistogramLogProcessor failed"
    "$L" plot "$T/java.hgrm" --title T --label e2e -o "$T/java.svg" >/dev/null 2>&1 ||
        fail "plot of Java's .hgrm exited $?"
    "$L" plot "$D/two_tags.hlog" --tag e2e --title T --label e2e -o "$T/ours.svg" >/dev/null 2>&1 ||
        fail "plot --tag e2e exited $?"
    cmp -s "$T/java.svg" "$T/ours.svg" || fail "Java's .hgrm and our histogram plot differently"
else
    echo "cli_plot: part SKIPPED: java or $JAR missing (Java .hgrm comparison not run)"
fi

# HTML page and JSON summary.
"$L" plot "$D/two_tags.hlog" --slo 1us -o "$T/r.html" --json "$T/r.json" >/dev/null 2>&1 ||
    fail "html exited $?"
xmllint --html --noout "$T/r.html" 2>"$T/err" || fail "html does not parse: $(cat "$T/err")"
grep -q '<svg' "$T/r.html" || fail "no inline svg"
grep -q '<table>' "$T/r.html" || fail "no table"
grep -Eq 'https?://|<script|<link' "$T/r.html" && fail "page refers outside itself"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = {x["label"]: x for x in d["series"]}
assert s["two_tags:e2e"]["count"] == 100000 and s["two_tags:e2e"]["tag"] == "e2e"
assert 300 <= s["two_tags:e2e"]["p50_ns"] <= 340, s
assert d["slo_ns"] == [1000]
' "$T/r.json" || fail "json"

# Two files of one name tell apart in the legend, the table and the JSON by
# the shortest path suffix that differs; a name no other has stays bare.
mkdir -p "$T/a/x" "$T/b/x" "$T/c"
for d in a/x b/x c; do cp "$D/alloc.hlog" "$T/$d/work.hlog"; done
cp "$D/alloc.hlog" "$T/c/solo.hlog"
cp "$D/alloc_us.hgrm" "$T/c/work.hgrm"
"$L" plot "$T/a/x/work.hlog" "$T/b/x/work.hlog" "$T/c/solo.hlog" -o "$T/n.svg" --json "$T/n.json" \
    >"$T/out" 2>&1 || fail "same-name files: $(cat "$T/out")"
for l in a/x/work b/x/work solo; do
    grep -q ">$l</text>" "$T/n.svg" || fail "legend: no $l: $(grep -o '>[^<]*work[^<]*</text>' "$T/n.svg")"
    grep -Eq "^$l +100000 " "$T/out" || fail "table: no $l: $(cat "$T/out")"
done
python3 -c 'import json,sys; print(" ".join(s["label"] for s in json.load(open(sys.argv[1]))["series"]))' \
    "$T/n.json" | grep -qx "a/x/work b/x/work solo" || fail "json labels: $(cat "$T/n.json")"
# one level is enough where it differs; a stem shared with another extension keeps it
"$L" plot "$T/a/x/work.hlog" "$T/c/work.hlog" "$T/c/work.hgrm" --unit us -o "$T/n.svg" >"$T/out" 2>&1 ||
    fail "same-stem files: $(cat "$T/out")"
for l in x/work c/work.hlog work.hgrm; do
    grep -q ">$l</text>" "$T/n.svg" || fail "legend: no $l: $(grep -o '>[^<]*work[^<]*</text>' "$T/n.svg")"
done

# Bad flags: exit 2 naming the flag.
usage() {
    local want=$1
    shift
    "$L" plot "$@" >/dev/null 2>"$T/err"
    local rc=$?
    [ $rc -eq 2 ] || fail "plot $* exited $rc, want 2"
    grep -q -- "$want" "$T/err" || fail "plot $*: message does not name $want: $(cat "$T/err")"
}
usage --slo "$D/alloc.hlog" -o "$T/x.svg" --slo 1xs
usage --slo "$D/alloc.hlog" -o "$T/x.svg" --slo 0
usage --theme "$D/alloc.hlog" -o "$T/x.svg" --theme purple
usage --unit "$D/alloc.hlog" -o "$T/x.svg" --unit furlongs
usage --ticks "$D/alloc.hlog" -o "$T/x.svg" --ticks 0
usage --tag "$D/alloc.hlog" -o "$T/x.svg" --tag 'a,b'
usage --label "$D/alloc.hlog" -o "$T/x.svg" --label a --label b
usage --output "$D/alloc.hlog"
usage --bogus "$D/alloc.hlog" -o "$T/x.svg" --bogus
usage FILE -o "$T/x.svg"
# -o - is not stdout (stdout carries the table): a usage error, and no file named "-"
(cd "$T" && usage --output "$D/alloc.hlog" -o -) || exit 1
[ -e "$T/-" ] && fail "plot -o - wrote a file named -"
[ -e "$T/x.svg" ] && fail "usage error wrote output"

# Corrupt, truncated and unreadable input: exit 1 naming file and line, no output.
echo keep >"$T/keep.svg"
runtime() {
    local want=$1
    shift
    "$L" plot "$@" -o "$T/keep.svg" >/dev/null 2>"$T/err"
    local rc=$?
    [ $rc -eq 1 ] || fail "plot $* exited $rc, want 1"
    grep -q -- "$want" "$T/err" || fail "plot $*: message does not name $want: $(cat "$T/err")"
    [ "$(cat "$T/keep.svg")" = keep ] || fail "plot $* touched the output"
}
sed '6s/HISTF/HXSTF/' "$D/two_tags.hlog" >"$T/bad.hlog"
runtime "bad.hlog:6:" "$T/bad.hlog"
head -c 1000 "$D/two_tags.hlog" >"$T/trunc.hlog"
runtime "trunc.hlog:5:" "$T/trunc.hlog"
sed '7s/.*/  0.5 banana 3/' "$D/alloc_us.hgrm" >"$T/bad.hgrm"
runtime "bad.hgrm:7:" "$T/bad.hgrm"
runtime "missing.hlog" "$T/missing.hlog"
"$L" plot "$D/alloc.hlog" -o "$T/no/such/dir/x.svg" >/dev/null 2>"$T/err"
[ $? -eq 1 ] || fail "unwritable output did not exit 1"
grep -q "no/such/dir/x.svg" "$T/err" || fail "unwritable output not named: $(cat "$T/err")"

# a .hgrm reads as its log would, without interpolation: with a row on every
# percentile (--ticks 1000) the figures equal the log's; where no row falls on
# one (default ticks), it says so with the bracket; a table printed too
# coarsely (ms with 3 decimals for ns-scale values) is called out
"$L" hist percentiles "$D/alloc.hlog" --scale 1 --ticks 1000 -o "$T/fine.hgrm" || fail "fine table"
"$L" hist percentiles "$D/alloc.hlog" --scale 1 -o "$T/coarse.hgrm" || fail "default table"
"$L" hist percentiles "$D/alloc.hlog" --scale 1000000 -o "$T/ms.hgrm" || fail "ms table"
"$L" plot "$D/alloc.hlog" -o "$T/h.svg" --json "$T/h.json" >/dev/null 2>&1 || fail "plot of the log"
"$L" plot "$T/fine.hgrm" -o "$T/f.svg" --json "$T/f.json" >/dev/null 2>"$T/err" || fail "plot of fine.hgrm"
python3 - "$T/h.json" "$T/f.json" <<'PY' || fail "fine .hgrm percentiles differ from the log's"
import json, sys
a, b = (json.load(open(f))["series"][0] for f in sys.argv[1:3])
for k in ("p50_ns", "p90_ns", "p99_ns", "p99.9_ns", "p99.99_ns", "max_ns", "count"):
    assert a[k] == b[k], (k, a[k], b[k])
PY
"$L" plot "$T/coarse.hgrm" -o "$T/c.svg" >/dev/null 2>"$T/err" || fail "plot of coarse.hgrm"
grep -q "no table row falls on p99 in (" "$T/err" || fail "no bracket warning: $(cat "$T/err")"
"$L" plot "$T/ms.hgrm" --unit ms -o "$T/m.svg" >/dev/null 2>"$T/err" || fail "plot of ms.hgrm"
grep -q "printed in steps of 1000 ns" "$T/err" || fail "no precision warning: $(cat "$T/err")"

# every .hgrm latlab writes plots: the --ci tables (text and CSV, as `latlab
# load --hgrm` writes them too) read as the table without intervals does
for v in "" --csv; do
    "$L" hist percentiles "$D/alloc.hlog" --scale 1 --ticks 1000 --ci $v -o "$T/ci.hgrm" 2>/dev/null ||
        fail "--ci $v table"
    "$L" plot "$T/ci.hgrm" -o "$T/ci.svg" --json "$T/ci.json" >/dev/null 2>"$T/err" ||
        fail "plot of a --ci $v table: $(cat "$T/err")"
    python3 - "$T/f.json" "$T/ci.json" <<'PY' || fail "--ci $v .hgrm percentiles differ from the plain table's"
import json, sys
a, b = (json.load(open(f))["series"][0] for f in sys.argv[1:3])
for k in ("p50_ns", "p90_ns", "p99_ns", "p99.9_ns", "p99.99_ns", "max_ns", "count"):
    assert a[k] == b[k], (k, a[k], b[k])
PY
done
# a CI table's row without its intervals is not a row
grep -v '^#' "$T/ci.hgrm" | sed '3s/,[^,]*,[^,]*$//' >"$T/badci.hgrm"
runtime "badci.hgrm:3:" "$T/badci.hgrm"

"$L" help plot | grep -q -- '--slo' || fail "help plot"
echo "cli_plot: ok"
