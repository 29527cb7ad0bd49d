#!/usr/bin/env bash
# prom-scrape-effect.sh - does serving /metrics move the hot threads' tail?
# ROUNDS rounds, each: one `latlab pipeline` run without --metrics and one
# with --metrics scraped every second by a client asking for protobuf
# (classic + native, the heaviest exposition) and text in turn, interleaved
# so machine drift hits both alike.  Prints the e2e p50 and p99.9 of every
# run and the median per arm.  Figures only, never pass/fail.
#
# usage: scripts/prom-scrape-effect.sh [BUILD_DIR]   env: ROUNDS (3), EVENTS (400000), RATE (200000)
set -euo pipefail
B=${1:-${LAT_BUILD_DIR:-build}}
L=$B/latlab
ROUNDS=${ROUNDS:-3}
EVENTS=${EVENTS:-400000}
RATE=${RATE:-200000}
command -v curl >/dev/null && command -v jq >/dev/null || { echo "needs curl and jq" >&2; exit 1; }
tmp=$(mktemp -d)
scraper=
trap '[ -n "$scraper" ] && kill $scraper 2>/dev/null; rm -rf "$tmp"' EXIT
PB='application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited'
run() { # ARM ROUND
    local args=() out=$tmp/$1.$2
    [ "$1" = scraped ] && args=(--metrics 127.0.0.1:0)
    "$L" pipeline --events "$EVENTS" --rate "$RATE" --json "$out.json" "${args[@]}" \
        >"$out.txt" 2>"$out.err" &
    local pid=$! port= n=0
    if [ "$1" = scraped ]; then
        for _ in $(seq 100); do
            port=$(grep -o 'serving http://127.0.0.1:[0-9]*' "$out.err" 2>/dev/null | sed 's/.*://') && [ -n "$port" ] && break
            sleep 0.02
        done
        (while kill -0 $pid 2>/dev/null; do
            curl -fs -H "Accept: $PB" -o /dev/null "http://127.0.0.1:$port/metrics" || true
            sleep 0.5
            curl -fs -o /dev/null "http://127.0.0.1:$port/metrics" || true
            sleep 0.5
        done) &
        scraper=$!
    fi
    wait $pid
    [ -n "$scraper" ] && { kill $scraper 2>/dev/null || true; wait $scraper 2>/dev/null || true; scraper=; }
    jq -r --arg arm "$1" '[$arm, .stages_ns.e2e."p50", .stages_ns.e2e."p99.9", .counts.dropped] | @tsv' "$out.json" |
        tee -a "$tmp/all.tsv"
}
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $EVENTS events at $RATE/s per run; arm, e2e p50 ns, p99.9 ns, drops"
for ((r = 1; r <= ROUNDS; r++)); do
    if ((r % 2)); then run plain $r; run scraped $r; else run scraped $r; run plain $r; fi
done
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for arm in plain scraped; do
    p50=$(awk -v a=$arm '$1 == a { print $2 }' "$tmp/all.tsv" | med)
    p999=$(awk -v a=$arm '$1 == a { print $3 }' "$tmp/all.tsv" | med)
    echo "median $arm: e2e p50 $p50 ns, p99.9 $p999 ns ($ROUNDS runs)"
done
