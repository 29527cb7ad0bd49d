#!/usr/bin/env bash
# cli_prom.sh - the Prometheus flags without a Prometheus: `latlab pipeline
# --metrics` serves while it measures (a huge and a malformed request get
# 431/400, the run keeps measuring and finishes with every event recorded,
# later scrapes show growing counts); an unreachable Pushgateway gives a clear
# error and exit 1 with the local results (JSON, interval logs) still
# written; `latlab hist export` writes OpenMetrics, text and protobuf,
# including for a log written by the Java reference; misuse exits 2 before
# any work.
set -u
LATLAB=${LATLAB:?path of the latlab tool}
SRC=${LAT_SRC_DIR:?source dir}
command -v curl >/dev/null || { echo "SKIPPED: curl is not installed"; exit 77; }
# shellcheck source=support/servers.sh
. "$SRC/tests/support/servers.sh"

# ---- misuse: exit 2, before any work ---------------------------------------------------
usage() { # expected-flag-in-message args...
    local want=$1
    shift
    "$LATLAB" "$@" >"$tmp/u.out" 2>"$tmp/u.err"
    local rc=$?
    [ $rc = 2 ] || fail "$* -> exit $rc (want 2)"
    grep -q -- "$want" "$tmp/u.err" || fail "$* -> message without $want: $(cat "$tmp/u.err")"
}
usage --push pipeline --push ftp://x
usage --push-delete pipeline --push-delete
usage --run-label pipeline --push http://127.0.0.1:9 --push-delete
usage "--events: not with --push-delete" pipeline --push http://127.0.0.1:9 --run-label r --push-delete --events 5
usage --metrics pipeline --metrics nonsense
usage --metrics-linger pipeline --metrics-linger 1
usage --native-buckets pipeline --native-buckets 2
usage --host-label pipeline --host-label ''
usage export hist export
usage -o hist export x.hlog --openmetrics -o ''
usage 'exclude' hist export x.hlog --openmetrics --protobuf

# ---- hist export ---------------------------------------------------------------------
log=$SRC/tests/fuzz/corpus/fuzz_hlog_read/latlab_tagged.hlog
"$LATLAB" hist export "$log" --openmetrics -o "$tmp/x.om" 2>"$tmp/x.err" || fail "export exit $?"
tail -1 "$tmp/x.om" | grep -qx '# EOF' || fail "openmetrics: no # EOF"
grep -q '^latlab_stage_latency_seconds_count{stage="latlab_tagged",run="[^"]*",host="[^"]*"} 300000$' "$tmp/x.om" ||
    fail "untagged series: $(grep _count "$tmp/x.om")"
grep -q '^latlab_stage_latency_seconds_count{stage="B",' "$tmp/x.om" || fail "tag B series"
# The same file twice is read once (not every sample counted twice), and said.
"$LATLAB" hist export "$log" "$log" --openmetrics -o "$tmp/x2.om" 2>"$tmp/x2.err" || fail "export twice exit $?"
grep -q '^latlab_stage_latency_seconds_count{stage="latlab_tagged",.*} 300000$' "$tmp/x2.om" ||
    fail "export twice: $(grep _count "$tmp/x2.om")"
grep -q 'is the same file as' "$tmp/x2.err" || fail "export twice message: $(cat "$tmp/x2.err")"
grep -q 'stage=B count=100000 classic_rel_error=0.3333 native_schema=' "$tmp/x.err" || fail "stated error"
"$LATLAB" hist export "$log" --text --tag B --stage e2e --run-label r --host-label h | grep -q \
    '^latlab_stage_latency_seconds_bucket{stage="e2e",run="r",host="h",le="+Inf"} 100000$' ||
    fail "text export"
if "$LATLAB" hist export "$log" --protobuf -o "$tmp/x.pb" 2>/dev/null; then
    [ -s "$tmp/x.pb" ] || fail "empty protobuf"
    # two delimited MetricFamily messages: the first starts with its length, then field 1 (name)
    head -c 4 "$tmp/x.pb" | od -An -tx1 | grep -Eq '^ [0-9a-f]{2} ([0-9a-f]{2} )?0a' ||
        fail "protobuf framing: $(head -c 8 "$tmp/x.pb" | od -An -tx1)"
    grep -q latlab_stage_latency_seconds_native "$tmp/x.pb" || fail "no native family"
