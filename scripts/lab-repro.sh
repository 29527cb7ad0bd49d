#!/bin/bash
# lab-repro.sh - verdict reproducibility of `latlab lab` (a benchmark, not a
# test): runs `latlab lab` N times and prints one row per run (each verdict,
# its confidence and rounds used, the hot threads' mean platform loss, the
# wall time, the load average) and a summary per experiment: how many runs
# matched its expected signature (alloc: tail disease, share-line:
# median/throughput disease, no-pin: variance disease), how many were
# inconclusive, how many were wrong; the A/A control's reading (the baseline
# against itself: "no significant change", inconclusive, or a disease, which
# makes every verdict of that lab run inconclusive); and the share of samples
# per-sample censoring kept (median over the run's pipeline runs, work stage: the
# figure the verdicts read); the host's own loss (median per run of the worst hot
# thread's lost share and gaps per second).
#   usage: scripts/lab-repro.sh N [latlab lab options...]
#   LATLAB=path/to/latlab to use another binary (default build/latlab);
#   KEEP=DIR keeps every run's output (rN/, rN.out) in DIR.
set -u
N=${1:-}
case "$N" in ''|*[!0-9]*|0) echo "usage: $0 N [latlab lab options...]" >&2; exit 2 ;; esac
shift
HERE=$(cd "$(dirname "$0")/.." && pwd)
L=${LATLAB:-$HERE/build/latlab}
[ -x "$L" ] || { echo "$0: $L not found (run make build)" >&2; exit 1; }
command -v jq >/dev/null || { echo "$0: needs jq" >&2; exit 1; }
if [ -n "${KEEP:-}" ]; then
    mkdir -p "$KEEP" || exit 1
    T=$KEEP
else
    T=$(mktemp -d)
    trap 'rm -rf "$T"' EXIT
fi
EXPS="alloc share-line no-pin"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs"
printf '%-4s' run
for x in $EXPS; do printf ' | %-44s' "$x"; done
printf ' | %-26s | %-6s | %-13s | %-12s | %-7s | %s\n' aa-control kept loss,gaps placement wall load
declare -A match incon wrong
for x in $EXPS; do match[$x]=0; incon[$x]=0; wrong[$x]=0; done
aa_none=0 aa_incon=0 aa_disease=0
for i in $(seq 1 "$N"); do
    load0=$(cut -d' ' -f1 /proc/loadavg)
    t0=$(date +%s.%N)
    if ! "$L" lab --out "$T/r$i" "$@" >"$T/r$i.out" 2>"$T/r$i.err"; then
        echo "run $i: latlab lab failed: $(tail -2 "$T/r$i.err")"
        continue
    fi
    t1=$(date +%s.%N)
    J="$T/r$i/lab.json"
    printf '%-4s' "$i"
    for x in $EXPS; do
        row=$(jq -r --arg x "$x" '.verdicts[$x] |
            (if .verdict == "inconclusive" then
                "inconclusive (" + (if (.reason | test("busy host")) then "busy host"
                 elif (.reason | test("too few CPUs")) then "too few CPUs"
                 elif (.reason | test("A/A control")) then "fails A/A"
                 elif (.reason | test("a tail or a variance")) then "tail or variance"
                 elif (.reason | test("out of reach")) then "out of reach"
                 elif (.reason | test("placement")) then "placement"
                 elif (.reason | test("granularity")) then "below granularity"
                 else "noise" end) + ")"
             else "\(.verdict) \((.confidence*1000|round)/10)%" end)
            + " r\(.rounds_used)/\(.rounds_set_aside)x|\(.matched)"' "$J")
        printf ' | %-44s' "${row%|*}"
        case "${row#*|}" in
            matched) match[$x]=$((match[$x] + 1)) ;;
            inconclusive) incon[$x]=$((incon[$x] + 1)) ;;
            *) wrong[$x]=$((wrong[$x] + 1)) ;;
        esac
    done
    aa=$(jq -r '.verdicts["aa-control"] // empty | .verdict' "$J")
    case "$aa" in
        "no significant change") aa_none=$((aa_none + 1)) ;;
        inconclusive) aa_incon=$((aa_incon + 1)) ;;
        "") aa="n/a" ;;
        *) aa_disease=$((aa_disease + 1)) ;;
    esac
    # medians over the lab run's pipeline runs: the work samples censoring
    # kept (what the verdicts read), the worst hot thread's lost share, and
    # its gaps per second
    med='sort | if length == 0 then null else .[length / 2 | floor] end'
    kept=$(jq -r "[.runs[].kept_share_work | select(. != null)] | $med | if . == null then \"n/a\" else (. * 1000 | round / 10 | tostring) + \"%\" end" "$J")
    printf ' | %-26s | %-6s' "$aa" "$kept"
    loss=$(jq -r "[.runs[].lost_share_max] | $med | if . == null then \"n/a\" else (. * 1000 | round / 10 | tostring) + \"%\" end" "$J")
    gps=$(jq -r "[.runs[] | (.wall_ns / 1e9) as \$w | [.platform[]? | objects | .gaps] | max / \$w] | $med | if . == null then \"n/a\" else round end" "$J")
    loss="$loss $gps/s"
    wall=$(echo "$t1 - $t0" | bc)
    place=$(jq -r '.placement | "\(.near_runs)n/\(.far_runs)f/\(.moved_during_run)m"' "$J")
    printf ' | %-13s | %-12s | %6.1fs | %s->%s\n' "$loss" "$place" "$wall" "$load0" "$(cut -d' ' -f1 /proc/loadavg)"
done
echo
echo "summary over $N runs (r = rounds used / set aside; kept = median share of work samples censoring"
echo "kept; loss,gaps = median over runs of the worst hot thread's lost share and gaps per second;"
echo "placement = runs with the near / far cache-line floor / moved during the run):"
total_wrong=0
for x in $EXPS; do
    printf '  %-10s matched %2d  inconclusive %2d  wrong %2d\n' "$x" "${match[$x]}" "${incon[$x]}" "${wrong[$x]}"
    total_wrong=$((total_wrong + wrong[$x]))
done
echo "  wrong verdicts in all: $total_wrong of $((N * 3))"
echo "  A/A control: no significant change $aa_none  inconclusive $aa_incon  disease $aa_disease"
