#!/usr/bin/env bash
# tools/gpu/run_hosts.sh [--dry-run] [--cpu BUILD]: two simulated hosts x 2 PEs on one machine,
# kernels' operations crossing between them (docs/gpu.md, "Between hosts").
#
# Each host is a hostname (UTS) namespace over the machine's one network (no `ip` needed, UCX
# over TCP on lo): the launcher says which PEs share a host (mpirun starts one daemon per host
# through an rsh agent that enters the host's namespace, as tests/cluster does), so kishmem gives
# each host group its own GPU heap (CUDA IPC inside a group) and reaches the other host through
# the software NIC or the CPU proxy over UCX active messages, although every PE runs on the one
# GPU.  Under a private MPS daemon it builds and runs gpu_rma, gpu_remote, gpu_coll,
# 03_moe_dispatch_combine and 04_moe_ep with KISHMEM_REMOTE=ibgda and =proxy, the route report
# (kishmem-info --routes) and the device benchmark between the hosts (1 PE each), writes every
# log under $OUT (default ./gpu-hosts-results) and prints a PASS/FAIL summary; exit 0 only when
# everything passed.  The whole run keeps within HOSTS_BUDGET_S (default 330 s): each job has a
# limit of its own (tens of seconds) and jobs that no longer fit are skipped (said in the
# summary); PEs print what they wait for (KISHMEM_HANG_WARN=5) and give up well before their job
# is killed (KISHMEM_HANG_ABORT=20); after a failed job the MPS daemon is restarted, so that a
# GPU fault (which takes the MPS server down) does not fail every job after it; its logs are
# kept under $OUT/mps.
#
#   tools/gpu/run_hosts.sh                 on the GPU machine (as root: namespaces; without UCX
#                                          there, first tools/gpu/carry_ucx.sh on a machine with it)
#   tools/gpu/run_hosts.sh --dry-run       no GPU, nothing built: the hosts, the agent and the
#                                          launcher checked with `hostname` (PEs land 2 per host)
#   tools/gpu/run_hosts.sh --cpu BUILD     no GPU: the hosts plus the CPU programs of BUILD
#                                          (ibgda_sim_mp --am, proxy_mp) between them
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
MODE=gpu BUILD=$ROOT/build-gpu
case ${1:-} in
  --dry-run) MODE=dry ;;
  --cpu) MODE=cpu BUILD=$(cd "${2:?--cpu needs a build directory}" && pwd) ;;
  "") ;;
  *) sed -n '2,/^set -uo/p' "$0" | sed '$d'; exit 2 ;;
