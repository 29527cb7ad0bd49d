#!/bin/bash
# cli_top_java.sh - `latlab top` reads an interval log written by the Java
# reference's HistogramLogWriter (tests/interop/JavaLogWriter.java, tagged
# 1.3 with BaseTime): per tag, the cumulative p99.9 after the last interval
# equals the one Java computes over the same intervals.
set -euo pipefail
: "${LATLAB:?}" "${LAT_SRC_DIR:?}"
JAR=/usr/share/java/hdrhistogram.jar
if ! command -v java >/dev/null || ! command -v javac >/dev/null || [ ! -f "$JAR" ]; then
    echo "SKIPPED: Java reference not installed (java, javac, $JAR)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
javac -nowarn -d "$tmp" -cp "$JAR" "$LAT_SRC_DIR/tests/interop/JavaLogWriter.java"
(cd "$tmp" && TZ=UTC java -cp "$JAR:$tmp" JavaLogWriter write "$tmp/java.hlog" >"$tmp/figures")
"$LATLAB" top --no-follow "$tmp/java.hlog" >"$tmp/top"
checked=0
while read -r tag count _ _ _ _ _ _ _ p999 _; do
    row=$tag
    [ "$tag" = "-" ] && row=java
    got=$(grep " $row count=" "$tmp/top" | tail -n 1 | sed 's/.*cum_p99.9=//')
    want=$(awk -v v="$p999" 'BEGIN {printf "%.3f", v / 1000}')
    [ "$got" = "$want" ] || { echo "FAIL: tag $tag: top cumulative p99.9 $got, Java $want"; exit 1; }
    n=$(grep " $row count=" "$tmp/top" | sed 's/.* count=\([0-9]*\).*/\1/' | awk '{s += $1} END {print s}')
    [ "$n" = "$count" ] || { echo "FAIL: tag $tag: top saw $n values, Java $count"; exit 1; }
    checked=$((checked + 1))
done <"$tmp/figures"
[ "$checked" -ge 2 ] || { echo "FAIL: Java printed $checked tags"; exit 1; }
echo "PASS: $checked tags match the Java reference"
