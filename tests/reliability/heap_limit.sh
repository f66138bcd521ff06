#!/usr/bin/env bash
# tests/reliability/heap_limit.sh CASE EXE: shmem_init refuses a symmetric heap this host cannot
# back, before allocating anything, naming SHMEM_SYMMETRIC_SIZE and the limit (2 PEs, mpirun).
#   memtotal    twice the machine's memory, default route: MemTotal named
#   cgroup      1 GiB inside a memory cgroup of 512 MiB: the cgroup named
#   ucx_cgroup  the same under KISHMEM_REMOTE=ucx (the heap is kishmem's own there too; UCX only
#               registers it): the cgroup named
#   host_sum    3/4 of the machine's memory a PE: each heap fits, the two together do not: MemTotal
#               named with the PEs on this host
#   cgroup_sum  384 MiB a PE inside a memory cgroup of 512 MiB: the cgroup named with the PEs
# The cgroup cases run inside a memory cgroup of their own (v1 or v2; skipped where none can be
# made), so that a refusal that did not happen costs this test, not the machine.  Passes when the
# job fails with the words and /dev/shm holds nothing new of its PEs.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
(( $# == 2 )) || { echo "usage: $0 CASE EXE" >&2; exit 2; }
case_=$1 exe=$2
cg=
cleanup() { [[ -n $cg ]] && { cat "$cg/cgroup.procs" 2>/dev/null | while read -r p; do echo "$p" > "$(dirname "$cg")/cgroup.procs" 2>/dev/null; done; rmdir "$cg" 2>/dev/null; }; }
trap cleanup EXIT
into_cgroup() {  # a memory cgroup of $1 bytes holding this shell (and so the job)
  local line path base
  if line=$(grep -E '^[0-9]+:([^:]*,)?memory(,[^:]*)?:' /proc/self/cgroup); then
    path=${line##*:} base=/sys/fs/cgroup/memory$path
    cg=$base/kishmem-heap-limit-$$
    mkdir "$cg" 2>/dev/null && echo "$1" > "$cg/memory.limit_in_bytes" && echo $$ > "$cg/cgroup.procs" && return 0
  elif line=$(grep -E '^0::' /proc/self/cgroup) && [[ -f /sys/fs/cgroup/cgroup.controllers ]]; then
    path=${line#0::} base=/sys/fs/cgroup$path
    cg=$base/kishmem-heap-limit-$$
    mkdir "$cg" 2>/dev/null && echo "$1" > "$cg/memory.max" && echo $$ > "$cg/cgroup.procs" && return 0
  fi
  [[ -d $cg ]] && rmdir "$cg" 2>/dev/null
  cg=
  echo "SKIP: no memory cgroup can be made here"
  exit 77
}
mem=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) * 1024 ))
envs=()
case $case_ in
  memtotal) size=$(( 2 * mem )) want="is more than this host's memory \(MemTotal\) allows" ;;
  cgroup) into_cgroup $(( 512 << 20 )); size=1G want="is more than the memory cgroup .* allows" ;;
  ucx_cgroup) into_cgroup $(( 512 << 20 )); size=1G envs=(KISHMEM_REMOTE=ucx)
              want="is more than the memory cgroup .* allows" ;;
  host_sum) size=$(( mem / 4 * 3 )) want=": the 2 PEs on this host .* more than this host's memory \(MemTotal\) allows" ;;
  cgroup_sum) into_cgroup $(( 512 << 20 )); size=384M want=": the 2 PEs on this host .* more than the memory cgroup .* allows" ;;
  *) echo "unknown case $case_"; exit 2 ;;
esac
before=$(ls /dev/shm | sort)
out=$(env "${envs[@]}" SHMEM_SYMMETRIC_SIZE=$size "$HERE/../launch.sh" mpirun 2 30 -- "$exe" exit 2>&1)
rc=$?
echo "$out"
after=$(ls /dev/shm | sort)
# New entries of this job's PEs only (names carry the creator's pid, as leftovers.sh reads them):
# other jobs running beside this test make and remove entries of their own.
pids=$(grep -oE "rel_gone: rank [0-9]+ pid [0-9]+" <<< "$out" | awk '{print $5}')
[[ -n $pids ]] || { echo "FAIL: the PEs did not say their pids"; exit 1; }
new=$(comm -13 <(echo "$before") <(echo "$after") | grep -E "(^|[^0-9])($(paste -sd'|' <<< "$pids"))([^0-9]|$)")
(( rc != 0 )) || { echo "FAIL: the job did not fail"; exit 1; }
[[ $want == :* ]] || want=" \(.*$want"  # (one heap: its size in parentheses; the host's PEs: a colon)
grep -qE "kishmem: PE [01]: shmem_init: SHMEM_SYMMETRIC_SIZE=$size$want" <<< "$out" || { echo "FAIL: no refusal naming the limit"; exit 1; }
[[ -z $new ]] || { echo "FAIL: left in /dev/shm: $new"; exit 1; }
echo "PASS heap_limit $case_"
