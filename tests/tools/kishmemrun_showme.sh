#!/usr/bin/env bash
# tests/tools/kishmemrun_showme.sh KISHMEMRUN WORK_DIR
# kishmemrun's launcher choice and argument translation, inside and outside a fake Slurm
# allocation. PATH holds only bash and fake srun/mpirun that print their arguments, so the
# machine's own launchers never matter; the environment is empty but for what each case sets.
set -uo pipefail
run=$1 work=$2
failures=0
rm -rf "$work"
mkdir -p "$work/both" "$work/mpirun-only" "$work/srun-only" "$work/none"
for d in both mpirun-only srun-only none; do ln -s "$(command -v bash)" "$work/$d/bash"; done
for l in srun mpirun; do
  printf '#!/bin/bash\nprintf "FAKE-%s"; printf " [%%s]" "$@"; echo\n' "$l" >"$work/both/$l"
  chmod +x "$work/both/$l"
done
cp "$work/both/mpirun" "$work/mpirun-only/"
cp "$work/both/srun" "$work/srun-only/"

# check LABEL WANT_RC WANT_OUTPUT PATH_DIR [VAR=VALUE...] -- ARGS...
check() {
  local label=$1 want_rc=$2 want=$3 dir=$4
  shift 4
  local envs=()
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  local got rc=0
  got=$(env -i HOME=/nonexistent PATH="$work/$dir" "${envs[@]}" "$run" "$@" 2>&1) || rc=$?
  local match=0
  if [[ $want == *'*' ]]; then
    [[ $got == "${want%'*'}"* ]] && match=1   # WANT ending in * matches a prefix
  else
    [[ $got == "$want" ]] && match=1
  fi
  if (( rc != want_rc || ! match )); then
    printf 'FAIL %s (exit %d, want %d)\n   want: %s\n    got: %s\n' "$label" "$rc" "$want_rc" "$want" "$got"
    failures=$((failures + 1))
  else
    printf 'ok   %s: %s\n' "$label" "$got"
  fi
}
IN=SLURM_JOB_ID=4242
SRUN='srun --mpi=pmix --kill-on-bad-exit=1'

# Outside Slurm: mpirun.
check "outside" 0 "mpirun -np 4 -- ./prog a 'b c'" both -- --showme -np 4 ./prog a 'b c'
check "outside -n" 0 "mpirun -np 4 -- ./prog" both -- -n 4 --showme ./prog
check "outside --np=" 0 "mpirun -np 3 -- ./prog" both -- --showme --np=3 ./prog
check "outside no -np" 0 "mpirun -- ./prog" both -- --showme ./prog
check "outside ppn, oversubscribe" 0 "mpirun -np 8 --npernode 4 --oversubscribe -- ./prog" \
  both -- --showme -np 8 --ppn 4 --oversubscribe ./prog
check "outside launcher options" 0 "mpirun -np 2 --bind-to none -x FOO -- ./prog -v" \
  both -- --showme -np 2 --bind-to none -x FOO -- ./prog -v
check "outside environment" 0 "mpirun -np 2 -x SHMEM_SYMMETRIC_SIZE -x KISHMEM_HANG_WARN -x UCX_TLS -- ./prog" \
  both SHMEM_SYMMETRIC_SIZE=1G UCX_TLS=tcp KISHMEM_HANG_WARN=5 KISHMEM_LAUNCHER=auto -- --showme -np 2 ./prog
check "program arguments untouched" 0 "mpirun -np 2 -- ./prog -- -np 5 --showme" \
  both -- --showme -np 2 ./prog -- -np 5 --showme
check "program after --" 0 "mpirun -np 2 -- -weird-name" both -- --showme -np 2 -- -weird-name

# Inside an allocation: srun.
check "inside" 0 "$SRUN -n 4 -- ./prog a 'b c'" both $IN -- --showme -np 4 ./prog a 'b c'
check "inside SLURM_JOBID" 0 "$SRUN -n 4 -- ./prog" both SLURM_JOBID=4242 -- --showme -np 4 ./prog
check "inside no -n" 0 "$SRUN -- ./prog" both $IN -- --showme ./prog
check "inside ppn, oversubscribe" 0 "$SRUN -n 8 --ntasks-per-node=4 --overcommit -- ./prog" \
  both $IN -- --showme -np 8 --npernode=4 --oversubscribe ./prog
check "inside launcher options" 0 "srun -n 2 --mpi=pmix_v4 -K0 --cpu-bind=cores -- ./prog -x" \
  both $IN -- --showme -n 2 --mpi=pmix_v4 -K0 --cpu-bind=cores -- ./prog -x
