#!/usr/bin/env bash
# prom_fleet.sh - fleet percentiles through a real Prometheus (Debian 2.42) and
# Pushgateway (1.5.1), started here on 127.0.0.1 and always stopped (trap).
#
# Two "hosts" (`latlab hist export --serve`, each serving a known log-normal
# distribution written by prom_hlog_gen) are scraped every second by two
# Prometheus servers: one plain (it asks for text: classic histograms), one
# with --enable-feature=native-histograms (it asks for protobuf: native and
# classic).  Once count(up == 1) == 2, histogram_quantile of the sum across
# hosts for p50, p99 and p99.9 must equal latlab's own percentiles of the
# merged logs (`latlab hist merge` + `hist summary`) within the conversion's
# stated error: 1/3 classic, the coarser host's 2^(2^-schema) - 1 native.
# Then two short `latlab pipeline --push` runs go through the Pushgateway and
# the same comparison is made against their own interval logs; the time from
# a run's end to its answer being queryable is printed.  A huge and a
# malformed request to a host get 431/400 and the host keeps being scraped.
# Prints FIGURE lines.  SKIPPED (77) when prometheus is not installed.
set -u
LATLAB=${LATLAB:?path of the latlab tool}
BUILD=${LAT_BUILD_DIR:?build dir}
GEN=$BUILD/tests/prom_hlog_gen
PROM=$(command -v prometheus || true)
PGW=$(command -v prometheus-pushgateway || true)
[ -n "$PROM" ] || { echo "SKIPPED: prometheus is not installed (Debian package prometheus)"; exit 77; }
[ -n "$PGW" ] || { echo "SKIPPED: prometheus-pushgateway is not installed"; exit 77; }
command -v jq >/dev/null || { echo "SKIPPED: jq is not installed"; exit 77; }
command -v curl >/dev/null || { echo "SKIPPED: curl is not installed"; exit 77; }
[ -x "$GEN" ] || { echo "FAIL: missing $GEN"; exit 1; }

# shellcheck source=support/servers.sh
. "${LAT_SRC_DIR:?source dir}/tests/support/servers.sh"
# shellcheck source=support/promq.sh
. "$LAT_SRC_DIR/tests/support/promq.sh"
start=$(date +%s.%N)
elapsed() { awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

have_pb=1
"$LATLAB" hist export --protobuf /dev/null 2>&1 | grep -q 'without protobuf-c' && have_pb=0

# quantiles LABEL PROMPORT KIND SELECTOR BOUND P50 P99 P999: the three fleet
# percentiles of KIND (classic: sum by (le) of _bucket; native: sum of the
# native family) against latlab's (ns).
quantiles() {
    local label=$1 port=$2 kind=$3 sel=$4 bound=$5 q t v expr
    shift 5
    for q in 0.5 0.99 0.999; do
        t=$1
        shift
        if [ "$kind" = native ]; then
            expr="histogram_quantile($q, sum(latlab_stage_latency_seconds_native{$sel}))"
        else
            expr="histogram_quantile($q, sum by (le) (latlab_stage_latency_seconds_bucket{$sel}))"
        fi
        v=$(query "$port" "$expr")
        check "$label p$(awk -v q=$q 'BEGIN { print q * 100 }')" "$v" "$t" "$bound"
    done
}

# ---- two hosts with known, different distributions ------------------------------------
# 40000 + 60001 values: q * count is never a whole number, so Prometheus' rank
# and latlab's ceil() pick the same sample.
"$GEN" "$tmp/a.hlog" 1 40000 2000 0.4 || fail "gen a"
"$GEN" "$tmp/b.hlog" 2 60001 15000 0.8 0.01 || fail "gen b"
read -r t50 t99 t999 _ <<<"$(truth "$tmp/a.hlog" "$tmp/b.hlog")"
echo "latlab merged: p50 $t50 ns, p99 $t99 ns, p99.9 $t999 ns"
for h in a b; do
    "$LATLAB" hist export "$tmp/$h.hlog" --stage e2e --run-label fleet --host-label "host-$h" \
        --serve 127.0.0.1:0 2>"$tmp/serve_$h.err" &
    pids+=($!)
done
pa=$(served_port "$tmp/serve_a.err") || fail "host a did not start"
pb=$(served_port "$tmp/serve_b.err") || fail "host b did not start"
bound_native=$(cat "$tmp"/serve_?.err | grep -o 'native_rel_error=[0-9.]*' | cut -d= -f2 | sort -g | tail -1)
echo "hosts on :$pa and :$pb; native bound (coarser host) $bound_native"

# ---- Pushgateway and two Prometheus servers ----------------------------------------------
pg=$(free_port)
# Debian's pushgateway persists to /var/lib/prometheus/pushgateway.data by
# default: groups from an earlier run would come back.  Keep it in $tmp.
"$PGW" --web.listen-address="127.0.0.1:$pg" --persistence.file="$tmp/pushgateway.data" \
    --log.level=warn >"$tmp/pushgateway.log" 2>&1 &
pids+=($!)
wait_http "http://127.0.0.1:$pg/metrics" || fail "pushgateway did not start"
cat >"$tmp/prom.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: latlab
    static_configs:
      - targets: ['127.0.0.1:$pa', '127.0.0.1:$pb']
$(pgw_job "$pg")
EOF
prom_start classic
pc=$prom_port
pn=0
if [ $have_pb = 1 ]; then
    prom_start native --enable-feature=native-histograms
    pn=$prom_port
else
    echo "SKIPPED (native part): latlab was built without protobuf-c"
fi
wait_http "http://127.0.0.1:$pc/-/ready" || fail "prometheus (classic) did not start"
[ $pn = 0 ] || wait_http "http://127.0.0.1:$pn/-/ready" || fail "prometheus (native) did not start"

# Bad input to a host while it is scraped: errors, and it keeps serving.
st=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 \
    -H "X-Big: $(head -c 9000 /dev/zero | tr '\0' b)" "http://127.0.0.1:$pa/metrics")
