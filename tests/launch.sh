#!/usr/bin/env bash
# tests/launch.sh [CHECKS] LAUNCHER NP TIMEOUT_S -- EXE [ARGS...]
#
# Starts EXE on NP processes with LAUNCHER (mpirun, srun, torchrun, or none: EXE itself, one
# process) and kills the whole run after TIMEOUT_S seconds. The caller's environment reaches the programs.
#
# Without CHECKS the exit status is the program's; 77 (CTest skip) when srun is asked for and no
# Slurm cluster is reachable; 124/137 after a timeout (with a TIMEOUT line on stderr); 2 for bad
# usage.
#
# With CHECKS this script is the test's judge (every multi-process test runs this way; CTest's
# PASS_REGULAR_EXPRESSION alone would ignore the exit status): it prints the run's output (stdout
# and stderr together), then one verdict line "launch.sh: PASS: ..." or "launch.sh: FAIL: ..."
# and exits 0 (pass), 1 (fail) or 77 (skip: the run exited 77). A run passes only when
#   - it ended by itself (no timeout) with the expected exit status: every process exited 0,
#     unless --status says otherwise;
#   - its output matches the --pass pattern;
#   - no output line matches the --fail pattern nor, when the expected status is 0, the
#     standard one, KISHMEM_TEST_FAIL below (a test's FAIL line, a UCX fatal error, a PE that
#     died of a signal, even after the pass line).
set -uo pipefail

KISHMEM_TEST_FAIL='FAIL: |Fatal:|exited on signal'

usage() {
  cat >&2 <<'USAGE'
usage: tests/launch.sh [CHECKS] LAUNCHER NP TIMEOUT_S -- EXE [ARGS...]
  LAUNCHER   mpirun | mpirun-default | srun | srun-nokill | torchrun (--standalone, NP per node) |
             none (EXE runs directly as one process; NP must be 1);
             mpirun starts without binding (--bind-to none), mpirun-default with mpirun's own
             placement, as users launch (binding to cores where the PEs fit)
  NP         number of processes (PEs)
  TIMEOUT_S  wall-clock limit in seconds; the run is killed after it
CHECKS (with any of them, the exit status is the verdict: 0 pass, 1 fail, 77 skip):
  --pass REGEX          the output must match REGEX (grep -E over the whole output, stdout and
                        stderr together, as CTest's PASS_REGULAR_EXPRESSION; '.' matches a newline)
  --fail REGEX          no output line may match REGEX
  --status N|nonzero    the exit status the run must end with (default 0); 'nonzero' for a run that
                        must fail (bad input: combine with --pass MESSAGE). With 0, no line may match
                        the standard fail pattern 'FAIL: |Fatal:|exited on signal' either
Without CHECKS: the program's exit status; 77 = skipped (srun without a reachable Slurm
cluster); 124/137 = killed by the timeout.
USAGE
  exit 2
}

PASS_RE='' FAIL_RE='' WANT=''
checked=0
while (( $# )); do
  case $1 in
    --pass|--fail|--status)
      (( $# >= 2 )) || usage
      case $1 in --pass) PASS_RE=$2 ;; --fail) FAIL_RE=$2 ;; --status) WANT=$2 ;; esac
      checked=1
      shift 2
      ;;
    *) break ;;
  esac
done
if (( checked )); then
  WANT=${WANT:-0}
  [[ $WANT =~ ^([0-9]+|nonzero)$ ]] || { echo "launch.sh: --status takes a number or 'nonzero', got '$WANT'" >&2; exit 2; }
