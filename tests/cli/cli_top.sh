#!/bin/bash
# cli_top.sh - `latlab top` on interval logs being written: plain mode (no
# terminal) prints one line per stage per interval; under tmux (a real
# terminal: send-keys, capture-pane) the rows appear while the logs grow, the
# figures match `latlab hist` on the same intervals, and `q` exits 0 with the
# terminal restored.  Misuse exits 2; a corrupt line exits 1 naming file:line.
set -euo pipefail
# grep reads here-strings, never a pipe: under pipefail a `cmd | grep -q`
# reads as failed when grep matches and quits before cmd's last write
# (SIGPIPE, 141), whatever grep found.
: "${LATLAB:?}" "${LAT_BUILD_DIR:?}" "${LAT_SRC_DIR:?}"
ex="$LAT_BUILD_DIR/examples/trace_pipeline"
tmp=$(mktemp -d)
srv="lattop$$"
wpid=""
cleanup() {
    [ -n "$wpid" ] && kill "$wpid" 2>/dev/null || true
    tmux -L "$srv" kill-server 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

# ---- usage and corrupt input ----
set +e
"$LATLAB" top >/dev/null 2>&1; [ $? -eq 2 ] || fail "no arguments: want exit 2"
"$LATLAB" top --connect "" >/dev/null 2>&1; [ $? -eq 2 ] || fail "empty --connect: want exit 2"
"$LATLAB" top --scale 0 x.hlog >/dev/null 2>&1; [ $? -eq 2 ] || fail "--scale 0: want exit 2"
"$LATLAB" top --no-follow "$tmp/missing.hlog" >/dev/null 2>&1; [ $? -eq 1 ] || fail "missing file: want exit 1"
printf '#[StartTime: 1 (seconds since epoch)]\n0.0,1.0,1.0,NOT-BASE64\n' >"$tmp/bad.hlog"
err=$("$LATLAB" top --no-follow "$tmp/bad.hlog" 2>&1 >/dev/null); rc=$?
set -e
[ $rc -eq 1 ] || fail "corrupt line: want exit 1, got $rc"
if [ -w /dev/full ]; then
    set +e
    "$LATLAB" top --no-follow "$LAT_SRC_DIR/tests/fuzz/corpus/fuzz_hlog_read/latlab_tagged.hlog" \
        >/dev/full 2>/dev/null
    rc=$?
    set -e
    [ $rc -eq 1 ] || fail "a failed write to stdout: want exit 1, got $rc"
fi
grep -q 'bad.hlog:2' <<<"$err" || fail "corrupt line not located: $err"

# ---- plain mode on a finished log: one line per stage per interval ----
"$ex" --seconds 2.2 --rate 3000 --hlog "$tmp/a-" >/dev/null
"$LATLAB" top --no-follow "$tmp"/a-*.hlog >"$tmp/plain"
[ "$(grep -c ' a-e2e count=' "$tmp/plain")" -eq 3 ] || fail "plain: want 3 e2e lines"
cum=$(tail -n 1 <(grep ' a-e2e ' "$tmp/plain") | sed 's/.*cum_p99.9=//')
want=$("$LATLAB" hist summary --scale 1000 "$tmp/a-e2e.hlog" | awk 'NR==2 {printf "%.3f", $7}')
[ "$cum" = "$want" ] || fail "plain cumulative p99.9 $cum != hist summary $want"

# ---- a running traced process through its socket (plain; exits when it closes) ----
sock="$tmp/trace.sock"
"$ex" --seconds 2.5 --rate 3000 --socket "$sock" >"$tmp/sock-ex.out" &
wpid=$!
for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
timeout 20 "$LATLAB" top --connect "$sock" >"$tmp/sock.out"
wait "$wpid"; wpid=""
for s in q1+wake work q2+wake e2e; do
    grep -q " $s count=" "$tmp/sock.out" || fail "socket: no line for $s"
done
n=$(grep ' e2e count=' "$tmp/sock.out" | sed 's/.* count=\([0-9]*\).*/\1/' | awk '{s += $1} END {print s}')
rec=$(awk '/^events/ {print $4}' "$tmp/sock-ex.out")
[ "$n" = "$rec" ] || fail "socket: top saw $n e2e values, the tracer recorded $rec"

# ---- under tmux, following logs while they are written ----
command -v tmux >/dev/null || { echo "SKIPPED: tmux not installed (plain mode passed)"; exit 77; }
# tmux's server daemonizes through /dev/null and refuses anything but the
# device.  Something on a shared machine may have replaced it with a plain file:
# then (as root) the server starts in a private mount namespace with a real one
# bound over it; the machine's /dev/null is left as it is.
tmux_start() {
    if [ -c /dev/null ]; then
        tmux -L "$srv" new-session -d "$@"
    elif [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null &&
        { [ -c "$tmp/null" ] || mknod -m 666 "$tmp/null" c 1 3 2>/dev/null; }; then
        unshare -m sh -c 'mount --bind "$0" /dev/null && s=$1 && shift && exec tmux -L "$s" new-session -d "$@"' \
            "$tmp/null" "$srv" "$@"
    else
        echo "SKIPPED: /dev/null is not a character device here, tmux cannot start (plain mode passed)"
        exit 77
    fi
}
export TERM=xterm-256color

# A log that grows by hand: the spinner shows until the first interval; a line
# without its newline yet is not read; once the newline lands the row appears.
head -n 4 "$tmp/a-e2e.hlog" >"$tmp/grow.hlog"
tmux_start -s grow -x 160 -y 20 "$LATLAB top $tmp/grow.hlog; echo \$? >$tmp/rc-grow; sleep 60"
pane() { tmux -L "$srv" capture-pane -p -t "$1"; }
waitfor() { # SESSION REGEX: up to 10 s
    for _ in $(seq 100); do grep -q "$2" <<<"$(pane "$1")" && return 0; sleep 0.1; done
    pane "$1"
    return 1
}
waitfor grow 'waiting for the first interval' || fail "no spinner before the first interval"
line=$(sed -n 5p "$tmp/a-e2e.hlog")
printf '%s' "${line:0:40}" >>"$tmp/grow.hlog"
sleep 1.5
grep -q '^grow ' <<<"$(pane grow)" && fail "a line without its newline was read"
printf '%s\n' "${line:40}" >>"$tmp/grow.hlog"
waitfor grow '^grow ' || fail "the completed line did not show"
got=$("$LATLAB" hist percentiles --intervals --scale 1000 "$tmp/grow.hlog" | tail -n 1 |
    sed 's/.*I:\([0-9]*\).*/\1/')
pane grow | grep '^grow ' | awk -v n="$got" '$2 != n {exit 1}' || fail "grow: count differs from hist ($got)"
tmux -L "$srv" send-keys -t grow q
for _ in $(seq 50); do [ -s "$tmp/rc-grow" ] && break; sleep 0.1; done
[ "$(cat "$tmp/rc-grow" 2>/dev/null)" = 0 ] || fail "grow: q did not exit 0"
"$ex" --seconds 4 --rate 3000 --hlog "$tmp/run-" >"$tmp/ex.out" &
wpid=$!
for _ in $(seq 50); do [ -s "$tmp/run-e2e.hlog" ] && break; sleep 0.1; done
files="$tmp/run-q1-wake.hlog $tmp/run-work.hlog $tmp/run-q2-wake.hlog $tmp/run-e2e.hlog"
tmux_start -s live -x 160 -y 20 "$LATLAB top $files; echo \$? >$tmp/rc; sleep 60"
seen=""
for _ in $(seq 100); do
    if grep -q '^run-e2e ' <<<"$(pane live)"; then seen=1; break; fi
    sleep 0.1
done
[ -n "$seen" ] || { pane live; fail "no rows appeared"; }
kill -0 "$wpid" 2>/dev/null || echo "note: the writer finished before the first row showed"
wait "$wpid"; wpid=""
sleep 2.5 # one refresh after the last interval was written
screen=$(pane live)
echo "$screen"
for s in run-q1-wake run-work run-q2-wake run-e2e; do
    grep -q "^$s " <<<"$screen" || fail "row $s missing"
done
read -r _ count p50 _ _ max _ cum _ < <(echo "$screen" | grep '^run-e2e ')
want_cum=$("$LATLAB" hist summary --scale 1000 "$tmp/run-e2e.hlog" | awk 'NR==2 {printf "%.3f", $7}')
last=$("$LATLAB" hist percentiles --intervals --scale 1000 "$tmp/run-e2e.hlog" | tail -n 1)
want_count=$(echo "$last" | sed 's/.*I:\([0-9]*\).*/\1/')
read -r want_p50 _ want_max < <(echo "$last" | sed 's/.*I:[0-9]* ( *\([^)]*\)).*/\1/')
[ "$cum" = "$want_cum" ] || fail "cumulative p99.9 $cum != hist summary $want_cum"
[ "$count" = "$want_count" ] || fail "interval count $count != $want_count"
awk -v a="$p50" -v b="$want_p50" 'BEGIN {exit !(a == b)}' || fail "interval p50 $p50 != $want_p50"
awk -v a="$max" -v b="$want_max" 'BEGIN {exit !(a == b)}' || fail "interval max $max != $want_max"
tmux -L "$srv" send-keys -t live q
for _ in $(seq 50); do [ -s "$tmp/rc" ] && break; sleep 0.1; done
[ "$(cat "$tmp/rc" 2>/dev/null)" = 0 ] || fail "q: want exit 0, got '$(cat "$tmp/rc" 2>/dev/null)'"
# The alternate screen is gone: the pane no longer shows the table.
grep -q '^run-e2e ' <<<"$(pane live)" && fail "screen not restored after q"
echo "PASS"
