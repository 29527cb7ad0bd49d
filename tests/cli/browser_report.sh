#!/bin/bash
# browser_report.sh - report pages in a real browser.  Headless Chromium loads
# each report.html from a file path (no network, no script in the page), a
# screenshot is kept under $LAT_BUILD_DIR/artifacts/browser_report/ (and a dark
# colour-scheme one of the demo page) for a person to look at, and the DOM is checked twice:
#   --dump-dom: the title, every table and every plot of the written page is in
#     the parsed document, each plot with a non-zero width/height and viewBox
#     (the lab's page: a shift function per experiment and the A/A control);
#   DevTools protocol (--remote-debugging-pipe): the same elements laid out with
#     a non-zero size, each table with rows, no element wider than the page, and
#     the page and plot colours swapping under prefers-color-scheme light/dark.
# Pages: one from tests/cli/report_demo.c (every report item), one from
# `latlab plot -o x.html`, the reports of `latlab lab --quick` and
# `latlab book bench all --quick` (when those commands write one), the page and
# the standalone flame.svg of `latlab profile fold` on a recorded perf script, and any
# report.html named in LAT_BROWSER_REPORTS (space-separated paths).
set -u
L=${LATLAB:?}
B=${LAT_BUILD_DIR:?}
S=${LAT_SRC_DIR:?}
CHROME=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROME" ] || { echo "SKIPPED: chromium not installed (Debian package chromium)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIPPED: python3 not installed"; exit 77; }
DEMO=$B/tests/report_demo
[ -x "$DEMO" ] || { echo "FAIL: $DEMO not built"; exit 1; }
A=$B/artifacts/browser_report
rm -rf "$A"
mkdir -p "$A"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

FLAGS=(--headless --no-sandbox --disable-gpu --disable-background-networking
    --disable-component-update --disable-sync --no-first-run --disable-quic
    --disable-default-apps --disable-extensions --mute-audio --hide-scrollbars)

# chrome ARGS...: one run with a fresh profile; output to stdout, noise dropped.
chrome() {
    local prof
    prof=$(mktemp -d "$T/profile.XXXXXX")
    timeout 90 "$CHROME" "${FLAGS[@]}" --user-data-dir="$prof" "$@" 2>"$T/chrome.err"
    local rc=$?
    rm -rf "$prof"
    return $rc
}

"$DEMO" "$A/demo.html" || fail "report_demo failed"
"$L" plot "$S/tests/data/plot/two_tags.hlog" "$S/tests/data/plot/alloc.hlog" --slo 2us \
    -o "$A/plot.html" >/dev/null || fail "latlab plot -o plot.html failed"
pages=("$A/demo.html" "$A/plot.html")

# own NAME OUTDIR CMD...: run a command that writes OUTDIR/report.html and add
# the page.  A command that fails is reported and its page skipped (its own
# tests cover the run); one that succeeds without a report fails this test.
own() {
    local name=$1 dir=$2
    shift 2
    timeout 300 "$@" >"$T/$name.out" 2>&1
    local rc=$?
    if [ $rc -ne 0 ]; then
        echo "browser_report: note: '$*' exited $rc; its report is not checked: $(tail -2 "$T/$name.out")"
        return 0
    fi
    [ -f "$dir/report.html" ] || fail "'$*' wrote no $dir/report.html"
    cp "$dir/report.html" "$A/$name.html"
    pages+=("$A/$name.html")
}
if "$L" lab --help 2>/dev/null | grep -q 'report\.html'; then
    own lab "$T/lab" "$L" lab --quick --out "$T/lab"
fi
if "$L" book bench --help 2>/dev/null | grep -q 'report\.html'; then
    own book "$T/book" "$L" book bench all --quick --out "$T/book"
