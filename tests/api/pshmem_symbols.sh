#!/usr/bin/env bash
# tests/api/pshmem_symbols.sh CC INCLUDE_DIR LIBKISHMEM
# The profiling interface covers every routine (OpenSHMEM 1.5 "Profiling Interface": "an
# alternate entry point name, with the prefix pshmem_ for each OpenSHMEM function"):
#  - the routines that shmem.h declares (preprocessed as C99, where no generic selection hides
#    a name) are exactly those that pshmem.h declares with the pshmem_ prefix;
#  - the library exports each pshmem_NAME at the address of its shmem_NAME.
set -uo pipefail
CC=$1 INC=$2 LIB=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
names() {  # HEADER PREFIX: the routine names HEADER declares, without PREFIX
  printf '#include <%s>\n' "$1" | "$CC" -E -P -std=c99 -I"$INC" -x c - |
    grep -oE "(^|[^A-Za-z0-9_])$2[A-Za-z0-9_]+ *\(" | sed -E "s/^[^A-Za-z0-9_]*$2//; s/ *\($//" | sort -u
}
names shmem.h shmem_ > "$tmp/shmem" || { echo "FAIL: cannot preprocess shmem.h"; exit 1; }
names pshmem.h pshmem_ > "$tmp/pshmem" || { echo "FAIL: cannot preprocess pshmem.h"; exit 1; }
n=$(wc -l < "$tmp/shmem")
(( n > 1000 )) || { echo "FAIL: only $n routines found in shmem.h"; exit 1; }
if ! diff "$tmp/shmem" "$tmp/pshmem" > "$tmp/diff"; then
  echo "FAIL: shmem.h and pshmem.h declare different routines (< shmem_ only, > pshmem_ only):"
  grep '^[<>]' "$tmp/diff" | head -20
  exit 1
fi
nm -D --defined-only "$LIB" | awk '$2 ~ /^[TtWwi]$/ { print $3, $1 }' > "$tmp/syms"
# "NAME ADDRESS" of the shmem_ and the pshmem_ symbols, then each routine's pair side by side
sed -nE 's/^shmem_([A-Za-z0-9_]+) /\1 /p' "$tmp/syms" | sort -u -k1,1 > "$tmp/a"
sed -nE 's/^pshmem_([A-Za-z0-9_]+) /\1 /p' "$tmp/syms" | sort -u -k1,1 > "$tmp/p"
join -a 1 -e none -o 0,1.2,2.2 "$tmp/a" "$tmp/p" | join -o 0,2.2,2.3 "$tmp/shmem" - > "$tmp/pairs"
missing=$(( n - $(wc -l < "$tmp/pairs") ))
(( missing == 0 )) || comm -23 "$tmp/shmem" <(cut -d' ' -f1 "$tmp/pairs") | head -20 | sed 's/^/FAIL: not exported: shmem_/'
while read -r name a p; do
  if [[ $p != "$a" ]]; then
    (( missing++ < 20 )) && echo "FAIL: shmem_$name at $a, pshmem_$name at $p in $LIB"
  fi
done < "$tmp/pairs"
(( missing == 0 )) || { echo "FAIL: $missing routines without a pshmem_ entry point"; exit 1; }
echo "PASS pshmem_symbols: $n routines, each with a pshmem_ name at the same address"
