#!/usr/bin/env bash
# tests/tools/wrapper_showme.sh TREE BIN_DIR 'INCDIR[|INCDIR...]' LIBDIR [NVCC]
# kishmemcc / kishmemc++ / kishmemnvcc of one tree (build or install): --showme and --showme:*
# print exactly the expected command and flags (spelt for nvcc when nvcc is the compiler), link
# flags come only when the command links, and a real compile + link gives a program that runs
# (as one PE) with the tree's library. NVCC: the nvcc kishmem was configured with (kishmemnvcc's
# fallback when PATH has none), or empty. Nothing here runs nvcc (wrapper_nvcc.sh does).
set -uo pipefail
tree=$1 bin=$2 incs=$3 lib=$4 conf_nvcc=${5:-}
IFS='|' read -r -a incdirs <<<"$incs"
cc=$bin/kishmemcc cxx=$bin/kishmemc++ nv=$bin/kishmemnvcc
unset KISHMEM_CC KISHMEM_CXX KISHMEM_NVCC LD_LIBRARY_PATH
failures=0
# loads EXE LIBDIR: true when EXE, started now, would load LIBDIR/libkishmem.so.0.
loads() {
  local got
  got=$(ldd "$1" | awk '$1 == "libkishmem.so.0" { print $3 }')
  [[ -n $got && $(readlink -f "$got") == "$(readlink -f "$2/libkishmem.so.0")" ]]
}

# expect LABEL EXPECTED COMMAND...: COMMAND prints exactly EXPECTED and exits 0.
expect() {
  local label=$1 want=$2 got rc=0
  shift 2
  got=$("$@" 2>&1) || rc=$?
  if (( rc != 0 )) || [[ $got != "$want" ]]; then
    printf 'FAIL %s (exit %d)\n   want: %s\n    got: %s\n' "$label" "$rc" "$want" "$got"
    failures=$((failures + 1))
  else
    printf 'ok   %s: %s\n' "$label" "$got"
  fi
}

