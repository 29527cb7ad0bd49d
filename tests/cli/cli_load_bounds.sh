#!/usr/bin/env bash
# cli_load_bounds.sh - `latlab load` ends when it should and says what went
# wrong, against the project's test server (tests/peers/stallpeer.c) in its
# modes: a server that accepts and never answers ends the run by its
# deadline (schedule + timeout), every request counted as timed out or
# unsent; SIGINT ends a run with a 100 s timeout at once and writes what was
# measured; a run stopped in a service stall counts the requests due and
# unsent and says it was cut short (--strict exits 4); 503 replies, a server
# answering twice and a one-request run are not valid; the backlog never
# exceeds the schedule (the server that never answers); a port over 65535 is
# a usage error; a target that
# goes away reads "connection refused" with its address; a replay line
# longer than the reader's buffer is one line, never two send times.
set -u
LATLAB=${LATLAB:?path of the latlab tool}
SRC=${LAT_SRC_DIR:?source dir}
BUILD=${LAT_BUILD_DIR:?build dir}
PEER=$BUILD/tests/lat_stallpeer
[ -x "$PEER" ] || { echo "FAIL: $PEER is not built"; exit 1; }
command -v python3 >/dev/null || { echo "SKIPPED: python3 is not installed"; exit 77; }
# shellcheck source=support/servers.sh
. "$SRC/tests/support/servers.sh"

j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
now() { date +%s%N; }
# Start the peer: stall-ms period-ms mode; sets port and peer_pid.
peer() {
    rm -f "$tmp/peer.out"
    "$PEER" "$@" >"$tmp/peer.out" 2>"$tmp/peer.log" &
    peer_pid=$!
    pids+=("$peer_pid")
    port=$(listening_port "$tmp/peer.out") || fail "peer did not start"
}
stop_peer() {
    kill "$peer_pid" 2>/dev/null
    wait "$peer_pid" 2>/dev/null
}

# ---- ports over 65535 (and 0) are usage errors naming the target ---------------------------
load_usage "127.0.0.1:99999': port out of range" 127.0.0.1:99999 --rate 10
load_usage "http://127.0.0.1:70000/': port out of range" http://127.0.0.1:70000/ --rate 10
load_usage "port out of range" 127.0.0.1:0 --rate 10

# ---- a replay line longer than the reader's buffer is one line -----------------------------
python3 -c "print(100); print(' ' * 10 + '200' + ' ' * 200 + '300')" >"$tmp/long.txt"
load_usage "long.txt line 2" 127.0.0.1:9 --arrivals replay --replay "$tmp/long.txt"
python3 -c "print(100); print('#' + 'x' * 300); print(200)" >"$tmp/comment.txt"
"$LATLAB" load 127.0.0.1:9 --arrivals replay --replay "$tmp/comment.txt" >"$tmp/c.out" 2>"$tmp/c.err"
[ $? != 2 ] || fail "a long comment line: $(cat "$tmp/c.err")"
printf '100 200\n' >"$tmp/two.txt"
load_usage "two.txt line 1" 127.0.0.1:9 --arrivals replay --replay "$tmp/two.txt"

# ---- a server that never answers: the run ends by its deadline --------------------------------
peer 0 0 mute
t0=$(now)
timeout 60 "$LATLAB" load "http://127.0.0.1:$port/" --rate 100 --duration 1s --timeout 1s \
    --connections 2 --quiet --json "$tmp/mute.json" >"$tmp/mute.out" 2>"$tmp/mute.err"
rc=$?
took=$(( ($(now) - t0) / 1000000 ))
stop_peer
[ $rc = 0 ] || fail "mute server: exit $rc (want 0)"
echo "a server that never answers: 1 s schedule, 1 s timeout: the run took $took ms"
[ "$took" -lt 4000 ] || fail "mute server: the run took $took ms, over schedule + timeout + 2 s"
read -r s c f t u dl < <(j "$tmp/mute.json" "d['counts']['scheduled'], d['counts']['completed'], d['counts']['failed'], d['counts']['errors']['timeout'], d['counts']['errors']['unsent'], d['counts']['deadline']")
[ "$s" = 100 ] && [ "$c" = 0 ] && [ "$f" = 100 ] && [ $((t + u)) = 100 ] && [ "$t" -ge 2 ] && [ "$dl" = 1 ] ||
    fail "mute server: scheduled $s completed $c failed $f timeout $t unsent $u deadline $dl"
grep -q '^verdict.*invalid: .*reached its deadline' "$tmp/mute.out" || fail "mute server: $(tail -1 "$tmp/mute.out")"
# every connection full from the start: the backlog is at most the schedule's 100
b=$(j "$tmp/mute.json" "d['counts']['backlog_max']")
[ "$b" -le 100 ] || fail "mute server: backlog $b exceeds the 100 requests scheduled"

# ---- SIGINT with a 100 s timeout: ends at once, writes what was measured ----------------------
peer 0 0 mute
"$LATLAB" load "http://127.0.0.1:$port/" --rate 100 --duration 30s --timeout 100s --connections 2 \
    --quiet --strict --json "$tmp/int.json" >"$tmp/int.out" 2>"$tmp/int.err" &
