#!/bin/bash
# abi_check.sh - the built liblatlab.so keeps the stable ABI recorded in
# abi/liblatlab.abi (abidw, from Debian's abigail-tools): abidiff may find
# functions or variables added (it says so: refresh the baseline with
# abi/update.sh) but none removed and none whose type changed.  Then it proves
# the check can fail: two copies of the library relinked from liblatlab.a's
# objects, one without lat_version() and one where lat_version takes and
# returns other types, must both be refused.  Also: the library exports no
# internal (lat__) symbol.
set -uo pipefail
: "${LAT_SRC_DIR:?}" "${LAT_BUILD_DIR:?}"
for t in abidw abidiff; do
    command -v "$t" >/dev/null || { echo "SKIPPED: $t not installed (Debian: abigail-tools)"; exit 77; }
done
base="$LAT_SRC_DIR/abi/liblatlab.abi"
lib=$(readlink -f "$LAT_BUILD_DIR/liblatlab.so")
archive="$LAT_BUILD_DIR/liblatlab.a"
[ -f "$base" ] || { echo "FAIL: no baseline $base (abi/update.sh writes it)"; exit 1; }
[ -f "$lib" ] && [ -f "$archive" ] || { echo "FAIL: build liblatlab.so and liblatlab.a first"; exit 1; }
if ! grep -q '\.debug_info' <<<"$(readelf -S "$lib")"; then
    echo "SKIPPED: $lib has no debug information (build RelWithDebInfo or Debug)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# compatible NEW: 0 when NEW keeps every function and variable of the baseline
# with the same types (additions allowed), 1 when not, 2 when abidiff failed.
# Types are judged as the public headers define them: an opaque struct's
# layout (lat_plot's, defined in a .c file) is the library's own business.
compatible() {
    local rc
    abidiff --no-added-syms --no-show-locs --headers-dir2 "$LAT_SRC_DIR/include/latlab" \
        "$base" "$1" >"$tmp/report" 2>&1
    rc=$?
    if [ $((rc & 3)) -ne 0 ]; then
        echo "abidiff failed ($rc):"
        cat "$tmp/report"
        return 2
    fi
    [ "$rc" -eq 0 ] && return 0
    return 1
}

# 1. The library as built.
compatible "$lib"
case $? in
0) echo "ok: $(basename "$lib") keeps every function and variable of abi/liblatlab.abi" ;;
1)
    cat "$tmp/report"
    bad "liblatlab.so removed or changed a stable symbol (above).  An intended change needs a new
      major version and abi/update.sh; a fix keeps the old declaration."
    ;;
*) bad "abidiff could not compare $lib" ;;
esac
abidiff --no-show-locs "$base" "$lib" >"$tmp/added" 2>&1
if grep -Eq '^(Functions|Variables) changes summary: .* [1-9][0-9]* Added' "$tmp/added"; then
    echo "note: functions or variables were added; run abi/update.sh to record them:"
    grep -E 'Added|^  \[A\]' "$tmp/added" | head -n 20
fi
if nm -D --defined-only "$lib" | awk '{print $3}' | grep '^lat__'; then
    bad "liblatlab.so exports internal (lat__) symbols (above)"
fi

# 2. The check can fail.  The objects come from liblatlab.a (position
# independent, hidden visibility), so a shared library linked from them exports
# the same LAT_API set; undefined references are fine in a shared library.
mkdir "$tmp/o"
(cd "$tmp/o" && ar x "$archive") || { echo "FAIL: cannot unpack $archive"; exit 1; }
[ -f "$tmp/o/version.c.o" ] || { echo "FAIL: no version.c.o in $archive"; exit 1; }
soname=$(objdump -p "$lib" | awk '$1 == "SONAME" {print $2}')
san=()
[ -n "${LAT_SANITIZE:-}" ] && san=(-fsanitize="$LAT_SANITIZE")
relink() { # OUT EXTRA-OBJECTS...: every object but version.c.o, plus the extras
    local out=$1
    shift
    cc -shared -g "${san[@]}" -Wl,-soname,"$soname" -o "$out" \
        $(find "$tmp/o" -name '*.o' ! -name version.c.o | sort) "$@"
}
# 2a. lat_version removed.
relink "$tmp/removed.so" || { echo "FAIL: cannot relink the library"; exit 1; }
if grep -qw lat_version <<<"$(nm -D --defined-only "$tmp/removed.so")"; then
    bad "the doctored copy still exports lat_version"
fi
compatible "$tmp/removed.so"
rc=$?
if [ "$rc" -eq 1 ] && grep -q lat_version "$tmp/report"; then
    echo "ok: refused a copy without lat_version:"
    grep -E 'Removed|lat_version' "$tmp/report" | head -n 4 | sed 's/^/    /'
else
    cat "$tmp/report"
    bad "abidiff did not refuse a library without lat_version (rc $rc)"
fi
# 2b. lat_version's type changed: long lat_version(int) instead of const char *lat_version(void).
printf '__attribute__((visibility("default"))) long lat_version(int x) { return x; }\n' >"$tmp/v.c"
cc -std=c11 -g -O2 -fPIC -c -o "$tmp/v.o" "$tmp/v.c" &&
    relink "$tmp/changed.so" "$tmp/v.o" || { echo "FAIL: cannot relink the changed copy"; exit 1; }
compatible "$tmp/changed.so"
rc=$?
if [ "$rc" -eq 1 ] && grep -q lat_version "$tmp/report"; then
    echo "ok: refused a copy where lat_version changed type:"
    grep -E 'Changed|lat_version' "$tmp/report" | head -n 4 | sed 's/^/    /'
else
    cat "$tmp/report"
    bad "abidiff did not refuse a library whose lat_version changed type (rc $rc)"
fi

[ "$fail" -eq 0 ] && echo "PASS: abi_check" || exit 1
