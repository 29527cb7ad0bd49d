#!/bin/bash
# cli_profile.sh - `latlab profile` without running perf: flags checked before
# any work (exit 2 naming the flag), `profile fold` on recorded `perf script`
# fixtures (folded text, valid XML, frame widths that sum to the samples,
# top.txt, report.html), `profile diff` (a profile against itself differs by
# 0 points; a known pair by a known amount), malformed input named with its
# line, and a clear error when the perf binary is missing.
set -u
L=${LATLAB:?}
S=${LAT_SRC_DIR:?}
D=$S/tests/data/profile
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# usage: exit 2, the flag named, nothing created
usage() { # EXPECTED-TEXT ARGS...
    local want=$1
    shift
    (cd "$T" && "$L" profile "$@") >"$T/out" 2>"$T/err"
    local rc=$?
    [ $rc -eq 2 ] || fail "profile $* exited $rc, want 2: $(cat "$T/err")"
    grep -q -- "$want" "$T/err" || fail "profile $*: no '$want' in: $(cat "$T/err")"
    [ ! -e "$T/profile" ] || fail "profile $* created output before failing"
}
usage "needs a command" 
usage "needs a command" -F 99
usage "\-F" -F 0 -- true
usage "\-F" -F 100001 -- true
usage "\-F" -F 12x -- true
usage "\-o.*empty" -o "" -- true
usage "\-\-event: empty" --event "" -- true
usage "unknown option '--bogus'" --bogus -- true
usage "two folded files" diff "$D/kernel_user.folded"
usage "one input file" fold
usage "\-F: not with this form" fold -F 9 "$D/kernel_user.txt"
usage "\-\-limit" diff --limit 0 a b
usage "\-\-events" lab --events 10
usage "\-F" lab -F 0
usage "unexpected argument" lab extra
"$L" help profile | grep -q 'perf_event_paranoid' || fail "help does not mention perf_event_paranoid"

# fold the fixtures
for f in kernel_user unknown inlined; do
    "$L" profile fold -o "$T/$f" "$D/$f.txt" >"$T/out" 2>&1 || fail "fold $f: $(cat "$T/out")"
    cmp -s "$T/$f/folded.txt" "$D/$f.folded" || fail "fold $f: folded.txt differs: $(diff "$T/$f/folded.txt" "$D/$f.folded")"
    for o in flame.svg top.txt report.html; do
        [ -s "$T/$f/$o" ] || fail "fold $f: no $o"
    done
    if command -v xmllint >/dev/null; then
        xmllint --noout "$T/$f/flame.svg" || fail "$f/flame.svg is not well-formed XML"
    fi
    python3 - "$T/$f/flame.svg" "$D/$f.folded" <<'PY' || fail "$f: SVG widths"
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
total = sum(int(l.rsplit(" ", 1)[1]) for l in open(sys.argv[2]) if l.strip())
by_depth = {}
for g in root.iter("{http://www.w3.org/2000/svg}g"):
    if "data-depth" not in g.attrib: continue
    d = int(g.attrib["data-depth"])
    rect = g.find("s:rect", ns)
    title = g.find("s:title", ns).text
    assert "% of samples (" in title, title
    by_depth.setdefault(d, []).append((int(g.attrib["data-samples"]), float(rect.attrib["width"])))
(all_n, all_w), = by_depth[0]
assert all_n == total, (all_n, total)
# the threads level holds every sample once; widths are shares of the root
n1 = sum(n for n, w in by_depth[1]); w1 = sum(w for n, w in by_depth[1])
assert n1 == total and abs(w1 - all_w) < 0.05, (n1, w1, all_w)
for d, frames in by_depth.items():
    for n, w in frames:
        assert abs(w - all_w * n / total) < 0.01, (d, n, w)
