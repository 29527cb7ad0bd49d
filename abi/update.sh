#!/bin/bash
# update.sh - rewrite abi/liblatlab.abi, the baseline tests/abi_check.sh holds
# the built liblatlab.so to, from a build (default: build/) made with debug
# information (RelWithDebInfo or Debug).  Run it when the stable ABI changes on
# purpose: functions added (the check lets additions pass but says so), or a
# new major version (the soname's number) that may remove or change them.
# Needs abidw (Debian: abigail-tools).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
lib=$(readlink -f "$build/liblatlab.so")
[ -f "$lib" ] || { echo "update.sh: no liblatlab.so in $build (build it first)" >&2; exit 1; }
# No source locations, compilation directories or corpus paths: the baseline
# describes the ABI alone, so moving code around does not rewrite it.
abidw --no-show-locs --no-comp-dir-path --no-corpus-path --drop-undefined-syms \
    --out-file "$here/liblatlab.abi" "$lib"
echo "wrote $here/liblatlab.abi from $lib ($(nm -D --defined-only "$lib" | wc -l) exported symbols)"
