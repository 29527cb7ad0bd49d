#!/usr/bin/env bash
# cli_load_servers.sh - `latlab load` against real servers started here on
# 127.0.0.1 and always stopped: nginx (HTTP keep-alive), redis-server (RESP)
# and memcached (text protocol, set then get over a key space).  Each run
# completes every scheduled request, and the server's own counters agree:
# nginx's access log lines, Redis INFO total_commands_processed, memcached
# stats cmd_set / cmd_get.  A server that is not installed is SKIPPED with the
# reason (scripts/deps.sh test installs them).
set -u
LATLAB=${LATLAB:?path of the latlab tool}
SRC=${LAT_SRC_DIR:?source dir}
# shellcheck source=support/servers.sh
. "$SRC/tests/support/servers.sh"
# shellcheck source=support/nginx.sh
. "$SRC/tests/support/nginx.sh"
PATH=$PATH:/usr/sbin
j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
ran=0
load() { # name json args...
    local name=$1 js=$2
    shift 2
    "$LATLAB" load "$@" --rate 1000 --duration 1s --connections 4 --quiet --json "$js" \
        >"$tmp/$name.out" 2>"$tmp/$name.err" || fail "$name: exit $?"
    local s c
    s=$(j "$js" "d['counts']['scheduled']")
    c=$(j "$js" "d['counts']['completed']")
    [ "$s" = 1000 ] && [ "$c" = 1000 ] || fail "$name: completed $c of $s scheduled (want 1000)"
}

# ---- nginx ------------------------------------------------------------------------------
if command -v nginx >/dev/null; then
    port=$(free_port)
    nginx_conf "$tmp/nginx" "$port" "$tmp/access.log"
    nginx -c "$tmp/nginx/nginx.conf" -p "$tmp/nginx" 2>"$tmp/nginx.err" &
    pids+=("$!")
    wait_port "$port"
    load nginx "$tmp/nginx.json" "http://127.0.0.1:$port/"
    lines=$(wc -l <"$tmp/access.log")
    [ "$lines" = 1000 ] || fail "nginx logged $lines requests, latlab completed 1000"
    echo "nginx: 1000 completed, 1000 access log lines"
    ran=$((ran + 1))
else
    echo "SKIPPED (nginx): not installed"
fi

# ---- redis ------------------------------------------------------------------------------
if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
    port=$(free_port)
    redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize no \
        >"$tmp/redis.log" 2>&1 &
    pids+=("$!")
    wait_port "$port"
    total() { redis-cli -p "$port" info stats | tr -d '\r' | awk -F: '/^total_commands_processed/{print $2}'; }
    before=$(total)
    load redis "$tmp/redis.json" "127.0.0.1:$port" --protocol redis --redis-cmd 'SET {key} v' --key-space 100
    after=$(total)
    # the INFO before is counted in the one after
    [ $((after - before - 1)) = 1000 ] || fail "redis processed $((after - before - 1)) commands, latlab completed 1000"
    [ "$(redis-cli -p "$port" dbsize | tr -d '\r')" = 100 ] || fail "redis: the key space is not 100 keys"
    echo "redis: 1000 completed, total_commands_processed grew by 1000"
    ran=$((ran + 1))
else
    echo "SKIPPED (redis): redis-server is not installed"
fi

# ---- memcached --------------------------------------------------------------------------
if command -v memcached >/dev/null; then
    port=$(free_port)
    memcached -l 127.0.0.1 -p "$port" -U 0 -u root >"$tmp/memcached.log" 2>&1 &
    pids+=("$!")
    wait_port "$port"
    stat() { # name
        exec 3<>"/dev/tcp/127.0.0.1/$port"
        printf 'stats\r\nquit\r\n' >&3
        tr -d '\r' <&3 | awk -v k="$1" '$1 == "STAT" && $2 == k {print $3}'
        exec 3<&-
    }
    load mcset "$tmp/mcset.json" "127.0.0.1:$port" --protocol memcached --mc-op set --key-space 50 --value-size 100
    load mcget "$tmp/mcget.json" "127.0.0.1:$port" --protocol memcached --mc-op get --key-space 50
    [ "$(stat cmd_set)" = 1000 ] || fail "memcached cmd_set $(stat cmd_set), latlab completed 1000"
    [ "$(stat cmd_get)" = 1000 ] || fail "memcached cmd_get $(stat cmd_get), latlab completed 1000"
    [ "$(stat get_hits)" = 1000 ] || fail "memcached get_hits $(stat get_hits): the values set were not found"
    echo "memcached: 1000 sets and 1000 gets completed, cmd_set and cmd_get agree"
    ran=$((ran + 1))
else
    echo "SKIPPED (memcached): not installed"
fi
[ $ran -gt 0 ] || { echo "SKIPPED: none of nginx, redis-server, memcached is installed"; exit 77; }
echo "PASS"
