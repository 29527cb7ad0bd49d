#!/bin/bash
# readme.sh - the commands README.md and docs/guide.md give work as written.
# Every ```sh (or ```bash) block is run, one command at a time, in a scratch
# folder laid out like a checkout after `make`: build/ is the build tree
# ($LAT_BUILD_DIR), examples/ a copy of the source's, `latlab` on PATH, $HOME a
# fresh folder, no LD_LIBRARY_PATH or PKG_CONFIG_PATH.  A block of another
# language, or an unlabelled one, is not run: unlabelled blocks are output
# samples (a `$ ` prompt marks a command inside one), so one that starts with
# a command (latlab, make, cc, build/) fails the test: label it sh or text.
#
# The blocks of one file run in one session, as a user types them: `export`
# and `cd` lines carry over, a line ending in `&` runs in the background and
# must exit 0 by the end of its block, `\` joins lines.  A command that exits
# non-zero fails the test with its file, line and text.
#
# What the test changes, each said in its output:
#   - skipped, with the reason: `make run`, `make test` (the lab and this very
#     suite), sudo/apt-get, `make install` to the system, `latlab load` and
#     --push (a service and a Pushgateway to point at), latlab noise/silence
#     and --noise (root, and they take CPU from the other tests), `...` or
#     CMD in a command (a placeholder), jq where it is not installed;
#   - `make install PREFIX=P` is `cmake --install $LAT_BUILD_DIR --prefix P`
#     (make's own step also builds build/ and installs packages);
#   - a background command gets 1.5 s before the next one starts, as a user
#     typing the next line would give it (trace_pipeline's socket, for
#     `latlab top --connect`, appears after ~0.3 s);
#   - shortened: `latlab pipeline` gets --events 100000, --metrics-linger 1,
#     port 9464 becomes 0 (any free port), trace_pipeline runs 3 s, `latlab
#     top FILES` gets --no-follow, `latlab lab` and `latlab book bench`
#     --quick, `latlab profile lab` --events 40000; /tmp/ is the scratch folder;
#   - inputs a command reads and no earlier command writes are made first:
#     from tests/data run.hlog (untagged and tagged e2e intervals), a b before
#     after base alloc .hlog, java.hgrm, before/ after/ a/ b/ folded.txt and
#     perf-script.txt; ops.txt (three book ops); capture.itch and day.itch
#     (`latlab book itch-gen`); shard-0.json and shard-1.json (a `latlab load`
#     verdict each); ./myprog (the time_region example) for `latlab profile`,
#     which runs only where perf can record.
#
# The folders those commands write in the checkout's root must be in
# .gitignore (checked with git check-ignore where the source is a git checkout).
#
# `readme.sh FILE.md...` checks those files only (the self-test's way in).
# Without arguments it checks README.md and docs/guide.md, then itself: a copy
# of README.md with a broken command, and one with an unlabelled command
# block, must each fail, naming the command.
set -uo pipefail
: "${LATLAB:?}" "${LAT_SRC_DIR:?}" "${LAT_BUILD_DIR:?}"
if [ -n "${LAT_SANITIZE:-}" ]; then
    echo "SKIPPED: a sanitizer build's liblatlab.a links only with -fsanitize, which the README's cc lines do not add"
    exit 77
