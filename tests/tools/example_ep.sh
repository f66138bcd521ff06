#!/usr/bin/env bash
# tests/tools/example_ep.sh WAY PREFIX WORK_DIR SOURCE LAUNCH_SH [NVCC]
# Builds SOURCE (examples/04_moe_ep.cpp, the flagship) against the kishmem installed in PREFIX
# alone, with an installed wrapper and -lkishmem_ep, checks that the program loads PREFIX's
# libkishmem_ep and libkishmem, and runs a small layer on 2 PEs with LAUNCH_SH mpirun (the
# example checks every received row and every output value itself). WAY:
#   kishmemcxx    kishmemc++: a C++ program, the CPU form
#   kishmemnvcc   kishmemnvcc -x cu: a CUDA program, the GPU form where a GPU answers, else the
#                 CPU form; skipped (77) without nvcc. NVCC: the nvcc to use, else from PATH.
set -uo pipefail
way=$1 prefix=$2 work=$3 src=$4 launch=$5 nvcc=${6:-}
fail() { echo "FAIL: $*"; exit 1; }
# Nothing from the caller's environment may help the build or the loader find kishmem.
unset LD_LIBRARY_PATH LIBRARY_PATH CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH PKG_CONFIG_PATH \
      CMAKE_PREFIX_PATH KISHMEM_CC KISHMEM_CXX KISHMEM_NVCC
rm -rf "$work"
mkdir -p "$work"
so=$(find "$prefix" -name libkishmem_ep.so -print -quit)
[[ -n $so ]] || fail "no libkishmem_ep.so under $prefix"
libdir=${so%/*}
for h in ep.h layout.h numerics.h plan.h; do
  [[ -e $prefix/include/kishmem/ep/$h ]] || fail "$prefix/include/kishmem/ep/$h is missing"
done
exe=$work/04_moe_ep
case $way in
  kishmemcxx)
    cmd=("$prefix/bin/kishmemc++" -O2 -Wall -Werror -std=c++17 "$src" -o "$exe" -lkishmem_ep) ;;
  kishmemnvcc)
    [[ -n $nvcc && -x $nvcc ]] || nvcc=$(command -v nvcc || true)
    [[ -n $nvcc || ! -x /usr/local/cuda/bin/nvcc ]] || nvcc=/usr/local/cuda/bin/nvcc
    [[ -n $nvcc ]] || { echo "SKIP: no nvcc"; exit 77; }
    export PATH=${nvcc%/*}:$PATH
    cmd=("$prefix/bin/kishmemnvcc" -O2 -std=c++17 -arch=sm_90 -x cu "$src" -o "$exe" -lkishmem_ep) ;;
  *) fail "unknown way '$way'" ;;
esac
printf '+ %s\n' "${cmd[*]}"
"${cmd[@]}" || fail "the example does not build against $prefix alone"
for lib in libkishmem_ep.so.0 libkishmem.so.0; do
  got=$(ldd "$exe" | awk -v l=$lib '$1 == l { print $3 }')
  [[ -n $got && $(readlink -f "$got") == "$(readlink -f "$libdir/$lib")" ]] ||
    fail "$exe does not load $libdir/$lib: $(ldd "$exe")"
done
rc=0
out=$("$launch" mpirun 2 120 -- "$exe" --tokens 16 --hidden 512 --topk 4 --experts-per-pe 4 --iters 3 2>&1) || rc=$?
echo "$out"
(( rc == 0 )) || fail "$exe exited with $rc"
grep -q "^PASS 04_moe_ep on 2 PEs\$" <<<"$out" || fail "$exe did not report success"
echo "PASS example_ep $way"
