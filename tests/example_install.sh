#!/bin/bash
# example_install.sh - examples/trace_pipeline.c builds from the INSTALLED
# headers and pkg-config file alone (cmake --install into a temporary prefix,
# then cc ... $(pkg-config --cflags --libs latlab)), and runs.
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
echo "PASS: example built from the installed headers and latlab.pc, ran"
