#!/usr/bin/env bash
# tests/mpi/in_allocation.sh NP TIMEOUT_S -- EXE [ARGS...]
#
# Runs EXE directly (no srun) inside a Slurm allocation of NP tasks made by salloc, as a job
# script's serial step would: the environment says SLURM_NTASKS=NP, yet only one process runs,
# so kishmem must run it as one PE (no wrong-launch error). Passes when EXE exits 0 and printed
# "RAN as PE 0 of 1" (tests/mpi/wrong_launch.c). Exit status 77 (CTest's skip) without Slurm.
set -uo pipefail

(( $# >= 4 )) && [[ $3 == -- ]] || { echo "usage: $0 NP TIMEOUT_S -- EXE [ARGS...]" >&2; exit 2; }
NP=$1 TMO=$2
shift 3

if [[ -z ${SLURM_CONF:-} || ! -r ${SLURM_CONF:-} ]] || ! command -v salloc >/dev/null ||
   ! timeout 10 scontrol ping >/dev/null 2>&1 || ! timeout 10 sinfo -h >/dev/null 2>&1; then
  echo "SKIP: no Slurm cluster reachable (run tests/slurm/up)"
  exit 77
fi

JOBNAME=kishmem-in-allocation-$$
out=$(timeout -k 5 "$TMO" salloc -n "$NP" -O -J "$JOBNAME" -t $(( (TMO + 59) / 60 + 1 )) "$@" </dev/null 2>&1)
rc=$?
printf '%s\n' "$out"
echo "in_allocation.sh: salloc -n $NP $* exited with status $rc"
if (( rc == 124 || rc == 137 )); then
  timeout 10 scancel -n "$JOBNAME" >/dev/null 2>&1 || true
fi
if (( rc == 0 )) && grep -q "RAN as PE 0 of 1" <<<"$out"; then
  echo "PASS in_allocation -n $NP"
  exit 0
fi
echo "FAIL: a program started directly in an allocation of $NP tasks did not run as one PE"
exit 1
