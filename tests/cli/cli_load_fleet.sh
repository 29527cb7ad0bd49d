#!/usr/bin/env bash
# cli_load_fleet.sh - two `latlab load` instances against one server, both
# pushing their histograms to a real Pushgateway scraped by a real Prometheus
# (started here on 127.0.0.1, always stopped): the fleet's p50/p99/p99.9 by
# PromQL (histogram_quantile over the summed buckets) equal latlab's
# percentiles of the two instances' merged interval logs within the classic
# conversion's stated bound (1/3: one bucket of the 1-2.5-5 ladder), and the
# fleet's count equals the requests both completed less those censored.  SKIPPED (77) when
# prometheus, its Pushgateway, curl, jq or python3 is missing.
set -u
LATLAB=${LATLAB:?path of the latlab tool}
SRC=${LAT_SRC_DIR:?source dir}
PROM=$(command -v prometheus || true)
PGW=$(command -v prometheus-pushgateway || true)
PY=$(command -v /usr/bin/python3 || command -v python3) || { echo "SKIPPED: python3 is not installed"; exit 77; }
[ -n "$PROM" ] || { echo "SKIPPED: prometheus is not installed (Debian package prometheus)"; exit 77; }
[ -n "$PGW" ] || { echo "SKIPPED: prometheus-pushgateway is not installed"; exit 77; }
command -v jq >/dev/null || { echo "SKIPPED: jq is not installed"; exit 77; }
command -v curl >/dev/null || { echo "SKIPPED: curl is not installed"; exit 77; }
# shellcheck source=support/servers.sh
. "$SRC/tests/support/servers.sh"
# shellcheck source=support/promq.sh
. "$SRC/tests/support/promq.sh"

"$PY" "$SRC/tests/support/loadpeer.py" >"$tmp/peer.out" 2>"$tmp/peer.log" &
pids+=($!)
pg=$(free_port)
"$PGW" --web.listen-address="127.0.0.1:$pg" --persistence.file="$tmp/pushgateway.data" \
    --log.level=warn >"$tmp/pushgateway.log" 2>&1 &
pids+=($!)
cat >"$tmp/prom.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
$(pgw_job "$pg")
EOF
prom_start classic
pc=$prom_port
port=$(listening_port "$tmp/peer.out") || fail "peer did not start"
wait_http "http://127.0.0.1:$pg/metrics" || fail "pushgateway did not start"
wait_http "http://127.0.0.1:$pc/-/ready" || fail "prometheus did not start"

run=loadfleet-$$-$RANDOM
gen=()
for h in 1 2; do
    "$LATLAB" load "127.0.0.1:$port" --rate $((h * 1000)) --duration 2s --connections 16 --quiet \
        --hlog "$tmp/gen$h.hlog" --json "$tmp/gen$h.json" --push "http://127.0.0.1:$pg" \
        --run-label "$run" --host-label "gen-$h" >"$tmp/gen$h.out" 2>"$tmp/gen$h.err" &
    gen+=($!)
done
for p in "${gen[@]}"; do wait "$p" || fail "a generator exited $?"; done
read -r t50 t99 t999 count <<<"$(truth "$tmp/gen1.hlog" "$tmp/gen2.hlog")"
# the latency series holds the requests the senders' platform gaps did not censor
done_sum=$(python3 -c "import json,sys; print(sum(json.load(open(f))['counts']['completed'] - json.load(open(f))['censored']['n'] for f in sys.argv[1:]))" \
    "$tmp/gen1.json" "$tmp/gen2.json")
[ "$count" = "$done_sum" ] || fail "merged logs hold $count latencies, the generators completed $done_sum uncensored"
sel="stage=\"latency\",run=\"$run\""
wait_value "$pc" "sum(latlab_load_seconds_count{$sel})" "$count" 20 || fail "the fleet's count is not in prometheus"
echo "latlab merged logs: p50 $t50 ns, p99 $t99 ns, p99.9 $t999 ns over $count requests"
set -- "$t50" "$t99" "$t999"
for q in 0.5 0.99 0.999; do
    v=$(query "$pc" "histogram_quantile($q, sum by (le) (latlab_load_seconds_bucket{$sel}))")
    check "fleet latency p$(awk -v q=$q 'BEGIN { print q * 100 }')" "$v" "$1" 0.3334
    shift
done
echo "PASS"
