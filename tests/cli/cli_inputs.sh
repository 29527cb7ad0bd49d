#!/bin/bash
# cli_inputs.sh - inputs that are not what they claim, across commands: a
# folder given as an input file says "Is a directory" (the kernel's reason,
# not "Input/output error"); an empty ITCH capture is an error naming it;
# an empty log given to `hist export` names the file; an output file under
# a missing folder (`load --hgrm`, `load --hlog`) is refused before any work
# (it once ran the whole load and crashed writing the .hgrm).
set -u
L=${LATLAB:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# expect RC TEXT -- latlab ARGS: exit status RC and TEXT on stderr
expect() {
    local want=$1 text=$2
    shift 3
    timeout 60 "$L" "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    [ "$rc" -eq "$want" ] || fail "latlab $* exited $rc, want $want: $(head -2 "$T/err")"
    grep -q -- "$text" "$T/err" || fail "latlab $*: stderr lacks '$text': $(head -2 "$T/err")"
}

mkdir "$T/adir"
: >"$T/empty.itch"
: >"$T/empty.hlog"
for sub in summary tags percentiles; do
    expect 1 "adir: Is a directory" -- hist $sub "$T/adir"
done
expect 1 "Is a directory" -- plot "$T/adir" -o "$T/p.svg"
[ -e "$T/p.svg" ] && fail "plot of a folder wrote $T/p.svg"
expect 1 "adir: Is a directory" -- book itch "$T/adir"
expect 1 "empty.itch: no ITCH messages" -- book itch "$T/empty.itch"
expect 1 "empty.hlog: no intervals" -- hist export "$T/empty.hlog" --text
# output files under a missing folder: refused before the run starts (no
# server is listening on port 1: a run that started would say so instead)
expect 1 "no/such: No such file or directory" -- load 127.0.0.1:1 --protocol echo --rate 10 \
    --duration 1s --quiet --hgrm "$T/no/such/x.hgrm"
expect 1 "no/such: No such file or directory" -- load 127.0.0.1:1 --protocol echo --rate 10 \
    --duration 1s --quiet --hlog "$T/no/such/x.hlog"
echo "inputs: folders, empty captures and logs, output files under missing folders: as documented"
