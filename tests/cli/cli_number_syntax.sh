#!/usr/bin/env bash
# cli_number_syntax.sh - one number syntax for every option: a whole number
# written with an exponent or a point ("2e5", "1.5e5", "200000.0") is taken
# by the integer options as the double ones (`load --rate`) take it; a value
# that is not whole ("2.5"), hex, or past the range is still a usage error
# (exit 2) naming the flag, on pipeline, lab, co, ab, noise and load alike
# (load's --rate, a schedule's numbers included, was taking hex and '+').
# Each case stops on a usage error after the flag was parsed, so no run starts.
set -u
L=${LATLAB:?path of the latlab tool}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# accepted: the error is about the next option, not the number
for cmd in "pipeline --rate 2e5" "pipeline --rate 1.5e5" "pipeline --events 1e3" \
    "lab --rate 2e5" "lab --rate 200000.0" "co --events 2E4"; do
    $L $cmd --no-such-option >/dev/null 2>"$T/err"
    rc=$?
    [ $rc = 2 ] && grep -q "unknown option '--no-such-option'" "$T/err" ||
        fail "$cmd: exit $rc: $(head -1 "$T/err")"
done
# refused, naming the flag
for cmd in "pipeline --rate 2.5" "pipeline --rate 0x10" "lab --rate 2.5e0" "pipeline --rate 1e30" \
    "pipeline --rate -2e5"; do
    flag=$(echo "$cmd" | awk '{print $2}')
    $L $cmd >/dev/null 2>"$T/err"
    rc=$?
    [ $rc = 2 ] && grep -q -- "$flag" "$T/err" || fail "$cmd: exit $rc: $(head -1 "$T/err")"
done

# The same forms on every command a first run meets: 2e5, 200000 and 200000.0
# are one number; 200k (no suffixes), 0x10 and +5 are refused naming the flag.
# load --rate is read after parsing: the accepted ones stop at --duration 0.
# noise --rate takes its unit words (2kHz) beside the plain forms.
for c in "pipeline --rate" "lab --rate" "co --rate" "ab --seed" "noise --rate" "noise --seed" \
    "load 127.0.0.1:9 --rate"; do
    flag=${c##* }
    for v in 2e4 20000 20000.0 2.0e4 20k 0x10 +5; do
        case $c in load*) $L $c $v --duration 0 ;; *) $L $c $v --no-such-option ;; esac >/dev/null 2>"$T/err"
        rc=$?
        case $v in
        20k | 0x10 | +5) [ $rc = 2 ] && grep -q -- "$flag: '$v' is not a" "$T/err" || fail "$c $v: exit $rc: $(head -1 "$T/err")" ;;
        *) [ $rc = 2 ] && grep -Eq "unknown option '--no-such-option'|--duration: must be more than 0" "$T/err" ||
            fail "$c $v: exit $rc: $(head -1 "$T/err")" ;;
        esac
    done
done
# a load rate schedule's numbers too
for v in 1e3:2e3:5e2/1s ramp:1000.0:2e3/1s; do
    $L load 127.0.0.1:9 --rate $v --duration 1s >/dev/null 2>"$T/err"
    grep -q -- "--duration: not with a rate schedule" "$T/err" || fail "load --rate $v: $(head -1 "$T/err")"
done
for v in 1000:0x800:500/1s ramp:+1:2/1s; do
    $L load 127.0.0.1:9 --rate $v --duration 1s >/dev/null 2>"$T/err"
    [ $? = 2 ] && grep -q -- "--rate: '[^']*' is not a decimal number" "$T/err" || fail "load --rate $v: $(head -1 "$T/err")"
done

[ $fails = 0 ] && echo "PASS" || exit 1
