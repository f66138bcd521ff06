#!/usr/bin/env bash
# ep/bench/gpu_run.sh: on the GPU machine, build kishmem::ep, run its GPU tests (ctest gpu.ep.*)
# and the flagship at 2 and 4 PEs on one GPU under a private MPS daemon (FP8 and bf16 dispatch;
# load/store, then IBGDA over the software NIC and the CPU proxy), at 8 PEs several times (the
# default shape and --max-nodes 8, EP_NP8_RUNS runs each, 3; 5 timed rounds, EP_NP8_TIMEOUT s
# each, 25: where GPU and CPU routing once differed and a run once ended silently), and NVSHMEM's
# alltoallmem_on_stream moving the same bytes; the IBGDA and proxy runs also print the work
# requests and bytes of one dispatch and one combine per PE. Results in $OUT (default ./ep-results).
# EP_SKIP_NVSHMEM=1 leaves NVSHMEM out; EP_RUN_TIMEOUT bounds each flagship run (seconds, 200).
# `gpu_run.sh python`: only the Python table against the flagship's (FP8, 2 and 4 PEs, the two
# alternating, EP_PY_REPS runs each (2; EP_PY_NP the PE counts, "2 4"), Python on torch's current
# stream and on a side stream (and in the other forms of py_variants), the
# flagship also on the legacy default stream, and each program with the other's index type: Python with int32
# indices, the flagship with int64; about 250 s with the build), and where Python's host time per call goes (ep/bench/py_host.py, both streams). `gpu_run.sh profile`: the flagship built with -DKISHMEM_EP_PROFILE (in
# build-gpu-prof) at 2 and 4 PEs, 128 tokens and 1 token, FP8: each kernel stage's median time
# from the kernels' GPU clock stamps (ep/src/prof.cuh), beside the call times and the floor, and
# ep/bench/reduce_bw.cu (combine's read pattern against a plain read of the same bytes),
# ep/bench/host_cost.cu (what each CUDA call of a call's host path costs) and
# ep/bench/signal_cost.cu (data, then a flag: the ways to order them, writer to reader) and
# ep/bench/entry_cost.cu (dispatch's first phase alone, four ways: today's, indices in shared
# memory, without the check, without the reservation's fetch-adds) and ep/bench/launch_cost.cu
# (what the GPU spends outside a kernel of the dispatch's shape, between events). `gpu_run.sh
# small`: the flagship's calls of 1 and 8 tokens on a buffer of 128 (a decode step's; FP8, 2 and 4
# PEs), each as it runs by default (fewer tokens than blocks: a token's rows and channels shared
# by several blocks) and with `--sms T` (a block per token, the form before that), alternating,
# EP_SMALL_REPS times (1).
# Placement: mpirun's default binding, as users launch; EP_BIND=none (the rows named bind-none,
# and the IBGDA and proxy runs, whose software NIC and proxy threads need cores of their own)
# passes --bind-to none.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../tools/gpu/common.sh"
gpu_begin ep-results
mode=${1:-all}
[[ $mode =~ ^(all|python|profile|small)$ ]] || { echo "usage: $0 [python|profile|small]" >&2; exit 2; }
bdir=build-gpu cmake_args=() targets=(ep_gpu ep_topk_gpu 04_moe_ep ep_cpu kishmem_python)
case $mode in
  python) targets=(04_moe_ep kishmem_python) ;;
  small) targets=(04_moe_ep) ;;
  profile) bdir=build-gpu-prof cmake_args=(-DCMAKE_CUDA_FLAGS=-DKISHMEM_EP_PROFILE) targets=(04_moe_ep) ;;
