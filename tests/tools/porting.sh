#!/usr/bin/env bash
# tests/tools/porting.sh WAY PREFIX WORK_DIR EXAMPLE_DIR LAUNCH_SH
# Builds examples/porting/hello_pes.c against the kishmem installed in PREFIX one way (as its
# README shows), checks that the program loads PREFIX's library, and runs it on 2 PEs with
# LAUNCH_SH mpirun. WAY: kishmemcc | kishmemcxx | cmake | pkgconfig | relocated (the prefix
# copied elsewhere, then kishmemcc, CMake and pkg-config --define-prefix from the copy).
set -euo pipefail
way=$1 prefix=$2 work=$3 example=$4 launch=$5
fail() { echo "FAIL: $*" >&2; exit 1; }
# loads EXE LIBDIR: true when EXE, started now, would load LIBDIR/libkishmem.so.0.
loads() {
  local got
  got=$(ldd "$1" | awk '$1 == "libkishmem.so.0" { print $3 }')
  [[ -n $got && $(readlink -f "$got") == "$(readlink -f "$2/libkishmem.so.0")" ]]
}
# Nothing from the caller's environment may help the build or the loader find kishmem.
unset LD_LIBRARY_PATH LIBRARY_PATH CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH PKG_CONFIG_PATH \
      CMAKE_PREFIX_PATH KISHMEM_CC KISHMEM_CXX
rm -rf "$work"
mkdir -p "$work"
src=$example/hello_pes.c

# run EXE LIBDIR: EXE must load LIBDIR/libkishmem.so.0 and pass on 2 PEs.
run() {
  local exe=$1 libdir=$2 out rc
  loads "$exe" "$libdir" || fail "$exe does not load $libdir/libkishmem.so.0: $(ldd "$exe")"
  rc=0
  out=$("$launch" mpirun 2 60 -- "$exe" 2>&1) || rc=$?
  echo "$out"
  (( rc == 0 )) || fail "$exe exited with $rc"
  grep -q "^hello_pes: kishmem, 2 PEs, 2 of 2 got their left neighbour's number: OK\$" <<<"$out" ||
    fail "$exe did not report success"
}
libdir_of() { local so; so=$(find "$1" -name libkishmem.so -print -quit); echo "${so%/*}"; }

libdir=$(libdir_of "$prefix")
case $way in
  kishmemcc)
    # Compile and link as two commands, as a Makefile does: -c must not get the link flags.
    "$prefix/bin/kishmemcc" -O2 -Wall -Werror -c "$src" -o "$work/hello_pes.o" 2>"$work/cc.err" ||
      { cat "$work/cc.err"; fail "kishmemcc -c failed"; }
    [[ ! -s $work/cc.err ]] || { cat "$work/cc.err"; fail "kishmemcc -c printed diagnostics"; }
    "$prefix/bin/kishmemcc" "$work/hello_pes.o" -o "$work/hello_pes"
    run "$work/hello_pes" "$libdir"
    ;;
  kishmemcxx)
    # The same source is valid C++.
    "$prefix/bin/kishmemc++" -O2 -Wall -Werror -x c++ "$src" -o "$work/hello_pes"
    run "$work/hello_pes" "$libdir"
    ;;
  cmake)
    cmake -S "$example" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
      | tee "$work/configure.log"
    grep -q "kishmem 0.1.0 from $libdir/cmake/kishmem" "$work/configure.log" ||
      fail "find_package(kishmem) did not take the package in $prefix"
    cmake --build "$work/build"
    run "$work/build/hello_pes" "$libdir"
    # The package's kishmem_LAUNCHER drives the project's own test.
    # Open MPI as root and on a busy machine, as tests/launch.sh runs it; a caller's value wins.
    export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
    export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
    export OMPI_MCA_rmaps_base_oversubscribe=${OMPI_MCA_rmaps_base_oversubscribe:-1}
    (cd "$work/build" && ctest --output-on-failure --timeout 90) ||
      fail "the example project's ctest failed"
    ;;
  pkgconfig)
    export PKG_CONFIG_PATH=$libdir/pkgconfig
    [[ $(pkg-config --modversion kishmem) == 0.1.0 ]] || fail "pkg-config --modversion kishmem"
    flags=$(pkg-config --cflags --libs kishmem)
    echo "pkg-config --cflags --libs kishmem: $flags"
    # shellcheck disable=SC2086  # the flags are words
    cc -O2 -Wall -Werror "$src" -o "$work/hello_pes" $flags
    run "$work/hello_pes" "$libdir"
    ;;
  relocated)
    # Everything but kishmem.pc (which names its prefix) follows a moved prefix.
    moved=$work/moved
    cp -a "$prefix" "$moved"
    mlibdir=$(libdir_of "$moved")
    [[ $("$moved/bin/kishmemcc" --showme:libdirs) == "$mlibdir" ]] ||
      fail "the moved kishmemcc points at $("$moved/bin/kishmemcc" --showme:libdirs)"
    "$moved/bin/kishmemcc" -O2 "$src" -o "$work/hello_cc"
    run "$work/hello_cc" "$mlibdir"
    cmake -S "$example" -B "$work/build" -DCMAKE_PREFIX_PATH="$moved" | tee "$work/configure.log"
    grep -q "kishmem 0.1.0 from $mlibdir/cmake/kishmem" "$work/configure.log" ||
      fail "find_package(kishmem) did not take the package in $moved"
    cmake --build "$work/build"
    run "$work/build/hello_pes" "$mlibdir"
    # kishmem.pc names the old prefix; --define-prefix takes it from the file's place.
    flags=$(PKG_CONFIG_PATH=$mlibdir/pkgconfig pkg-config --define-prefix --cflags --libs kishmem)
    # shellcheck disable=SC2086  # the flags are words
    cc -O2 "$src" -o "$work/hello_pc" $flags
    run "$work/hello_pc" "$mlibdir"
    ;;
  *)
    fail "unknown way '$way'" ;;
esac
echo "PASS porting $way"
