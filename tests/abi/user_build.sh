#!/bin/sh
# user_build.sh c|c++|cu COMPILER SOURCE OUT LIB [INCLUDE_DIR...]
#
# Builds SOURCE as a user would (compiled and linked against LIB, the public include
# directories only), runs it as one PE without a launcher (MODE c, and cu where a GPU is
# usable), and audits the macros the public headers leave in a user translation unit: every
# macro that shmem.h, shmemx.h, pshmem.h and mpp/*.h define (beyond what the system headers
# they include define) must carry a prefix the project owns or the OpenSHMEM specification
# names (or be the one macro of Sandia OpenSHMEM's that its programs test, HAVE_SHMEMX_WTIME).
# For cu the device pass is audited (nvcc -E); without nvcc the test is skipped (77).
set -u
mode=$1 cc=$2 src=$3 out=$4 lib=$5
shift 5
incs=""
for d in "$@"; do incs="$incs -I$d"; done
libdir=$(dirname "$lib")
work=$(dirname "$out")
mkdir -p "$work"

fail() { echo "FAIL: $*"; exit 1; }

case $mode in
c)
    build="$cc -std=c11 -Wall -Wextra -pedantic -Werror $incs $src -o $out -L$libdir -lkishmem -Wl,-rpath,$libdir"
    pre="$cc -std=c11 -E -dM $incs"
    ext=c
    system='#include <stddef.h>
#include <stdint.h>
#include <string.h>'
    ;;
c++)
    build="$cc -std=c++17 -Wall -Wextra -pedantic -Werror -x c++ $incs $src -o $out -L$libdir -lkishmem -Wl,-rpath,$libdir"
    pre="$cc -std=c++17 -E -dM -x c++ $incs"
    ext=cpp
    system='#include <stddef.h>
#include <stdint.h>
#include <string.h>'
    ;;
cu)
    if [ ! -x "$cc" ]; then
        echo "SKIP: no nvcc ($cc): the .cu user file is not built"
        exit 77
    fi
    build="$cc -std=c++17 -arch=sm_90 $incs $src -o $out -L$libdir -lkishmem -Xlinker -rpath -Xlinker $libdir"
    pre="$cc -std=c++17 -arch=sm_90 -E -Xcompiler -dM $incs"
    ext=cu
    system='#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cstdio>
#include <cstring>
#include <type_traits>'
    ;;
*) fail "mode $mode: expected c, c++ or cu" ;;
esac

echo "+ $build"
$build || fail "$src did not build against the public headers and $lib"

# The macros the public headers add to a user translation unit.
printf '%s\n' "$system" > "$work/base.$ext"
printf '%s\n#include <shmem.h>\n#include <shmemx.h>\n#include <pshmem.h>\n#include <mpp/shmem.h>\n#include <mpp/shmemx.h>\n' \
    "$system" > "$work/all.$ext"
$pre "$work/base.$ext" -o "$work/base.macros" || fail "preprocessing the system headers failed"
$pre "$work/all.$ext" -o "$work/all.macros" || fail "preprocessing the public headers failed"
names() { sed -n 's/^#define \([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$1" | sort -u; }
names "$work/base.macros" > "$work/base.names"
names "$work/all.macros" > "$work/all.names"
added=$(comm -13 "$work/base.names" "$work/all.names")
count=$(printf '%s\n' "$added" | grep -c .)
# (HAVE_SHMEMX_WTIME: Sandia OpenSHMEM's shmemx.h defines it, and its programs test it.)
bad=$(printf '%s\n' "$added" | grep -Ev '^(KISHMEM_|SHMEM_|SHMEMX_|PSHMEM_|_SHMEM_|shmem_|shmemx_|pshmem_)' |
      grep -vx 'HAVE_SHMEMX_WTIME' | grep .)
if [ -n "$bad" ]; then
    printf '%s\n' "$bad" | sed 's/^/unprefixed macro left by a public header: /'
    fail "$(printf '%s\n' "$bad" | grep -c .) of the $count macros the public headers define ($mode) have no KISHMEM_/SHMEM_/SHMEMX_/PSHMEM_ prefix"
fi
echo "$count macros from the public headers ($mode), all prefixed"

# Run as one PE: always for C; for cu where a GPU answers (the program exits 77 without one).
if [ "$mode" = c ] || [ "$mode" = cu ]; then
    SHMEM_SYMMETRIC_SIZE=16M "$out"
    rc=$?
    if [ "$mode" = cu ] && [ $rc -eq 77 ]; then
        echo "$out not run: no GPU (built and audited only)"
    elif [ $rc -ne 0 ]; then
        fail "$out exited with status $rc"
    fi
fi
echo "PASS user_build $mode $(basename "$src")"
exit 0
