#!/bin/bash
# names.sh - one name per idea, as docs/ARCHITECTURE.md's table "One name per
# idea" states it and the linker sees it (nm of the built objects).
#
# Prefixes: each global function a library object (core/, measure/,
# workloads/, lab/) defines starts with a prefix of its source's row.  A
# source's row is the one naming the file, else the one naming the closest
# folder above it.  Public names (lat_, not lat__) always; internal ones
# (lat__) when the row lists a lat__ prefix; names without lat_ (the book's
# book_, a malloc the counting allocator interposes) always.
#
# Verbs: no word after a public name's first (lat_<idea>_...) is a lifecycle
# verb other than create/destroy/init/fini: open, close, free, new, delete,
# load, release, dispose, clone, dup.  A name may break a rule only when the
# table "Names outside the rules" lists it with its reason.
#
# Files: no two .c files of the tree share a basename.
#
# The checker is then run on a planted wrong prefix, a planted verb, a planted
# unlisted source and a planted twin file, and must fail on each.
set -u
SRC=${LAT_SRC_DIR:?}
BUILD=${LAT_BUILD_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

check() { # doc src build...: prints each broken rule, exits 1 when there is one (2: no objects)
    python3 - "$@" <<'PY'
import collections, os, re, subprocess, sys
doc, src, builds = sys.argv[1], sys.argv[2], sys.argv[3:]
floors = ("core/", "measure/", "workloads/", "lab/")
verbs = {"open", "close", "free", "new", "delete", "load", "release", "dispose", "clone", "dup"}
tick = re.compile(r"`([^`]+)`")

def table(text, heading):  # the rows (lists of cells) of the first table under heading
    rows, on = [], False
    for line in text.splitlines():
        if line.startswith("#"):
            if on and rows:
                break
            on = line.strip("# ").strip() == heading
        elif on and line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not set(cells[0]) <= set("-: "):
                rows.append(cells)
    return rows[1:]  # less the header

text = open(doc).read()
rows = table(text, "One name per idea")
if not rows:
    print(f"{doc}: no table under '## One name per idea'")
    sys.exit(2)
owner = {}  # source path or folder (ending in /) -> (idea, prefixes)
for cells in rows:
    # a remark in parentheses is neither a source nor a prefix
    idea, sources = cells[0], re.sub(r"\(.*?\)", "", cells[2])
    prefixes = tick.findall(re.sub(r"\(.*?\)", "", cells[3]))
    folder = ""
    for s in sources.split(","):
        s = s.strip()
        if not s:
            continue
        if "/" in s:
            folder = s if s.endswith("/") else s.rsplit("/", 1)[0] + "/"
        else:
            s = folder + s
        if s in owner:
            print(f"{s}: in two rows ('{owner[s][0]}', '{idea}')")
        owner[s] = (idea, prefixes)
exempt = {}
for cells in table(text, "Names outside the rules"):
    for n in tick.findall(cells[0]):
        exempt[n] = cells[-1]
def row(path):
    p = path
    while p:
        if p in owner:
            return owner[p]
        p = p.rstrip("/").rpartition("/")[0]
        p = p + "/" if p else ""
    return None

objs = collections.defaultdict(list)  # source path -> its objects
for build in builds:
    top = os.path.join(build, "CMakeFiles")
    # only the targets of the current configuration: a build folder keeps the
    # objects of targets a renamed or removed one left behind
    live = os.path.join(top, "TargetDirectories.txt")
    live = {l.strip() for l in open(live)} if os.path.exists(live) else None
    # and of those, the objects each target's DependInfo.cmake still lists
    # (a source moved to another target leaves its old object behind)
    made = None
    for t in live or ():
        info = os.path.join(t, "DependInfo.cmake")
        if os.path.exists(info):
            made = (made or set()) | set(re.findall(r'"(CMakeFiles/[^"]+\.c\.o)"', open(info).read()))
    for d, _, names in os.walk(top):
        tdir = os.path.join(top, os.path.relpath(d, top).split(os.sep)[0])
        if live is not None and os.path.abspath(tdir) not in live:
            continue
        for n in names:
            if n.endswith(".c.o"):
                p = os.path.join(d, n)
                path = "/".join(os.path.relpath(p, top).split(os.sep)[1:])[:-2]
                if path.startswith(floors) and os.path.exists(os.path.join(src, path)) and \
                        (made is None or os.path.relpath(p, build) in made):
                    objs[path].append(p)
want, base = [], collections.defaultdict(list)
for d, dirs, names in os.walk(src):
    dirs[:] = sorted(x for x in dirs if not x.startswith((".", "build")) and x != "node_modules")
    for n in sorted(names):
        if n.endswith(".c"):
            rel = os.path.relpath(os.path.join(d, n), src)
            base[n].append(rel)
            if rel.startswith(floors):
                want.append(rel)
missing = sorted(set(want) - set(objs))
if not objs or missing:
    print("no object for: " + (" ".join(missing) if objs else "any source") + " (build the tree first)")
    sys.exit(2)
bad = []
for n, paths in sorted(base.items()):
    if len(paths) > 1:
        bad.append(f"{n}: {len(paths)} files share the name ({', '.join(paths)})")
byobj = {p: path for path, ps in objs.items() for p in ps}
out = subprocess.run(["nm", "-A", "--defined-only", "-g"] + sorted(byobj),
                     capture_output=True, text=True, check=True).stdout
seen = set()
for line in out.splitlines():
    obj, _, rest = line.rpartition(":")
    path, f = byobj.get(obj.strip()), rest.split()
    if path is None or len(f) != 3 or f[1] not in "TWi" or (path, f[2]) in seen:
        continue
    seen.add((path, f[2]))
    name, r = f[2], row(path)
    if r is None:
        bad.append(f"{path}: no row in the table (defines {name})")
        continue
    idea, prefixes = r
    if name in exempt:
        continue
    if name.startswith("lat__"):
        mine = [p for p in prefixes if p.startswith("lat__")]
    elif name.startswith("lat_"):
        mine = [p for p in prefixes if p.startswith("lat_") and not p.startswith("lat__")]
    else:
        mine = [p for p in prefixes if not p.startswith("lat_")] or [None]
    if mine and not any(p and name.startswith(p) for p in mine):
        bad.append(f"{path}: {name} starts with none of its row's prefixes "
                   f"({', '.join(p for p in mine if p) or 'none'}; row '{idea}')")
    if name.startswith("lat_") and not name.startswith("lat__"):
        v = verbs.intersection(name[4:].split("_")[1:])
        if v:
            bad.append(f"{path}: {name} uses the verb {'/'.join(sorted(v))} "
                       "(lifecycle: create/destroy, init/fini)")
# one complaint per file for a file without a row
done, out_lines = set(), []
for b in bad:
    key = b.split(" (defines")[0] if "no row" in b else b
    if key not in done:
        done.add(key)
        out_lines.append(key)
print("\n".join(out_lines))
print(f"({len(objs)} sources, {len(seen)} names, {len(owner)} table entries)", file=sys.stderr)
sys.exit(1 if out_lines else 0)
PY
}

DOC=$SRC/docs/ARCHITECTURE.md
# ---- the tree as built ------------------------------------------------------------
out=$(check "$DOC" "$SRC" "$BUILD")
rc=$?
[ $rc -eq 2 ] && fail "$out"
[ $rc -eq 0 ] || fail "names that break docs/ARCHITECTURE.md's rules (rename, or correct the table):
$out"

# ---- the checker must be able to fail ------------------------------------------------
mkdir -p "$T/src/docs" "$T/build/CMakeFiles/planted.dir/core"
cp -r "$SRC/core" "$SRC/measure" "$SRC/workloads" "$SRC/lab" "$SRC/cli" "$T/src/" || fail "copy"
# a row whose prefix is wrong
sed 's/| `lat_clock_`, `lat_cycles` |/| `lat_klock_`, `lat_cycles` |/' "$DOC" >"$T/src/docs/ARCHITECTURE.md"
cmp -s "$DOC" "$T/src/docs/ARCHITECTURE.md" && fail "the clock row was not found to alter"
out=$(check "$T/src/docs/ARCHITECTURE.md" "$T/src" "$BUILD" 2>/dev/null) &&
    fail "a wrong prefix (lat_klock_ for core/clock.c) was not found"
echo "$out" | grep -q '^core/clock.c: lat_clock_[a-z_]* starts with none' ||
    fail "the wrong prefix was not named: $out"
cp "$DOC" "$T/src/docs/ARCHITECTURE.md"
# a function with another verb and one with another prefix, planted beside core/clock.c
printf 'int lat_clock_open(void) { return 0; }\nint lat_clok_now(void) { return 1; }\n' >"$T/planted.c"
${CC:-cc} -c -o "$T/build/CMakeFiles/planted.dir/core/clock.c.o" "$T/planted.c" ||
    fail "cannot compile the planted names"
out=$(check "$DOC" "$T/src" "$BUILD" "$T/build" 2>/dev/null) && fail "planted names were not found"
for want in "core/clock.c: lat_clock_open uses the verb open" "core/clock.c: lat_clok_now starts with none"; do
    echo "$out" | grep -q "^$want" || fail "the planted '$want' was not named: $out"
done
rm "$T/build/CMakeFiles/planted.dir/core/clock.c.o"
# a source that no row names, and a second clock.c
cp "$T/planted.c" "$T/src/measure/planted_norow.c"
mkdir -p "$T/build/CMakeFiles/planted.dir/measure" "$T/src/cli/twin"
${CC:-cc} -c -o "$T/build/CMakeFiles/planted.dir/measure/planted_norow.c.o" "$T/planted.c" ||
    fail "cannot compile the planted source"
cp "$SRC/core/clock.c" "$T/src/cli/twin/clock.c"
out=$(check "$DOC" "$T/src" "$BUILD" "$T/build" 2>/dev/null) && fail "a source without a row and a twin were not found"
for want in "measure/planted_norow.c: no row in the table" "clock.c: 2 files share the name"; do
    echo "$out" | grep -q "^$want" || fail "the planted '$want' was not named: $out"
done

echo "ok: every library function's prefix is its row's in docs/ARCHITECTURE.md, lifecycle verbs" \
    "are create/destroy/init/fini, no two .c files share a name"
