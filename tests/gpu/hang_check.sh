#!/usr/bin/env bash
# tests/gpu/hang_check.sh NP EXE: runs EXE (tests/gpu/gpu_hang.cu) on NP PEs with
# KISHMEM_HANG_WARN=1 and checks that the waits it provokes were reported: the wait_until of
# every PE, and (NP >= 2) PE 0's device barrier naming PE 1.
set -uo pipefail
np=$1 exe=$2
here=$(cd "$(dirname "$0")" && pwd)
out=$(KISHMEM_HANG_WARN=1 "$here/../launch.sh" mpirun "$np" 90 -- "$exe" 2>&1)
rc=$?
echo "$out"
[[ $out == *"SKIP: no usable GPU"* ]] && exit 77
fail() { echo "FAIL: $*"; exit 1; }
[[ $rc -eq 0 && $out == *"PASS gpu_hang on $np PEs"* ]] || fail "the program did not finish (rc $rc)"
n=$(grep -c "shmem_int_wait_until (device, block 0 thread 0): still waiting after [0-9.]* s for 0x[0-9a-f]* == 1 (it holds 0)" <<< "$out")
(( n == np )) || fail "$n of $np PEs reported their shmem_int_wait_until"
if (( np == 2 )); then
  grep -q "PE 0: shmem_barrier_all (device, block 0 thread 0): still waiting after [0-9.]* s for PE 1 (team slot 0, barrier round 0)" <<< "$out" ||
    fail "PE 0 did not name PE 1 in the device barrier"
fi
echo "PASS hang_check on $np PEs"
