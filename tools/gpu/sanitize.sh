#!/usr/bin/env bash
# tools/gpu/sanitize.sh: compute-sanitizer's memcheck, racecheck, synccheck and initcheck over the
# GPU programs at 1 PE (no launcher), as the GPU pass's `sanitize` stage: gpu_rma, gpu_coll, and
# small shapes of the MoE example and of the flagship. Logs in $OUT (default ./gpu-sanitize),
# runs.txt lists each run's errors; exit 0 only when every run reports none.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gpu_begin gpu-sanitize
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[[ -x $CS ]] || { echo "FAIL: compute-sanitizer not found"; exit 1; }
gpu_configure build-gpu || exit 1
gpu_build build-gpu gpu_rma gpu_coll 03_moe_dispatch_combine 04_moe_ep || exit 1
export SHMEM_SYMMETRIC_SIZE=256M KISHMEM_HEAP=device
progs=("gpu_rma|PASS gpu_rma|build-gpu/tests/gpu/gpu_rma"
       "gpu_coll|PASS gpu_coll|build-gpu/tests/gpu/gpu_coll"
       "moe03|PASS 03_moe|build-gpu/examples/03_moe_dispatch_combine 8 1024 4 8"
       "moe04|PASS|build-gpu/examples/04_moe_ep --tokens 8 --hidden 1024 --experts-per-pe 8 --topk 4 --iters 1")
{
  for tool in memcheck racecheck synccheck initcheck; do
    for p in "${progs[@]}"; do
      IFS='|' read -r name pass cmd <<< "$p"
      # shellcheck disable=SC2086  # cmd is words
      timeout 30 "$CS" --tool "$tool" --error-exitcode 9 $cmd > "$RES/$tool.$name.log" 2>&1
      rc=$?
      summary=$(grep -m1 -E "ERROR SUMMARY|RACECHECK SUMMARY" "$RES/$tool.$name.log")
      if (( rc == 0 )) && grep -q "$pass" "$RES/$tool.$name.log"; then echo "PASS $tool $name: ${summary:-no summary}"
      else echo "FAIL $tool $name (status $rc): ${summary:-$(tail -1 "$RES/$tool.$name.log")}"; fi
    done
  done
} | tee "$RES/runs.txt"
exit $(( $(grep -c '^FAIL' "$RES/runs.txt") != 0 ))
