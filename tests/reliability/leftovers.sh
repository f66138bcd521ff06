#!/usr/bin/env bash
# tests/reliability/leftovers.sh LAUNCHER JOBS EXE: runs JOBS 2-PE jobs of EXE (rel_gone) in which
# one PE fails in shmem_init (cycling through fail_init, size_init, kill_init) and counts the
# shared-memory objects in /dev/shm that the jobs' processes left (names carry the creator's
# pid; every PE prints its pid first).  Passes when every job failed and none left anything.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
(( $# == 3 )) || { echo "usage: $0 LAUNCHER JOBS EXE" >&2; exit 2; }
launcher=$1 jobs=$2 exe=$3
cases=(fail_init size_init kill_init)
out=$(mktemp "${TMPDIR:-/tmp}/kishmem-leftovers.XXXXXX") || exit 2
trap 'rm -f "$out"' EXIT
left=0 failed=0 pids=0
for (( j = 0; j < jobs; ++j )); do
  c=${cases[j % ${#cases[@]}]}
  "$HERE/../launch.sh" "$launcher" 2 30 -- "$exe" "$c" >"$out" 2>&1
  rc=$?
  (( rc == 77 )) && { cat "$out"; echo "SKIP: $launcher is not available"; exit 77; }
  (( rc != 0 )) && failed=$(( failed + 1 ))
  (( rc == 124 || rc == 137 )) && grep -q TIMEOUT "$out" && { cat "$out"; echo "FAIL: job $j ($c) hung"; exit 1; }
  for pid in $(sed -n 's/^rel_gone: rank [0-9]* pid \([0-9]*\)$/\1/p' "$out"); do
    pids=$(( pids + 1 ))
    for f in /dev/shm/kishmem-"$pid"-*; do
      [[ -e $f ]] || continue
      echo "job $j ($c): left $f"
      rm -f "$f"
      left=$(( left + 1 ))
    done
  done
done
echo "leftovers: $jobs jobs under $launcher ($failed failed as they must, $pids PE processes), $left objects left in /dev/shm"
if (( failed != jobs )); then echo "FAIL: $(( jobs - failed )) jobs did not fail"; exit 1; fi
if (( pids < jobs )); then echo "FAIL: the PEs' pids were not printed"; exit 1; fi
if (( left )); then echo "FAIL: $left shared-memory objects left behind"; exit 1; fi
echo "PASS leftovers: 0 objects left by $jobs failed jobs"
