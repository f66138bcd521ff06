#!/usr/bin/env bash
# tools/gpu/all.sh: the GPU pass. On a machine with an NVIDIA GPU, build once (build-gpu) and run,
# in the order of what tells most, each stage within a time budget of its own:
#   tests     the GPU tests as CTest knows them (every PE count and remote path)   tools/gpu/run.sh tests
#   progress  forward progress: the multi-PE GPU tests again under a 25% MPS share, and the MoE
#             examples with the full share at 4 and 8 PEs, several runs each (tools/gpu/progress.sh)
#   ep        kishmem::ep's GPU tests, the flagship (2, 4 and 8 PEs) and NVSHMEM beside it  ep/bench/gpu_run.sh
#   eppy      only the Python table against the flagship's (not in the default pass)      ep/bench/gpu_run.sh python
#   hosts     two simulated hosts x 2 PEs (reported; issue of its own)               tools/gpu/run_hosts.sh
#   bench     the device benchmark against NVSHMEM, the IBGDA message rate          tools/gpu/run.sh bench
#   sanitize  compute-sanitizer's memcheck, racecheck, synccheck, initcheck at 1 PE  tools/gpu/sanitize.sh
# The default pass keeps within 14 minutes (its stages' budgets below add up to 830 s; passing stages take
# far less: about 9 minutes in all on one H100).
#
#   tools/gpu/all.sh start [STAGE...]  start the pass in the background (its own session, setsid)
#                                      and return; results go to gpu-pass/ in the repository
#   tools/gpu/all.sh wait SECONDS      print progress until the pass ends or SECONDS pass; when it
#                                      has ended, copy summary.md and results.tar.gz into $OUT;
#                                      else what has ended so far (summary.partial.md,
#                                      results.partial.tar.gz)
#   tools/gpu/all.sh run [STAGE...]    the pass in the foreground (what start runs)
# Exit status of wait: 0 all stages passed, 1 some failed, 3 still running.
# Carried where the machine lacks them: .gpu-deps/pmix/include (PMIx headers), .gpu-deps/ucx
# (tools/gpu/carry_ucx.sh; the hosts stage needs UCX). tools/gpu/README.md says how to run it.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
PASS=$ROOT/gpu-pass
ALL_STAGES=(tests progress ep hosts bench sanitize)
# Each stage's most (seconds). Measured at 2af35e7 on one H200 (fresh machines, two passes): build
# 46-47 s, tests 121-124, progress 89-105, ep 143, bench 19, sanitize 31; at d2bbbe3 and 5dad89d:
# tests 129, progress 91-100, ep 163-166 (with its bind-none rows), hosts 99-104 for its 18 jobs
# (a job that would not have half its time limit left in the budget is left out and fails the stage;
# the CPU proxy between hosts alone takes 3 s per MoE round); at 1ab246d on one H100, sanitize
# 38 s alone and past 40 after the other stages, eppy past 240 (both killed there, every run
# that had ended passing).
declare -A BUDGET=([build]=70 [tests]=160 [progress]=120 [ep]=240 [hosts]=155 [bench]=25 [sanitize]=60 [eppy]=320)
# GPU_BUDGET_<stage>=SECONDS overrides one (a longer run of one stage, e.g. EP_NP8_RUNS=20 for ep).
for s in "${!BUDGET[@]}"; do v=GPU_BUDGET_$s; [[ -n ${!v:-} ]] && BUDGET[$s]=${!v}; done

now() { date -u '+%H:%M:%S'; }

# After a stage: no MPS daemon of ours outlives it (a stage killed at its budget leaves one).
mps_sweep() {
  pkill -u "$(id -u)" -f nvidia-cuda-mps-control >/dev/null 2>&1
  for _ in $(seq 20); do pgrep -u "$(id -u)" -f nvidia-cuda-mps >/dev/null || return 0; sleep 0.5; done
  pkill -9 -u "$(id -u)" -f nvidia-cuda-mps >/dev/null 2>&1
}

# stage NAME CMD...: runs CMD with OUT=$PASS/NAME within NAME's budget; one line in status.txt.
stage() {
  local name=$1; shift
  local dir=$PASS/$name t0=$SECONDS rc
  mkdir -p "$dir"
  echo "$(now) $name: running (budget ${BUDGET[$name]} s)" >> "$PASS/progress.txt"
  OUT=$dir timeout -k 10 "${BUDGET[$name]}" "$@" > "$dir/console.txt" 2>&1
  rc=$?
  mps_sweep
  local verdict=PASS
  (( rc == 124 || rc == 137 )) && verdict="FAIL (killed at its ${BUDGET[$name]} s budget)"
  (( rc != 0 && rc != 124 && rc != 137 )) && verdict="FAIL (status $rc)"
  printf '%s|%s|%d\n' "$name" "$verdict" $((SECONDS - t0)) >> "$PASS/status.txt"
  echo "$(now) $name: $verdict in $((SECONDS - t0)) s" >> "$PASS/progress.txt"
}

