#!/usr/bin/env bash
# tests/tools/wrapper_nvcc.sh WAY BIN_DIR LIBDIR WORK_DIR SOURCE [NVCC]
# Builds SOURCE (a .cu file with shmem_* in a kernel and in host code, no -rdc) against the
# kishmem whose wrappers are in BIN_DIR (build tree or install tree) one way, checks that the
# program loads LIBDIR's library, and runs it as one PE: with no GPU it must say so and pass its
# host part. WAY:
#   kishmemnvcc   the CUDA wrapper (nvcc from PATH): compile and link apart, then in one command
#   kishmemcxx    KISHMEM_CXX=nvcc kishmemc++, in one command
#   plain         nvcc itself with `kishmemnvcc --showme:compile` and `--showme:link`
# NVCC: the nvcc to use (CMake's CUDA compiler); else nvcc from PATH or /usr/local/cuda/bin.
# Without any nvcc the test is skipped (exit 77).
set -uo pipefail
way=$1 bin=$2 lib=$3 work=$4 src=$5 nvcc=${6:-}
fail() { echo "FAIL: $*"; exit 1; }
[[ -n $nvcc && -x $nvcc ]] || nvcc=$(command -v nvcc || true)
[[ -n $nvcc || ! -x /usr/local/cuda/bin/nvcc ]] || nvcc=/usr/local/cuda/bin/nvcc
if [[ -z $nvcc ]]; then
  echo "SKIP: no nvcc (in PATH or /usr/local/cuda/bin)"
  exit 77
fi
# Nothing from the caller's environment may help the build or the loader find kishmem; the
# wrappers find nvcc in PATH.
unset LD_LIBRARY_PATH LIBRARY_PATH CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH KISHMEM_CC KISHMEM_CXX \
      KISHMEM_NVCC
export PATH=${nvcc%/*}:$PATH
rm -rf "$work"
mkdir -p "$work"
cp "$src" "$work/prog.cu"
cd "$work" || fail "cd $work"

# step LABEL COMMAND...: COMMAND must succeed without a word on stderr (no "unused linker input",
# no unknown-option warning).
step() {
  local label=$1
  shift
  printf '+ %s\n' "$*"
  if ! "$@" 2>err; then
    cat err; fail "$label failed"
  fi
  [[ ! -s err ]] || { cat err; fail "$label printed diagnostics"; }
  echo "ok   $label"
}
# check EXE: EXE loads LIBDIR/libkishmem.so.0 and runs as one PE: kernel part OK, or no GPU here.
check() {
  local exe=$1 got out rc=0
  got=$(ldd "$exe" | awk '$1 == "libkishmem.so.0" { print $3 }')
  [[ -n $got && $(readlink -f "$got") == "$(readlink -f "$lib/libkishmem.so.0")" ]] ||
    fail "$exe does not load $lib/libkishmem.so.0: $(ldd "$exe")"
  out=$(SHMEM_SYMMETRIC_SIZE=16M timeout 60 "$exe" 2>&1) || rc=$?
  echo "$out"
  (( rc == 0 )) || fail "$exe exited with $rc"
  case $out in
    "nvcc_ring: PE 0 of 1: host part OK; no usable GPU, kernel not launched" | \
    "nvcc_ring: PE 0 of 1: host part OK; kernel part OK") echo "ok   $exe runs" ;;
    *) fail "$exe: unexpected output" ;;
  esac
}

case $way in
  kishmemnvcc)
    w=$bin/kishmemnvcc
    [[ $("$w" --showme:command) == nvcc ]] || fail "kishmemnvcc does not take nvcc from PATH"
    # As a Makefile does: -c must not get the link flags, the link step must get them.
    step "kishmemnvcc -c" "$w" -O2 -c prog.cu -o prog.o
    step "kishmemnvcc link" "$w" prog.o -o prog_2step
    check ./prog_2step
    step "kishmemnvcc compile and link" "$w" -O2 -std=c++17 prog.cu -o prog
    check ./prog
    ;;
  kishmemcxx)
    [[ $(KISHMEM_CXX=nvcc "$bin/kishmemc++" --showme:link) == *-Xlinker* ]] ||
      fail "KISHMEM_CXX=nvcc kishmemc++ does not spell the rpath for nvcc"
    step "KISHMEM_CXX=nvcc kishmemc++" env KISHMEM_CXX=nvcc "$bin/kishmemc++" -O2 prog.cu -o prog
    check ./prog
    ;;
  plain)
    cflags=$("$bin/kishmemnvcc" --showme:compile) || fail "kishmemnvcc --showme:compile"
    lflags=$("$bin/kishmemnvcc" --showme:link) || fail "kishmemnvcc --showme:link"
    echo "compile flags: $cflags"
    echo "link flags:    $lflags"
    [[ " $lflags " != *" -Wl,"* ]] || fail "the link flags hold a -Wl, option nvcc refuses"
    read -r -a cf <<<"$cflags"
    read -r -a lf <<<"$lflags"
    step "nvcc -c" "$nvcc" "${cf[@]}" -O2 -c prog.cu -o prog.o
    step "nvcc link" "$nvcc" prog.o -o prog_2step "${lf[@]}"
    check ./prog_2step
    step "nvcc compile and link" "$nvcc" "${cf[@]}" prog.cu -o prog "${lf[@]}"
    check ./prog
    ;;
  *)
    fail "unknown way '$way'" ;;
esac
echo "PASS wrapper_nvcc $way"
