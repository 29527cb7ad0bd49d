#!/bin/sh
# deps.sh - install the Debian packages latlab needs, or say how.
#
# Usage: scripts/deps.sh run|test|bench
#   run:  what building and running latlab needs;
#   test: that plus the peers and tools the test suite uses (Java reference
#         HdrHistogram, Concurrency Kit, Google Benchmark, qemu, clang, chromium,
#         Prometheus and its Pushgateway, abidiff for the ABI check);
#   bench: that plus the A/B peers of scripts/ab-bench.sh and what
#         scripts/load-bench.sh builds wrk2 with.
# As root the missing packages are installed with apt-get; otherwise the single
# apt-get command to run is printed and the script exits 1.  The npm module used
# by the interop tests is installed by the Makefile, not here.
set -eu
mode=${1:-run}
norec=""
# The default build also compiles the unit tests (cmocka) and has C++ enabled.
# linux-perf: `latlab profile` and the lab's step (e) sample stacks with perf record.
# libssl-dev: `latlab load`'s https:// targets (the build goes on without it, without TLS).
# libnghttp2-dev: `latlab load --http2` (the build goes on without it, without HTTP/2).
pkgs="cmake make gcc g++ pkg-config zlib1g-dev libjansson-dev libck-dev libcmocka-dev linux-perf
      protobuf-c-compiler libprotobuf-c-dev golang-github-prometheus-client-model-dev libssl-dev
      libnghttp2-dev"
if [ "$mode" = test ] || [ "$mode" = bench ]; then
    pkgs="$pkgs libbenchmark-dev libhdrhistogram-java openjdk-17-jdk-headless
          nodejs npm gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user clang
          libclang-rt-14-dev libxml2-utils jq chromium util-linux tmux abigail-tools"
    # The fleet-export tests' servers; without recommends (which would pull
    # node-exporter, smartmontools and ~30 more).  Nothing starts by itself.
    norec="prometheus prometheus-pushgateway curl"
    # `latlab load`'s tests: real servers it drives (started by the tests on
    # 127.0.0.1) and wrk, the closed-loop peer printed beside it.
    # openssl makes the self-signed certificate of cli_load_tls.sh's nginx;
    # nghttp2-client is h2load, the HTTP/2 peer of scripts/load-bench.sh.
    norec="$norec nginx redis-server memcached wrk openssl nghttp2-client"
fi
if [ "$mode" = bench ]; then
    # `latlab ab`'s peers in scripts/ab-bench.sh: hyperfine (judged by Welch's
    # t-test) and Google Benchmark's compare.py (its U test needs scipy).
    pkgs="$pkgs hyperfine libbenchmark-tools python3-scipy"
    # scripts/load-bench.sh builds wrk2, the open-loop peer, from its source.
    pkgs="$pkgs luajit libluajit-5.1-dev"
fi
missing=""
for p in $pkgs $norec; do
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
    # Servers among the packages must not start by themselves: the tests start
    # their own on 127.0.0.1.  policy-rc.d 101 tells invoke-rc.d to leave them.
    made_policy=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
        chmod 755 /usr/sbin/policy-rc.d
        made_policy=1
    fi
    plain="" bare=""
    for p in $missing; do
        case " $norec " in
        *" $p "*) bare="$bare $p" ;;
        *) plain="$plain $p" ;;
        esac
    done
    # shellcheck disable=SC2086
    [ -z "$plain" ] || apt-get install -y -qq $plain >/dev/null
    # shellcheck disable=SC2086
    [ -z "$bare" ] || apt-get install -y -qq --no-install-recommends $bare >/dev/null
    [ -z "$made_policy" ] || rm -f /usr/sbin/policy-rc.d
    exit 0
fi
echo "deps: missing Debian packages. Run this, then try again:" >&2
echo "  sudo apt-get install -y$missing" >&2
exit 1