check "inside --kill-on-bad-exit given" 0 "srun --mpi=pmix -n 2 --kill-on-bad-exit=0 -- ./prog" \
  both $IN -- --showme -n 2 --kill-on-bad-exit=0 -- ./prog
check "inside: environment travels with srun" 0 "$SRUN -n 2 -- ./prog" \
  both $IN SHMEM_SYMMETRIC_SIZE=1G -- --showme -n 2 ./prog
check "inside, no srun" 0 "mpirun -np 2 -- ./prog" mpirun-only $IN -- --showme -np 2 ./prog
check "outside, no mpirun" 0 "$SRUN -n 2 -- ./prog" srun-only -- --showme -np 2 ./prog

# The choice forced.
check "--launcher=srun outside" 0 "$SRUN -n 2 -- ./prog" both -- --showme --launcher=srun -np 2 ./prog
check "KISHMEM_LAUNCHER=mpirun inside" 0 "mpirun -np 2 -- ./prog" \
  both $IN KISHMEM_LAUNCHER=mpirun -- --showme -np 2 ./prog
check "--launcher mpirun inside" 0 "mpirun -np 2 -- ./prog" both $IN -- --showme --launcher mpirun -np 2 ./prog

# Without --showme the launcher runs with exactly these arguments.
# shellcheck disable=SC2016  # a literal $X: no shell on the way may expand it
check "runs srun" 0 "FAKE-srun [--mpi=pmix] [--kill-on-bad-exit=1] [-n] [2] [--] [./prog] [a b] [\$X]" \
  both $IN -- -np 2 ./prog 'a b' '$X'
check "runs mpirun" 0 "FAKE-mpirun [-np] [2] [--] [./prog] [a b]" both -- -np 2 ./prog 'a b'

# Launcher options without `--`, as with oshrun: from the first one on, the words go to the
# launcher as they are (it tells its options from the program); kishmemrun adds no `--`.
check "launcher options without --" 0 "mpirun -np 2 --bind-to none ./prog -n 5" \
  both -- --showme -np 2 --bind-to none ./prog -n 5
check "runs mpirun, launcher options without --" 0 "FAKE-mpirun [-np] [2] [--map-by] [node] [./prog] [a b]" \
  both -- -np 2 --map-by node ./prog 'a b'
printf '#!/bin/bash\n' >"$work/prog" && chmod +x "$work/prog"
# A `--` among the program's own arguments is the program's.
check "-- in the program's arguments" 0 "mpirun -np 2 --bind-to none $work/prog -n 1 -- x" \
  both -- --showme -np 2 --bind-to none "$work/prog" -n 1 -- x
# srun's defaults look at the launcher's words only: a -K among the program's arguments (after
# the program, an executable file) does not stand for the user's --kill-on-bad-exit.
check "inside launcher options without --" 0 "$SRUN -n 2 --cpu-bind=cores $work/prog -K0" \
  both $IN -- --showme -n 2 --cpu-bind=cores "$work/prog" -K0
check "inside launcher options without --, -K given" 0 "srun --mpi=pmix -n 2 -K0 ./prog" \
  both $IN -- --showme -n 2 -K0 ./prog

# Mistakes: a clear message, exit 2, nothing run.
check "-- in the program's arguments, none before" 0 "FAKE-mpirun [-np] [2] [--] [$work/prog] [-n] [1] [--] [x]" \
  both -- -np 2 "$work/prog" -n 1 -- x
check "bad -np" 2 "kishmemrun: -np needs a positive integer, got 'x'" both -- -np x ./prog
check "-np without value" 2 "kishmemrun: -np needs a value" both -- -np
check "no program" 2 "kishmemrun: no program given*" both -- -np 2
check "no launcher" 2 "kishmemrun: neither mpirun (Open MPI) nor srun (Slurm) found in PATH" none -- -np 2 ./prog
check "unknown launcher" 2 "kishmemrun: unknown launcher 'ssh'*" both -- --launcher=ssh ./prog
check "forced launcher missing" 2 "kishmemrun: srun not found in PATH" mpirun-only -- --launcher=srun ./prog
check "--version" 0 "kishmemrun: kishmem 0.1.0" both -- --version
check "--help" 0 "usage: kishmemrun*" both -- --help

if (( failures )); then
  echo "$failures check(s) failed"
  exit 1
fi
echo "PASS kishmemrun_showme"
