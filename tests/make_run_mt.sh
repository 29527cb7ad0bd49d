#!/bin/bash
# make_run_mt.sh - the README's first command keeps the terminal short: `make
# run` (here on the built tree, with --quick) prints no compiler lines, one
# line per verdict, and under 100 lines in all; a failing build shows the
# end of its log and fails.
set -u
SRC=${LAT_SRC_DIR:?}
BUILD=${LAT_BUILD_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
unset MAKEFLAGS MFLAGS MAKELEVEL # not the jobserver of a make that runs the suite

make -C "$SRC" run BUILD="$BUILD" RUN_ARGS="--quick --replay none --no-profile --out $T/lab" \
    >"$T/out" 2>&1 || fail "make run exited $?: $(tail -5 "$T/out")"
n=$(wc -l <"$T/out")
echo "make run: $n lines"
[ "$n" -lt 100 ] || fail "make run printed $n lines"
grep -Eq 'Building C|Linking C|Built target' "$T/out" && fail "compiler lines on the terminal: $(grep -m1 -E 'Building C|Linking C|Built target' "$T/out")"
grep -q "^building latlab in $BUILD/ (log: $BUILD/build.log)" "$T/out" || fail "no build line"
for x in alloc share-line no-pin aa-control; do
    grep -q "^verdict $x: " "$T/out" || fail "no verdict line for $x"
done
[ -s "$T/lab/LAB.md" ] || fail "no LAB.md"

# a build that fails (a folder that is no CMake build): the log's end and a
# non-zero exit
mkdir -p "$T/bad"
printf 'all:\n\t@exit 1\n' >"$T/bad/Makefile"
make -C "$SRC" run BUILD="$T/bad" >"$T/badout" 2>&1 && fail "make run passed a failed build"
last=$(tail -n 1 "$T/bad/build.log")
[ -n "$last" ] && grep -qF -- "$last" "$T/badout" && grep -q "build failed: see $T/bad/build.log" "$T/badout" ||
    fail "failed build: $(cat "$T/badout")"
echo "make_run: ok"
