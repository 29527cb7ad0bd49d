# promq.sh - sourced by the tests that ask a real Prometheus (prom_fleet.sh,
# cli_load_fleet.sh), after servers.sh: wait for a URL, run an instant query,
# wait for a value, latlab's own merged percentiles of some interval logs, and
# the comparison of a PromQL figure with latlab's within a stated bound
# (printed as a FIGURE line).  Needs curl and jq.
wait_http() { # URL: until it answers (10 s)
    for _ in $(seq 200); do curl -fs -o /dev/null "$1" && return 0; sleep 0.05; done
    return 1
}
query() { # PROMPORT EXPR -> the first result's value ("" when none)
    curl -fsG "http://127.0.0.1:$1/api/v1/query" --data-urlencode "query=$2" |
        jq -r '.data.result[0].value[1] // empty'
}
wait_value() { # PROMPORT EXPR WANT SECONDS: until EXPR == WANT
    local n=$(($4 * 10)) v
    for _ in $(seq "$n"); do
        v=$(query "$1" "$2")
        [ "$v" = "$3" ] && return 0
        sleep 0.1
    done
    echo "last value of $2: '$v' (want $3)"
    return 1
}
# latlab's merged percentiles (ns) of the given logs and the count: "p50 p99 p99.9 N"
truth() {
    "$LATLAB" hist merge "$@" -o "$tmp/merged.hlog" >/dev/null || fail "hist merge"
    "$LATLAB" hist summary "$tmp/merged.hlog" | awk 'NR == 2 { print $4, $6, $7, $2 }' # the first tag's row
}
# check LABEL PROMQL_SECONDS TRUTH_NS BOUND
check() {
    awk -v l="$1" -v got="$2" -v want="$3" -v b="$4" 'BEGIN {
        w = want * 1e-9; e = (got - w) / w; if (e < 0) e = -e
        printf "FIGURE %-34s promql %.9g s  latlab %.9g s  rel.err %.4f  bound %.4f\n", l, got, w, e, b
        exit !(got != "" && e <= b) }' || fail "$1 outside the bound"
}

# A Prometheus on $tmp/prom.yml (storage $tmp/tsdb_NAME, log $tmp/prom_NAME.log)
# with ARGS added; sets prom_port.  prom_start NAME ARGS...
prom_start() {
    local name=$1
    shift
    prom_port=$(free_port)
    "$PROM" --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/tsdb_$name" "$@" \
        --web.listen-address="127.0.0.1:$prom_port" --log.level=warn >"$tmp/prom_$name.log" 2>&1 &
    pids+=($!)
}
# The scrape job of a Pushgateway on port $1 (its groups' labels kept).
pgw_job() {
    printf '  - job_name: pushgateway\n    honor_labels: true\n    static_configs:\n      - targets: [%s]\n' "'127.0.0.1:$1'"
}
