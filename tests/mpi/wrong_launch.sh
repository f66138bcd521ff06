#!/usr/bin/env bash
# tests/mpi/wrong_launch.sh MPI_PLUGIN NP TIMEOUT_S REGEX -- EXE [ARGS...]
#
# Starts EXE with `srun --mpi=MPI_PLUGIN -n NP` (a launch without PMIx, e.g. none or pmi2) and
# checks that the job failed with the message kishmem gives for it: the exit status must be
# non-zero, the output must match the extended regular expression REGEX, and no task may have
# got past shmem_init ("RAN as PE"). Prints "PASS wrong_launch ..." and exits 0 when all hold.
# Exit status 77 (CTest's skip) when no Slurm cluster is reachable or srun lacks the plugin.
set -uo pipefail

(( $# >= 6 )) && [[ $5 == -- ]] || {
  echo "usage: $0 MPI_PLUGIN NP TIMEOUT_S REGEX -- EXE [ARGS...]" >&2
  exit 2
}
PLUGIN=$1 NP=$2 TMO=$3 REGEX=$4
shift 5

if [[ -z ${SLURM_CONF:-} || ! -r ${SLURM_CONF:-} ]] || ! command -v srun >/dev/null ||
   ! timeout 10 scontrol ping >/dev/null 2>&1 || ! timeout 10 sinfo -h >/dev/null 2>&1; then
  echo "SKIP: no Slurm cluster reachable (run tests/slurm/up)"
  exit 77
fi
if ! timeout 10 srun --mpi=list 2>&1 | grep -qw -- "$PLUGIN"; then
  echo "SKIP: this srun has no MPI plugin '$PLUGIN'"
  exit 77
fi

JOBNAME=kishmem-wrong-launch-$$
out=$(timeout -k 5 "$TMO" srun --mpi="$PLUGIN" -O --export=ALL -K1 -J "$JOBNAME" \
        -t $(( (TMO + 59) / 60 + 1 )) -n "$NP" "$@" </dev/null 2>&1)
rc=$?
printf '%s\n' "$out"
echo "wrong_launch.sh: srun --mpi=$PLUGIN -n $NP exited with status $rc"

fail=0
if (( rc == 124 || rc == 137 )); then
  echo "FAIL: the job did not end within $TMO s (a hang instead of an error)"
  timeout 10 scancel -n "$JOBNAME" >/dev/null 2>&1 || true
  fail=1
elif (( rc == 0 )); then
  echo "FAIL: the job exited with status 0"
  fail=1
fi
if grep -q "RAN as PE" <<<"$out"; then
  echo "FAIL: a task got past shmem_init"
  fail=1
fi
if ! grep -Eq -- "$REGEX" <<<"$out"; then
  echo "FAIL: no line matches: $REGEX"
  fail=1
fi
(( fail )) && exit 1
echo "PASS wrong_launch --mpi=$PLUGIN -n $NP"
exit 0
