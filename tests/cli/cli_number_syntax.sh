#!/usr/bin/env bash
# cli_number_syntax.sh - one number syntax for every option: a whole number
# written with an exponent or a point ("2e5", "1.5e5", "200000.0") is taken
# by the integer options as the double ones (`load --rate`) take it; a value
# that is not whole ("2.5"), hex, or past the range is still a usage error
# (exit 2) naming the flag.  Each case stops on a usage error after the flag
# was parsed (an unknown option), so no run starts.
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

[ $fails = 0 ] && echo "PASS" || exit 1