else
    "$LATLAB" hist export "$log" --protobuf 2>&1 | grep -q 'without protobuf-c' || fail "protobuf error"
    echo "SKIPPED (protobuf part): built without protobuf-c"
fi
printf 'not a log\n' >"$tmp/bad.hlog"
"$LATLAB" hist export "$tmp/bad.hlog" --text >/dev/null 2>"$tmp/bad.err"
[ $? = 1 ] || fail "corrupt log: exit not 1"
grep -q "bad.hlog:1" "$tmp/bad.err" || fail "corrupt log: no file:line: $(cat "$tmp/bad.err")"
# A log written by the Java reference (HistogramLogWriter), when Java is here.
JAR=/usr/share/java/hdrhistogram.jar
if [ -f $JAR ] && command -v javac >/dev/null && command -v java >/dev/null; then
    javac -nowarn -d "$tmp" -cp $JAR "$SRC/tests/interop/JavaLogWriter.java" || fail "javac"
    TZ=UTC java -cp "$JAR:$tmp" JavaLogWriter write "$tmp/java.hlog" >"$tmp/java.fig" || fail "java"
    "$LATLAB" hist export "$tmp/java.hlog" --openmetrics -o "$tmp/java.om" 2>"$tmp/java.err" ||
        fail "export of the Java log"
    # JavaLogWriter prints "TAG COUNT ..." per tag; each must be a series count.
    while read -r tag count _; do
        [ "$tag" = - ] && tag=java
        grep -q "^latlab_stage_latency_seconds_count{stage=\"$tag\",.*} $count\$" "$tmp/java.om" ||
            fail "Java log: tag $tag count $count missing"
    done <"$tmp/java.fig"
else
    echo "SKIPPED (Java part): the Java reference is not installed"
fi

# ---- pipeline --metrics: bad requests while it measures ----------------------------------
events=150000
"$LATLAB" pipeline --shape compact --oversubscribe --events $events --rate 50000 --no-counters \
    --metrics 127.0.0.1:0 --metrics-linger 1 --json "$tmp/run.json" >"$tmp/run.out" 2>"$tmp/run.err" &
pid=$!
pids+=($pid)
port=$(served_port "$tmp/run.err") || fail "pipeline did not start serving"
count() { curl -fs "http://127.0.0.1:$port/metrics" | awk '/_count\{stage="e2e"/ { print $2 }'; }
sleep 1.5
c1=$(count)
st=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Big: $(head -c 9000 /dev/zero | tr '\0' b)" \
    "http://127.0.0.1:$port/metrics")
[ "$st" = 431 ] || fail "huge request: $st"
st=$(exec 3<>"/dev/tcp/127.0.0.1/$port"; printf '\x16\x03\x01garbage\r\n\r\n' >&3; head -1 <&3 | tr -d '\r')
[ "$st" = "HTTP/1.1 400 Bad Request" ] || fail "malformed request: '$st'"
st=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/nothing")
[ "$st" = 404 ] || fail "other path: $st"
sleep 1.2
c2=$(count)
[ -n "$c1" ] && [ -n "$c2" ] && [ "$c2" -gt "$c1" ] || fail "counts did not grow while serving: '$c1' -> '$c2'"
curl -fs -H 'Accept: application/openmetrics-text; version=1.0.0' "http://127.0.0.1:$port/metrics" |
    tail -1 | grep -qx '# EOF' || fail "openmetrics scrape"
wait $pid || fail "pipeline exit $?"
rec=$(jq -r '.recorded // .counts.recorded // empty' "$tmp/run.json" 2>/dev/null)
grep -q '"recorded": '"$events" "$tmp/run.json" || [ "$rec" = $events ] ||
    fail "not every event recorded: $(grep -o '"recorded": [0-9]*' "$tmp/run.json")"
echo "pipeline served e2e counts $c1 -> $c2 during the run, recorded all $events"

