#!/bin/bash
# under-noise.sh - run a command while `latlab noise` takes a share of the CPUs,
# then stop the injector and print what it took.  CI runs the sanitizer builds'
# concurrent tests this way: a test that only passes on a quiet host fails here.
# Usage: scripts/under-noise.sh LATLAB "NOISE FLAGS" -- CMD [ARGS...]
# Not root: the injector cannot run; says SKIPPED and runs nothing (exit 0).
set -uo pipefail
latlab=$1 flags=$2
shift 2
[ "${1:-}" = -- ] && shift
if [ "$(id -u)" -ne 0 ]; then
    echo "under-noise: SKIPPED: injected noise needs root (SCHED_FIFO)"
    exit 0
fi
# shellcheck disable=SC2086
"$latlab" noise $flags --duration 0 &
inj=$!
trap 'kill -TERM $inj 2>/dev/null; wait $inj' EXIT
sleep 0.2
kill -0 $inj 2>/dev/null || { echo "under-noise: the injector did not start"; exit 1; }
"$@"