fi
self=$(readlink -f "$0")
tmp=$(mktemp -d)
bgpids=()
cleanup() {
    local p
    for p in "${bgpids[@]}"; do kill "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
CMD_TIMEOUT=60

# ---- the scratch checkout -----------------------------------------------------
work="$tmp/work"
mkdir -p "$work" "$tmp/home" "$tmp/bin"
ln -s "$(readlink -f "$LAT_BUILD_DIR")" "$work/build"
cp -r "$LAT_SRC_DIR/examples" "$work/examples"
ln -s "$(readlink -f "$LATLAB")" "$tmp/bin/latlab"
d="$LAT_SRC_DIR/tests/data"
for f in a b before after base alloc; do cp "$d/plot/alloc.hlog" "$work/$f.hlog"; done
cp "$d/plot/two_tags.hlog" "$work/b.hlog"
"$LATLAB" hist merge "$d/plot/alloc.hlog" "$d/plot/two_tags.hlog" -o "$work/run.hlog" 2>/dev/null ||
    { echo "FAIL: setup: latlab hist merge"; exit 1; }
cp "$d/plot/alloc_us.hgrm" "$work/java.hgrm"
for p in before a; do mkdir -p "$work/$p" && cp "$d/profile/kernel_user.folded" "$work/$p/folded.txt"; done
for p in after b; do mkdir -p "$work/$p" && cp "$d/profile/inlined.folded" "$work/$p/folded.txt"; done
cp "$d/profile/kernel_user.txt" "$work/perf-script.txt"
printf 'L 1 1 S 1000100 5 GTC\nL 2 2 B 1000000 5 GTC\nL 3 3 B 1000100 7 IOC\n' >"$work/ops.txt"
"$LATLAB" book itch-gen -o "$work/capture.itch" --messages 20000 --stocks 5 >/dev/null ||
    { echo "FAIL: setup: latlab book itch-gen"; exit 1; }
cp "$work/capture.itch" "$work/day.itch"
echo '{"config": {"shard_index": 0}, "verdict": {"valid": true}}' >"$work/shard-0.json"
echo '{"config": {"shard_index": 1}, "verdict": {"valid": false}}' >"$work/shard-1.json"
cp "$LAT_BUILD_DIR/examples/time_region" "$work/myprog"
perf_ok=0
if command -v perf >/dev/null && perf record -q -o "$tmp/perf.data" -- true >/dev/null 2>&1; then
    perf_ok=1
fi
ls -A "$work" >"$tmp/setup.ls"
unset LD_LIBRARY_PATH PKG_CONFIG_PATH
export HOME="$tmp/home" PATH="$tmp/bin:$PATH"

# ---- the blocks ---------------------------------------------------------------
# One record per command: "LINE<TAB>TEXT", continuation lines joined.  A line
# "LINE<TAB>#block" starts a block; "LINE<TAB>#bare COMMAND" is an unlabelled
# block that starts with a command.
extract() {
    awk '
    /^[ \t]*```/ {
        if (fence) { fence = 0; run = 0; next }
        fence = 1; lang = $0; sub(/^[ \t]*```/, "", lang); sub(/[ \t].*/, "", lang)
        run = (lang == "sh" || lang == "bash"); first = (lang == "")
        if (run) print NR "\t#block"
        next
    }
    !fence { next }
    first {
        first = 0
        if ($0 ~ /^[ \t]*(latlab|make|cc|build\/|\.\/)[ \t\/]/) print NR "\t#bare " $0
    }
    !run { next }
    {
        line = $0
        if (cont) { text = text " " line } else { start = NR; text = line }
        if (text ~ /\\$/) { sub(/[ \t]*\\$/, "", text); cont = 1; next }
        cont = 0
        if (text ~ /^[ \t]*(#.*)?$/) next
        print start "\t" text
    }' "$1"
}

# Why a command cannot run here, or nothing.
skip_reason() {
    local c=$1
    case "$c" in
    "make run"*) echo "installs packages and runs the two-minute lab (tests/cli/cli_lab_mt.sh runs the lab)" ;;
    "make test"*) echo "runs this suite" ;;
    sudo* | apt-get* | apt\ *) echo "needs root and the network" ;;
    "make install"*PREFIX=/usr* | "make install") echo "installs into the system" ;;
    "make install "*) ;;
    make*) echo "a build of its own (CI runs the make targets)" ;;
    *"latlab load "*) echo "needs a service to load (tests/cli/cli_load*.sh drive real ones)" ;;
    *"--push http"*) echo "needs a Pushgateway (tests/cli/prom_fleet.sh runs one)" ;;
    *"latlab noise"* | *"latlab silence"* | *"--noise "*) echo "root, and takes CPU from the tests beside it" ;;
    *...* | *" CMD"*) echo "a placeholder to fill in" ;;
    *"latlab profile diff "* | *"latlab profile fold "*) ;;
    *"latlab profile "*)
        [ "$perf_ok" = 1 ] || echo "perf cannot record here" ;;
    jq\ *) command -v jq >/dev/null || echo "jq is not installed" ;;
    esac
}

# The command as the test runs it (see the header).
shorten() {
    local c=$1
    case "$c" in
    "make install "*PREFIX=*)
        local p=${c#*PREFIX=}
        p=${p%% *}
        c="cmake --install \"\$LAT_BUILD_DIR\" --prefix $p >/dev/null"
        ;;
    esac
    if [[ $c == *"latlab pipeline"* && $c != *--events* && $c != *--replay* ]]; then
        c="${c/latlab pipeline/latlab pipeline --events 100000}"
    fi
    if [[ $c == *"latlab top "* && $c != *--connect* && $c != *--no-follow* ]]; then
        c="${c/latlab top /latlab top --no-follow }"
    fi
    if [[ $c == *"latlab lab"* && $c != *--quick* ]]; then c="${c/latlab lab/latlab lab --quick}"; fi
    if [[ $c == *"latlab book bench "* && $c != *--quick* ]]; then c="${c/latlab book bench /latlab book bench --quick }"; fi
    if [[ $c == *"latlab profile lab"* && $c != *--events* ]]; then
        c="${c/latlab profile lab/latlab profile lab --events 40000}"
    fi
    c=$(sed -E -e 's/--metrics-linger [0-9]+/--metrics-linger 1/g' -e 's/127\.0\.0\.1:9464/127.0.0.1:0/g' \
        -e 's/(trace_pipeline .*--seconds )[0-9.]+/\13/' -e "s|/tmp/|$tmp/|g" <<<"$c")
    printf '%s' "$c"
}

# Background commands of the block that ends: each must exit 0.
wait_block() {
    local i rc
    for i in "${!bgpids[@]}"; do
        wait "${bgpids[$i]}"
        rc=$?
        if [ "$rc" -ne 0 ]; then
            sed 's/^/    /' "$tmp/bg.$i.log" | tail -n 20
            echo "FAIL: $(cat "$tmp/bg.$i.where"): the background command exited $rc: $(cat "$tmp/bg.$i.text")"
            return 1
        fi
    done
    bgpids=()
}

