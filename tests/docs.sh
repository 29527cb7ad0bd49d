#!/bin/bash
# docs.sh - README.md agrees with the tool and stays readable: its "Commands at a
# glance" table lists exactly the commands `latlab help` lists, with the same
# one-line descriptions; it is under 300 lines; and it names no file of the
# tree that does not exist.  The prose rule: no paragraph or list item in
# README.md and docs/*.md is over 120 words, and no comment block in
# include/latlab/*.h is.
# (docs/lab-method.md's rule table is checked by test_lab_method.)
set -uo pipefail
: "${LATLAB:?}" "${LAT_SRC_DIR:?}"
readme="$LAT_SRC_DIR/README.md"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$LATLAB" help | awk '/^commands:/{c=1; next} c && /^  [a-z]/{n=$1; $1=""; sub(/^ +/, ""); print n "\t" $0} c && /^$/{exit}' \
    >"$tmp/help"
[ -s "$tmp/help" ] || bad "latlab help lists no commands"
sed -n 's/^| `latlab \([a-z]*\)` | \(.*\) |$/\1\t\2/p' "$readme" >"$tmp/readme"
diff "$tmp/help" "$tmp/readme" >"$tmp/diff" ||
    bad "README's command table differs from 'latlab help' (< help, > README):
$(cat "$tmp/diff")"
lines=$(wc -l <"$readme")
[ "$lines" -lt 300 ] || bad "README.md has $lines lines (at most 299)"
# The prose rule's limit, and the files it does not cover yet (paths from the
# source root, space-separated; drop a file from the list once it passes).
PROSE_MAX=120
PROSE_EXEMPT=""
# Markdown: a paragraph is a run of lines outside code fences that are not
# blank, table rows or headings.  A list item ("- ", "* ", "1. ") is a
# paragraph of its own, from its marker line up to the next item, blank line,
# table or heading; its marker is not a word.
md_prose='function flush() { if (w > max) printf "%s:%d: paragraph of %d words\n", name, start, w; w = 0 }
    FNR == 1 { flush(); fence = 0; name = substr(FILENAME, length(src) + 2) }
    /^[ \t]*```/ { flush(); fence = !fence; next }
    fence { next }
    /^[ \t]*$/ || /^[ \t]*\|/ || /^#/ { flush(); next }
    /^[ \t]*([-*+]|[0-9]+[.)])[ \t]/ { flush(); start = FNR; w = NF - 1; next }
    { if (w == 0) start = FNR; w += NF }
    END { flush() }'
# C headers: a comment block is a /* ... */ comment, or a run of lines that
# hold nothing but a // comment.  Comment markers and leading "*"s are not words.
h_prose='function flush() { if (w > max) printf "%s:%d: comment of %d words\n", name, start, w; w = 0 }
    function words(s,   a) { gsub(/\/\*+|\*+\/|\/\/+/, " ", s); sub(/^[ \t]*\*+/, "", s); return split(s, a) }
    FNR == 1 { flush(); inc = 0; run = 0; name = substr(FILENAME, length(src) + 2) }
    {
        line = $0
        if (inc) {
            e = index(line, "*/")
            if (!e) { w += words(line); next }
            w += words(substr(line, 1, e - 1)); inc = 0; flush(); line = substr(line, e + 2)
        }
        if (line ~ /^[ \t]*\/\//) { if (!run) { flush(); start = FNR; run = 1 } w += words(line); next }
        if (run) { flush(); run = 0 }
        while (1) {
            b = index(line, "/*"); c = index(line, "//")
            if (!b && !c) break
            start = FNR
            if (c && (!b || c < b)) { w = words(substr(line, c)); flush(); break }
            line = substr(line, b + 2); e = index(line, "*/")
            if (!e) { w = words(line); inc = 1; break }
            w = words(substr(line, 1, e - 1)); flush(); line = substr(line, e + 2)
        }
    }
    END { flush() }'
prose_md=("$readme")
prose_h=()
for f in "$LAT_SRC_DIR"/docs/*.md; do
    case " $PROSE_EXEMPT " in *" docs/${f##*/} "*) continue ;; esac
    prose_md+=("$f")
done
for f in "$LAT_SRC_DIR"/include/latlab/*.h; do
    case " $PROSE_EXEMPT " in *" include/latlab/${f##*/} "*) continue ;; esac
    prose_h+=("$f")
done
awk -v max="$PROSE_MAX" -v src="$LAT_SRC_DIR" "$md_prose" "${prose_md[@]}" >"$tmp/long"
awk -v max="$PROSE_MAX" -v src="$LAT_SRC_DIR" "$h_prose" "${prose_h[@]}" >>"$tmp/long"
[ -s "$tmp/long" ] && bad "prose over $PROSE_MAX words (shorten, or make it a list or a table):
$(cat "$tmp/long")"
# every tree path it names exists
# (a path under build/ is a built program, not a source path)
for p in $(grep -o '\(build/\)\?\(docs\|examples\|scripts\|tests\|include\)/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "$readme" | grep -v '^build/' | sort -u); do
    [ -e "$LAT_SRC_DIR/$p" ] || bad "README.md names $p, which does not exist"
done
echo "README: $lines lines, $(wc -l <"$tmp/readme") commands; prose rule: ${#prose_md[@]} Markdown files, ${#prose_h[@]} headers (exempt: ${PROSE_EXEMPT:-none})"
[ "$fail" -eq 0 ] && echo "PASS: docs" || exit 1