fi
if "$L" profile --help 2>/dev/null | grep -q 'report\.html'; then
    # a flamegraph page from a recorded perf script (no perf needed), and the
    # standalone flame.svg rendered on its own, light and dark
    own profile "$T/profile" "$L" profile fold -o "$T/profile" "$S/tests/data/profile/kernel_user.txt"
    if [ -f "$T/profile/flame.svg" ]; then
        cp "$T/profile/flame.svg" "$A/flame.svg"
        for scheme in light dark; do
            extra=()
            [ $scheme = dark ] && extra=(--force-dark-mode --blink-settings=preferredColorScheme=0)
            chrome "${extra[@]}" --window-size=1220,260 --screenshot="$A/flame.$scheme.png" \
                "file://$A/flame.svg" >/dev/null || fail "flame.svg: screenshot failed: $(tail -3 "$T/chrome.err")"
            [ "$(head -c 8 "$A/flame.$scheme.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
                fail "flame.$scheme.png is not a PNG"
        done
        chrome --dump-dom "file://$A/flame.svg" >"$A/flame.dom.svg" || fail "flame.svg: --dump-dom failed"
        n=$(grep -o '<g class="lat-fl-f' "$A/flame.dom.svg" | wc -l)
        [ "$n" -ge 10 ] || fail "flame.svg: the browser's DOM holds $n frames"
        echo "browser_report: flame.svg ok ($n frames; $A/flame.light.png, $A/flame.dark.png)"
    fi
fi
for extra in ${LAT_BROWSER_REPORTS:-}; do
    [ -f "$extra" ] || fail "LAT_BROWSER_REPORTS: $extra not found"
    n=$(basename "$(dirname "$extra")")
    cp "$extra" "$A/$n.html"
    pages+=("$A/$n.html")
done

for page in "${pages[@]}"; do
    name=$(basename "$page" .html)
    url="file://$page"

    # 1. the parsed document
    chrome --dump-dom "$url" >"$A/$name.dom.html" || fail "$name: --dump-dom failed: $(tail -3 "$T/chrome.err")"
    python3 - "$page" "$A/$name.dom.html" <<'PY' || fail "$name: dumped DOM check"
import sys
from html.parser import HTMLParser
class Count(HTMLParser):
    def __init__(self):
        super().__init__()
        self.title, self.in_title, self.tables, self.svgs, self.bad = "", False, 0, 0, []
        self.shifts = 0
        self.in_svg = 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "title" and not self.in_svg and not self.title: self.in_title = True
        elif tag == "table": self.tables += 1
        elif tag == "svg":
            self.in_svg += 1
            self.svgs += 1
            self.shifts += "lat-shift" in (a.get("class") or "").split()
            w, h, vb = a.get("width"), a.get("height"), (a.get("viewbox") or "").split()
            try:
                ok = float(w) > 0 and float(h) > 0 and len(vb) == 4 and float(vb[2]) > 0 and float(vb[3]) > 0
            except (TypeError, ValueError):
                ok = False
            if not ok: self.bad.append(a)
        elif tag in ("script", "link", "iframe", "img"): self.bad.append(tag)
    def handle_endtag(self, tag):
        if tag == "title": self.in_title = False
        elif tag == "svg": self.in_svg -= 1
    def handle_data(self, d):
        if self.in_title: self.title += d
def count(path):
    c = Count(); c.feed(open(path, encoding="utf-8").read()); return c
src, dom = count(sys.argv[1]), count(sys.argv[2])
assert dom.title.strip() and dom.title == src.title, (dom.title, src.title)
assert dom.tables == src.tables and dom.tables >= 1, (dom.tables, src.tables)
assert dom.svgs == src.svgs and dom.svgs >= 1, (dom.svgs, src.svgs)
assert not dom.bad, dom.bad
if dom.title.startswith("latlab lab"): # the shift functions the verdicts read, inline
    assert dom.shifts == 4, f"lab: {dom.shifts} shift functions (want alloc, share-line, no-pin, aa-control)"
print(f"dom: title {dom.title!r}, {dom.tables} tables, {dom.svgs} plots")
PY

    # 2. the laid-out page, through the DevTools protocol
    prof=$(mktemp -d "$T/profile.XXXXXX")
    python3 - "$CHROME" "$prof" "$url" "$T/layout.json" "${FLAGS[@]}" <<'PY' || fail "$name: layout check (DevTools)"
import json, os, select, subprocess, sys, time
chrome, prof, url, out, flags = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
to_r, to_w = os.pipe()
from_r, from_w = os.pipe()
def child():
    os.dup2(to_r, 3)
    os.dup2(from_w, 4)
proc = subprocess.Popen([chrome, *flags, f"--user-data-dir={prof}", "--remote-debugging-pipe",
                         "--window-size=1100,900", "about:blank"],
                        preexec_fn=child, pass_fds=(3, 4), stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL)
os.close(to_r); os.close(from_w)
buf, nid, deadline = b"", 0, time.time() + 60
def call(method, params=None, session=None):
    global buf, nid
    nid += 1
    msg = {"id": nid, "method": method, "params": params or {}}
    if session: msg["sessionId"] = session
    os.write(to_w, json.dumps(msg).encode() + b"\0")
    while True:
        while b"\0" not in buf:
            if time.time() > deadline: raise SystemExit(f"timeout waiting for {method}")
            r, _, _ = select.select([from_r], [], [], 1)
            if r:
                chunk = os.read(from_r, 1 << 20)
                if not chunk: raise SystemExit("browser closed the pipe")
                buf += chunk
        line, buf = buf.split(b"\0", 1)
        m = json.loads(line)
        if m.get("id") == nid:
            if "error" in m: raise SystemExit(f"{method}: {m['error']}")
            return m["result"]
try:
    target = call("Target.createTarget", {"url": url})["targetId"]
    sess = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    ready = ("location.protocol === 'file:' && document.readyState === 'complete'"
             " && !!document.documentElement && !!document.body")
    while call("Runtime.evaluate", {"expression": ready, "returnByValue": True},
               sess)["result"].get("value") is not True:
        time.sleep(0.1)
    js = """(() => {
      const box = e => { const r = e.getBoundingClientRect(); return [r.width, r.height]; };
      return {
        title: document.title,
        docW: document.documentElement.scrollWidth, docH: document.documentElement.scrollHeight,
        viewW: window.innerWidth,
        tables: [...document.querySelectorAll('table')].map(t => ({size: box(t), rows: t.tBodies[0] ? t.tBodies[0].rows.length : 0})),
        plots: [...document.querySelectorAll('svg')].map(s => ({size: box(s),
                 series: [...s.querySelectorAll('path.lat-series')].map(p => ({label: p.dataset.label, n: +p.dataset.points, size: box(p)})),
                 texts: s.querySelectorAll('text').length})),
        wide: [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest('.tw, pre')).map(e => e.tagName).slice(0, 5),
      };
    })()"""
    ev = call("Runtime.evaluate", {"expression": js, "returnByValue": True}, sess)
    if "exceptionDetails" in ev: raise SystemExit(f"page script: {ev['exceptionDetails']}")
    res = ev["result"]["value"]
    # Colours under each colour scheme: page background and plot text must
    # swap between dark-on-light and light-on-dark.
    colors = """(() => { const t = document.querySelector('svg text');
      return [getComputedStyle(document.body).backgroundColor, t ? getComputedStyle(t).fill : ''];
    })()"""
    res["schemes"] = {}
    for scheme in ("light", "dark"):
        call("Emulation.setEmulatedMedia",
             {"features": [{"name": "prefers-color-scheme", "value": scheme}]}, sess)
        res["schemes"][scheme] = call("Runtime.evaluate", {"expression": colors, "returnByValue": True},
                                      sess)["result"]["value"]
    json.dump(res, open(out, "w"))
    try: call("Browser.close")
    except SystemExit: pass
finally:
    try: proc.wait(timeout=10)
    except subprocess.TimeoutExpired: proc.kill()
r = res
assert r["title"], "no title"
assert r["tables"], "no table laid out"
for i, t in enumerate(r["tables"]):
    assert t["size"][0] > 0 and t["size"][1] > 0, f"table {i} has size {t['size']}"
    assert t["rows"] >= 1, f"table {i} has no rows"
assert r["plots"], "no plot laid out"
for i, p in enumerate(r["plots"]):
    assert p["size"][0] >= 300 and p["size"][1] >= 180, f"plot {i} laid out at {p['size']}"
    assert p["texts"] >= 5, f"plot {i} has {p['texts']} text elements"
    for s in p["series"]:
        if s["n"] > 1:
            assert s["size"][0] > 0 or s["size"][1] > 0, f"plot {i} series {s['label']} draws nothing"
assert not r["wide"], f"elements wider than the page: {r['wide']}"
def lum(css):
    import re
    v = [float(x) for x in re.findall(r"[0-9.]+", css)[:3]]
    assert len(v) == 3, css
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]
light, dark = r["schemes"]["light"], r["schemes"]["dark"]
auto = "prefers-color-scheme" in open(sys.argv[3][len("file://"):], encoding="utf-8").read()
if auto:
    assert lum(light[0]) > 200 and lum(dark[0]) < 60, f"page background light {light[0]} dark {dark[0]}"
    assert lum(light[1]) < 100 and lum(dark[1]) > 150, f"plot text light {light[1]} dark {dark[1]}"
