#!/usr/bin/env bash
# tools/gpu/run.sh [tests|bench|all]: on a machine with an NVIDIA GPU, build kishmem and run
#   tests  the GPU tests as CTest knows them, at 1, 2, 4 (and 8) PEs under a private MPS daemon
#          (the kernels that trap on purpose first, without MPS): ctest.txt, tests.log, moe.txt;
#   bench  the device benchmark against NVSHMEM (same source, same PE count, same run):
#          kishmem.txt, nvshmem.txt, gpu_perf.md (the side-by-side table), and the IBGDA
#          message-rate benchmark (ibgda_rate.txt; its tables are appended to gpu_perf.md);
#   all    both (the default).  tools/gpu/all.sh runs them as stages of the GPU pass.
# GPU_TESTS=REGEX narrows `tests` to the GPU tests it matches (e.g. '^gpu\.(ep|rma)\.' where
# little GPU time is left; the trapping kernels then only where it matches them too).
# Results go to $OUT (default ./gpu-results), with env.txt.  Where the machine has PMIx's library
# but not its headers, put pmix.h & co. in .gpu-deps/pmix/include.
set -uo pipefail
WHAT=${1:-all}
case $WHAT in tests|bench|all) ;; *) sed -n '2,/^set -uo/p' "$0" | sed '$d'; exit 2 ;; esac
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gpu_begin gpu-results

# ---- build -------------------------------------------------------------------------------
gpu_configure build-gpu || exit 1
gpu_build build-gpu cu_host gpu_rma gpu_threads gpu_remote gpu_coll gpu_hang gpu_nic_error gpu_nic_error_unchecked \
  ep_gpu 03_moe_dispatch_combine kishmem_gpu_perf ibgda_rate || exit 1

fails=0
run_tests() {
  # ---- kernels that trap on purpose (an injected NIC or proxy error), before MPS: a trap under MPS can
  # take the MPS server down with it. Two PEs time-slice the GPU, which these tests allow.
  local re=${GPU_TESTS:-^gpu\.}
  if [[ -z ${GPU_TESTS:-} ]] || (cd build-gpu && ctest -N -R "$re" | grep -qE 'gpu\.(nic|proxy)_error'); then
    (cd build-gpu && ctest -R '^gpu\.(nic|proxy)_error' -j1) > "$RES/ctest_nic_error.txt" 2>&1 || fails=$((fails + 1))
    grep -E "Test +#|tests passed|FAILED|\(Failed|\(Timeout" "$RES/ctest_nic_error.txt"
  else echo "no tests passed: GPU_TESTS=$GPU_TESTS selects none of them" > "$RES/ctest_nic_error.txt"; fi

  # ---- private MPS daemon: several PEs on one GPU -------------------------------------------
  mps_start && echo "MPS daemon started"

  # ---- tests -------------------------------------------------------------------------------
  # The GPU tests as CTest knows them (tests/gpu/CMakeLists.txt: PE counts, KISHMEM_REMOTE paths,
  # timeouts, pass/fail patterns), one at a time on the one GPU; every test's output goes to
  # tests.log, the MoE example's timings to moe.txt.
  (cd build-gpu && ctest -R "$re" -E '^gpu\.(nic|proxy)_error' -j1 --output-on-failure --output-log "$RES/tests.log") > "$RES/ctest.txt" 2>&1 \
    || fails=$((fails + 1))
  grep -E "Test +#|tests passed|FAILED|\(Failed|\(Timeout" "$RES/ctest.txt"
  grep -E "^[0-9]+/[0-9]+ Test: gpu\.moe|^moe:" "$RES/tests.log" > "$RES/moe.txt"
  # On the GPU machine a skipped GPU test is a failure (no GPU seen).
  if grep -q "Skipped" "$RES/ctest.txt"; then echo "FAIL: GPU tests skipped on a GPU machine"; fails=$((fails + 1)); fi

  mps_stop
}

run_bench() {
  mps_start && echo "MPS daemon started"
  # ---- benchmark: kishmem, then NVSHMEM, same source ---------------------------------------
  SHMEM_SYMMETRIC_SIZE=256M timeout 120 mpirun -np 2 --bind-to none build-gpu/tools/perf/gpu/kishmem_gpu_perf \
    > "$RES/kishmem.txt" 2>&1 || echo "kishmem benchmark failed: $(tail -3 "$RES/kishmem.txt")"
  if nvshmem_build tools/perf/gpu/shmem_gpu_perf.cu build-gpu/nvshmem/nv_perf -DUSE_NVSHMEM; then
    echo "NVSHMEM at: $NV"
    NVSHMEM_REMOTE_TRANSPORT=none NVSHMEM_DISABLE_NCCL=1 NVSHMEM_SYMMETRIC_SIZE=512M NVSHMEM_DEBUG=INFO \
      timeout 120 mpirun -np 2 --bind-to none -x NVSHMEM_REMOTE_TRANSPORT -x NVSHMEM_DISABLE_NVLS -x NVSHMEM_DEBUG \
      -x NVSHMEM_DISABLE_NCCL -x NVSHMEM_SYMMETRIC_SIZE -x LD_LIBRARY_PATH build-gpu/nvshmem/nv_perf > "$RES/nvshmem.txt" 2>&1 \
      || { echo "NVSHMEM benchmark failed:"; grep -iE "error|fail|warn|cannot|unable|not supported" "$RES/nvshmem.txt" | head -30; }
  else
    echo "NVSHMEM not built: $(tail -5 "$RES/nvshmem_build.log")" | tee "$RES/nvshmem.txt"
  fi
  python3 tools/perf/gpu/compare.py "$RES/kishmem.txt" "$RES/nvshmem.txt" | tee "$RES/gpu_perf.md"
  # IBGDA message rate (docs/ibgda.md): posting, software NIC, CPU proxy; its tables join gpu_perf.md.
  { timeout 120 build-gpu/tools/perf/gpu/ibgda_rate \
    > "$RES/ibgda_rate.txt" 2>&1; } || { echo "ibgda_rate failed: $(tail -3 "$RES/ibgda_rate.txt" 2>/dev/null)"; fails=$((fails + 1)); }
  { echo; echo "## IBGDA message rate"; sed -n '/^| CTAs/,/^RESULT/p' "$RES/ibgda_rate.txt" | grep -v '^RESULT'; } | tee -a "$RES/gpu_perf.md"
}

[[ $WHAT == bench ]] || run_tests
[[ $WHAT == tests ]] || run_bench
exit $fails
