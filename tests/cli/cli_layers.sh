#!/bin/bash
# cli_layers.sh - the import picture: no file includes a header of a higher
# floor (core < measure < workloads < lab < cli).  A header in
# include/latlab/ belongs to the floor of the source that includes it first
# (its component's own .c file), or to core when no source does (inline-only
# headers); a quoted private header to the folder it lives in.  The umbrella
# latlab.h is left out (it includes every public header on purpose).  The
# check is then run on a copy of the tree with one upward include added, and
# must fail there, so a checker that finds nothing is caught.
set -u
SRC=${LAT_SRC_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

check() { # root: prints every upward arrow, exits 1 when there is one
    python3 - "$1" <<'PY'
import os, re, sys
root = sys.argv[1]
floors = ["core", "measure", "workloads", "lab", "cli"]
rank = {f: i for i, f in enumerate(floors)}
inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
files = {}  # relative path -> floor
for f in floors:
    for d, _, names in os.walk(os.path.join(root, f)):
        for n in names:
            if n.endswith((".c", ".h")):
                files[os.path.relpath(os.path.join(d, n), root)] = f
def includes(rel):
    with open(os.path.join(root, rel), errors="replace") as fh:
        return inc_re.findall(fh.read())
# a public header's floor: the lowest floor of a source whose first include it is
pub = {}
for rel, f in files.items():
    if not rel.endswith(".c"):
        continue
    inc = includes(rel)
    if inc and inc[0].startswith("latlab/"):
        h = inc[0]
        if h not in pub or rank[f] < rank[pub[h]]:
            pub[h] = f
incdir = os.path.join(root, "include", "latlab")
for n in sorted(os.listdir(incdir)):
    if n.endswith(".h") and n != "latlab.h":
        files[os.path.join("include", "latlab", n)] = pub.get("latlab/" + n, "core")
byname = {}
for rel in files:
    if not rel.startswith("include/"):
        byname.setdefault(os.path.basename(rel), rel)
bad = []
for rel, f in sorted(files.items()):
    for h in includes(rel):
        if h.startswith("latlab/"):
            if h == "latlab/latlab.h":
                continue
            tgt = os.path.join("include", h)
        else:
            local = os.path.normpath(os.path.join(os.path.dirname(rel), h))
            tgt = local if local in files else byname.get(os.path.basename(h))
        if tgt is None or tgt not in files:
            continue  # generated (protobuf) or outside the floors
        if rank[files[tgt]] > rank[f]:
            bad.append(f"{rel} ({f}) includes {h} ({files[tgt]})")
for b in bad:
    print("upward:", b)
sys.exit(1 if bad else 0)
PY
}

out=$(check "$SRC") || fail "includes that run up a floor:
$out"

# The checker must be able to fail: a core file that includes the lab.
mkdir -p "$T/tree"
cp -r "$SRC/core" "$SRC/measure" "$SRC/workloads" "$SRC/lab" "$SRC/cli" "$T/tree/" || fail "copy"
mkdir -p "$T/tree/include" && cp -r "$SRC/include/latlab" "$T/tree/include/" || fail "copy"
echo '#include "latlab/lab.h"' >>"$T/tree/core/clock.c"
out=$(check "$T/tree") && fail "an upward include (core/clock.c -> lab.h) was not found"
echo "$out" | grep -q 'core/clock.c (core) includes latlab/lab.h (lab)' ||
    fail "the planted arrow was not named: $out"
echo "ok: no include runs up a floor (core < measure < workloads < lab < cli)"
