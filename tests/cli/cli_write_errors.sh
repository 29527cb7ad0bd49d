#!/usr/bin/env bash
# cli_write_errors.sh - failed writes are errors: every command with stdout on
# /dev/full exits 1 and names ENOSPC ("No space left on device", not
# "Input/output error"), and so does a --json/-o/--hgrm file there; on a full
# filesystem (a 1 MiB tmpfs, root only) the interval logs of `pipeline
# --hlog-dir`, `hist merge -o` and --json files exit 1 naming the path, and
# leave no partial file behind; a log directory that cannot be made (under a
# file) exits 1 before the run's plan prints.
set -u
L=${LATLAB:?path of the latlab tool}
T=$(mktemp -d)
mnt=
cleanup() {
    [ -n "$mnt" ] && umount "$mnt" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$L" pipeline --shape compact --events 2000 --hlog-dir "$T/logs" >/dev/null 2>&1 || fail "pipeline for the fixtures"
printf 'L 1 1 S 100 5 GTC\nL 2 2 B 100 5 GTC\n' >"$T/ops"
itch=${LAT_SRC_DIR:-.}/../shared/data/ritch_ex.itch
[ -f "$itch" ] || itch=/work/shared/data/ritch_ex.itch

# every command, one quick form each, stdout on /dev/full
forms=(
    "help"
    "help hist"
    "--version"
    "lab --quick --out $T/lab"
    "pipeline --shape compact --events 1000"
    "clock --window-ms 5 --drift-s 0 --samples 1000"
    "co --quick"
    "dce --ops 100000 --samples 1000"
    "sys"
    "hist summary $T/logs/e2e.hlog"
    "hist tags $T/logs/e2e.hlog"
    "hist percentiles $T/logs/e2e.hlog"
    "plot $T/logs/e2e.hlog -o $T/plot.svg"
    "bakeoff ring --rounds 1 --ops 20000 --items 64000 --samples 2000 --capacity 256"
    "book replay $T/ops"
    "book bench mixed_70_20_10 --quick --out $T/bb"
    "stat -- echo counted"
)
[ -f "$itch" ] && forms+=("book itch $itch")
if [ "$(id -u)" = 0 ]; then
    forms+=("silence --cpus 0 --seconds 0.1")
else
    echo "SKIPPED (part): silence needs root"
fi
for f in "${forms[@]}"; do
    # shellcheck disable=SC2086
    timeout 120 "$L" $f >/dev/full 2>"$T/err"
    rc=$?
    [ $rc -eq 1 ] || fail "'latlab $f' >/dev/full exited $rc, want 1"
    grep -q "No space left on device" "$T/err" || fail "'latlab $f' >/dev/full did not say ENOSPC: $(tail -2 "$T/err")"
    grep -q "Input/output error" "$T/err" && fail "'latlab $f' >/dev/full says Input/output error"
done
echo "stdout on /dev/full: ${#forms[@]} command forms checked"

# output files on /dev/full: ENOSPC too (a write that fails before the commit,
# past stdio's buffer, once lost its errno and said Input/output error; a
# formatting call's ERANGE once stood in for it)
files=(
    "pipeline --shape compact --events 1000 --json /dev/full"
    "book itch-gen --messages 20000 -o /dev/full"
    "bakeoff ring --rounds 1 --ops 20000 --items 64000 --samples 2000 --capacity 256 --same-thread --json /dev/full"
    "hist percentiles $T/logs/e2e.hlog --ticks 1000 -o /dev/full"
    "hist percentiles $T/logs/e2e.hlog --ticks 1000 --ci -o /dev/full"
    "hist summary $T/logs/e2e.hlog --json /dev/full"
    "plot $T/logs/e2e.hlog -o $T/p2.svg --json /dev/full"
    "book replay $T/ops --json /dev/full"
    "sys --json /dev/full"
    "load 127.0.0.1:1 --rate 10 --duration 100ms --json /dev/full"
)
[ -f "$itch" ] && files+=("book itch $itch --hgrm /dev/full" "book itch $itch --json /dev/full")
for f in "${files[@]}"; do
    # shellcheck disable=SC2086
    timeout 120 "$L" $f >/dev/null 2>"$T/err"
    rc=$?
    [ $rc -eq 1 ] || fail "'latlab $f' exited $rc, want 1"
    grep -q "/dev/full: No space left on device" "$T/err" ||
        fail "'latlab $f' did not say ENOSPC for /dev/full: $(tail -2 "$T/err")"
done
echo "output files on /dev/full: ${#files[@]} command forms checked"

# a log directory that cannot be made is refused before the plan prints
: >"$T/afile"
"$L" pipeline --shape compact --events 2000 --hlog-dir "$T/afile/logs" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] || fail "pipeline --hlog-dir under a file exited $rc, want 1"
grep -q "$T/afile/logs" "$T/err" || fail "pipeline --hlog-dir under a file: no path: $(cat "$T/err")"
[ -s "$T/out" ] && fail "pipeline --hlog-dir under a file printed its plan first: $(head -2 "$T/out")"

