#!/usr/bin/env bash
# tests/tools/install_prefix.sh BUILD_DIR PREFIX SOURCE_DIR
# `cmake --install BUILD_DIR --prefix PREFIX` into a fresh PREFIX (inside BUILD_DIR), then checks
# the tree: every file is there, the installed programs find the installed library, and no
# installed text file points back into the build or source tree.
set -euo pipefail
build=$1 prefix=$2 src=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
# loads EXE LIBDIR: true when EXE, started now, would load LIBDIR/libkishmem.so.0.
loads() {
  local got
  got=$(ldd "$1" | awk '$1 == "libkishmem.so.0" { print $3 }')
  [[ -n $got && $(readlink -f "$got") == "$(readlink -f "$2/libkishmem.so.0")" ]]
}

case $prefix in
  "$build"/?*) ;;
  *) fail "refusing to replace $prefix: it must lie inside the build directory $build" ;;
esac
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix"

libso=$(find "$prefix" -name libkishmem.so -print -quit)
[[ -n $libso ]] || fail "no libkishmem.so under $prefix"
libdir=${libso%/*}
for f in bin/kishmemcc bin/kishmemc++ bin/kishmemnvcc bin/kishmemrun bin/kishmem-info include/shmem.h \
         include/kishmem/config.h include/kishmem/shmem_types.h include/kishmem/device/rma.h \
         include/kishmem/device/coll.h include/kishmem/device/proxy/backend.h include/kishmem/ep/ep.h \
         include/kishmem/ep/plan.h; do
  [[ -e $prefix/$f ]] || fail "$prefix/$f is missing"
done
for f in libkishmem.so.0 libkishmem_ep.so.0 cmake/kishmem/kishmemConfig.cmake cmake/kishmem/kishmemConfigVersion.cmake \
         cmake/kishmem/kishmemTargets.cmake pkgconfig/kishmem.pc; do
  [[ -e $libdir/$f ]] || fail "$libdir/$f is missing"
done
for f in bin/kishmemcc bin/kishmemc++ bin/kishmemnvcc bin/kishmemrun bin/kishmem-info; do
  [[ -x $prefix/$f ]] || fail "$prefix/$f is not executable"
done

# Installed text files must not name the build or source tree (the prefix itself lies in the
# build tree here: its own path is allowed).
leaks=$(grep -rI -e "$build" -e "$src" "$prefix" | while IFS= read -r line; do
          rest=${line//"$prefix"/}
          if [[ $rest == *"$build"* || $rest == *"$src"* ]]; then echo "$line"; fi
        done)
[[ -z $leaks ]] || fail "installed files refer to the build or source tree: $leaks"
grep -q "^prefix=$prefix\$" "$libdir/pkgconfig/kishmem.pc" ||
  fail "kishmem.pc does not name the install prefix: $(head -3 "$libdir/pkgconfig/kishmem.pc")"
# ... nor do the run paths of the installed binaries.
for f in "$prefix/bin/kishmem-info" "$libso" "$libdir/libkishmem_ep.so.0"; do
  rp=$(readelf -d "$f" | grep -E 'RPATH|RUNPATH' || true)
  [[ $rp != *"$build"* ]] || fail "$f has a run path into the build tree: $rp"
done

# kishmem-info runs from the prefix (no LD_LIBRARY_PATH).  It carries the runtime internals it
# reads (kishmem_internal, static); should it load a libkishmem, that is the installed one.
unset LD_LIBRARY_PATH
if ldd "$prefix/bin/kishmem-info" | grep -q 'libkishmem\.so'; then
  loads "$prefix/bin/kishmem-info" "$libdir" ||
    fail "kishmem-info does not load $libdir/libkishmem.so.0: $(ldd "$prefix/bin/kishmem-info")"
fi
"$prefix/bin/kishmem-info" >/dev/null || fail "the installed kishmem-info failed"
# A kernel using the device API compiles against the installed headers alone (no -rdc), where
# nvcc is there.
nvcc=$(command -v nvcc || true)
[[ -n $nvcc || ! -x /usr/local/cuda/bin/nvcc ]] || nvcc=/usr/local/cuda/bin/nvcc
if [[ -n $nvcc ]]; then
  work=$(mktemp -d)
  cat > "$work/k.cu" <<'CU'
#include <shmem.h>
#include <shmemx.h>
__global__ void k(int *d, const int *s, long *c) {
  shmem_int_put_nbi(d, s, 4, (shmem_my_pe() + 1) % shmem_n_pes());
  shmemx_alltoallmem_block(SHMEM_TEAM_WORLD, d, s, 16);
  shmem_long_atomic_add(c, 1, 0);
  shmem_ctx_int_p(SHMEM_CTX_DEFAULT, d, 1, 0);
  shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
  shmem_quiet();
}
CU
  "$nvcc" -std=c++17 -arch=sm_90 -I"$prefix/include" -c "$work/k.cu" -o "$work/k.o" 2> "$work/err" ||
    fail "a kernel does not compile against the installed headers: $(head -20 "$work/err")"
  rm -rf "$work"
  echo "a kernel compiles against $prefix/include with $nvcc"
fi
echo "installed into $prefix:"
(cd "$prefix" && find . -type f -o -type l | LC_ALL=C sort)
echo "PASS install"
