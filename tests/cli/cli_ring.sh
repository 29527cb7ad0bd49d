#!/usr/bin/env bash
# cli_ring.sh - `latlab dce` and `latlab bakeoff ring` from the outside: bad
# flags exit 2 naming the flag, one CPU is refused with exit 1 and a reason,
# and short runs on two CPUs print every figure and write valid JSON whose
# figures are sane (the DCE trap near 0, the barrier not, every queue present,
# ratios consistent).  Figures are never compared with absolute times.
set -u
: "${LATLAB:?set LATLAB to the latlab binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

expect_usage() {
    local flag=$1; shift
    "$LATLAB" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    [ $rc -eq 2 ] || fail "'$*' exited $rc, want 2"
    grep -q -- "$flag" "$tmp/err" || fail "'$*' did not name $flag: $(cat "$tmp/err")"
}

# --- usage errors ---
for v in "" abc 999 -1 10k; do expect_usage --ops dce --ops "$v"; done
for v in "" abc 99 -1; do expect_usage --samples dce --samples "$v"; done
expect_usage --ring dce --ring fifo
# a capacity that is not a power of two is refused up front (it once spun forever)
for v in 3 5 4097 1000; do
    timeout 20 "$LATLAB" bakeoff ring --rounds 1 --ops 1000 --items 1000 --samples 1000 --capacity "$v" >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] && grep -q "power of two" "$tmp/err" || fail "--capacity $v: exit $rc: $(cat "$tmp/err")"
done
expect_usage --json dce --json ""
expect_usage --cpus dce --cpus ""
expect_usage --cpus dce --cpus 0
expect_usage --cpus dce --cpus 0-2
expect_usage --cpus dce --cpus x
expect_usage --bogus dce --bogus
expect_usage stray dce stray
expect_usage ring bakeoff
expect_usage fifo bakeoff fifo
for v in "" 0 102 abc; do expect_usage --rounds bakeoff ring --rounds "$v"; done
for v in "" 1 abc; do expect_usage --capacity bakeoff ring --capacity "$v"; done
expect_usage --items bakeoff ring --items 5
expect_usage --json bakeoff ring --json ""
expect_usage --cpus bakeoff ring --cpus 1
"$LATLAB" dce --help >"$tmp/h1" || fail "dce --help"
"$LATLAB" help dce >"$tmp/h2" || fail "help dce"
cmp -s "$tmp/h1" "$tmp/h2" || fail "dce help differs between the two forms"
"$LATLAB" bakeoff --help | grep -q "ck_ring" || fail "bakeoff --help does not mention ck_ring"

# --- one CPU: refused with a reason ---
if command -v taskset >/dev/null 2>&1; then
    for cmd in "dce" "bakeoff ring"; do
        taskset -c 0 "$LATLAB" $cmd >"$tmp/out" 2>"$tmp/err"
        rc=$?
        [ $rc -eq 1 ] || fail "'$cmd' on one CPU exited $rc, want 1"
        grep -qi "two CPUs" "$tmp/err" || fail "'$cmd' on one CPU: no reason: $(cat "$tmp/err")"
    done
else
    echo "note: taskset missing, one-CPU refusal not checked"
fi

ncpu=$(nproc)
if [ "$ncpu" -lt 2 ]; then
    echo "SKIPPED: the two-CPU runs need 2 CPUs, this machine has $ncpu"
    [ $fails -eq 0 ] || exit 1
    exit 77
fi

# --- short real runs ---
"$LATLAB" dce --ops 200000 --samples 2000 --json "$tmp/dce.json" >"$tmp/dce.out" 2>"$tmp/err" ||
    fail "dce run failed: $(cat "$tmp/err")"
for pat in "(1) multiply-add" "(2) multiply-add" "(3) " "(4) " "round trip" "floor" "verdict"; do
    grep -qF "$pat" "$tmp/dce.out" || fail "dce output lacks '$pat'"