# ---- slow clients and SIGTERM: idle connections do not delay a scrape or the exit ---------
"$LATLAB" hist export "$log" --serve 127.0.0.1:0 >/dev/null 2>"$tmp/sv.err" &
spid=$!
pids+=($spid)
sport=$(served_port "$tmp/sv.err") || fail "hist export --serve did not start"
exec 7<>"/dev/tcp/127.0.0.1/$sport" 8<>"/dev/tcp/127.0.0.1/$sport" 9<>"/dev/tcp/127.0.0.1/$sport"
printf 'GET /met' >&9 # a request that never ends
curl -fs "http://127.0.0.1:$sport/metrics" | grep -q '_count{stage="B"' || fail "scrape beside idle clients"
# answered while the idle ones still wait (their deadline would give them a 408)
timeout 0.2 cat <&7 | grep -q . && fail "the scrape waited for an idle client's deadline"
kill -TERM $spid
wait $spid
rc=$?
[ $rc = 0 ] || fail "hist export --serve on SIGTERM: exit $rc"
# it stopped at once: no idle client was kept to its deadline (that would be a 408)
cat <&9 <&7 | grep -q '408' && fail "SIGTERM waited for a slow client's deadline"
exec 7>&- 8>&- 9>&-

# ---- an IPv6 address is printed in brackets (where the host has ::1) -------------------------
if "$LATLAB" hist export "$log" --serve '[::1]:0' --serve-seconds 0.2 2>"$tmp/v6.err" >/dev/null; then
    grep -q 'serving http://\[::1\]:[0-9]*/metrics' "$tmp/v6.err" || fail "IPv6 URL: $(cat "$tmp/v6.err")"
else
    echo "note: no IPv6 loopback here: $(tail -1 "$tmp/v6.err")"
fi

# ---- a name that does not resolve: the resolver's words, not a routing error --------------
"$LATLAB" hist export "$log" --push http://nosuchhost.invalid:9091 2>"$tmp/nx.err"
[ $? = 1 ] || fail "push to nosuchhost.invalid: exit not 1"
grep -q "nosuchhost.invalid" "$tmp/nx.err" && ! grep -q "No route to host" "$tmp/nx.err" ||
    fail "resolver error: $(cat "$tmp/nx.err")"
cat "$tmp/nx.err"
"$LATLAB" hist export "$log" --serve nosuchhost.invalid:0 2>"$tmp/nx.err"
[ $? = 1 ] && grep -q -- "--serve nosuchhost.invalid:0: " "$tmp/nx.err" && ! grep -q "No route to host" "$tmp/nx.err" ||
    fail "serve on nosuchhost.invalid: $(cat "$tmp/nx.err")"

# ---- unreachable Pushgateway: exit 1, clear error, local results written ----------------
dead=$(free_port)
"$LATLAB" pipeline --shape compact --oversubscribe --events 5000 --rate 50000 --no-counters \
    --json "$tmp/p.json" --hlog-dir "$tmp/logs" --push "http://127.0.0.1:$dead" \
    >"$tmp/push.out" 2>"$tmp/push.err"
rc=$?
[ $rc = 1 ] || fail "unreachable gateway: exit $rc (want 1)"
grep -q "\-\-push http://127.0.0.1:$dead: cannot connect to 127.0.0.1:$dead" "$tmp/push.err" ||
    fail "no clear error: $(cat "$tmp/push.err")"
[ -s "$tmp/p.json" ] || fail "JSON not written"
[ -s "$tmp/logs/e2e.hlog" ] || fail "interval log not written"
"$LATLAB" hist export "$tmp/logs/e2e.hlog" --push "http://127.0.0.1:$dead" 2>"$tmp/push2.err"
[ $? = 1 ] || fail "hist export --push to nowhere: exit not 1"
# The harness (LAT_BENCH_MAIN programs): report written, then exit 1.
B=${LAT_BUILD_DIR:-}/bench/bench_contention
if [ -x "$B" ]; then
    LAT_BENCH_NO_PIN=1 "$B" --quick --cooldown-ms 0 --json "$tmp/h.json" \
        --push "http://127.0.0.1:$dead" >/dev/null 2>"$tmp/h.err"
    [ $? = 1 ] || fail "harness --push to nowhere: exit not 1"
    grep -q -- "--push http://127.0.0.1:$dead: cannot connect" "$tmp/h.err" || fail "harness push error"
    [ -s "$tmp/h.json" ] || fail "harness report not written"
    "$B" --push ftp://x >/dev/null 2>&1
    [ $? = 2 ] || fail "harness --push ftp://x: exit not 2"
fi
echo "ok"