esac
gpu_configure "$bdir" "${cmake_args[@]}" || exit 1
gpu_build "$bdir" "${targets[@]}" || exit 1
mps_start && echo "MPS daemon started"
fails=0
# job LOG NAME NP ENV... -- CMD...: CMD on NP PEs of the GPU heap, its output appended to $RES/LOG.
job() {
  local log=$RES/$1 name=$2 np=$3; shift 3
  local envs=(); while [[ $1 != -- ]]; do envs+=("$1"); shift; done; shift
  echo "== $name" >> "$log"
  env SHMEM_SYMMETRIC_SIZE=1G KISHMEM_HEAP=device "${envs[@]}" timeout "${EP_RUN_TIMEOUT:-200}" mpirun -np "$np" ${EP_BIND:+--bind-to "$EP_BIND"} \
    ${CUDA_MPS_ACTIVE_THREAD_PERCENTAGE:+-x CUDA_MPS_ACTIVE_THREAD_PERCENTAGE} \
    "$@" >> "$log" 2>&1 || { echo "FAIL $name (status $?; 124: timed out)"; fails=$((fails + 1)); }
}
run() {  # run NAME NP ENV... -- ARGS: the flagship
  local name=$1 np=$2; shift 2
  local envs=(); while [[ $1 != -- ]]; do envs+=("$1"); shift; done; shift
  job flagship.txt "$name" "$np" "${envs[@]}" -- build-gpu/examples/04_moe_ep "$@"
}
# one_process NAME: ep/bench/NAME.cu built with plain nvcc and run (one process), its output in
# $RES/NAME.txt and on the console; a failed build or run counts as a failure.
one_process() {
  if nvcc -O3 -arch=sm_90 -std=c++17 -Idevice/include "ep/bench/$1.cu" -lcuda -o "$T/$1" > "$RES/$1.txt" 2>&1; then
    "$T/$1" >> "$RES/$1.txt" 2>&1 || fails=$((fails + 1))
  else fails=$((fails + 1)); fi
  cat "$RES/$1.txt"
}
py=(PYTHONPATH="$ROOT/build-gpu/python" PYTHONUNBUFFERED=1 --)
# bench_ep.py besides its defaults: no expert work between the calls (what the experts' traffic
# costs the calls beside them), and its kernel clock's pass without the CUDA events around each
# call that the flagship's records (Python's 2-PE dispatch kernel ran ~3.6 us longer than the
# flagship's, with or without expert work; its pass had no events until the flagship's were added).
py_variants=("experts none" "clock-events off")
if [[ $mode == profile ]]; then
  for np in 2 4; do
    for t in 128 1; do
      job profile.txt "profile np$np tokens $t fp8" "$np" KISHMEM_REMOTE=auto -- "$bdir/examples/04_moe_ep" --tokens "$t" --format fp8
    done
  done
  cat "$RES/profile.txt"
  # One process each, plain nvcc: the reduce's read pattern against a plain read of the same
  # bytes; what each CUDA call of a call's host path costs; what ordering data before a flag costs;
  # dispatch's first phase (ranks, reservation, check) done four ways; what the GPU spends outside
  # a kernel of the dispatch's shape (its launch and its end).
  for b in reduce_bw host_cost signal_cost entry_cost launch_cost; do one_process "$b"; done
  exit $fails
fi
if [[ $mode == small ]]; then
  for rep in $(seq "${EP_SMALL_REPS:-1}"); do
    for np in 2 4; do
      for t in 1 8; do
        run "ldst np$np fp8 tokens $t of 128" "$np" KISHMEM_REMOTE=auto -- --format fp8 --tokens "$t" --max-tokens 128
        run "ldst np$np fp8 tokens $t of 128 sms $t" "$np" KISHMEM_REMOTE=auto -- --format fp8 --tokens "$t" --max-tokens 128 --sms "$t"
      done
    done
  done
  grep -E "^== |^\| [0-9]|^SMs|PASS|FAIL" "$RES/flagship.txt"
  exit $fails
fi
if [[ $mode == python ]]; then
  # The two programs alternate, EP_PY_REPS times each (2): runs differ by ~10% in time on this
  # GPU, so each figure is compared as the mean of its runs.
  for np in ${EP_PY_NP:-2 4}; do
    for rep in $(seq "${EP_PY_REPS:-2}"); do
      run "ldst np$np fp8" "$np" KISHMEM_REMOTE=auto -- --format fp8
      run "ldst np$np fp8 legacy" "$np" KISHMEM_REMOTE=auto -- --format fp8 --stream legacy
      run "ldst np$np fp8 int64" "$np" KISHMEM_REMOTE=auto -- --format fp8 --index int64
      job python.txt "bench_ep.py np$np fp8" "$np" "${py[@]}" python3 python/bench_ep.py
      job python.txt "bench_ep.py np$np fp8 side" "$np" "${py[@]}" python3 python/bench_ep.py --stream side
      job python.txt "bench_ep.py np$np fp8 int32" "$np" "${py[@]}" python3 python/bench_ep.py --index int32
      for v in "${py_variants[@]}"; do job python.txt "bench_ep.py np$np fp8 $v" "$np" "${py[@]}" python3 python/bench_ep.py --$v; done  # (--$v: split into option and value)
    done
    for s in current side; do job python.txt "py_host.py np$np $s" "$np" "${py[@]}" python3 ep/bench/py_host.py --stream $s; done
  done
  grep -E "^== |^\| [0-9]|host's own|^PE " "$RES/flagship.txt" "$RES/python.txt"
  python3 "$ROOT/ep/bench/py_vs_cpp.py" "$RES/flagship.txt" "$RES/python.txt"
  exit $fails
