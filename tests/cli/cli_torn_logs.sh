#!/usr/bin/env bash
# cli_torn_logs.sh - interval logs survive interruption: `latlab pipeline
# --hlog-dir D` is killed at 50 random points (SIGTERM, SIGHUP, SIGINT and
# SIGKILL) over an existing set of good logs; after every kill each log in D
# must be either the previous complete file (byte for byte) or a new complete
# one (`hist summary` reads it and counts every event of the run), and after
# a catchable signal no temporary file may be left and stderr must say what
# was discarded and kept.  `hist merge -o` killed while writing leaves no
# temporary file either.
set -u
L=${LATLAB:?path of the latlab tool}
T=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

EVENTS=30000 # 0.3 s of sending: a kill in the first 0.25 s lands
run_args=(pipeline --shape compact --events $EVENTS --rate 100000 --hlog-dir "$T/d" --hlog-interval 5ms)
logs="e2e q1-wake work"
# a log is good when it is the old one, or complete: every event counted
complete() { "$L" hist summary "$1" 2>/dev/null | awk -v n=$EVENTS 'NR == 2 && $2 == n { ok = 1 } END { exit !ok }'; }

"$L" "${run_args[@]}" >/dev/null 2>"$T/err" || { echo "FAIL: first run: $(cat "$T/err")"; exit 1; }
for s in $logs; do cp "$T/d/$s.hlog" "$T/old.$s"; done

# Wait until pid runs latlab itself (not the shell that forks it).
await_exec() {
    for _ in $(seq 1 500); do
        [ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$(readlink -f "$L")" ] && return 0
        sleep 0.002
    done
    return 1
}

sigs=(TERM HUP INT KILL TERM)
landed=0 rounds=0 replaced=0 kept=0 discarded=0
while [ $rounds -lt 54 ]; do
    rounds=$((rounds + 1))
    sig=${sigs[$((RANDOM % ${#sigs[@]}))]}
    delay=$(printf '0.%03d' $((RANDOM % 250)))
    # setsid + default SIGINT: a background job of a script ignores SIGINT
    env --default-signal=INT setsid "$L" "${run_args[@]}" >/dev/null 2>"$T/err" &
    pid=$!
    await_exec $pid || fail "round $rounds: latlab did not start"
    if [ $rounds -gt 50 ]; then
        sig=none # the last rounds run to the end: new complete logs replace the old
    else
        # every other round counts its random delay from the moment the logs
        # are open (their temporary files exist), so many kills land mid-write
        if [ $((rounds % 2)) -eq 0 ]; then
            for _ in $(seq 1 400); do
                ls "$T/d" | grep -q '\.tmp\.' && break
                sleep 0.005
            done
            delay=$(printf '0.%03d' $((RANDOM % 150)))
        fi
        sleep "$delay"
        if kill -"$sig" "$pid" 2>/dev/null; then landed=$((landed + 1)); else sig=none; fi
    fi
    wait "$pid" 2>/dev/null
    pid=
    for s in $logs; do
        f="$T/d/$s.hlog"
        if [ ! -f "$f" ]; then
            fail "kill -$sig after ${delay}s: $s.hlog is gone"
        elif cmp -s "$f" "$T/old.$s"; then
            kept=$((kept + 1))
        elif complete "$f"; then
            replaced=$((replaced + 1))
            cp "$f" "$T/old.$s"
        else
            fail "kill -$sig after ${delay}s: $s.hlog is neither the old log nor a complete new one"
            cp "$f" "$T/torn.$rounds.$s"
        fi
    done
    left=$(ls "$T/d" | grep -c '\.tmp\.')
    if [ "$sig" = KILL ]; then
        rm -f "$T"/d/*.tmp.* # SIGKILL cannot be caught: its temporary files stay
    elif [ "$left" -ne 0 ]; then
        fail "kill -$sig after ${delay}s left $left temporary files"
        rm -f "$T"/d/*.tmp.*
    fi
    # once it has opened an output file, an interrupted run says what it kept
    if [ "$sig" != KILL ] && [ "$sig" != none ] && grep -q 'discarded' "$T/err"; then
        discarded=$((discarded + 1))
        grep -q 'every file completed before the signal is kept' "$T/err" ||
            fail "kill -$sig: stderr does not say what was kept: $(cat "$T/err")"
    fi
done
[ $landed -ge 45 ] || fail "only $landed of 50 kills landed while the run was going"
[ $replaced -ge 3 ] || fail "complete runs did not replace the logs"
[ $discarded -ge 10 ] || fail "only $discarded kills landed while logs were being written"
echo "pipeline: $landed kills landed at random points ($discarded while logs were being written); logs kept as they were $kept times, replaced by complete ones $replaced times"

# hist merge -o: a large merge killed while it writes leaves no temporary file
mkdir -p "$T/m"
for i in $(seq 1 40); do cat "$T/d/e2e.hlog"; done >"$T/big.hlog"
for i in $(seq 1 10); do
    env --default-signal=INT setsid "$L" hist merge "$T/big.hlog" "$T/big.hlog" "$T/big.hlog" -o "$T/m/merged.hlog" 2>/dev/null &
    pid=$!
    await_exec $pid
    sleep "0.0$((RANDOM % 5))"
    kill -TERM "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    pid=
    [ -d "$T/m" ] && ls "$T/m" | grep -q '\.tmp\.' && fail "hist merge killed left a temporary file"
    if [ -f "$T/m/merged.hlog" ]; then
        "$L" hist summary "$T/m/merged.hlog" >/dev/null 2>&1 || fail "merged.hlog is not complete"
    fi
done

[ $fails -eq 0 ] && echo "cli_torn_logs: all passed"
exit $((fails > 0))
