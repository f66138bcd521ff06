#!/usr/bin/env bash
# tests/tools/wrapper_showme.sh TREE BIN_DIR 'INCDIR[|INCDIR...]' LIBDIR
# kishmemcc / kishmemc++ of one tree (build or install): --showme and --showme:* print exactly
# the expected command and flags, link flags come only when the command links, and a real
# compile + link gives a program that runs (as one PE) with the tree's library.
set -uo pipefail
tree=$1 bin=$2 incs=$3 lib=$4
IFS='|' read -r -a incdirs <<<"$incs"
cc=$bin/kishmemcc cxx=$bin/kishmemc++
unset KISHMEM_CC KISHMEM_CXX LD_LIBRARY_PATH
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
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ $tree == install ]]; then
  ln -s "$cc" "$work/linked-kishmemcc"
  expect "through a link" "$I" "$work/linked-kishmemcc" --showme:compile
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

if (( failures )); then
  echo "$failures check(s) failed"
  exit 1
fi
echo "PASS wrapper_showme $tree"
