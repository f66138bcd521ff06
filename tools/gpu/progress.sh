#!/usr/bin/env bash
# tools/gpu/progress.sh: forward progress on one GPU, as the GPU pass's `progress` stage. Kernels
# that wait for other PEs' kernels must bound their grids so that every PE's waiting blocks fit
# together (shmemx_collective_launch_query_gridsize); these runs show it holds:
#   - the MoE example (03) with the full MPS share at 4 PEs (3 runs) and 8 PEs (2 runs): the
#     setting that deadlocked when more registers let fewer blocks co-reside;
#   - every multi-PE GPU test and the flagship (04_moe_ep, 4 PEs) under a 25% MPS share
#     (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25: each PE gets a quarter of the SMs).
# A run that deadlocks ends through the device hang bound (KISHMEM_HANG_ABORT) or its time limit
# and counts as a failure. Logs in $OUT (default ./gpu-progress): one per run, runs.txt.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gpu_begin gpu-progress
gpu_configure build-gpu || exit 1
gpu_build build-gpu 03_moe_dispatch_combine 04_moe_ep gpu_rma gpu_threads gpu_remote gpu_coll cu_host || exit 1
mps_start && echo "MPS daemon started"

fails=0
run() {  # run NAME LIMIT PASS-PATTERN NP PROGRAM ARGS...
  local name=$1 limit=$2 pass=$3 np=$4; shift 4
  local t0=$SECONDS
  SHMEM_SYMMETRIC_SIZE=1G KISHMEM_HEAP=device KISHMEM_HANG_WARN=5 KISHMEM_HANG_ABORT=20 timeout -k 5 "$limit" mpirun -np "$np" --bind-to none ${CUDA_MPS_ACTIVE_THREAD_PERCENTAGE:+-x CUDA_MPS_ACTIVE_THREAD_PERCENTAGE} \
    "$@" > "$RES/$name.log" 2>&1
  local rc=$?
  if (( rc == 0 )) && grep -qE "$pass" "$RES/$name.log"; then
    echo "PASS $name ($((SECONDS - t0)) s)"
  else
    echo "FAIL $name (status $rc, $((SECONDS - t0)) s): $(grep -m1 -E 'FAIL|still waiting|hang|rror' "$RES/$name.log")"
    fails=$((fails + 1))
    mps_restart "$name" > /dev/null
  fi
}

{
  for i in 1 2 3; do run "moe03.np4.full.$i" 40 "PASS 03_moe" 4 build-gpu/examples/03_moe_dispatch_combine; done
  for i in 1 2; do run "moe03.np8.full.$i" 60 "PASS 03_moe" 8 build-gpu/examples/03_moe_dispatch_combine; done

  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25
  run "moe04.np4.mps25" 60 "PASS" 4 build-gpu/examples/04_moe_ep --iters 5
  # every multi-PE GPU test as CTest runs it, in its own environment (the traps and the hang checks
  # stay out: they end on purpose)
  (cd build-gpu && ctest -R '^gpu\..*\.np[248]$' -E '^gpu\.(nic|proxy)_error|^gpu\.hang' -j1 --output-on-failure --output-log "$RES/tests_mps25.log") \
    > "$RES/ctest_mps25.txt" 2>&1
  rc=$?
  grep -E "tests passed|\(Failed|\(Timeout|Skipped" "$RES/ctest_mps25.txt" | sed 's/^/  mps25 ctest: /'
  if (( rc == 0 )); then echo "PASS ctest gpu.*.np{2,4,8} under a 25% MPS share"
  else echo "FAIL ctest gpu.*.np{2,4,8} under a 25% MPS share"; fails=$((fails + 1)); fi
  unset CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
} | tee "$RES/runs.txt"
fails=$(grep -c '^FAIL' "$RES/runs.txt")
exit $(( fails != 0 ))
