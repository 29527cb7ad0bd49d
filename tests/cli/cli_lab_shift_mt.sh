#!/bin/bash
# cli_lab_shift_mt.sh - `latlab lab --quick --noise SPEC` (issue 27): under
# injected platform noise the lab still writes what the verdicts rest on:
# every run's kept share and kept figures in lab.json, the parameters used,
# the A/A control's verdict, and per experiment the shift function (five
# quantiles) in lab.json and as an SVG that LAB.md links and that exists;
# LAB.md prints no "nan" and no interval-contamination rule.  Needs root
# (the noise is SCHED_FIFO): SKIPPED otherwise.  Sizes are --quick's; no
# verdict kind and no time is asserted (a quick lab decides nothing).
set -u
L=${LATLAB:?}
if [ "$(id -u)" != 0 ]; then
    echo "SKIPPED: not root: --noise needs SCHED_FIFO (root or CAP_SYS_NICE)"
    exit 77
fi
if [ "$(nproc)" -lt 2 ]; then
    echo "SKIPPED: needs 2 CPUs for the two pinned hot threads"
    exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$L" lab --quick --seed 11 --replay none --no-profile --noise share=10%,burst=50us,rate=2kHz \
    --out "$T/lab" >"$T/out" 2>"$T/err" || fail "lab exited $?: $(tail -5 "$T/err")"
[ -s "$T/lab/LAB.md" ] && [ -s "$T/lab/lab.json" ] || fail "LAB.md or lab.json missing"

python3 - "$T/lab" <<'PY' || fail "lab.json / LAB.md: see above"
import json, os, re, sys
import xml.etree.ElementTree as ET
d = sys.argv[1]
j = json.load(open(os.path.join(d, "lab.json")))
assert j["params"]["min_kept_p999"] == 10000, j["params"]
for k in ("min_median_ratio", "min_tail_ratio", "tail_log_multiple", "min_var_ratio",
          "no_change_ratio", "hint_alpha_multiple", "reach_est_multiple", "band_edge_share"):
    assert k in j["params"], k
# counts are integers (test_lab_method checks every parameter of the list is here)
assert all(isinstance(j["params"][k], int) for k in ("min_rounds", "ncpus", "nhot")), j["params"]
runs = j["runs"]
assert runs, "no runs"
kept = [r["kept_share_work"] for r in runs]
assert any(isinstance(k, float) and 0 <= k <= 1 for k in kept), kept
for r in runs:
    assert "kept_figures_ns" in r and "kept_work_samples" in r, r.keys()
    if r["set_aside"]:
        assert r["why"].startswith("set aside: kept ") and "needed for the p99.9" in r["why"], r["why"]
        assert r["kept_work_samples"] < 10000, r["kept_work_samples"]
v = j["verdicts"]
assert set(v) == {"alloc", "share-line", "no-pin", "aa-control"}, v.keys()
assert v["aa-control"]["verdict"] and v["aa-control"]["text"], v["aa-control"]
md = open(os.path.join(d, "LAB.md")).read()
for name, ver in v.items():
    sf = ver["shift_function"]
    assert [p["quantile"] for p in sf] == [50, 90, 99, 99.9, 99.99], sf
    for p in sf:
        assert set(p) >= {"ratio", "lo", "hi", "p", "rounds"}, p
        assert p["ratio"] is None or p["lo"] <= p["ratio"] <= p["hi"], p
    svg = "shift-%s.svg" % name
    assert "](%s)" % svg in md, "LAB.md does not link " + svg
    ET.parse(os.path.join(d, svg))  # exists and is well-formed
assert not re.search(r"\bnan\b|xnan|x-nan", md, re.I), re.search(r".{40}\bnan\b.{40}", md, re.I)
assert "intervals clean" not in md and "CONTAMINATED" not in md
print("ok: %d runs, kept shares %s" % (len(runs), sorted(k for k in kept if k is not None)[:3]))
PY
echo "ok"
