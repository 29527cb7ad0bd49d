#!/bin/bash
# files.sh - files and floors as the linker and wc see them.
#
# Calls: no two source files of core/, measure/, workloads/, lab/ or cli/
# call each other (A uses a symbol B defines and B one A defines), read from
# the built objects with nm: defined symbols (T, D, B, R...) against
# undefined ones (U).  Two files that need each other are one concern split
# badly, or a callback that should have been passed.
#
# Sizes: no .c file under core/, measure/, workloads/ or lab/ is over 800
# lines, except the files listed below, each held to its size when this
# check came in (a ceiling: they may only shrink; take a file off the list
# once it is within 800).  No file in cli/ is over 500 lines, and the .c
# files of cli/ hold at most 7,000 lines together.
#
# Each check is then run on a planted violation and must fail there, so a
# checker that finds nothing is caught.
set -u
SRC=${LAT_SRC_DIR:?}
BUILD=${LAT_BUILD_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

LIB_MAX=800
CLI_FILE_MAX=500
CLI_TOTAL_MAX=7000
# file  ceiling (lines): over LIB_MAX when this check came in
CEILINGS="
measure/profile.c 807
measure/prom.c 864
measure/bench/results.c 886
lab/report.c 822
core/topo.c 949
lab/verdict.c 999
measure/load.c 1003
workloads/book/book.c 1046
core/hist.c 1051
core/perf.c 1092
measure/bench/run.c 1329
measure/flame.c 1372
"

calls() { # src build...: prints each pair of files that call each other, exits 1 when there is one
    python3 - "$@" <<'PY'
import collections, os, subprocess, sys
src, builds = sys.argv[1], sys.argv[2:]
floors = ("core/", "measure/", "workloads/", "lab/", "cli/")
# CMake puts the object of <src>/<path>.c at <build>/CMakeFiles/<target>.dir/<path>.c.o
objs = {}
for build in builds:
    top = os.path.join(build, "CMakeFiles")
    for d, _, names in os.walk(top):
        for n in names:
            if not n.endswith(".c.o"):
                continue
            p = os.path.join(d, n)
            rel = os.path.relpath(p, top).split(os.sep)
            path = "/".join(rel[1:])[:-2]
            if path.startswith(floors) and os.path.exists(os.path.join(src, path)):
                objs.setdefault(path, p)
want = []
for f in floors:
    for d, _, names in os.walk(os.path.join(src, f)):
        want += [os.path.relpath(os.path.join(d, n), src) for n in names if n.endswith(".c")]
missing = sorted(set(want) - set(objs))
if not objs or missing:
    print("no object for: " + (" ".join(missing) if objs else "any source") +
          " (build the tree first)")
    sys.exit(2)
defs, uses = {}, collections.defaultdict(set)
byobj = {p: path for path, p in objs.items()}
out = subprocess.run(["nm", "-A"] + sorted(byobj), capture_output=True, text=True, check=True).stdout
for line in out.splitlines():
    obj, _, rest = line.rpartition(":")  # "<object>: <value> <type> <name>" or ": U <name>"
    path, f = byobj.get(obj.strip()), rest.split()
    if path is None:
        continue
    if len(f) == 2 and f[0] == "U":
        uses[path].add(f[1])
    elif len(f) == 3 and f[1] in "TDBRGSWVi":  # defined, global
        defs.setdefault(f[2], path)
edges = collections.defaultdict(lambda: collections.defaultdict(set))
for a, us in uses.items():
    for s in us:
        b = defs.get(s)
        if b and b != a:
            edges[a][b].add(s)
bad = 0
for a in sorted(edges):
    for b in sorted(edges[a]):
        if a < b and a in edges.get(b, {}):
            bad += 1
            print(f"{a} <-> {b}: {a} uses {', '.join(sorted(edges[a][b]))}; "
                  f"{b} uses {', '.join(sorted(edges[b][a]))}")
print(f"({len(objs)} objects)", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

sizes() { # root: prints each file over its limit, exits 1 when there is one
    CEILINGS=$CEILINGS LIB_MAX=$LIB_MAX CLI_FILE_MAX=$CLI_FILE_MAX CLI_TOTAL_MAX=$CLI_TOTAL_MAX \
        python3 - "$1" <<'PY'
import os, sys
root = sys.argv[1]
lib_max, cli_max, cli_total_max = (int(os.environ[k]) for k in
                                   ("LIB_MAX", "CLI_FILE_MAX", "CLI_TOTAL_MAX"))
ceil = {f: int(n) for f, n in (l.split() for l in os.environ["CEILINGS"].splitlines() if l.strip())}
def lines(rel):
    with open(os.path.join(root, rel), "rb") as fh:
        return fh.read().count(b"\n")
def walk(top, pred):
    for d, _, names in os.walk(os.path.join(root, top)):
        for n in sorted(names):
            if pred(n):
                yield os.path.relpath(os.path.join(d, n), root)
bad = []
for top in ("core", "measure", "workloads", "lab"):
    for f in sorted(walk(top, lambda n: n.endswith(".c"))):
        n = lines(f)
        if f in ceil:
            if n > ceil[f]:
                bad.append(f"{f}: {n} lines, over its ceiling of {ceil[f]}")
        elif n > lib_max:
            bad.append(f"{f}: {n} lines (at most {lib_max})")
total = 0
for f in sorted(walk("cli", lambda n: True)):
    n = lines(f)
    if n > cli_max:
        bad.append(f"{f}: {n} lines (at most {cli_max})")
    if f.endswith(".c"):
        total += n
if total > cli_total_max:
    bad.append(f"cli/*.c: {total} lines together (at most {cli_total_max})")
# a ceiling for a file that is gone, or within the limit now, is stale
for f, n in ceil.items():
    if not os.path.exists(os.path.join(root, f)):
        bad.append(f"{f}: listed with a ceiling but gone (take it off the list)")
    elif lines(f) <= lib_max:
        bad.append(f"{f}: within {lib_max} lines now (take it off the list)")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
}

# ---- the tree as built ------------------------------------------------------------
out=$(calls "$SRC" "$BUILD")
rc=$?
[ $rc -eq 2 ] && fail "$out"
[ $rc -eq 0 ] || fail "source files that call each other (move the function to the file it
belongs to, or pass a callback or a result):
$out"
out=$(sizes "$SRC") || fail "files over their size:
$out"

# ---- each check must be able to fail ---------------------------------------------------
# calls: the build's objects plus two core files that call each other.
mkdir -p "$T/src" "$T/build/CMakeFiles/planted.dir/core"
cp -r "$SRC/core" "$SRC/measure" "$SRC/workloads" "$SRC/lab" "$SRC/cli" "$T/src/" || fail "copy"
printf 'int lat__planted_b(int);\nint lat__planted_a(int x) { return x ? lat__planted_b(x - 1) : 0; }\n' \
    >"$T/src/core/planted_a.c"
printf 'int lat__planted_a(int);\nint lat__planted_b(int x) { return x ? lat__planted_a(x - 1) : 1; }\n' \
    >"$T/src/core/planted_b.c"
for x in a b; do
    ${CC:-cc} -c -o "$T/build/CMakeFiles/planted.dir/core/planted_$x.c.o" "$T/src/core/planted_$x.c" ||
        fail "cannot compile the planted pair"
done
out=$(calls "$T/src" "$BUILD" "$T/build" 2>/dev/null) && fail "a planted pair (core/planted_a.c <-> core/planted_b.c) was not found"
echo "$out" | grep -q '^core/planted_a.c <-> core/planted_b.c: core/planted_a.c uses lat__planted_b' ||
    fail "the planted pair was not named: $out"
# ... and a source without its object is refused, not skipped.
rm "$T/build/CMakeFiles/planted.dir/core/planted_b.c.o"
out=$(calls "$T/src" "$BUILD" "$T/build" 2>/dev/null)
[ $? -eq 2 ] && echo "$out" | grep -q 'core/planted_b.c' ||
    fail "a source without an object was not named: $out"
rm "$T/src/core/planted_a.c" "$T/src/core/planted_b.c"

# sizes: a library file one line over, a ceiling file one line over its
# ceiling, a cli file one line over.
first_ceiling=$(awk 'NF == 2 { print $1; exit }' <<<"$CEILINGS")
yes '/* planted */' | head -n $((LIB_MAX + 1)) >"$T/src/workloads/planted_long.c"
yes '/* planted */' | head -n $(($(awk -v f="$first_ceiling" '$1 == f { print $2 }' <<<"$CEILINGS") + 1)) \
    >"$T/src/$first_ceiling"
yes '/* planted */' | head -n $((CLI_FILE_MAX + 1)) >"$T/src/cli/latlab.c"
out=$(sizes "$T/src") && fail "planted long files were not found"
for want in "workloads/planted_long.c: $((LIB_MAX + 1)) lines" "$first_ceiling: .* over its ceiling" \
    "cli/latlab.c: $((CLI_FILE_MAX + 1)) lines"; do
    echo "$out" | grep -q "^$want" || fail "the planted '$want' was not named: $out"
done

echo "ok: no two source files call each other; library files within $LIB_MAX lines (or their" \
    "ceilings), cli/ files within $CLI_FILE_MAX, cli/*.c within $CLI_TOTAL_MAX together"