# Runs FILE's blocks; 0 when every command that can run here exits 0.
check_file() {
    local md=$1 name=$2 line text c why rc n=0 skipped=0
    local cmds="$tmp/cmds"
    extract "$md" >"$cmds"
    if grep -q $'\t#bare ' "$cmds"; then
        grep $'\t#bare ' "$cmds" | while IFS=$'\t' read -r line text; do
            echo "FAIL: $name:$line: an unlabelled block starts with a command (${text#\#bare }): label it sh (run here) or text"
        done
        return 1
    fi
    cd "$work" || return 1
    while IFS=$'\t' read -r line text; do
        if [ "$text" = "#block" ]; then
            wait_block || return 1
            continue
        fi
        why=$(skip_reason "$text")
        if [ -n "$why" ]; then
            echo "$name:$line: SKIPPED ($why): $text"
            skipped=$((skipped + 1))
            continue
        fi
        c=$(shorten "$text")
        echo "$name:$line: \$ $text"
        [ "$c" = "$text" ] || echo "    (run as: $c)"
        n=$((n + 1))
        if [[ $c =~ ^(export|cd)\  ]]; then
            eval "$c" || { echo "FAIL: $name:$line: $text"; return 1; }
        elif [[ $c =~ \&[[:space:]]*(#.*)?$ && ! $c =~ \&\&[[:space:]]*(#.*)?$ ]]; then
            local i=${#bgpids[@]}
            c=$(sed -E 's/&[[:space:]]*(#.*)?$//' <<<"$c")
            printf '%s' "$text" >"$tmp/bg.$i.text"
            echo "$name:$line" >"$tmp/bg.$i.where"
            timeout -k 5 "$CMD_TIMEOUT" bash -o pipefail -c "$c" </dev/null >"$tmp/bg.$i.log" 2>&1 &
            bgpids+=($!)
            sleep 1.5
        else
            timeout -k 5 "$CMD_TIMEOUT" bash -o pipefail -c "$c" </dev/null >"$tmp/out" 2>&1
            rc=$?
            tail -n 4 "$tmp/out" | sed 's/^/    /'
            if [ "$rc" -ne 0 ]; then
                echo "    ..."
                tail -n 20 "$tmp/out" | sed 's/^/    /'
                [ "$rc" -eq 124 ] && echo "    (timed out after ${CMD_TIMEOUT} s)"
                echo "FAIL: $name:$line: exit $rc: $text"
                return 1
            fi
        fi
    done <"$cmds"
    wait_block || return 1
    [ "$n" -gt 0 ] || { echo "FAIL: $name: no command ran (no \`\`\`sh block?)"; return 1; }
    echo "$name: $n commands ran, $skipped skipped"
}

if [ $# -gt 0 ]; then
    for f in "$@"; do check_file "$f" "${f##*/}" || exit 1; done
    exit 0
fi

fail=0
for f in README.md docs/guide.md; do
    check_file "$LAT_SRC_DIR/$f" "$f" || fail=1
done
[ "$fail" -eq 0 ] || exit 1
if git -C "$LAT_SRC_DIR" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    for f in "$work"/* "$work"/.[!.]*; do
        [ -d "$f" ] || continue
        f=${f##*/}
        grep -qxF -- "$f" "$tmp/setup.ls" && continue
        git -C "$LAT_SRC_DIR" check-ignore -q --no-index "$f/" ||
            { echo "FAIL: the documented commands write $f/ in the checkout, which .gitignore does not ignore"; fail=1; }
    done
fi
[ "$fail" -eq 0 ] || exit 1

# ---- the test fails where it should ----------------------------------------------
mkdir "$tmp/self"
awk 'NR == 2 { print "```sh"; print "latlab hist percentiles no-such.hlog"; print "```" } { print }' \
    "$LAT_SRC_DIR/README.md" >"$tmp/self/README.md"
if out=$(bash "$self" "$tmp/self/README.md" 2>&1); then
    echo "$out" | tail -n 5
    echo "FAIL: a README with a failing command passed"
    exit 1
fi
grep -q '^FAIL: README.md:3: exit 1: latlab hist percentiles no-such.hlog$' <<<"$out" ||
    { echo "$out" | tail -n 5; echo "FAIL: the failing command was not named"; exit 1; }
printf '# t\n\n```\nlatlab clock\n```\n' >"$tmp/self/bare.md"
if out=$(bash "$self" "$tmp/self/bare.md" 2>&1); then
    echo "FAIL: an unlabelled command block passed"
    exit 1
fi
grep -q 'bare.md:4: an unlabelled block starts with a command (latlab clock)' <<<"$out" ||
    { echo "$out"; echo "FAIL: the unlabelled block was not named"; exit 1; }
echo "self-test: a failing command and an unlabelled command block each fail the test"
echo "PASS: README.md and docs/guide.md commands"
