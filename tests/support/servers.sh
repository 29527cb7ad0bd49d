# servers.sh - sourced by the CLI tests that start servers (cli_prom.sh,
# prom_fleet.sh, cli_load*.sh): a temporary directory $tmp, background
# processes recorded in pids (always stopped on exit, also when a test
# fails), fail() that shows the tail of the logs, helpers to find and wait for
# ports, and load_usage (misuse of `latlab load` exits 2 naming what is wrong).
tmp=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
# load_usage WANT ARGS...: `$LATLAB load ARGS` exits 2 with WANT in its message.
load_usage() {
    local want=$1
    shift
    "$LATLAB" load "$@" >"$tmp/u.out" 2>"$tmp/u.err"
    local rc=$?
    [ $rc = 2 ] || fail "load $* -> exit $rc (want 2)"
    grep -q -- "$want" "$tmp/u.err" || fail "load $* -> message without $want: $(cat "$tmp/u.err")"
}
fail() {
    echo "FAIL: $*"
    for f in "$tmp"/*.log "$tmp"/*.err "$tmp"/*.out; do [ -f "$f" ] && { echo "== $f"; tail -15 "$f"; }; done
    exit 1
}
# A port nothing listens on now (a server that then fails to bind it is retried by the caller),
# below the kernel's ephemeral range: a test running beside this one (the load
# generator opens many connections) takes its source ports from that range, and a
# server cannot listen on a port an outgoing connection holds.
free_port() {
    local p lo
    lo=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
    [ "$lo" -gt 12000 ] 2>/dev/null || lo=32768
    for _ in $(seq 50); do
        p=$((10000 + RANDOM % (lo - 10000)))
        (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
    done
    echo 0
}
# listening_port FILE: wait for a peer's "listening PORT" line in FILE (10 s);
# print PORT, or return 1 when none came.
listening_port() {
    local p
    for _ in $(seq 200); do
        p=$(awk '/^listening/{print $2}' "$1" 2>/dev/null)
        [ -n "$p" ] && { echo "$p"; return 0; }
        sleep 0.05
    done
    return 1
}
# wait_port PORT: until something listens on 127.0.0.1:PORT; fails the test after 10 s.
wait_port() {
    for _ in $(seq 200); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.05
    done
    fail "nothing listens on $1"
}
# Wait for "serving http://127.0.0.1:PORT/metrics" in file $1 (latlab --metrics/--serve); print PORT.
served_port() {
    local p
    for _ in $(seq 100); do
        p=$(grep -o 'serving http://127.0.0.1:[0-9]*' "$1" 2>/dev/null | sed 's/.*://')
        [ -n "$p" ] && { echo "$p"; return 0; }
        sleep 0.05
    done
    return 1
}