fi

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
  mpirun-default)
    command -v mpirun >/dev/null || { echo "launch.sh: mpirun not found (install openmpi-bin)" >&2; exit 2; }
    cmd=(mpirun -np "$NP" "$@")
    ;;
  none)
    (( NP == 1 )) || { echo "launch.sh: LAUNCHER none runs one process, got NP=$NP" >&2; exit 2; }
    cmd=("$@")
    ;;
  srun|srun-nokill)
    # A missing config makes sinfo retry for 60 s and a dead controller for ~9 s: check the
    # file and `scontrol ping` (immediate) first.
    if [[ -z ${SLURM_CONF:-} || ! -r ${SLURM_CONF:-} ]] || ! command -v srun >/dev/null ||
       ! timeout 10 scontrol ping >/dev/null 2>&1 || ! timeout 10 sinfo -h >/dev/null 2>&1; then
      echo "SKIP: no Slurm cluster reachable (run tests/slurm/up)"
      exit 77
    fi
    # -O: more tasks than CPUs; -K1: one failed task ends the step (as mpirun does);
    # -t: Slurm's own backstop should srun itself be killed.
    # srun-nokill: Slurm's default (-K0), a task that ends does not end the step.
    kill_on_bad_exit=-K1
    [[ $LAUNCHER == srun-nokill ]] && kill_on_bad_exit=-K0
    cmd=(srun --mpi=pmix -O --export=ALL "$kill_on_bad_exit" -J "$JOBNAME" -t $(( (TMO + 59) / 60 + 1 ))
         -n "$NP" "$@")
    ;;
  torchrun)
    # torch.distributed's launcher: no PMIx, no MPI (kishmem.init finds the peers through its
    # store). --redirects 2 --tee 2 (stderr to its log and the console): Debian's torch 1.13 on
    # Python 3.11 reads the default "0" as no setting (3.11 does not list IntFlag's 0 member)
    # and fails before it starts a worker.
    # --standalone's rendezvous takes the fixed port 29400, which another job on the machine may
    # hold; a port free now (the kernel's choice), on this host, with --standalone's other settings.
    command -v torchrun >/dev/null || { echo "SKIP: torchrun not found (python3-torch)"; exit 77; }
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') ||
      { echo "launch.sh: no free local port for torchrun's rendezvous" >&2; exit 2; }
    cmd=(torchrun --nnodes 1 --rdzv_backend c10d --rdzv_endpoint "127.0.0.1:$port" --rdzv_id "$JOBNAME.$$"
         --nproc_per_node "$NP" --redirects 2 --tee 2 --no_python "$@")
    ;;
  *)
    echo "launch.sh: unknown launcher '$LAUNCHER' (mpirun, srun, torchrun or none)" >&2
    exit 2
    ;;
esac

# `timeout` puts itself in its own (background) process group: a launcher that read a terminal
# from there would be stopped by SIGTTIN, so it gets /dev/null when stdin is a terminal.
# It runs in the background so Ctrl-C / TERM sent to this script can be passed on to it.
# With CHECKS the output goes to a file first: the verdict reads it once the run has ended.
if [[ -t 0 ]]; then exec 3</dev/null; else exec 3<&0; fi
start=$SECONDS
if (( checked )); then
  out=$(mktemp "${TMPDIR:-/tmp}/kishmem-launch-out.XXXXXX") || exit 2
  trap 'rm -f "$out"' EXIT
  timeout -k 5 "$TMO" "${cmd[@]}" <&3 3<&- >"$out" 2>&1 &
else
  timeout -k 5 "$TMO" "${cmd[@]}" <&3 3<&- &
fi
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

timed_out=0
if (( rc == 124 || rc == 137 )) && (( SECONDS - start >= TMO )); then
  timed_out=1
  echo "TIMEOUT: $LAUNCHER -np $NP $EXE killed after $TMO s" >&2
  if [[ $LAUNCHER == srun* ]]; then
    # srun may have died before it could end its step; make sure the job is gone.
    timeout 10 scancel -n "$JOBNAME" >/dev/null 2>&1 || true
  fi
fi
(( checked )) || exit "$rc"

# ---- the verdict ---------------------------------------------------------------------------
cat "$out"
verdict() { echo "launch.sh: $*"; }
if (( rc == 77 && ! timed_out )); then
  verdict "SKIP: the run exited with status 77"
  exit 77
fi
why=()
has_pass=0
if [[ -n $PASS_RE ]] && tr -d '\0' <"$out" | grep -Ezq -e "$PASS_RE"; then has_pass=1; fi
if (( timed_out )); then
  why+=("killed after $TMO s (a hang)")
elif [[ $WANT == nonzero ]]; then
  (( rc != 0 )) || why+=("exit status 0, expected a failure (non-zero)")
elif (( rc != WANT )); then
  got="exit status $rc"
  (( rc > 128 && rc < 160 )) && got+=" (a process died of signal $(( rc - 128 )))"
  if (( has_pass )); then
    why+=("$got, expected $WANT: the run failed although the pass line appeared")
  else
    why+=("$got, expected $WANT")
  fi
fi
[[ -z $PASS_RE ]] || (( has_pass )) || why+=("no output matches the pass pattern '$PASS_RE'")
fail_re=$FAIL_RE
if [[ $WANT == 0 ]]; then fail_re=${FAIL_RE:+$FAIL_RE|}$KISHMEM_TEST_FAIL; fi
if [[ -n $fail_re ]] && line=$(grep -Ea -m1 -e "$fail_re" "$out"); then
  why+=("a line matches the fail pattern '$fail_re': $line")
fi
if (( ${#why[@]} )); then
  for w in "${why[@]}"; do verdict "FAIL: $w"; done
  exit 1
fi
if [[ $WANT == nonzero ]]; then
  verdict "PASS: failed as expected (exit status $rc) with a line matching '$PASS_RE'"
else
  verdict "PASS: exit status $rc${PASS_RE:+ and a line matching '$PASS_RE'}"
fi
exit 0