print(f"svg: {total} samples, {sum(len(v) for v in by_depth.values())} frames, widths ok")
PY
done
grep -q "samples: 6 (event cpu-clock)" "$T/kernel_user/top.txt" || fail "top.txt: $(cat "$T/kernel_user/top.txt")"
grep -q "50.00%         3  worker" "$T/kernel_user/top.txt" || fail "top.txt threads"
"$L" profile fold --folded -o "$T/ff" "$D/kernel_user.folded" >/dev/null || fail "fold --folded"
cmp -s "$T/ff/folded.txt" "$D/kernel_user.folded" || fail "fold --folded does not round-trip"

# diff: itself -> 0; a known pair
"$L" profile diff "$D/kernel_user.folded" "$D/kernel_user.folded" >"$T/out" 2>&1 || fail "diff itself: $(cat "$T/out")"
grep -q "^profiles differ by at most 0.0 points of share in any frame$" "$T/out" || fail "diff itself: $(cat "$T/out")"
printf 'w;spin 3\nw;work 1\n' >"$T/a.folded"
printf 'w;spin 1\nw;work 3\n' >"$T/b.folded"
"$L" profile diff "$T/a.folded" "$T/b.folded" >"$T/out" 2>&1 || fail "diff a b: $(cat "$T/out")"
grep -q "profiles differ by at most 50.0 points of share in any frame (spin)" "$T/out" || fail "diff a b: $(cat "$T/out")"
grep -Eq '^ +75.00% +25.00% +-50.00  spin$' "$T/out" || fail "diff row: $(cat "$T/out")"

# malformed input: exit 1, the file and line named
printf 'w;a 1\nw;b\n' >"$T/bad.folded"
"$L" profile diff "$T/a.folded" "$T/bad.folded" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 1 ] || fail "diff of a bad file exited $rc"
grep -q "bad.folded:2:" "$T/err" || fail "bad file not named with its line: $(cat "$T/err")"
printf 'x 1 1.0: 1 e: \n\t12zz f\n' >"$T/bad.txt"
"$L" profile fold -o "$T/badout" "$T/bad.txt" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 1 ] || fail "fold of a bad file exited $rc"
grep -q "bad.txt:2:" "$T/err" || fail "fold: bad line not named: $(cat "$T/err")"
# input that is not perf script output: the file and line where it stopped being it
printf 'root:x:0:0:root:/root:/bin/bash\n' >"$T/passwd"
"$L" profile fold -o "$T/pw" "$T/passwd" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && grep -q "passwd:1: not a perf script sample header" "$T/err" || fail "fold of text: $rc $(cat "$T/err")"
[ ! -e "$T/pw/flame.svg" ] || fail "fold of text drew a flamegraph"
printf 'one\ntwo\nthree\n' >"$T/three.txt"
"$L" profile fold -o "$T/pw" "$T/three.txt" >/dev/null 2>&1 && fail "fold of three text lines exited 0"
# no samples: one behaviour (exit 1, the same message) for fold, fold --folded and diff
: >"$T/empty"
for form in "fold -o $T/e1" "fold --folded -o $T/e2" "diff $T/a.folded"; do
    "$L" profile $form "$T/empty" >/dev/null 2>"$T/err"; rc=$?
    [ $rc -eq 1 ] && grep -qx "latlab profile: $T/empty: no samples" "$T/err" || fail "$form empty: $rc $(cat "$T/err")"
done
# a directory: the real cause
"$L" profile diff "$T/a.folded" /tmp >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && grep -q "/tmp: Is a directory" "$T/err" || fail "diff A /tmp: $rc $(cat "$T/err")"
"$L" profile fold -o "$T/x" "$T/nonexistent" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && grep -q "nonexistent: cannot open" "$T/err" || fail "missing input: $rc $(cat "$T/err")"

# perf missing: a PATH without perf, and an explicit --perf that does not exist
env PATH=/nonexistent "$L" profile -o "$T/np" -- true >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 1 ] || fail "no perf in PATH exited $rc"
grep -q "perf not found: install it (Debian package linux-perf)" "$T/err" || fail "no perf: $(cat "$T/err")"
"$L" profile --perf /nonexistent/perf -o "$T/np" -- true >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && grep -q "/nonexistent/perf not found" "$T/err" || fail "--perf missing: $rc $(cat "$T/err")"
echo "cli_profile: ok"
