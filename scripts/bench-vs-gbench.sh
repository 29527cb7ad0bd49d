#!/usr/bin/env bash
# bench-vs-gbench.sh - latlab's harness next to Google Benchmark on the same
# three operations (bench/support/figure_ops.c: 64-bit hash, 1 KiB memcpy,
# histogram record), interleaved so load drift hits both alike: REPEATS rounds
# of (one Google Benchmark repetition of each op, one latlab harness run of
# each op), then the mean ns/op and the CV across repeats (sample stddev /
# mean, as Google Benchmark computes its "cv") for both, the ratio latlab/GB,
# the harness's timer overhead per sample, and how often latlab's comparison
# calls a no-change rerun "changed" (FP reruns, each against the first).
#
# usage: scripts/bench-vs-gbench.sh [BUILD_DIR]   (default build; make bench builds it)
# env:   REPEATS (10), FP (20)
set -euo pipefail
B=${1:-${LAT_BUILD_DIR:-build}}
REPEATS=${REPEATS:-10}
FP=${FP:-20}
LL=$B/bench/bench_figures
GB=$B/bench/bench_figures_gb
for x in "$LL" "$GB"; do
  [ -x "$x" ] || { echo "bench-vs-gbench: $x not built (run make bench or cmake --build $B)" >&2; exit 1; }
done
command -v jq >/dev/null || { echo "bench-vs-gbench: needs jq" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for ((i = 1; i <= REPEATS; i++)); do
  printf '\rround %d/%d' "$i" "$REPEATS" >&2
  "$GB" --benchmark_format=json 2>/dev/null |
    jq -r '.benchmarks[] | [.name, (if .time_unit == "ns" then .real_time else error("unit") end)] | @tsv' \
      >>"$tmp/gb.tsv"
  "$LL" --repeats 1 --fp 0 --tsv >>"$tmp/ll.tsv"
done
printf '\rfalse-change reruns (%d)...\n' "$FP" >&2
"$LL" --repeats 0 --fp "$FP" --tsv >"$tmp/fp.tsv"

awk -F'\t' -v R="$REPEATS" '
  FNR == NR { sub(/^BM_/, "", $1); sub(/\/real_time$/, "", $1); gb[$1] = gb[$1] " " $2; next }
  $1 == "latlab" { ll[$2] = ll[$2] " " $3; ovh[$2] += $5; smp[$2] += $6 }
  function stats(s, out,   a, n, i, m, ss) {
    n = split(s, a, " "); m = 0; for (i = 1; i <= n; i++) m += a[i]; m /= n
    ss = 0; for (i = 1; i <= n; i++) ss += (a[i] - m) ^ 2
    out["mean"] = m; out["cv"] = n > 1 ? sqrt(ss / (n - 1)) / m * 100 : 0
  }
  END {
    printf "%-12s %14s %14s %8s %10s %10s %12s\n", "operation", "latlab ns/op", "GB ns/op", "ratio", "latlab CV", "GB CV", "overhead/smp"
    split("hash64 memcpy1k hist_record", ops, " ")
    for (k = 1; k <= 3; k++) {
      o = ops[k]; stats(ll[o], L); stats(gb[o], G)
      printf "%-12s %14.3f %14.3f %8.4f %9.2f%% %9.2f%% %7.1f ns (%.2f ppm)\n", o, L["mean"], G["mean"],
        L["mean"] / G["mean"], L["cv"], G["cv"], ovh[o] / R, (ovh[o] / R) / (smp[o] / R) * 1e6
    }
  }' "$tmp/gb.tsv" "$tmp/ll.tsv"
awk -F'\t' '$1 == "latlab_fp" {
  printf "no-change reruns latlab called \"changed\", rule %-18s %2d of %d runs (%d of %d results; %d inconclusive)\n", $2 ":", $4, $3, $5, $3 * 3, $6
  share = $7 }
  END { if (share != "") printf "latlab thread had a CPU %.0f%% of the wall time (about 100%% on an idle machine)\n", share * 100 }' "$tmp/fp.tsv"
echo "($REPEATS interleaved rounds; CV = sample stddev / mean of the per-round figure; timer overhead is measured and subtracted by latlab)"