# a full filesystem
if [ "$(id -u)" != 0 ]; then
    echo "SKIPPED (part): the full-filesystem cases need root (tmpfs mount)"
else
    mnt="$T/full"
    mkdir -p "$mnt"
    if ! mount -t tmpfs -o size=1m tmpfs "$mnt" 2>"$T/err"; then
        echo "SKIPPED (part): cannot mount a tmpfs: $(cat "$T/err")"
        mnt=
    else
        mkdir "$mnt/d"
        dd if=/dev/zero of="$mnt/filler" bs=4k count=1000 2>/dev/null # fill it up
        "$L" pipeline --shape compact --events 2000 --hlog-dir "$mnt/d" >/dev/null 2>"$T/err"
        rc=$?
        [ $rc -eq 1 ] || fail "pipeline --hlog-dir on a full filesystem exited $rc, want 1"
        grep -q "$mnt/d/.*\.hlog: No space left on device" "$T/err" || fail "pipeline --hlog-dir: no path and ENOSPC: $(cat "$T/err")"
        [ -z "$(ls "$mnt/d")" ] || fail "pipeline --hlog-dir left files on a full filesystem: $(ls "$mnt/d")"
        "$L" hist merge "$T/logs/e2e.hlog" -o "$mnt/d/m.hlog" >/dev/null 2>"$T/err"
        rc=$?
        [ $rc -eq 1 ] || fail "hist merge -o on a full filesystem exited $rc, want 1"
        grep -q "$mnt/d/m.hlog: No space left on device" "$T/err" || fail "hist merge -o: $(cat "$T/err")"
        "$L" hist summary "$T/logs/e2e.hlog" --json "$mnt/d/s.json" >/dev/null 2>"$T/err"
        rc=$?
        [ $rc -eq 1 ] || fail "hist summary --json on a full filesystem exited $rc, want 1"
        grep -q "$mnt/d/s.json: No space left on device" "$T/err" || fail "hist summary --json: $(cat "$T/err")"
        [ -z "$(ls "$mnt/d")" ] || fail "partial files left on the full filesystem: $(ls "$mnt/d")"
        "$L" lab --quick --out "$mnt/lab" >/dev/null 2>"$T/err"
        rc=$?
        [ $rc -eq 1 ] || fail "lab --out on a full filesystem exited $rc, want 1"
        grep -q "$mnt/lab/.*: No space left on device" "$T/err" || fail "lab --out: no path and ENOSPC: $(cat "$T/err")"
        umount "$mnt"
    fi
    # out of inodes (bytes to spare): the path and ENOSPC, for the logs and for JSON
    if [ -n "$mnt" ] && mount -t tmpfs -o size=64k,nr_inodes=4 tmpfs "$mnt" 2>"$T/err"; then
        mkdir "$mnt/d"
        while : >"$mnt/f$((i = ${i:-0} + 1))" 2>/dev/null; do :; done # take every inode
        "$L" pipeline --shape compact --events 2000 --hlog-dir "$mnt/d" >/dev/null 2>"$T/err"
        rc=$?
        [ $rc -eq 1 ] || fail "pipeline --hlog-dir without inodes exited $rc, want 1"
        grep -q "$mnt/d/.*\.hlog: No space left on device" "$T/err" ||
            fail "pipeline --hlog-dir without inodes: no path: $(cat "$T/err")"
        "$L" hist summary "$T/logs/e2e.hlog" --json "$mnt/d/s.json" >/dev/null 2>"$T/err"
        [ $? -eq 1 ] && grep -q "$mnt/d/s.json: No space left on device" "$T/err" ||
            fail "hist summary --json without inodes: $(cat "$T/err")"
        umount "$mnt"
    fi
fi

[ $fails -eq 0 ] && echo "cli_write_errors: all passed"
exit $((fails > 0))