esac
RES=${OUT:-$ROOT/gpu-hosts-results}
mkdir -p "$RES"
T=$(mktemp -d /tmp/kishmem-hosts.XXXXXX)
HOSTS=(h1 h2) PPN=2
NP=$(( ${#HOSTS[@]} * PPN ))
HOSTLIST=$(printf '%s:'"$PPN"',' "${HOSTS[@]}"); HOSTLIST=${HOSTLIST%,}
source "$ROOT/tools/gpu/common.sh"
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,tcp
# The 4 PEs share the one GPU across the simulated hosts, but each host's launcher counts 2, for
# which the library would ask 32 hardware queues per PE (MPS gives its clients about 64 in all).
export KISHMEM_CUDA_CONNECTIONS=${KISHMEM_CUDA_CONNECTIONS:-16}

cleanup() {
  [[ -n ${CUDA_MPS_LOG_DIRECTORY:-} && -d $CUDA_MPS_LOG_DIRECTORY ]] && cp -r "$CUDA_MPS_LOG_DIRECTORY" "$RES/mps" 2>/dev/null
  mps_stop
  for h in "${HOSTS[@]}"; do umount "$T/uts-$h" 2>/dev/null; done
  rm -rf "$T"
}
trap cleanup EXIT

# ---- the hosts: one UTS namespace each, kept by a bind mount of its file ------------------
for tool in unshare nsenter mpirun; do
  command -v $tool >/dev/null || { echo "FAIL: $tool not found"; exit 1; }
done
for h in "${HOSTS[@]}"; do
  touch "$T/uts-$h"
  unshare --uts="$T/uts-$h" hostname "$h" || { echo "FAIL: cannot make host $h (unshare --uts needs root)"; exit 1; }
done
# The rsh agent: "AGENT [ssh options] HOST COMMAND-LINE" runs COMMAND-LINE in HOST's namespace,
# with the environment a fresh login would have (mpirun forwards the rest with -x).
cat > "$T/agent" <<EOF
#!/usr/bin/env bash
while (( \$# )); do case \$1 in -l|-p|-o|-i) shift 2 ;; -*) shift ;; *) break ;; esac; done
h=\${1#*@}; shift
exec nsenter --uts="$T/uts-\$h" env -i PATH="\$PATH" HOME="\${HOME:-/root}" LD_LIBRARY_PATH="\${LD_LIBRARY_PATH:-}" \\
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 /bin/sh -c "\$*"
EOF
chmod +x "$T/agent"

# mpirun across the hosts: daemons through the agent, its own traffic and UCX's on lo, every
# KISHMEM_/SHMEM_/UCX_/CUDA_ variable forwarded.
export UCX_TLS=${UCX_TLS:-tcp,self} UCX_NET_DEVICES=${UCX_NET_DEVICES:-lo}
hosts_mpirun() {
  local fwd=() name
  for name in $(compgen -e); do
    case $name in KISHMEM_*|SHMEM_*|UCX_*|CUDA_*|LD_LIBRARY_PATH) fwd+=(-x "$name") ;; esac
  done
  # (--mca plm rsh: a machine may set OMPI_MCA_plm=isolated, which starts nothing off this host)
  mpirun --mca plm rsh --mca plm_rsh_agent "$T/agent" --mca plm_rsh_no_tree_spawn 1 --mca oob_tcp_if_include lo \
    --mca btl_tcp_if_include lo --bind-to none "${fwd[@]}" "$@"
}

declare -a summary
fails=0 skips=0
note() {  # NAME STATUS(0 pass) DETAIL
  if (( $2 == 0 )); then summary+=("PASS  $1"); else summary+=("FAIL  $1  ($3)"); fails=$((fails + 1)); fi
}
# run NAME TIMEOUT PASS-REGEX MPIRUN-ARGS...: one job, its output in $RES/NAME.log.
# HOSTS_ONLY=REGEX runs only the jobs whose name matches; HOSTS_LIMIT_S caps each job's limit;
# a job that no longer fits in what is left of HOSTS_BUDGET_S is skipped.  A job past its limit
# gets SIGTERM (mpirun passes it on), then SIGKILL 5 s later; its log ends with the wait
# messages of the hung PEs (KISHMEM_HANG_WARN).  After a failed job on the GPU, MPS restarts.
BUDGET=${HOSTS_BUDGET_S:-330} START=$SECONDS
# HOSTS_STACKS_AFTER=SECONDS: a job still running then gets every host thread's stack of each of
# its PEs written to $RES/NAME.stacks.PID.  gdb where there is one: cuda-gdb's attach to a process
# under MPS fails ("Late attach is not supported with CUDA MPS") and ends the job (exit 127).
dump_stacks() {
  local pid dbg
  dbg=$(command -v gdb || command -v cuda-gdb) || { echo "run_hosts: no gdb: no stacks" >&2; return 0; }
  for pid in $(pgrep -f "^$BUILD/"); do
    timeout -k 5 60 "$dbg" -q -p "$pid" -batch -ex "info threads" -ex "thread apply all bt 40" \
      > "$RES/$1.stacks.$pid" 2>&1 &
  done
  wait
}
run() {
  local name=$1 limit=$2 pass=$3; shift 3
  local log=$RES/$name.log rc left=$(( BUDGET - (SECONDS - START) ))
  [[ -z ${HOSTS_ONLY:-} || $name =~ $HOSTS_ONLY ]] || return 0
  (( ${HOSTS_LIMIT_S:-0} > 0 && limit > HOSTS_LIMIT_S )) && limit=$HOSTS_LIMIT_S
  if (( left < limit / 2 || left < 15 )); then
    summary+=("SKIP  $name  (${left} s of the ${BUDGET} s budget left)"); skips=$((skips + 1)); return 0
  fi
  (( limit > left )) && limit=$left
  echo "== $name (limit ${limit} s, ${left} s of the budget left)"
  local t_start=$SECONDS
  timeout -k 5 "$limit" bash -c "$(declare -f hosts_mpirun); T='$T'; hosts_mpirun \"\$@\"" _ "$@" > "$log" 2>&1 &
  local job=$!
  if [[ -n ${HOSTS_STACKS_AFTER:-} ]]; then  # (a job that ends sooner is not held up)
    local t0=$SECONDS
    while kill -0 "$job" 2>/dev/null && (( SECONDS - t0 < HOSTS_STACKS_AFTER )); do sleep 0.5; done
    kill -0 "$job" 2>/dev/null && dump_stacks "$name"
  fi
  wait "$job"
  rc=$?
  local label="$name ($(( SECONDS - t_start )) s)"
  (( rc == 124 || rc == 137 )) && echo "run_hosts: killed after ${limit} s (job limit)" >> "$log"
  if (( rc != 0 )); then note "$label" 1 "exit $rc: $(grep -m1 -E 'FAIL|error|abort|waiting|giving up|killed' "$log" | cut -c1-150)"
  elif ! grep -qE "$pass" "$log"; then note "$label" 1 "no line matching '$pass'"
  elif grep -qE '^FAIL: |exited on signal' "$log"; then note "$label" 1 "$(grep -m1 -E '^FAIL: |exited on signal' "$log")"
  else note "$label" 0; return 0; fi
  mps_restart "$name"  # a GPU fault under MPS takes the server down: a fresh one for the next job
}

# ---- the hosts as the launcher sees them: 2 PEs per host name --------------------------------
timeout -k 5 30 bash -c "$(declare -f hosts_mpirun); T='$T'; hosts_mpirun \"\$@\"" _ --host "$HOSTLIST" -np "$NP" hostname \
  > "$RES/hostnames.log" 2> "$RES/hostnames.err"
# (the names from stdout only: mpirun's own warnings, e.g. the rsh agent's "setpgid ... failed",
# go to stderr and are no host)
got=$(sort "$RES/hostnames.log" | uniq -c | awk '{print $2 ":" $1}' | paste -sd, -)
[[ $got == "$HOSTLIST" ]]; note "hosts ($got)" $? "expected $HOSTLIST: $(head -3 "$RES/hostnames.log" "$RES/hostnames.err")"

if [[ $MODE == cpu ]]; then
  # The carriage of the NIC's operations with host heaps: same-host PEs by load/store, the other
  # host through UCX active messages (counts checked by the program), and the proxy's executor.
  export SHMEM_SYMMETRIC_SIZE=64M KISHMEM_HANG_ABORT=40 KISHMEM_YIELD=1 KISHMEM_TEST_MULTIHOST=1
  run cpu_ibgda_sim_mp_am 90 "PASS ibgda_sim_mp on $NP PEs" --host "$HOSTLIST" -np "$NP" "$BUILD/tests/ibgda/ibgda_sim_mp" --am
  run cpu_proxy_mp 90 "PASS proxy_mp on $NP PEs" --host "$HOSTLIST" -np "$NP" "$BUILD/tests/proxy/proxy_mp"
  run cpu_routes 60 "host calls: same-host PEs \(0-1\) by load/store, PEs on other hosts \(2-3\) through UCX" \
    --host "$HOSTLIST" -np "$NP" "$BUILD/tools/info/kishmem-info" --routes
fi

if [[ $MODE == gpu ]]; then
  gpu_env_file
  gpu_configure "$BUILD" || exit 1
  grep -q "kishmem: UCX" "$RES/configure.log" \
    || { echo "FAIL: no UCX headers found (pkg-config ucx): GPU heaps on other hosts need UCX"; exit 1; }
  gpu_build "$BUILD" gpu_rma gpu_remote gpu_coll 03_moe_dispatch_combine 04_moe_ep kishmem-info kishmem_gpu_perf || exit 1
  mps_start && echo "MPS daemon started"

  # The budget is counted from here (the build is not in it).  The most telling jobs first: the
  # route reports, then the device tests, the examples and the benchmark while time is left.
  START=$SECONDS
  export SHMEM_SYMMETRIC_SIZE=256M KISHMEM_HEAP=device KISHMEM_HANG_WARN=5 KISHMEM_HANG_ABORT=20 KISHMEM_YIELD=1
  R="GPU memory on this host group \(PEs 0-1 here.*other hosts through UCX active messages"
  for path in ibgda proxy; do
    KISHMEM_REMOTE=$path run "routes.$path" 20 "$R" --host "$HOSTLIST" -np "$NP" "$BUILD/tools/info/kishmem-info" --routes
  done
  KISHMEM_REMOTE=auto run routes.auto 20 \
    "kernels: same-host PEs \(0-1\) by load/store, PEs on other hosts \(2-3\) through the software NIC" \
    --host "$HOSTLIST" -np "$NP" "$BUILD/tools/info/kishmem-info" --routes
  for path in ibgda proxy; do
    KISHMEM_REMOTE=$path run "gpu_remote.$path" 40 "PASS gpu_remote .$path. on $NP PEs" --host "$HOSTLIST" -np "$NP" \
      "$BUILD/tests/gpu/gpu_remote"
  done
  for path in auto ibgda proxy; do
    KISHMEM_REMOTE=$path run "gpu_rma.$path" 40 "PASS gpu_rma on $NP PEs" --host "$HOSTLIST" -np "$NP" "$BUILD/tests/gpu/gpu_rma"
  done
  for path in ibgda proxy; do
    KISHMEM_REMOTE=$path run "gpu_coll.$path" 40 "PASS gpu_coll .$path. on $NP PEs" --host "$HOSTLIST" -np "$NP" \
      "$BUILD/tests/gpu/gpu_coll"
  done
  for path in ibgda proxy; do
    # the default shape, 3 timed rounds (the default 20 take about 80 s over the CPU proxy between
    # hosts: 3.0 s of dispatch and 0.8 s of combine per round)
    KISHMEM_REMOTE=$path run "moe03.$path" 60 "PASS 03_moe_dispatch_combine on $NP PEs" --host "$HOSTLIST" -np "$NP" \
      "$BUILD/examples/03_moe_dispatch_combine" 128 7168 8 32 3
    # a software NIC: a few rounds of a small layer, on a buffer of 128 tokens a PE (a decode
    # step's: the send-only combine once ran 128 blocks a PE here and stalled; it takes 369 MiB)
    SHMEM_SYMMETRIC_SIZE=512M KISHMEM_REMOTE=$path run "moe04_ep.$path" 60 "PASS 04_moe_ep on $NP PEs" --host "$HOSTLIST" -np "$NP" \
      "$BUILD/examples/04_moe_ep" --tokens 32 --max-tokens 128 --iters 3
  done
  # Device put latency and bandwidth between the hosts: one PE on each (--quick: fewer rounds,
  # collectives up to 2 KB; the full run takes minutes there).
  for path in ibgda proxy; do
    KISHMEM_REMOTE=$path run "perf.$path" 60 "RESULT kishmem sum_reduce_block 2048" --host "${HOSTS[0]}:1,${HOSTS[1]}:1" -np 2 \
      "$BUILD/tools/perf/gpu/kishmem_gpu_perf" --quick
  done
  grep -hE "^moe:|dispatch|combine" "$RES"/moe0*.log > "$RES/moe.txt" 2>/dev/null
fi

echo "---- run_hosts ($MODE): ${#HOSTS[@]} hosts x $PPN PEs, logs in $RES"
printf '%s\n' "${summary[@]}" | tee "$RES/summary.txt"
if (( fails == 0 && skips == 0 )); then echo "PASS run_hosts ($MODE)"
else echo "FAIL run_hosts ($MODE): $fails failed, $skips skipped (budget)"; fi
exit $(( fails + skips != 0 ))
