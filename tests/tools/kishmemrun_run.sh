#!/usr/bin/env bash
# tests/tools/kishmemrun_run.sh mpirun|srun BIN_DIR WORK_DIR EXAMPLE_DIR
# Builds examples/porting/hello_pes.c with the build tree's kishmemcc and runs it on 2 PEs with
# kishmemrun for real: outside Slurm (mpirun), or inside an allocation made by salloc (srun;
# exit 77, CTest's skip, when no Slurm cluster answers). Then a PE that exits early must end
# the whole job with a non-zero status, long before the waiting PE's hang abort.
set -uo pipefail
launcher=$1 bin=$2 work=$3 example=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=launchers.sh
source "$(dirname "$0")/launchers.sh"
rm -rf "$work"
mkdir -p "$work"
unset KISHMEM_LAUNCHER SLURM_JOB_ID SLURM_JOBID
"$bin/kishmemcc" -O2 "$example/hello_pes.c" -o "$work/hello_pes" || fail "kishmemcc failed"
cat >"$work/early_exit.c" <<'C'
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    shmem_init();
    if (shmem_my_pe() == 1) {
        fprintf(stderr, "early_exit: PE 1 leaves without shmem_finalize\n");
        exit(3);
    }
    shmem_barrier_all(); /* waits for PE 1 forever, unless the launcher ends the job */
    shmem_finalize();
    return 0;
}
C
"$bin/kishmemcc" -O2 "$work/early_exit.c" -o "$work/early_exit" || fail "kishmemcc failed"

case $launcher in
  mpirun)
    mpirun_env
    cmd=("$bin/kishmemrun" --oversubscribe -np 2 --bind-to none)
    want="mpirun -np 2 --oversubscribe *--bind-to none -- $work/hello_pes"
    ;;
  srun)
    slurm_or_skip
    # salloc sets SLURM_JOB_ID and runs kishmemrun inside the allocation: srun is chosen.
    cmd=(salloc -O -n 2 -t 2 -J "kishmem-tools-$$" "$bin/kishmemrun" --oversubscribe -np 2)
    want="srun --mpi=pmix --kill-on-bad-exit=1 -n 2 --overcommit -- $work/hello_pes"
    ;;
esac
# run ARGS...: kishmemrun as cmd says, with ARGS added; sets out and rc.
run() {
  rc=0
  out=$(timeout -k 5 100 "${cmd[@]}" "$@" </dev/null 2>&1) || rc=$?
  echo "$out"
}

run --showme -- "$work/hello_pes"
(( rc == 0 )) || fail "kishmemrun --showme exited with $rc"
# shellcheck disable=SC2053  # WANT is a pattern: mpirun's -x list depends on the environment
[[ $(grep -v '^salloc:' <<<"$out") == $want ]] || fail "kishmemrun would run something else than: $want"

run -- "$work/hello_pes"
(( rc == 0 )) || fail "kishmemrun exited with $rc"
grep -q "^hello_pes: kishmem, 2 PEs, 2 of 2 got their left neighbour's number: OK\$" <<<"$out" ||
  fail "hello_pes did not report success"

start=$SECONDS
run -- "$work/early_exit"
took=$((SECONDS - start))
(( rc != 0 && rc != 124 && rc != 137 )) || fail "a PE exiting with 3 gave kishmemrun status $rc"
(( took < 30 )) || fail "the job took $took s to end after a PE exited early"
echo "the early exit of PE 1 ended the job in $took s with status $rc"
echo "PASS kishmemrun $launcher"