[ "$st" = 431 ] || fail "huge request: status $st (want 431)"
st=$(exec 3<>"/dev/tcp/127.0.0.1/$pa"; printf 'GARBAGE\r\n\r\n' >&3; head -1 <&3 | tr -d '\r')
[ "$st" = "HTTP/1.1 400 Bad Request" ] || fail "malformed request: '$st'"

up='count(up{job="latlab"} == 1)'
wait_value "$pc" "$up" 2 30 || fail "classic prometheus: both hosts not up"
echo "FIGURE both hosts up in classic prometheus after $(elapsed) s"
sel='job="latlab",stage="e2e",run="fleet"'
quantiles "fleet classic (text)" "$pc" classic "$sel" 0.3334 "$t50" "$t99" "$t999"
if [ $pn != 0 ]; then
    wait_value "$pn" "$up" 2 30 || fail "native prometheus: both hosts not up"
    wait_value "$pn" "count(latlab_stage_latency_seconds_native{$sel})" 2 10 ||
        fail "native series missing"
    quantiles "fleet native" "$pn" native "$sel" "$bound_native" "$t50" "$t99" "$t999"
    quantiles "fleet classic (protobuf)" "$pn" classic "$sel" 0.3334 "$t50" "$t99" "$t999"
fi

# ---- short runs through the Pushgateway --------------------------------------------------
prun=pushrun-$$-$RANDOM # this run's label: nothing older can match it
for h in 1 2; do
    iters=$((h == 1 ? 20 : 600))
    "$LATLAB" pipeline --shape compact --oversubscribe --events 20000 --rate 50000 \
        --work-iters $iters --no-counters --hlog-dir "$tmp/run$h" \
        --push "http://127.0.0.1:$pg" --run-label "$prun" --host-label "pusher-$h" \
        >"$tmp/run$h.log" 2>"$tmp/run$h.err" || fail "pipeline run $h exit $?"
    grep -q "pushed to http://127.0.0.1:$pg job=latlab run=$prun host=pusher-$h" "$tmp/run$h.err" ||
        fail "run $h: no push line"
done
end_run=$(date +%s.%N)
read -r u50 u99 u999 ucount <<<"$(truth "$tmp/run1/e2e.hlog" "$tmp/run2/e2e.hlog")"
psel="job=\"latlab\",stage=\"e2e\",run=\"$prun\""
wait_value "$pc" "sum(latlab_stage_latency_seconds_count{$psel})" "$ucount" 20 ||
    fail "pushed counts not in prometheus"
lag=$(awk -v a="$end_run" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
echo "FIGURE run end (push done) -> answer queryable in classic prometheus: $lag s (scrape 1 s)"
quantiles "pushed classic" "$pc" classic "$psel" 0.3334 "$u50" "$u99" "$u999"
if [ $pn != 0 ]; then
    wait_value "$pn" "count(latlab_stage_latency_seconds_native{$psel})" 2 20 ||
        fail "pushed native series not in prometheus"
    pbound=$(for h in 1 2; do "$LATLAB" hist export "$tmp/run$h/e2e.hlog" --openmetrics -o "$tmp/pb$h.om" 2>&1; done |
        grep -o 'native_rel_error=[0-9.]*' | cut -d= -f2 | sort -g | tail -1)
    quantiles "pushed native" "$pn" native "$psel" "$pbound" "$u50" "$u99" "$u999"
fi
# latlab book bench pushes its scenarios (stage=<scenario>) under its own family.
"$LATLAB" book bench mixed_70_20_10 --quick --out "$tmp/book" --push "http://127.0.0.1:$pg" \
    --run-label "$prun" --host-label book >"$tmp/book.out" 2>"$tmp/book.err" || fail "book bench exit $?"
curl -fs "http://127.0.0.1:$pg/metrics" |
    grep -q "^latlab_book_latency_seconds_count{host=\"book\",.*stage=\"mixed_70_20_10\"} 20000" ||
    fail "book bench push not on the gateway"
# A harness program pushes each benchmark's time per operation.
if [ -x "$BUILD/bench/bench_contention" ]; then
    LAT_BENCH_NO_PIN=1 "$BUILD/bench/bench_contention" --quick --cooldown-ms 0 \
        --push "http://127.0.0.1:$pg" --push-run "$prun" >"$tmp/harness.out" 2>"$tmp/harness.err" ||
        fail "harness --push exit $?"
    curl -fs "http://127.0.0.1:$pg/metrics" |
        grep -q "^latlab_bench_op_seconds_count{.*stage=\"Contention/rwlock_readers_vs_writer\"} [1-9]" ||
        fail "harness push not on the gateway"
else
    echo "SKIPPED (harness push): benchmarks not built"
fi
# --push-delete removes the group from the gateway.
"$LATLAB" pipeline --push "http://127.0.0.1:$pg" --push-delete --run-label "$prun" \
    --host-label pusher-1 2>"$tmp/del.err" || fail "push-delete exit $?"
curl -fs "http://127.0.0.1:$pg/metrics" | grep -q 'host="pusher-1"' && fail "group still on the gateway"
curl -fs "http://127.0.0.1:$pg/metrics" | grep -q 'host="pusher-2"' || fail "other group deleted too"
# The hosts were scraped all along, bad requests notwithstanding.
[ "$(query "$pc" "$up")" = 2 ] || fail "a host went down"
echo "ok: prometheus fleet test in $(elapsed) s"
