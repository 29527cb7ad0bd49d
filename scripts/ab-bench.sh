#!/usr/bin/env bash
# ab-bench.sh - `latlab ab` against cases whose truth is known, beside the
# peers a user would reach for, in the same job.  Figures only, never
# pass/fail.  Cases (tests/peers/abtarget.c and abtarget_gb.cc copied under
# names that set their work):
#   aa       the same binary on both sides (~60 ns op)
#   slow2    B 2% slower in dependent operations (w50 -> w51, ~60 ns op)
#   slow2us  B 2% slower, ~1 us op (w860 -> w877)
#   slow1    B 1% slower (w100 -> w101, ~120 ns op)
#   tail     every 50th op 40 steps slower (p99 up ~20%, p50 unchanged); A runs the
#            same test of every 50th op with nothing more (e50-x0)
#   cmd5     two ~20 ms commands 5% apart (abcmd), command mode
#   cmdaa    the same command twice
# Peers beside each case: the harness's stored-report --compare (run A with
# --json, then B with --compare; harness cases), Google Benchmark's
# compare.py U test on the Google Benchmark twin (p < 0.05; harness cases
# but tail), hyperfine -N -w 3 -r 20 judged by Welch's t-test at 5%
# (command cases).  Conditions: asis; neighbour (a busy loop pinned to the
# last CPU); noise (latlab noise: 10% of every CPU in 50 us bursts, root).
# Every program runs at its default settings (latlab ab measures harness
# programs on the CPU idle the longest and pins single-CPU commands there;
# the stored --compare pins where it starts; hyperfine pins nothing).
#
# usage: scripts/ab-bench.sh [BUILD_DIR]   env: REPS (20), CASES, CONDS ("asis neighbour noise"),
#   AB_ARGS (more latlab ab options, e.g. --whole-runs), KEEP (a folder that keeps
#   each latlab ab JSON: its per_round values)
set -euo pipefail
B=${1:-${LAT_BUILD_DIR:-build}}
REPS=${REPS:-20}
CASES=${CASES:-"aa slow2 slow2us slow1 tail cmd5 cmdaa"}
CONDS=${CONDS:-"asis neighbour noise"}
L=$B/latlab T=$B/tests/lat_abtarget G=$B/tests/lat_abtarget_gb
CMP=/usr/share/benchmark/compare.py
PY=/usr/bin/python3 # Debian's, where python3-scipy is
for f in "$L" "$T"; do [ -x "$f" ] || { echo "ab-bench: $f not built" >&2; exit 1; }; done
"$(dirname "$0")/deps.sh" bench
tmp=$(mktemp -d)
bg=""
cleanup() { [ -n "$bg" ] && kill $bg 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
last=$(($(nproc) - 1))

# the builds: A and B of every case
mk() { cp "$T" "$tmp/$1"; }
for n in abt-w50-e0-x0-r0 abt-w51-e0-x0-r0 abt-w860-e0-x0-r0 abt-w877-e0-x0-r0 \
    abt-w100-e0-x0-r0 abt-w101-e0-x0-r0 abt-w100-e50-x0-r1 abt-w100-e50-x40-r1 \
    abcmd-w100-n170000 abcmd-w100-n178500; do mk $n; done
if [ -x "$G" ]; then for w in 50 51 860 877 100 101; do cp "$G" "$tmp/abtgb-w$w"; done; fi
pair() { # case -> "A B kind gbA gbB"
    case $1 in
    aa) echo "abt-w50-e0-x0-r0 abt-w50-e0-x0-r0 harness abtgb-w50 abtgb-w50" ;;
    slow2) echo "abt-w50-e0-x0-r0 abt-w51-e0-x0-r0 harness abtgb-w50 abtgb-w51" ;;
    slow2us) echo "abt-w860-e0-x0-r0 abt-w877-e0-x0-r0 harness abtgb-w860 abtgb-w877" ;;
    slow1) echo "abt-w100-e0-x0-r0 abt-w101-e0-x0-r0 harness abtgb-w100 abtgb-w101" ;;
    tail) echo "abt-w100-e50-x0-r1 abt-w100-e50-x40-r1 harness - -" ;;
    cmd5) echo "abcmd-w100-n170000 abcmd-w100-n178500 command - -" ;;
    cmdaa) echo "abcmd-w100-n170000 abcmd-w100-n170000 command - -" ;;
    esac
}

start_cond() {
    case $1 in
    neighbour) taskset -c "$last" sh -c 'while :; do :; done' & bg=$! ;;
    noise) "$L" noise --cpus "0-$last" --share 10% --burst 50us --duration 0 >/dev/null 2>&1 &
        bg=$!; sleep 0.3 ;;
    esac
}
stop_cond() { [ -n "$bg" ] && kill $bg 2>/dev/null; wait $bg 2>/dev/null || true; bg=""; }