lp=$!
pids+=("$lp")
sleep 1
t0=$(now)
kill -INT "$lp"
for _ in $(seq 100); do kill -0 "$lp" 2>/dev/null || break; sleep 0.1; done
took=$(( ($(now) - t0) / 1000000 ))
kill -0 "$lp" 2>/dev/null && { kill -KILL "$lp"; fail "SIGINT: still running 10 s after it"; }
wait "$lp"
rc=$?
stop_peer
echo "SIGINT with a 100 s timeout: ended $took ms after it"
[ $rc = 4 ] || fail "SIGINT: exit $rc (want 4: --strict, the run cut short)"
[ "$(j "$tmp/int.json" "d['counts']['stopped']")" = 1 ] || fail "SIGINT: not said to be stopped"
read -r s f na us < <(j "$tmp/int.json" "d['counts']['scheduled'], d['counts']['failed'], d['counts']['errors']['unanswered'], d['counts']['errors']['unsent']")
[ "$s" -ge 20 ] && [ "$f" = "$s" ] && [ $((na + us)) = "$s" ] ||
    fail "SIGINT: scheduled $s failed $f unanswered $na unsent $us"
grep -q '^verdict.*invalid: the run was cut short' "$tmp/int.out" || fail "SIGINT: $(tail -1 "$tmp/int.out")"

# ---- stopped in a service stall: the due requests are counted, the run cut short -------------
# The peer freezes from 1 s after it starts (for good: each 5 s freeze outlasts
# its 1 s period); the run is stopped 2.5 s in.
peer 5000 1000
"$LATLAB" load "http://127.0.0.1:$port/" --rate 1000 --duration 20s --connections 8 --quiet \
    --strict --json "$tmp/st.json" >"$tmp/st.out" 2>"$tmp/st.err" &
lp=$!
pids+=("$lp")
sleep 2.5
kill -TERM "$lp"
wait "$lp"
rc=$?
stop_peer
[ $rc = 4 ] || fail "stopped in a stall: exit $rc (want 4): $(tail -1 "$tmp/st.out")"
read -r s c f us < <(j "$tmp/st.json" "d['counts']['scheduled'], d['counts']['completed'], d['counts']['failed'], d['counts']['errors']['unsent']")
echo "stopped in a stall: scheduled $s, completed $c, failed $f ($us unsent)"
[ $((c + f)) = "$s" ] || fail "stopped in a stall: completed $c + failed $f != scheduled $s"
[ "$us" -ge 100 ] || fail "stopped in a stall: only $us requests unsent (the stall's are not counted)"
grep -q '^verdict.*invalid: the run was cut short.*unsent' "$tmp/st.out" || fail "stopped in a stall: $(tail -1 "$tmp/st.out")"

# ---- 503 replies and a server answering twice are not valid ---------------------------------
peer 0 0 503
"$LATLAB" load "http://127.0.0.1:$port/" --rate 500 --duration 1s --connections 4 --quiet --strict \
    --json "$tmp/e.json" >"$tmp/e.out" 2>"$tmp/e.err"
rc=$?
stop_peer
[ $rc = 4 ] || fail "503 replies: exit $rc (want 4)"
grep -q '^verdict.*invalid: .*replies said error' "$tmp/e.out" || fail "503 replies: $(tail -1 "$tmp/e.out")"
peer 0 0 twice
"$LATLAB" load "http://127.0.0.1:$port/" --rate 500 --duration 1s --connections 4 --quiet --strict \
    --json "$tmp/t.json" >"$tmp/t.out" 2>"$tmp/t.err"
rc=$?
stop_peer
[ $rc = 4 ] || fail "answered twice: exit $rc (want 4)"
grep -q '^verdict.*invalid: .*protocol errors with no request in flight' "$tmp/t.out" ||
    grep -q '^verdict.*invalid: .*malformed' "$tmp/t.out" || fail "answered twice: $(tail -1 "$tmp/t.out")"

# ---- one request: too few samples for any percentile ----------------------------------------
peer 0 0 ok
"$LATLAB" load "http://127.0.0.1:$port/" --rate 1 --duration 1s --connections 1 --quiet --strict \
    >"$tmp/one.out" 2>"$tmp/one.err"
rc=$?
[ $rc = 4 ] || fail "one request: exit $rc (want 4)"
# (its one request may be censored, sent late after a gap of a busy host: then 0 kept)
grep -Eq '^verdict.*invalid: .*too few samples \((1|0 kept: the completed ones were censored)\) for any percentile' "$tmp/one.out" ||
    fail "one request: $(tail -1 "$tmp/one.out")"

# ---- a target that goes away: "connection refused", with its address -------------------------
"$LATLAB" load "127.0.0.1:$port" --rate 200 --duration 20s --connections 2 --quiet \
    >"$tmp/gone.out" 2>"$tmp/gone.err" &
lp=$!
pids+=("$lp")
sleep 1
stop_peer
wait "$lp"
rc=$?
[ $rc = 1 ] || fail "target gone: exit $rc (want 1)"
grep -q "connection refused by 127.0.0.1 port $port" "$tmp/gone.err" ||
    fail "target gone: $(grep -v '^\[' "$tmp/gone.err")"
echo "PASS"
