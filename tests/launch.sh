#!/usr/bin/env bash
# tests/launch.sh LAUNCHER NP TIMEOUT_S -- EXE [ARGS...]
#
# Starts EXE on NP processes with LAUNCHER (mpirun or srun) and kills the whole run after
# TIMEOUT_S seconds. Exit status: the program's status; 77 (CTest skip) when srun is asked for
# and no Slurm cluster is reachable; 124/137 after a timeout (with a TIMEOUT line on stderr);
# 2 for bad usage. The caller's environment reaches the programs.
set -uo pipefail

usage() {
  cat >&2 <<'USAGE'
usage: tests/launch.sh LAUNCHER NP TIMEOUT_S -- EXE [ARGS...]
  LAUNCHER   mpirun | srun
  NP         number of processes (PEs)
  TIMEOUT_S  wall-clock limit in seconds; the run is killed after it
Exit status: the program's; 77 = skipped (srun without a reachable Slurm cluster);
124/137 = killed by the timeout.
USAGE
  exit 2
}

[[ ${1:-} == -h || ${1:-} == --help ]] && usage
(( $# >= 5 )) || usage
LAUNCHER=$1 NP=$2 TMO=$3
shift 3
[[ $1 == -- ]] || usage
shift
[[ $NP =~ ^[1-9][0-9]*$ ]] || { echo "launch.sh: NP must be a positive integer, got '$NP'" >&2; exit 2; }
[[ $TMO =~ ^[1-9][0-9]*$ ]] || { echo "launch.sh: TIMEOUT_S must be a positive integer, got '$TMO'" >&2; exit 2; }
EXE=$1

# Open MPI as root, more ranks than cores, fast start-up on one node. A caller's value wins.
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
export OMPI_MCA_rmaps_base_oversubscribe=${OMPI_MCA_rmaps_base_oversubscribe:-1}
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader,tcp}

JOBNAME=kishmem-launch-$$
case $LAUNCHER in
  mpirun)
    command -v mpirun >/dev/null || { echo "launch.sh: mpirun not found (install openmpi-bin)" >&2; exit 2; }
    cmd=(mpirun -np "$NP" --oversubscribe --bind-to none "$@")
    ;;
  srun)
    # A missing config makes sinfo retry for 60 s and a dead controller for ~9 s: check the
    # file and `scontrol ping` (immediate) first.
    if [[ -z ${SLURM_CONF:-} || ! -r ${SLURM_CONF:-} ]] || ! command -v srun >/dev/null ||
       ! timeout 10 scontrol ping >/dev/null 2>&1 || ! timeout 10 sinfo -h >/dev/null 2>&1; then
      echo "SKIP: no Slurm cluster reachable (run tests/slurm/up)"
      exit 77
    fi
    # -O: more tasks than CPUs; -K1: one failed task ends the step (as mpirun does);
    # -t: Slurm's own backstop should srun itself be killed.
    cmd=(srun --mpi=pmix -O --export=ALL -K1 -J "$JOBNAME" -t $(( (TMO + 59) / 60 + 1 ))
         -n "$NP" "$@")
    ;;
  *)
    echo "launch.sh: unknown launcher '$LAUNCHER' (mpirun or srun)" >&2
    exit 2
    ;;
esac

# `timeout` puts itself in its own (background) process group: a launcher that read a terminal
# from there would be stopped by SIGTTIN, so it gets /dev/null when stdin is a terminal.
# It runs in the background so Ctrl-C / TERM sent to this script can be passed on to it.
if [[ -t 0 ]]; then exec 3</dev/null; else exec 3<&0; fi
start=$SECONDS
timeout -k 5 "$TMO" "${cmd[@]}" <&3 3<&- &
tpid=$!
exec 3<&-
# shellcheck disable=SC2317  # called from the traps below
forward() { kill "-$1" "$tpid" 2>/dev/null; }
trap 'forward INT' INT
trap 'forward TERM' TERM
trap 'forward HUP' HUP
wait "$tpid"; rc=$?
while kill -0 "$tpid" 2>/dev/null; do wait "$tpid"; rc=$?; done
trap - INT TERM HUP

if (( rc == 124 || rc == 137 )) && (( SECONDS - start >= TMO )); then
  echo "TIMEOUT: $LAUNCHER -np $NP $EXE killed after $TMO s" >&2
  if [[ $LAUNCHER == srun ]]; then
    # srun may have died before it could end its step; make sure the job is gone.
    timeout 10 scancel -n "$JOBNAME" >/dev/null 2>&1 || true
  fi
fi
exit "$rc"