build_all() {
  T=$(mktemp -d) RES=$OUT
  source "$ROOT/tools/gpu/common.sh"
  trap 'rm -rf "$T"' EXIT
  gpu_env_file
  gpu_configure build-gpu || return 1
  grep -q "kishmem: UCX" "$RES/configure.log" || echo "note: no UCX: the hosts stage will fail"
  # NVSHMEM's builds of the peers' programs (bench, ep) beside kishmem's; their stages reuse them
  ( RES=$RES/nvshmem && mkdir -p "$RES" && nvshmem_build tools/perf/gpu/shmem_gpu_perf.cu build-gpu/nvshmem/nv_perf -DUSE_NVSHMEM \
    && nvshmem_build ep/bench/nvshmem_alltoall.cu build-gpu/nvshmem/nv_a2a ) &
  local nv=$!
  cmake --build build-gpu -j"$(nproc)" > "$RES/build.log" 2>&1 \
    || { grep -E "error:|error [A-Z]|FAILED" "$RES/build.log" | head -30; return 1; }
  wait $nv || echo "note: NVSHMEM's programs not built: $(tail -3 "$RES/nvshmem/nvshmem_build.log")"
}

run_pass() {
  local stages=("$@")
  (( ${#stages[@]} )) || stages=("${ALL_STAGES[@]}")
  rm -rf "$PASS" && mkdir -p "$PASS"
  echo "$(now) pass started: ${stages[*]}" > "$PASS/progress.txt"
  export HOSTS_BUDGET_S=$(( BUDGET[hosts] - 30 )) EP_RUN_TIMEOUT=60
  stage build "$ROOT/tools/gpu/all.sh" build
  if grep -q '^build|PASS' "$PASS/status.txt"; then
    for s in "${stages[@]}"; do
      case $s in
        tests|bench) stage "$s" tools/gpu/run.sh "$s" ;;
        progress) stage progress tools/gpu/progress.sh ;;
        ep) stage ep ep/bench/gpu_run.sh ;;
        eppy) stage eppy ep/bench/gpu_run.sh python ;;
        hosts) stage hosts tools/gpu/run_hosts.sh ;;
        sanitize) stage sanitize tools/gpu/sanitize.sh ;;
        *) echo "unknown stage $s" >> "$PASS/progress.txt" ;;
      esac
    done
  fi
  python3 tools/gpu/summary.py "$PASS" > "$PASS/summary.md" 2>> "$PASS/progress.txt"
  tar -C "$PASS" -czf "$ROOT/gpu-pass.tar.gz" --exclude='*.tar.gz' . && mv "$ROOT/gpu-pass.tar.gz" "$PASS/results.tar.gz"
  echo "$(now) pass ended" >> "$PASS/progress.txt"
  touch "$PASS/done"
}

case ${1:-} in
  start)
    shift
    rm -rf "$PASS" && mkdir -p "$PASS"
    setsid nohup "$ROOT/tools/gpu/all.sh" run "$@" > "$ROOT/gpu-pass.log" 2>&1 < /dev/null &
    echo "GPU pass started in the background (pid $!); follow it with: tools/gpu/all.sh wait SECONDS" ;;
  run) shift; run_pass "$@" ;;
  build) build_all ;;
  wait)
    end=$((SECONDS + ${2:?wait needs SECONDS}))
    seen=0
    while :; do
      n=$(wc -l < "$PASS/progress.txt" 2>/dev/null || echo 0)
      (( n > seen )) && { tail -n +"$((seen + 1))" "$PASS/progress.txt"; seen=$n; }
      [[ -f $PASS/done ]] && break
      if (( SECONDS >= end )); then
        echo "still running"
        # What has ended so far comes back with this call too: a machine given back before the
        # next call keeps nothing (a pass at f5a685c was lost so).
        if [[ -n ${OUT:-} ]]; then
          { echo "(partial: the pass was still running at $(now); stages not listed had not ended)"
            python3 tools/gpu/summary.py "$PASS" 2>/dev/null; } > "$OUT/summary.partial.md"
          tar -C "$PASS" -czf "$OUT/results.partial.tar.gz" --exclude='*.tar.gz' . 2>/dev/null
        fi
        exit 3
      fi
      sleep 5
    done
    if [[ -n ${OUT:-} ]]; then cp "$PASS/summary.md" "$PASS/results.tar.gz" "$OUT/" 2>/dev/null; fi
    cat "$PASS/summary.md"
    grep -qv '|PASS|' "$PASS/status.txt" && exit 1
    exit 0 ;;
  *) sed -n '2,/^set -uo/p' "$0" | sed '$d'; exit 2 ;;
esac