# verdict of one latlab ab run (its JSON): the case's figure of interest
ab_verdict() { # json case
    "$PY" - "$1" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); case = sys.argv[2]
b = d["benchmarks"][0]
figs = {f["figure"]: f for f in b["figures"]}
head = b["figures"][0]
if case == "tail":
    p99 = figs.get("p99", {}); p50 = figs.get("p50", {})
    print(p99.get("kind", "-"), p50.get("kind", "-"), b["verdict"].split(" ")[0],
          "%.2f" % (head["b_over_a"]["mde_pct"] or -1), d["rounds"])
else:
    print(b["verdict"].split(" ")[0], "-", "-", "%.2f" % (head["b_over_a"]["mde_pct"] or -1),
          d["rounds"])
EOF
}

welch() { # hyperfine json -> changed|same (and direction)
    "$PY" - "$1" <<'EOF'
import json, sys
from scipy import stats
r = json.load(open(sys.argv[1]))["results"]
a, b = r[0]["times"], r[1]["times"]
t, p = stats.ttest_ind(b, a, equal_var=False)
print(("slower" if t > 0 else "faster") if p < 0.05 else "same")
EOF
}

gb_compare() { # A B -> slower|faster|same by compare.py's U test
    "$PY" "$CMP" --no-color -a benchmarks "$1" "$2" --benchmark_repetitions=10 \
        --benchmark_min_time=0.05 2>/dev/null >"$tmp/cmp.txt" || { echo "error"; return; }
    "$PY" - "$tmp/cmp.txt" <<'EOF'
import re, sys
txt = open(sys.argv[1]).read()
m = re.search(r"_pvalue\s+([0-9.]+)", txt)
d = re.search(r"BM_chain[^\s]*_mean\s+([-+0-9.]+)", txt)
if not m: print("error"); sys.exit()
p = float(m.group(1)); delta = float(d.group(1)) if d else 0
print(("slower" if delta > 0 else "faster") if p < 0.05 else "same")
EOF
}

stored_compare() { # A B -> regressed|improved|unchanged|inconclusive
    "$tmp/$1" --quick --json "$tmp/base.json" >/dev/null 2>&1
    "$tmp/$2" --quick --compare "$tmp/base.json" >"$tmp/cmpout" 2>&1 || true
    grep -Eo "[0-9]+ improved, [0-9]+ regressed, [0-9]+ unchanged, [0-9]+ inconclusive" \
        "$tmp/cmpout" | awk '{ if ($3 > 0) print "slower"; else if ($1 > 0) print "faster";
                               else if ($5 > 0) print "same"; else print "inconclusive" }'
}

echo "# ab-bench: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)," \
    "load $(cut -d' ' -f1-3 /proc/loadavg), REPS=$REPS, $(date -u +%FT%TZ)"
printf "%-8s %-10s %-4s %-40s %-10s %s\n" case cond rep "latlab ab (verdict p99 p50 all mde% rounds)" \
    seconds "peers"
for cond in $CONDS; do
    if [ "$cond" = noise ] && [ "$(id -u)" -ne 0 ]; then echo "noise: SKIPPED (needs root)"; continue; fi
    start_cond "$cond"
    for c in $CASES; do
        read -r a b kind ga gb <<<"$(pair "$c")"
        for rep in $(seq 1 "$REPS"); do
            t0=$(date +%s.%N)
            if [ "$kind" = command ]; then
                "$L" ab --kind command ${AB_ARGS:-} --json "$tmp/ab.json" "$tmp/$a" "$tmp/$b" \
                    >/dev/null 2>&1 || true
            else
                "$L" ab ${AB_ARGS:-} --json "$tmp/ab.json" "$tmp/$a" "$tmp/$b" >/dev/null 2>&1 || true
            fi
            [ -n "${KEEP:-}" ] && cp "$tmp/ab.json" "$KEEP/$c-$cond-$rep-$(date +%s).json"
            secs=$(echo "$(date +%s.%N) - $t0" | bc)
            v=$(ab_verdict "$tmp/ab.json" "$c" 2>/dev/null || echo "error")
            peers=""
            if [ "$kind" = command ]; then
                hyperfine -N -w 3 -r 20 --export-json "$tmp/h.json" "$tmp/$a" "$tmp/$b" \
                    >/dev/null 2>&1 && peers="hyperfine+welch=$(welch "$tmp/h.json")"
            else
                peers="stored-compare=$(stored_compare "$a" "$b")"
                if [ "$ga" != - ] && [ -x "$tmp/$ga" ] && [ -f "$CMP" ]; then
                    peers="$peers compare.py=$(gb_compare "$tmp/$ga" "$tmp/$gb")"
                fi
            fi
            printf "%-8s %-10s %-4s %-40s %-10.1f %s\n" "$c" "$cond" "$rep" "$v" "$secs" "$peers"
        done
    done
    stop_cond
done