I=""
for d in "${incdirs[@]}"; do I+=" -I$d"; done
I=${I# }
L="-L$lib -Wl,-rpath,$lib -lkishmem"

expect "showme" "cc $I $L" "$cc" --showme
expect "showme c++" "c++ $I $L" "$cxx" --showme
expect "showme:compile" "$I" "$cc" --showme:compile
expect "showme:link" "$L" "$cc" --showme:link
expect "showme:incdirs" "${incdirs[*]}" "$cc" --showme:incdirs
expect "showme:libdirs" "$lib" "$cc" --showme:libdirs
expect "showme:libs" "kishmem" "$cc" --showme:libs
expect "showme:command" "cc" "$cc" --showme:command
expect "showme:version" "kishmemcc: kishmem 0.1.0" "$cc" --showme:version
expect "showme:version c++" "kishmemc++: kishmem 0.1.0" "$cxx" --showme:version
# Link flags go after the user's arguments, and only when the command links.
expect "link" "cc $I a.o b.o -o prog $L" "$cc" a.o b.o -o prog --showme
expect "compile -c" "cc $I -O2 -c a.c -o a.o" "$cc" --showme -O2 -c a.c -o a.o
for opt in -E -S -M -MM -fsyntax-only; do
  expect "no link with $opt" "cc $I $opt a.c" "$cc" --showme "$opt" a.c
done
expect "-MD still links" "cc $I -MD -MF a.d a.c $L" "$cc" --showme -MD -MF a.d a.c
expect "c++ -c" "c++ $I -std=c++17 -c a.cpp" "$cxx" --showme -std=c++17 -c a.cpp
# Questions alone reach the compiler without flags.
expect "-v alone" "cc -v" "$cc" --showme -v
expect "-dumpversion" "c++ -dumpversion" "$cxx" --showme -dumpversion
expect "-print-prog-name" "cc -print-prog-name=ld" "$cc" --showme -print-prog-name=ld
expect "-v with a source" "cc $I -v a.c $L" "$cc" --showme -v a.c
expect "-dumpversion runs" "$(cc -dumpversion)" "$cc" -dumpversion
# The compiler override, with words of its own; arguments are quoted where a shell needs it.
expect "KISHMEM_CC" "gcc -m64 $I -c a.c" env KISHMEM_CC="gcc -m64" "$cc" --showme -c a.c
expect "KISHMEM_CXX" "clang++ $I -c a.cpp" env KISHMEM_CXX=clang++ "$cxx" --showme -c a.cpp
expect "quoting" "cc $I '-DMSG=\"a b\"' -c 'my file.c'" "$cc" --showme '-DMSG="a b"' -c 'my file.c'
expect "quoting '" "cc $I -c 'it'\\''s.c'" "$cc" --showme -c "it's.c"

# nvcc as the compiler: kishmemnvcc, or KISHMEM_CXX / KISHMEM_CC naming nvcc. The rpath goes
# through -Xlinker (nvcc refuses -Wl,); nvcc's compile-only options do not link.
NL="-L$lib -Xlinker -rpath -Xlinker $lib -lkishmem"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/fake-nvcc"
printf '#!/bin/sh\necho fake nvcc\n' >"$work/fake-nvcc/nvcc"
chmod +x "$work/fake-nvcc/nvcc"
FAKE=(env "PATH=$work/fake-nvcc:$PATH")
mkdir "$work/no-nvcc"   # a PATH with what the wrapper itself needs, and no nvcc
ln -s "$(command -v bash)" "$work/no-nvcc/bash"
ln -s "$(command -v readlink)" "$work/no-nvcc/readlink"
expect "nvcc showme" "nvcc $I $NL" "${FAKE[@]}" "$nv" --showme
expect "nvcc showme:link" "$NL" "$nv" --showme:link
expect "nvcc showme:compile" "$I" "$nv" --showme:compile
expect "nvcc showme:version" "kishmemnvcc: kishmem 0.1.0" "$nv" --showme:version
expect "nvcc from PATH" "nvcc" "${FAKE[@]}" "$nv" --showme:command
if [[ -n $conf_nvcc ]]; then
  expect "nvcc not in PATH: the configured one" "$conf_nvcc" env PATH="$work/no-nvcc" "$nv" --showme:command
else
  expect "nvcc not in PATH, none configured" "nvcc" env PATH="$work/no-nvcc" "$nv" --showme:command
fi
expect "KISHMEM_NVCC" "/opt/cuda/bin/nvcc -ccbin g++-12" \
  env KISHMEM_NVCC="/opt/cuda/bin/nvcc -ccbin g++-12" "$nv" --showme:command
expect "nvcc link" "nvcc $I -O2 a.cu b.o -o prog $NL" env KISHMEM_NVCC=nvcc "$nv" --showme -O2 a.cu b.o -o prog
for opt in -c --compile -E -M -MM -ptx --ptx -cubin -fatbin -dc --device-c -dw -dlink -lib --lib -cuda; do
  expect "nvcc: no link with $opt" "nvcc $I $opt a.cu" env KISHMEM_NVCC=nvcc "$nv" --showme "$opt" a.cu
done
expect "nvcc -MD still links" "nvcc $I -MD a.cu $NL" env KISHMEM_NVCC=nvcc "$nv" --showme -MD a.cu
# An option's value is not an option of nvcc's: these link.
expect "nvcc -Xcompiler -c links" "nvcc $I -Xcompiler -c a.cu $NL" \
  env KISHMEM_NVCC=nvcc "$nv" --showme -Xcompiler -c a.cu
expect "nvcc -o -E links" "nvcc $I a.cu -o -E $NL" env KISHMEM_NVCC=nvcc "$nv" --showme a.cu -o -E
expect "nvcc -V alone" "nvcc -V" env KISHMEM_NVCC=nvcc "$nv" --showme -V
expect "nvcc --list-gpu-arch" "nvcc --list-gpu-arch" env KISHMEM_NVCC=nvcc "$nv" --showme --list-gpu-arch
expect "KISHMEM_CXX=nvcc" "nvcc $I k.cu -o k $NL" env KISHMEM_CXX=nvcc "$cxx" --showme k.cu -o k
expect "KISHMEM_CXX=ccache nvcc, -c" "ccache /usr/local/cuda/bin/nvcc $I -dc k.cu" \
  env KISHMEM_CXX="ccache /usr/local/cuda/bin/nvcc" "$cxx" --showme -dc k.cu
expect "KISHMEM_CXX=nvcc showme:link" "$NL" env KISHMEM_CXX=nvcc "$cxx" --showme:link
expect "KISHMEM_CC=nvcc showme:link" "$NL" env KISHMEM_CC=nvcc "$cc" --showme:link
# ... and for gcc, -dc and -lib are not nvcc's options (-lib is the library "ib"): these link.
expect "gcc: -lib links" "cc $I a.o -lib $L" "$cc" --showme a.o -lib
expect "gcc: -o -c links" "cc $I a.c -o -c $L" "$cc" --showme a.c -o -c

# --version: kishmem's line, then the compiler's own.
v=$("$cc" --version 2>&1)
if [[ $(head -n1 <<<"$v") == "kishmemcc: kishmem 0.1.0, compiler: cc" && $(wc -l <<<"$v") -gt 1 ]]; then
  echo "ok   --version: $(head -n2 <<<"$v" | tr '\n' '|')"
else
  echo "FAIL --version: $v"; failures=$((failures + 1))
fi
# Bad wrapper options are refused.
if "$cc" --showme:nonsense >/dev/null 2>&1; then
  echo "FAIL --showme:nonsense was accepted"; failures=$((failures + 1))
else
  echo "ok   --showme:nonsense refused"
fi

# The install tree finds its prefix through a link to the wrapper, too.
if [[ $tree == install ]]; then
  ln -s "$cc" "$work/linked-kishmemcc"
  expect "through a link" "$I" "$work/linked-kishmemcc" --showme:compile
  ln -s "$nv" "$work/linked-kishmemnvcc"
  expect "nvcc through a link" "$NL" "$work/linked-kishmemnvcc" --showme:link
fi

# A real compile (-c gives no "linker input unused" warning), link and run as one PE.
cat >"$work/one.c" <<'C'
#include <shmem.h>
#include <stdio.h>
int main(void) {
    shmem_init();
    long *x = (long *)shmem_malloc(sizeof(long));
    shmem_long_p(x, 42, shmem_my_pe());
    shmem_barrier_all();
    printf("one: %d PE(s), x=%ld\n", shmem_n_pes(), *x);
    shmem_free(x);
    shmem_finalize();
    return *x == 42 ? 0 : 1;
}
C
if ! "$cc" -Wall -Werror -c "$work/one.c" -o "$work/one.o" 2>"$work/err" || [[ -s $work/err ]]; then
  echo "FAIL kishmemcc -c: $(cat "$work/err")"; failures=$((failures + 1))
elif ! "$cc" "$work/one.o" -o "$work/one" 2>"$work/err"; then
  echo "FAIL kishmemcc link: $(cat "$work/err")"; failures=$((failures + 1))
elif ! loads "$work/one" "$lib"; then
  echo "FAIL the program does not load $lib/libkishmem.so.0: $(ldd "$work/one")"
  failures=$((failures + 1))
else
  out=$(SHMEM_SYMMETRIC_SIZE=16M "$work/one" 2>&1)
  if [[ $out == "one: 1 PE(s), x=42" ]]; then
    echo "ok   compile, link and run: $out"
  else
    echo "FAIL running the program: $out"; failures=$((failures + 1))
  fi
fi
if ! "$cxx" -Wall -Werror -x c++ "$work/one.c" -o "$work/one_cxx" 2>"$work/err"; then
  echo "FAIL kishmemc++: $(cat "$work/err")"; failures=$((failures + 1))
else
  echo "ok   kishmemc++ compile and link"
fi
# -static links nothing: one clear line and exit 2 (a static libkishmem does not exist); with -c
# it only compiles, as usual.
got=$("$cc" -static "$work/one.o" -o "$work/one_static" 2>&1); rc=$?
if (( rc == 2 )) && [[ $got == "kishmemcc: -static: kishmem is a shared library only"* ]]; then
  echo "ok   -static refused: $got"
else
  echo "FAIL -static (exit $rc): $got"; failures=$((failures + 1))
fi
if ! "$cc" -static -c "$work/one.c" -o "$work/one_static.o" 2>"$work/err"; then
  echo "FAIL kishmemcc -static -c: $(cat "$work/err")"; failures=$((failures + 1))
fi

if (( failures )); then
  echo "$failures check(s) failed"
  exit 1
fi
echo "PASS wrapper_showme $tree"
