#!/bin/bash
# docs.sh - README.md agrees with the tool and stays readable: its "Commands at a
# glance" table lists exactly the commands `latlab help` lists, with the same
# one-line descriptions; it is under 300 lines; no prose paragraph is over 120
# words; and it names no file of the tree that does not exist.
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
# prose paragraphs: runs of lines outside code fences that are not tables,
# lists or headings
awk '/^```/{fence=!fence; next} fence{next}
     /^$/ || /^\|/ || /^#/ || /^- / {if (w > 120) printf "%d words before line %d\n", w, NR; w=0; next}
     {w += NF}
     END {if (w > 120) printf "%d words at the end\n", w}' "$readme" >"$tmp/long"
[ -s "$tmp/long" ] && bad "README.md has a paragraph over 120 words: $(cat "$tmp/long")"
# every tree path it names exists
for p in $(grep -o '\(docs\|examples\|scripts\|tests\|include\)/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "$readme" | sort -u); do
    [ -e "$LAT_SRC_DIR/$p" ] || bad "README.md names $p, which does not exist"
done
echo "README: $lines lines, $(wc -l <"$tmp/readme") commands"
[ "$fail" -eq 0 ] && echo "PASS: docs" || exit 1
