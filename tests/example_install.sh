#!/bin/bash
# example_install.sh - latlab as users link it, from an INSTALLED prefix
# (cmake --install into a temporary prefix) and nothing of the source tree:
#   - what is installed: no malloc interposer, no book archive, no internal
#     header or test seam, no feature macro (-D_GNU_SOURCE) in a .pc file;
#   - liblatlab.so exports the stable API alone: every symbol nm -D shows is
#     declared LAT_API in an installed stable header; none is internal (lat__)
#     or declared by an experimental header;
#   - the examples through latlab.pc: trace_pipeline and time_region (stable
#     headers only, strict -std=c11) against the shared library, time_region
#     against the static one with `pkg-config --static`, whose private
#     libraries must then be complete;
#   - time_region through latlab-static.pc with liblatlab.so installed beside
#     liblatlab.a (as users have it): ldd shows no liblatlab.so and it runs
#     with the prefix's lib dir off the loader path;
#   - an experimental program through latlab-experimental.pc (static only),
#     and every object of the experimental archives links with what it names;
#   - find_package(latlab CONFIG): latlab::latlab, latlab::latlab_static and
#     latlab::experimental each build and run a program.
# Output is captured before grep reads it: a `cmd | grep -q` pipe under
# pipefail fails at random when grep exits before cmd has written everything.
set -euo pipefail
: "${LAT_BUILD_DIR:?}" "${LAT_SRC_DIR:?}"
command -v pkg-config >/dev/null || { echo "SKIPPED: pkg-config not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"
cmake --install "$LAT_BUILD_DIR" --prefix "$prefix" >/dev/null
pc=$(find "$prefix" -name latlab.pc | head -n 1)
[ -n "$pc" ] || { echo "FAIL: no latlab.pc installed"; exit 1; }
pcdir=$(dirname "$pc")
[ -f "$pcdir/latlab-experimental.pc" ] || { echo "FAIL: no latlab-experimental.pc installed"; exit 1; }
[ -f "$pcdir/latlab-static.pc" ] || { echo "FAIL: no latlab-static.pc installed"; exit 1; }
pcenv=(env PKG_CONFIG_PATH="$pcdir")
libdir=$("${pcenv[@]}" pkg-config --variable=libdir latlab)
incdir=$("${pcenv[@]}" pkg-config --variable=includedir latlab)
san=()
[ -n "${LAT_SANITIZE:-}" ] && san=(-fsanitize="$LAT_SANITIZE")

# ---- what is installed ------------------------------------------------------------
for f in liblatlab.so liblatlab.a liblatlab-lab.a liblatlab-core.a; do
    [ -e "$libdir/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
[ -f "$libdir/cmake/latlab/latlabConfig.cmake" ] || { echo "FAIL: no lib/cmake/latlab"; exit 1; }
if find "$prefix" -name '*alloccount*.a' -o -name 'liblatbook*' | grep .; then
    echo "FAIL: the malloc interposer or the book archive (no public headers) is installed"; exit 1
fi
if find "$incdir" -name '*_internal.h' | grep .; then
    echo "FAIL: an internal header is installed"; exit 1
fi
if grep -n 'lat__[a-z_]*_set_[a-z_]*(' "$incdir"/latlab/*.h; then
    echo "FAIL: a test seam is declared in an installed header"; exit 1
fi
if grep -n '_GNU_SOURCE' "$pcdir"/*.pc; then
    echo "FAIL: an installed .pc file forces _GNU_SOURCE on its users"; exit 1
fi
if grep -Eq -- '-llatlab( |$)' <<<"$("${pcenv[@]}" pkg-config --libs latlab-experimental)"; then
    echo "FAIL: latlab-experimental.pc links liblatlab.so (it must take liblatlab.a)"; exit 1
fi

# ---- the shared library's exports ------------------------------------------------------
so=$(readlink -f "$libdir/liblatlab.so")
# (A sanitized build adds the sanitizers' own globals, __odr_asan.* and the like.)
nm -D --defined-only "$so" | awk '$3 !~ /^__(odr_asan|asan|ubsan|tsan)/ {print $3}' | sort -u >"$tmp/exported"
# Names a stable header marks LAT_API, and names experimental headers declare.
stable_h=() exp_h=()
for h in "$incdir"/latlab/*.h; do
    if grep -q '^#ifndef LATLAB_EXPERIMENTAL' "$h"; then exp_h+=("$h"); else stable_h+=("$h"); fi
done
grep -h '^LAT_API' "${stable_h[@]}" | grep -oE '\blat_[a-z0-9_]+ *[(\[;]' | grep -oE '^lat_[a-z0-9_]+' |
    sort -u >"$tmp/marked"
grep -hE '^[a-z].*\blat_[a-z0-9_]+ *\(' "${exp_h[@]}" | grep -v '^static' |
    grep -oE '\blat_[a-z0-9_]+ *\(' | grep -oE '^lat_[a-z0-9_]+' | sort -u >"$tmp/experimental"
n=$(wc -l <"$tmp/exported")
internal=$(grep '^lat__' "$tmp/exported" || true)
unmarked=$(comm -23 "$tmp/exported" "$tmp/marked")
exp_exported=$(comm -12 "$tmp/exported" "$tmp/experimental")
missing=$(comm -13 "$tmp/exported" "$tmp/marked")
echo "liblatlab.so exports $n symbols: $(grep -c '^lat__' "$tmp/exported" || true) internal," \
    "$(printf '%s' "$exp_exported" | grep -c . || true) experimental," \
    "$(printf '%s' "$unmarked" | grep -c . || true) not marked LAT_API; lat_version: $(grep -c '^lat_version$' "$tmp/exported")"
[ -z "$internal" ] || { echo "FAIL: internal symbols exported:"; echo "$internal"; exit 1; }
[ -z "$exp_exported" ] || { echo "FAIL: experimental symbols exported:"; echo "$exp_exported"; exit 1; }
[ -z "$unmarked" ] || { echo "FAIL: exported but not declared LAT_API in a stable header:"; echo "$unmarked"; exit 1; }
[ -z "$missing" ] || { echo "FAIL: declared LAT_API but not exported:"; echo "$missing"; exit 1; }

# ---- the examples through latlab.pc ----------------------------------------------
# shellcheck disable=SC2046
cc -std=c11 -O2 -Wall -Wextra -Werror "${san[@]}" -o "$tmp/trace_pipeline" \
    "$LAT_SRC_DIR/examples/trace_pipeline.c" $("${pcenv[@]}" pkg-config --cflags --libs latlab)
# Only the prefix is on the include and library paths: nothing from the source tree.
out=$(LD_LIBRARY_PATH="$libdir" "$tmp/trace_pipeline" --seconds 1.2 --rate 5000)
echo "$out" | tail -n 5
grep -q '^interval 0 e2e' <<<"$out" || { echo "FAIL: no per-stage line"; exit 1; }
grep -Eq '^events 6000 recorded [0-9]+ dropped [0-9]+' <<<"$out" || { echo "FAIL: no totals"; exit 1; }
# shellcheck disable=SC2046
cc -std=c11 -O2 -Wall -Wextra -Werror "${san[@]}" -o "$tmp/time_region" \
    "$LAT_SRC_DIR/examples/time_region.c" $("${pcenv[@]}" pkg-config --cflags --libs latlab)
grep -q "$libdir/liblatlab.so" <<<"$(LD_LIBRARY_PATH="$libdir" ldd "$tmp/time_region")" ||
    { echo "FAIL: time_region (shared) does not use liblatlab.so"; exit 1; }
grep -Eq '^p50 [0-9]+ ns +p99 [0-9]+ ns' <<<"$(LD_LIBRARY_PATH="$libdir" "$tmp/time_region")" ||
    { echo "FAIL: time_region (shared) printed no tail"; exit 1; }
# The version the headers state is the version the library reports.
cat >"$tmp/version.c" <<'EOF'
#include <latlab/latlab.h>
#include <stdio.h>
#include <string.h>
int main(void) {
    printf("headers %s library %s\n", LATLAB_VERSION_STRING, lat_version());
    return strcmp(LATLAB_VERSION_STRING, lat_version()) != 0;
}
EOF
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror "${san[@]}" -o "$tmp/version" "$tmp/version.c" \
    $("${pcenv[@]}" pkg-config --cflags --libs latlab)
LD_LIBRARY_PATH="$libdir" "$tmp/version" || { echo "FAIL: lat_version() disagrees with version.h"; exit 1; }
# An experimental header refuses to compile through latlab.pc alone.
printf '#include <latlab/paired.h>\nint main(void) { return 0; }\n' >"$tmp/refuse.c"
# shellcheck disable=SC2046
if cc -std=c11 -fsyntax-only "$tmp/refuse.c" $("${pcenv[@]}" pkg-config --cflags latlab) 2>/dev/null; then
    echo "FAIL: an experimental header compiles with latlab.pc's Cflags"; exit 1
fi

# ---- the stable API, static -------------------------------------------------------
# latlab-static.pc, with liblatlab.so beside liblatlab.a: the linker must get the
# archive (latlab.pc's -llatlab would find the .so even with --static), so the
# program runs with no LD_LIBRARY_PATH and no rpath.
# shellcheck disable=SC2046
cc -std=c11 -O2 -Wall -Wextra -Werror "${san[@]}" -o "$tmp/time_region_pcstatic" \
    "$LAT_SRC_DIR/examples/time_region.c" $("${pcenv[@]}" pkg-config --cflags --libs latlab-static)
deps=$(env -u LD_LIBRARY_PATH ldd "$tmp/time_region_pcstatic")
if grep -q liblatlab <<<"$deps"; then
    echo "$deps"; echo "FAIL: the latlab-static.pc build links liblatlab.so"; exit 1
fi
if readelf -d "$tmp/time_region_pcstatic" | grep -E 'RPATH|RUNPATH'; then
    echo "FAIL: the latlab-static.pc build carries a run-time library path"; exit 1
fi
out=$(env -u LD_LIBRARY_PATH "$tmp/time_region_pcstatic") ||
    { echo "FAIL: the latlab-static.pc build does not run without $libdir on the loader path"; exit 1; }
grep -Eq '^p50 [0-9]+ ns' <<<"$out" || { echo "FAIL: time_region (latlab-static.pc) printed no tail"; exit 1; }
echo "latlab-static.pc: $("${pcenv[@]}" pkg-config --libs latlab-static); runs without liblatlab.so"
# Without the shared library at hand, the linker takes liblatlab.a and needs
# every private library latlab.pc names (jansson, zlib, protobuf-c, ...).  The
# shared library is moved aside (and back, for the CMake checks below).
mkdir "$tmp/aside"
mv "$libdir"/liblatlab.so* "$tmp/aside/"
# shellcheck disable=SC2046
cc -std=c11 -O2 -Wall -Wextra -Werror "${san[@]}" -o "$tmp/time_region_static" \
    "$LAT_SRC_DIR/examples/time_region.c" $("${pcenv[@]}" pkg-config --static --cflags --libs latlab)
if grep -q liblatlab <<<"$(ldd "$tmp/time_region_static")"; then
    echo "FAIL: the --static build still links liblatlab.so"; exit 1
fi
out=$("$tmp/time_region_static")
echo "$out"
grep -Eq '^p50 [0-9]+ ns' <<<"$out" ||
    { echo "FAIL: time_region (static) printed no tail"; exit 1; }
# Every object of liblatlab.a, not only the ones time_region pulls in, links with
# the private libraries latlab.pc names (protobuf-c for the Prometheus encoder...).
printf 'int main(void) { return 0; }\n' >"$tmp/whole.c"
# shellcheck disable=SC2046
cc -o "$tmp/whole" "$tmp/whole.c" -Wl,--whole-archive "$libdir/liblatlab.a" -Wl,--no-whole-archive \
    $("${pcenv[@]}" pkg-config --static --libs latlab | sed 's/-llatlab\b//') "${san[@]}" ||
    { echo "FAIL: liblatlab.a's private libraries are not all in latlab.pc"; exit 1; }
# shellcheck disable=SC2046
cc -o "$tmp/whole_st" "$tmp/whole.c" -Wl,--whole-archive "$libdir/liblatlab.a" -Wl,--no-whole-archive \
    $("${pcenv[@]}" pkg-config --libs latlab-static | sed "s|$libdir/liblatlab\.a||") "${san[@]}" ||
    { echo "FAIL: liblatlab.a needs libraries latlab-static.pc does not name"; exit 1; }
mv "$tmp/aside"/* "$libdir/"

# ---- the experimental parts through latlab-experimental.pc ------------------------------
cat >"$tmp/exp.c" <<'EOF'
/* Stable and experimental calls together: the paired-comparison engine and the
 * noise spec (liblatlab.a), the pipeline's defaults, the lab's (liblatlab-lab.a). */
#include <latlab/latlab.h>
#include <stdio.h>
#include <string.h>
int main(void) {
    lat_noise_spec s;
    lat_noise_spec_default(&s);
    char buf[256];
    lat_noise_spec_format(&s, buf, sizeof buf);
    lat_pipe_config pc;
    lat_pipe_config_default(&pc);
    lat_lab_config lc;
    lat_lab_config_default(&lc);
    double z = lat_paired_z(0.975);
    printf("latlab %s experimental: z(0.975) %.2f, %s, noise spec \"%s\"\n", lat_version(), z,
           lat_paired_kind_name(0), buf);
    return !(z > 1.95 && z < 1.97) || strcmp(lat_version(), LATLAB_VERSION_STRING) != 0;
}
EOF
expflags=$("${pcenv[@]}" pkg-config --cflags --libs latlab-experimental)
echo "latlab-experimental: $expflags"
# shellcheck disable=SC2086
cc -std=c11 -O2 -Wall -Wextra -Werror "${san[@]}" -o "$tmp/exp" "$tmp/exp.c" $expflags ||
    { echo "FAIL: the experimental program does not build from latlab-experimental.pc"; exit 1; }
if grep -q liblatlab <<<"$(ldd "$tmp/exp")"; then
    echo "FAIL: the experimental program links liblatlab.so"; exit 1
fi
"$tmp/exp" || { echo "FAIL: the experimental program failed"; exit 1; }
# Every object of the experimental archives (the lab and the book it replays,
# all of liblatlab.a) links with what latlab-experimental.pc names.
# shellcheck disable=SC2046
cc -o "$tmp/whole_exp" "$tmp/whole.c" -Wl,--whole-archive "$libdir/liblatlab-lab.a" \
    "$libdir/liblatlab.a" -Wl,--no-whole-archive \
    $("${pcenv[@]}" pkg-config --libs latlab-experimental | sed "s|$libdir/liblatlab[-a-z]*\.a||g") \
    "${san[@]}" || { echo "FAIL: the experimental archives need libraries latlab-experimental.pc does not name"; exit 1; }

# ---- find_package(latlab CONFIG) --------------------------------------------------
if command -v cmake >/dev/null; then
    mkdir -p "$tmp/cm"
    cp "$LAT_SRC_DIR/examples/time_region.c" "$tmp/exp.c" "$tmp/cm/"
    cat >"$tmp/cm/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.18)
project(latlab_consumer C)
set(CMAKE_C_STANDARD 11)
set(CMAKE_C_EXTENSIONS OFF)
find_package(latlab 0 CONFIG REQUIRED)
message(STATUS "latlab ${latlab_VERSION} from ${latlab_DIR}")
add_executable(tr_shared time_region.c)
target_link_libraries(tr_shared PRIVATE latlab::latlab)
add_executable(tr_static time_region.c)
target_link_libraries(tr_static PRIVATE latlab::latlab_static)
add_executable(exp exp.c)
target_link_libraries(exp PRIVATE latlab::experimental)
EOF
    cflags="-Wall -Wextra -Werror ${san[*]}"
    cmake -S "$tmp/cm" -B "$tmp/cm/b" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_FLAGS="$cflags" \
        -DCMAKE_EXE_LINKER_FLAGS="${san[*]}" >"$tmp/cm.log" 2>&1 &&
        cmake --build "$tmp/cm/b" >>"$tmp/cm.log" 2>&1 ||
        { cat "$tmp/cm.log"; echo "FAIL: find_package(latlab) consumer did not build"; exit 1; }
    grep 'latlab [0-9]' "$tmp/cm.log" || true
    grep -q "liblatlab.so" <<<"$(ldd "$tmp/cm/b/tr_shared")" ||
        { echo "FAIL: latlab::latlab is not the shared library"; exit 1; }
    if grep -q liblatlab <<<"$(ldd "$tmp/cm/b/tr_static" "$tmp/cm/b/exp")"; then
        echo "FAIL: latlab::latlab_static or latlab::experimental links liblatlab.so"; exit 1
    fi
    grep -Eq '^p50 [0-9]+ ns' <<<"$("$tmp/cm/b/tr_shared")" || { echo "FAIL: tr_shared (CMake)"; exit 1; }
    grep -Eq '^p50 [0-9]+ ns' <<<"$("$tmp/cm/b/tr_static")" || { echo "FAIL: tr_static (CMake)"; exit 1; }
    "$tmp/cm/b/exp" || { echo "FAIL: exp (CMake, latlab::experimental)"; exit 1; }
fi
echo "PASS: installed latlab linked by latlab.pc (shared and --static), latlab-static.pc, latlab-experimental.pc" \
    "and find_package(latlab); liblatlab.so exports the stable API alone"