fi
# kishmem::ep's GPU tests and the Python package's GPU tests (python.gpu.*: 1, 2, 4 PEs).
(cd build-gpu && ctest -R '^(gpu\.ep|python\.gpu)\.' -j1 --output-on-failure) > "$RES/ctest.txt" 2>&1 || fails=$((fails + 1))
grep -q "python\.gpu" "$RES/ctest.txt" || { echo "FAIL: no python.gpu tests: $(grep 'kishmem: .*Python\|pybind11' "$RES/configure.log")"; fails=$((fails + 1)); }
grep -E "Test +#|tests passed|FAILED|\(Failed|\(Timeout|Skipped" "$RES/ctest.txt"
for np in 2 4; do
  for f in fp8 bf16; do run "ldst np$np $f" "$np" KISHMEM_REMOTE=auto -- --format "$f"; done
  run "ldst np$np fp8 int64" "$np" KISHMEM_REMOTE=auto -- --format fp8 --index int64  # (Python's index type)
  EP_BIND=none run "ldst np$np fp8 bind-none" "$np" KISHMEM_REMOTE=auto -- --format fp8
done
# Expert outputs elsewhere than the buffer's combine_buffer (the rows above): a symmetric block of
# the program's (read in place, the combine waits for the reads) and device memory (pushed).
for np in 2 4; do
  for eo in heap device; do run "ldst np$np fp8 expert-out-$eo" "$np" KISHMEM_REMOTE=auto -- --expert-out "$eo"; done
done
for i in $(seq "${EP_NP8_RUNS:-3}"); do
  EP_RUN_TIMEOUT=${EP_NP8_TIMEOUT:-25} run "ldst np8 fp8 run $i" 8 KISHMEM_REMOTE=auto -- --iters 5
  EP_RUN_TIMEOUT=${EP_NP8_TIMEOUT:-25} run "ldst np8 fp8 max-nodes 8 run $i" 8 KISHMEM_REMOTE=auto -- --iters 5 --max-nodes 8
done
for path in ibgda proxy; do EP_BIND=none run "$path np2 fp8" 2 KISHMEM_REMOTE=$path -- --iters 3 --tokens 32; done
# From Python as users run it (issue 24): the MoE layer example at 2 and 4 PEs, and DeepEP's
# low-latency table at the flagship's default shape beside the C++ flagship's rows above, as ratios.
if [[ -d build-gpu/python/kishmem ]]; then
  for np in 2 4; do job python.txt "05_moe_ep.py np$np" "$np" "${py[@]}" python3 examples/05_moe_ep.py; done
  for np in 2 4; do job python.txt "bench_ep.py np$np fp8" "$np" "${py[@]}" python3 python/bench_ep.py --check; done
  for v in "${py_variants[@]}"; do job python.txt "bench_ep.py np2 fp8 $v" 2 "${py[@]}" python3 python/bench_ep.py --$v; done  # (--$v: split into option and value)
  grep -E "^== |PASS|FAIL|^\| [0-9]|host's own|^the PEs' kernels" "$RES/python.txt"
  python3 "$ROOT/ep/bench/py_vs_cpp.py" "$RES/flagship.txt" "$RES/python.txt"
else echo "FAIL: the Python package was not built"; fails=$((fails + 1)); fi
grep -E "^== |^\| [0-9]|^SMs|^the PEs' kernels|PASS|FAIL" "$RES/flagship.txt"
# Work requests and bytes per call and PE over the software NIC and the proxy (shmemx_nic_stats).
grep -E "^== (ibgda|proxy)|^work requests per call|^\| PE " "$RES/flagship.txt"
if [[ ${EP_SKIP_NVSHMEM:-0} == 1 ]]; then echo "NVSHMEM left out (EP_SKIP_NVSHMEM=1)"
elif nvshmem_build ep/bench/nvshmem_alltoall.cu build-gpu/nvshmem/nv_a2a; then
  # NVSHMEM refuses collectives on stream with several processes per GPU unless MPS gives each
  # its share of the SMs: both libraries run with that share here, side by side.
  for np in 2 4; do
    export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / np))
    NVSHMEM_REMOTE_TRANSPORT=none NVSHMEM_DISABLE_NCCL=1 NVSHMEM_SYMMETRIC_SIZE=1G timeout 120 mpirun -np $np \
      -x CUDA_MPS_ACTIVE_THREAD_PERCENTAGE -x NVSHMEM_REMOTE_TRANSPORT -x NVSHMEM_DISABLE_NVLS -x NVSHMEM_DISABLE_NCCL \
      -x NVSHMEM_SYMMETRIC_SIZE -x LD_LIBRARY_PATH build-gpu/nvshmem/nv_a2a >> "$RES/nvshmem.txt" 2>&1 || echo "NVSHMEM np$np failed"
    run "ldst np$np fp8 mps-share" "$np" KISHMEM_REMOTE=auto -- --format fp8
    unset CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
  done
  grep RESULT "$RES/nvshmem.txt"; grep -A4 "mps-share" "$RES/flagship.txt" | grep -E "^== |^\| [0-9]" | head -4
else echo "NVSHMEM not built: $(tail -5 "$RES/nvshmem_build.log")"; fi
# What the GPU spends outside a kernel of the dispatch's shape (one process, plain nvcc; built
# here, after the timed runs, so that its build does not share the host with them).
one_process launch_cost
exit $fails
