#!/bin/bash
# example_install.sh - the examples build from the INSTALLED headers and
# pkg-config file alone (cmake --install into a temporary prefix, then
# cc ... $(pkg-config --cflags --libs latlab)), and run: trace_pipeline against
# the shared library, time_region (stable headers only, no
# LATLAB_EXPERIMENTAL) against it and against the static library with
# `pkg-config --static`, whose private libraries must then be complete.
set -euo pipefail
: "${LAT_BUILD_DIR:?}" "${LAT_SRC_DIR:?}"
command -v pkg-config >/dev/null || { echo "SKIPPED: pkg-config not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$LAT_BUILD_DIR" --prefix "$tmp/prefix" >/dev/null
pc=$(find "$tmp/prefix" -name latlab.pc | head -n 1)
[ -n "$pc" ] || { echo "FAIL: no latlab.pc installed"; exit 1; }
libdir=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --variable=libdir latlab)
san=()
[ -n "${LAT_SANITIZE:-}" ] && san=(-fsanitize="$LAT_SANITIZE")
# shellcheck disable=SC2046
cc -std=c11 -O2 -Wall -Wextra -Werror "${san[@]}" -o "$tmp/trace_pipeline" \
    "$LAT_SRC_DIR/examples/trace_pipeline.c" \
    $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs latlab)
# Only the prefix is on the include and library paths: nothing from the source tree.
out=$(LD_LIBRARY_PATH="$libdir" "$tmp/trace_pipeline" --seconds 1.2 --rate 5000)
echo "$out" | tail -n 5
echo "$out" | grep -q '^interval 0 e2e' || { echo "FAIL: no per-stage line"; exit 1; }
echo "$out" | grep -Eq '^events 6000 recorded [0-9]+ dropped [0-9]+' || { echo "FAIL: no totals"; exit 1; }
pcenv=(env PKG_CONFIG_PATH="$(dirname "$pc")")
# shellcheck disable=SC2046
cc -std=c11 -O2 -Wall -Wextra -Werror "${san[@]}" -o "$tmp/time_region" \
    "$LAT_SRC_DIR/examples/time_region.c" $("${pcenv[@]}" pkg-config --cflags --libs latlab)
LD_LIBRARY_PATH="$libdir" "$tmp/time_region" | grep -Eq '^p50 [0-9]+ ns +p99 [0-9]+ ns' ||
    { echo "FAIL: time_region (shared) printed no tail"; exit 1; }
# Static: without the shared library in the prefix, the linker takes liblatlab.a
# and needs every private library latlab.pc names (jansson, zlib, protobuf-c, ...).
rm -f "$libdir"/liblatlab.so*
# shellcheck disable=SC2046
cc -std=c11 -O2 -Wall -Wextra -Werror "${san[@]}" -o "$tmp/time_region_static" \
    "$LAT_SRC_DIR/examples/time_region.c" $("${pcenv[@]}" pkg-config --static --cflags --libs latlab)
if ldd "$tmp/time_region_static" | grep -q liblatlab; then
    echo "FAIL: the --static build still links liblatlab.so"; exit 1
fi
"$tmp/time_region_static" | tee /dev/stderr | grep -Eq '^p50 [0-9]+ ns' ||
    { echo "FAIL: time_region (static) printed no tail"; exit 1; }
# Every object of liblatlab.a, not only the ones time_region pulls in, links with
# the private libraries latlab.pc names (protobuf-c for the Prometheus encoder...).
printf 'int main(void) { return 0; }\n' >"$tmp/whole.c"
# shellcheck disable=SC2046
cc -o "$tmp/whole" "$tmp/whole.c" -Wl,--whole-archive "$libdir/liblatlab.a" -Wl,--no-whole-archive \
    $("${pcenv[@]}" pkg-config --static --libs latlab | sed 's/-llatlab\b//') "${san[@]}" ||
    { echo "FAIL: liblatlab.a's private libraries are not all in latlab.pc"; exit 1; }
echo "PASS: examples built from the installed headers and latlab.pc (shared and --static), ran"
