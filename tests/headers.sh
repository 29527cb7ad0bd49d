#!/bin/bash
# headers.sh - the installed API as latlab.h states it: every public header is
# in the umbrella; stable headers compile alone with -std=c11 and no
# LATLAB_EXPERIMENTAL; experimental ones refuse to without it and compile
# with it; no test seam (lat__*_set_*) is in a public header.
set -uo pipefail
: "${LAT_SRC_DIR:?}"
inc="$LAT_SRC_DIR/include"
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
umbrella="$inc/latlab/latlab.h"
nstable=0 nexp=0
for h in "$inc"/latlab/*.h; do
    n=$(basename "$h")
    [ "$n" = latlab.h ] || [ "$n" = core.h ] && continue
    grep -q "^#include \"latlab/$n\"" "$umbrella" || bad "latlab.h does not include $n"
    printf '#include <latlab/%s>\nint main(void) { return 0; }\n' "$n" >"$tmp/t.c"
    if grep -q '^#ifndef LATLAB_EXPERIMENTAL' "$h"; then
        nexp=$((nexp + 1))
        "$cc" -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$inc" "$tmp/t.c" 2>/dev/null &&
            bad "experimental $n compiles without LATLAB_EXPERIMENTAL"
        "$cc" -std=c11 -D_GNU_SOURCE -DLATLAB_EXPERIMENTAL -Wall -Wextra -Werror -fsyntax-only \
            -I"$inc" "$tmp/t.c" || bad "experimental $n does not compile alone"
        # an experimental header is included by latlab.h only under the macro
        awk -v n="$n" '/^#ifdef LATLAB_EXPERIMENTAL/{e=1} /^#endif/{e=0}
            $0 ~ "\"latlab/" n "\"" && !e {exit 1}' "$umbrella" ||
            bad "latlab.h includes experimental $n outside #ifdef LATLAB_EXPERIMENTAL"
    else
        nstable=$((nstable + 1))
        "$cc" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -fsyntax-only -I"$inc" "$tmp/t.c" ||
            bad "stable $n does not compile alone without LATLAB_EXPERIMENTAL"
    fi
done
printf '#include <latlab/latlab.h>\nint main(void) { return 0; }\n' >"$tmp/u.c"
"$cc" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -fsyntax-only -I"$inc" "$tmp/u.c" ||
    bad "latlab.h does not compile without LATLAB_EXPERIMENTAL"
"$cc" -std=c11 -D_GNU_SOURCE -DLATLAB_EXPERIMENTAL -Wall -Wextra -Werror -fsyntax-only \
    -I"$inc" "$tmp/u.c" || bad "latlab.h does not compile with LATLAB_EXPERIMENTAL"
if grep -n 'lat__[a-z_]*_set_[a-z_]*(' "$inc"/latlab/*.h; then
    bad "a test seam is declared in a public header"
fi
echo "$nstable stable and $nexp experimental headers checked"
[ "$fail" -eq 0 ] && echo "PASS: headers" || exit 1
