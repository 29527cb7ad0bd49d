#!/bin/bash
# headers.sh - the installed API as latlab.h states it: every public header is
# in the umbrella; stable headers compile alone with strict -std=c11 (no
# feature macro such as _GNU_SOURCE: latlab.pc forces none on its users) and no
# LATLAB_EXPERIMENTAL; experimental ones refuse to without it and compile
# with it; no test seam (lat__*_set_*) is in a public header; every function
# a stable header declares is marked LAT_API (exported from liblatlab.so), and
# no internal (lat__) one is; version.h agrees with CMakeLists.txt.
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
        "$cc" -std=c11 -DLATLAB_EXPERIMENTAL -Wall -Wextra -Werror -fsyntax-only \
            -I"$inc" "$tmp/t.c" || bad "experimental $n does not compile alone"
        # an experimental header is included by latlab.h only under the macro
        awk -v n="$n" '/^#ifdef LATLAB_EXPERIMENTAL/{e=1} /^#endif/{e=0}
            $0 ~ "\"latlab/" n "\"" && !e {exit 1}' "$umbrella" ||
            bad "latlab.h includes experimental $n outside #ifdef LATLAB_EXPERIMENTAL"
    else
        nstable=$((nstable + 1))
        "$cc" -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$inc" "$tmp/t.c" ||
            bad "stable $n does not compile alone without LATLAB_EXPERIMENTAL"
        # ...and with _GNU_SOURCE, as the library itself is built
        "$cc" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -fsyntax-only -I"$inc" "$tmp/t.c" ||
            bad "stable $n does not compile alone with _GNU_SOURCE"
        # Declarations at file scope of lat_ functions and objects (outside
        # comments, not static inline, not typedefs) must carry LAT_API.
        unmarked=$(awk '
            /^\/\*/ { if ($0 !~ /\*\//) c = 1; next }
            c { if ($0 ~ /\*\//) c = 0; next }
            /^(static|LAT_INLINE|LAT_API|typedef|#|return|enum|union|[}{ \t])/ { next }
            /^struct [a-z_]+ *[;{]/ { next }
            /(^|[^a-z0-9_])lat_[a-z0-9][a-z0-9_]* *[(\[;]/ && $0 !~ /\{ *$/ { print FILENAME ":" FNR ": " $0 }
        ' "$h")
        [ -z "$unmarked" ] || bad "stable $n declares functions without LAT_API:
$unmarked"
    fi
done
printf '#include <latlab/latlab.h>\nint main(void) { return 0; }\n' >"$tmp/u.c"
for fm in "" -D_GNU_SOURCE; do
    # shellcheck disable=SC2086
    "$cc" -std=c11 $fm -Wall -Wextra -Werror -fsyntax-only -I"$inc" "$tmp/u.c" ||
        bad "latlab.h does not compile without LATLAB_EXPERIMENTAL ${fm:-(strict C11)}"
    # shellcheck disable=SC2086
    "$cc" -std=c11 $fm -DLATLAB_EXPERIMENTAL -Wall -Wextra -Werror -fsyntax-only \
        -I"$inc" "$tmp/u.c" || bad "latlab.h does not compile with LATLAB_EXPERIMENTAL ${fm:-(strict C11)}"
done
if grep -n 'lat__[a-z_]*_set_[a-z_]*(' "$inc"/latlab/*.h; then
    bad "a test seam is declared in a public header"
fi
if grep -nE '^LAT_API .*[^a-z_]lat__[a-z0-9_]+ *[(\[;]' "$inc"/latlab/*.h; then
    bad "an internal (lat__) name is marked LAT_API"
fi
# The version macros and the run-time version agree with the project's.
pv=$(sed -n 's/^project(latlab VERSION \([0-9.]*\).*/\1/p' "$LAT_SRC_DIR/CMakeLists.txt")
cat >"$tmp/v.c" <<'EOF'
#include <latlab/version.h>
#include <stdio.h>
_Static_assert(LATLAB_VERSION_NUMBER ==
                   LATLAB_VERSION_MAJOR * 10000 + LATLAB_VERSION_MINOR * 100 + LATLAB_VERSION_PATCH,
               "LATLAB_VERSION_NUMBER");
int main(void) {
    printf("%d.%d.%d %s\n", LATLAB_VERSION_MAJOR, LATLAB_VERSION_MINOR, LATLAB_VERSION_PATCH,
           LATLAB_VERSION_STRING);
    return 0;
}
EOF
if "$cc" -std=c11 -Wall -Wextra -Werror -I"$inc" -o "$tmp/v" "$tmp/v.c"; then
    v=$("$tmp/v")
    [ "$v" = "$pv $pv" ] || bad "version.h says '$v', CMakeLists.txt says $pv"
else
    bad "version.h does not compile"
fi
echo "$nstable stable and $nexp experimental headers checked"
[ "$fail" -eq 0 ] && echo "PASS: headers" || exit 1
