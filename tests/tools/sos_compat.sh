#!/usr/bin/env bash
# tests/tools/sos_compat.sh mpirun|srun BIN_DIR WORK_DIR SOURCE HAVE_UCX
# A program written for Sandia OpenSHMEM's extensions (tests/tools/sos_ext.c), built with the
# build tree's kishmemcc as C11 and run on 2 PEs with kishmemrun: it must pass with the target
# counts off and on (KISHMEM_PCNTR_TARGET=1; on over UCX/TCP too when HAVE_UCX is 1), and its
# bad-input runs must end the job with a
# message naming the call, the PE, the thread number the program registered and the value.
# srun: inside an allocation made by salloc (exit 77, CTest's skip, without a Slurm cluster).
set -uo pipefail
launcher=$1 bin=$2 work=$3 source=$4 have_ucx=$5
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=launchers.sh
source "$(dirname "$0")/launchers.sh"
rm -rf "$work"
mkdir -p "$work"
unset KISHMEM_LAUNCHER SLURM_JOB_ID SLURM_JOBID
"$bin/kishmemcc" -std=c11 -O2 -Wall -Werror "$source" -o "$work/sos_ext" || fail "kishmemcc failed"

case $launcher in
  mpirun)
    mpirun_env
    cmd=("$bin/kishmemrun" --oversubscribe -np 2 --bind-to none --)
    ;;
  srun)
    slurm_or_skip
    cmd=(salloc -O -n 2 -t 3 -J "kishmem-sos-$$" "$bin/kishmemrun" --oversubscribe -np 2)
    ;;
esac
# run ARGS...: the program through kishmemrun; sets out and rc.
run() {
  rc=0
  out=$(timeout -k 5 100 "${cmd[@]}" "$work/sos_ext" "$@" </dev/null 2>&1) || rc=$?
  echo "$out"
}

for target in 0 1; do
  export KISHMEM_PCNTR_TARGET=$target
  run
  (( rc == 0 )) || fail "sos_ext exited with $rc (KISHMEM_PCNTR_TARGET=$target)"
  grep -q "^PASS sos_ext on 2 PEs\$" <<<"$out" || fail "sos_ext did not pass (KISHMEM_PCNTR_TARGET=$target)"
  ! grep -q "FAIL: " <<<"$out" || fail "sos_ext reported a failure (KISHMEM_PCNTR_TARGET=$target)"
done
# Every peer through UCX over TCP (the inter-node code path), target counts on.
if [[ $have_ucx == 1 ]]; then
  run_env=(KISHMEM_PCNTR_TARGET=1 KISHMEM_REMOTE=ucx UCX_TLS=tcp,self UCX_NET_DEVICES=lo)
  export "${run_env[@]}"
  run
  (( rc == 0 )) || fail "sos_ext exited with $rc (${run_env[*]})"
  grep -q "^PASS sos_ext on 2 PEs\$" <<<"$out" || fail "sos_ext did not pass (${run_env[*]})"
  unset KISHMEM_REMOTE UCX_TLS UCX_NET_DEVICES
fi
unset KISHMEM_PCNTR_TARGET

# case, then the message it must print
bad_case() {
  run "$1"
  (( rc != 0 && rc != 124 && rc != 137 )) || fail "bad input '$1' gave status $rc"
  grep -Eq "$2" <<<"$out" || fail "bad input '$1': no message matching: $2"
  ! grep -q "no error was raised" <<<"$out" || fail "bad input '$1' was accepted"
}
bad_case ibput_stride "kishmem: PE 0 \(thread 4242\): shmemx_long_ibput: stride dst 0 is invalid"
bad_case ibget_bsize "kishmem: PE 0 \(thread 4242\): shmemx_ctx_ibget64: bsize -3 is invalid"
bad_case pcntr_null "kishmem: PE 0 \(thread 4242\): shmemx_pcntr_get_all: pcntr is NULL"
bad_case ct_local "kishmem: PE 0 \(thread 4242\): shmemx_putmem_ct: ct 0x[0-9a-f]+ is not a counter made by shmemx_ct_create"
bad_case ct_plain "kishmem: PE 0 \(thread 4242\): shmemx_ct_get: ct 0x[0-9a-f]+ is not a counter made by shmemx_ct_create"
bad_case ct_null "kishmem: PE 0 \(thread 4242\): shmemx_ct_wait: ct \(nil\) is not a counter made by shmemx_ct_create"
bad_case ct_pe "kishmem: PE 0 \(thread 4242\): shmemx_getmem_ct: .*7"
echo "PASS sos_compat $launcher"
