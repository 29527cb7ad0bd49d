#!/bin/sh
# deps.sh - install the Debian packages latlab needs, or say how.
#
# Usage: scripts/deps.sh run|test
#   run:  what building and running latlab needs;
#   test: that plus the peers and tools the test suite uses (Java reference
#         HdrHistogram, Concurrency Kit, Google Benchmark, qemu, clang, chromium).
# As root the missing packages are installed with apt-get; otherwise the single
# apt-get command to run is printed and the script exits 1.  The npm module used
# by the interop tests is installed by the Makefile, not here.
set -eu
mode=${1:-run}
# The default build also compiles the unit tests (cmocka) and has C++ enabled.
pkgs="cmake make gcc g++ pkg-config zlib1g-dev libjansson-dev libck-dev libcmocka-dev"
if [ "$mode" = test ] || [ "$mode" = bench ]; then
    pkgs="$pkgs libbenchmark-dev libhdrhistogram-java openjdk-17-jdk-headless
          nodejs npm gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user clang
          libclang-rt-14-dev libxml2-utils jq chromium linux-perf util-linux tmux"
fi
missing=""
for p in $pkgs; do
    st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    case "$st" in
    *" installed") ;;
    *)
        # node and npm may come from outside Debian (nodesource); accept them on PATH
        case "$p" in
        nodejs) command -v node >/dev/null 2>&1 && continue ;;
        npm) command -v npm >/dev/null 2>&1 && continue ;;
        esac
        missing="$missing $p" ;;
    esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
    echo "deps: installing:$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null || apt-get update
    # shellcheck disable=SC2086
    apt-get install -y -qq $missing >/dev/null
    exit 0
fi
echo "deps: missing Debian packages. Run this, then try again:" >&2
echo "  sudo apt-get install -y$missing" >&2
exit 1