print(f"colours: light bg {light[0]} text {light[1]}; dark bg {dark[0]} text {dark[1]}")
print(f"layout: {len(r['tables'])} tables, {len(r['plots'])} plots, page {r['docW']}x{r['docH']}")
PY
    rm -rf "$prof"

    # 3. a screenshot of the whole page (the demo page also in the dark scheme)
    h=$(python3 -c 'import json,sys; print(min(8000, max(600, json.load(open(sys.argv[1]))["docH"])))' "$T/layout.json")
    chrome --window-size=1100,"$h" --screenshot="$A/$name.png" "$url" >/dev/null ||
        fail "$name: screenshot failed: $(tail -3 "$T/chrome.err")"
    shots=("$A/$name.png")
    if [ "$name" = demo ]; then # every page shares the CSS: one dark shot is enough
        chrome --force-dark-mode --blink-settings=preferredColorScheme=0 --window-size=1100,"$h" \
            --screenshot="$A/$name.dark.png" "$url" >/dev/null || fail "$name: dark screenshot failed"
        shots+=("$A/$name.dark.png")
    fi
    for png in "${shots[@]}"; do
        [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
            fail "$png is not a PNG"
        [ "$(stat -c %s "$png")" -gt 10000 ] || fail "$png is suspiciously small"
    done
    echo "browser_report: $name ok (screenshots: ${shots[*]})"
done
