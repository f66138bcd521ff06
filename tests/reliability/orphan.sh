#!/usr/bin/env bash
# tests/reliability/orphan.sh LAUNCHER EXE [WATCH]: starts 2 PEs of EXE (rel_gone compute) under
# LAUNCHER (mpirun or srun), waits until both run their own code after shmem_init, kills the
# launcher with SIGKILL and checks that both PEs end within 10 s, each saying on its stderr (a file:
# the launcher's pipes are gone) that the launcher is gone, naming itself.  Under srun, Slurm ends
# the step itself: there the PEs must end in time, with or without their own words.
# WATCH sets KISHMEM_LAUNCHER_WATCH; 0 (no watch thread) inverts the check: the PEs must still
# run 4 s after the kill (what the watch is for), and are killed here by their pids.
set -uo pipefail
(( $# >= 2 )) || { echo "usage: $0 LAUNCHER EXE [WATCH]" >&2; exit 2; }
launcher=$1 exe=$2 watch=${3:-}
dir=$(mktemp -d "${TMPDIR:-/tmp}/kishmem-orphan.XXXXXX") || exit 2
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  rm -rf "$dir"
}
trap cleanup EXIT
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
export OMPI_MCA_rmaps_base_oversubscribe=${OMPI_MCA_rmaps_base_oversubscribe:-1} OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
export SHMEM_SYMMETRIC_SIZE=${SHMEM_SYMMETRIC_SIZE:-64M}
[[ -n $watch ]] && export KISHMEM_LAUNCHER_WATCH=$watch
case $launcher in
  mpirun) mpirun -np 2 --oversubscribe --bind-to none "$exe" compute "$dir" >"$dir/launcher.out" 2>&1 & ;;
  srun)
    if [[ -z ${SLURM_CONF:-} || ! -r ${SLURM_CONF:-} ]] || ! command -v srun >/dev/null ||
       ! timeout 10 scontrol ping >/dev/null 2>&1; then
      echo "SKIP: no Slurm cluster reachable (run tests/slurm/up)"
      exit 77
    fi
    srun --mpi=pmix -O --export=ALL -K0 -J "kishmem-orphan-$$" -t 2 -n 2 "$exe" compute "$dir" \
      >"$dir/launcher.out" 2>&1 &
    ;;
  *) echo "orphan.sh: unknown launcher '$launcher'" >&2; exit 2 ;;
esac
lpid=$!
show() { for f in "$dir"/launcher.out "$dir"/pe*.err; do [[ -e $f ]] && { echo "--- ${f##*/}"; cat "$f"; }; done; }
# A pid is alive while /proc has it and it is not a zombie (nobody may reap an orphan here).
alive() { [[ -r /proc/$1/stat ]] && [[ $(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1) != [ZX] ]]; }

for (( i = 0; i < 300 && ${#pids[@]} < 2; ++i )); do
  sleep 0.1
  mapfile -t pids < <(sed -n 's/^rel_gone: PE [0-9]* pid \([0-9]*\) computing$/\1/p' "$dir"/pe*.err 2>/dev/null)
done
if (( ${#pids[@]} < 2 )); then show; echo "FAIL: the PEs did not start computing within 30 s"; exit 1; fi
echo "orphan.sh: PEs ${pids[*]} compute; killing $launcher (pid $lpid) with SIGKILL"
kill -9 "$lpid"
wait "$lpid" 2>/dev/null
start=$(date +%s%N)
limit=10
[[ $watch == 0 ]] && limit=4
while (( ($(date +%s%N) - start) / 1000000 < limit * 1000 )); do
  left=0
  for p in "${pids[@]}"; do alive "$p" && left=$(( left + 1 )); done
  (( left == 0 )) && break
  sleep 0.1
done
ms=$(( ($(date +%s%N) - start) / 1000000 ))
show
if [[ $watch == 0 ]]; then
  (( left == 2 )) || { echo "FAIL: with KISHMEM_LAUNCHER_WATCH=0, $(( 2 - left )) PE(s) ended within $limit s"; exit 1; }
  echo "PASS orphan $launcher: with KISHMEM_LAUNCHER_WATCH=0 both PEs still ran $limit s after the launcher was killed"
  exit 0
fi
(( left == 0 )) || { echo "FAIL: $left PE(s) still alive $limit s after $launcher was killed"; exit 1; }
said=0
for r in 0 1; do
  grep -Eq "^kishmem: PE $r: (the launcher is gone \(parent process $lpid exited\)|the connection to the launcher's PMIx server was lost); ending this PE" \
    "$dir/pe$r.err" && said=$(( said + 1 ))
done
if [[ $launcher == mpirun ]] && (( said < 2 )); then echo "FAIL: $(( 2 - said )) PE(s) ended without saying why"; exit 1; fi
echo "PASS orphan $launcher: both PEs ended ${ms} ms after the launcher was killed, $said saying why"