done
jq -e '.trap_ns_per_op >= 0 and .barrier_ns_per_op > 0 and (.trap_sprung | type) == "boolean"
       and .same_thread_ns_per_op > 0 and .cross_rtt_p50_ns > 0 and .floor_rtt_p50_ns > 0
       and (.implausible | type) == "boolean" and (.cpus | length) == 2' \
    "$tmp/dce.json" >/dev/null || fail "dce JSON: $(cat "$tmp/dce.json")"
# an optimized build deletes the unused loop (sanitizer builds are -O0 and keep it)
if [ -z "${LAT_SANITIZE:-}" ]; then
    jq -e '.trap_sprung == true' "$tmp/dce.json" >/dev/null || fail "dce: the DCE trap did not spring"
fi
"$LATLAB" dce --ring ring --ops 100000 --samples 1000 >"$tmp/dce2.out" 2>"$tmp/err" ||
    fail "dce --ring ring failed: $(cat "$tmp/err")"
grep -q "ring " "$tmp/dce2.out" || fail "dce --ring ring output"

# Concurrency Kit's ring orders its accesses with inline asm (ck_pr) that
# ThreadSanitizer cannot see, so under TSan its two threads look racy; only
# ck's own functions are exempted, latlab's rings stay checked.
if [ "${LAT_SANITIZE:-}" = thread ]; then
    printf 'race:_ck_ring_enqueue_sp\nrace:_ck_ring_dequeue_sc\n' >"$tmp/tsan.supp"
    export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}suppressions=$tmp/tsan.supp"
fi
"$LATLAB" bakeoff ring --rounds 1 --ops 20000 --items 64000 --samples 2000 --capacity 256 \
    --json "$tmp/bench.json" >"$tmp/bench.out" 2>"$tmp/err" || fail "bakeoff ring failed: $(cat "$tmp/err")"
for q in ring seqring ck_ring mutex; do
    grep -q "^$q " "$tmp/bench.out" || fail "bench table lacks $q"
done
grep -q "floor" "$tmp/bench.out" || fail "bench table lacks the floor"
grep -q "winner" "$tmp/bench.out" || fail "bench output lacks the winner"
jq -e '(.queues | keys | sort) == ["ck_ring","mutex","ring","seqring"]
       and ([.queues[] | .same_thread_ns > 0 and .mops_8b > 0 and .mops_40b > 0
              and .rtt_p50_ns > 0 and .rtt_p99_ns >= .rtt_p50_ns and .rtt_p999_ns >= .rtt_p99_ns]
            | all)
       and .queues.ck_ring.same_thread_vs_ck == 1
       and .floor.rtt_p50_ns > 0 and (.winner == "ring" or .winner == "seqring")
       and .rounds == 1 and (.queues.seqring.mops_8b_rounds | length) == 1' \
    "$tmp/bench.json" >/dev/null || fail "bench JSON: $(cat "$tmp/bench.json")"

jq -e '[.queues[] | .same_thread_56b_ns > 0] | all' "$tmp/bench.json" >/dev/null ||
    fail "bench JSON lacks the 56-byte same-thread figure"

# --same-thread: only the push+pop figures, both item sizes, ratio to ck_ring
"$LATLAB" bakeoff ring --same-thread --rounds 1 --ops 20000 --json "$tmp/st.json" \
    >"$tmp/st.out" 2>"$tmp/err" || fail "bakeoff ring --same-thread failed: $(cat "$tmp/err")"
grep -q "56B written" "$tmp/st.out" && grep -q "56B prepared" "$tmp/st.out" ||
    fail "--same-thread table lacks the 56-byte columns"
if grep -q "floor" "$tmp/st.out"; then fail "--same-thread ran the cross-core floor"; fi
jq -e '.same_thread_only == true and .pipeline_item_bytes == 56
       and ([.queues[] | .same_thread_ns > 0 and .same_thread_56b_ns > 0
              and .same_thread_56b_prepared_ns > 0
              and (has("mops_8b") | not)] | all)
       and .queues.ck_ring.same_thread_56b_vs_ck == 1' "$tmp/st.json" >/dev/null ||
    fail "--same-thread JSON: $(cat "$tmp/st.json")"

[ $fails -eq 0 ] || exit 1
echo "ok"
