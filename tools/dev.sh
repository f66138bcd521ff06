#!/usr/bin/env bash
# tools/dev.sh: install the Debian packages kishmem needs, build it, run the example or the tests.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

PACKAGES=(openmpi-bin libopenmpi-dev libpmix-dev libpmix-bin libucx-dev ucx-utils libibverbs-dev
          rdma-core ibverbs-providers ibverbs-utils slurmd slurmctld slurm-client munge
          pkg-config cmake g++ make libgtest-dev python3 gnuplot-nox iproute2)
BUILD_DIR=build
NVCC=/usr/local/cuda/bin/nvcc

# Open MPI as root, more ranks than cores, fast start-up on one node.
export OMPI_ALLOW_RUN_AS_ROOT=1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_pml=ob1
export OMPI_MCA_btl=self,vader,tcp

usage() {
  cat <<'USAGE'
usage: tools/dev.sh COMMAND
  deps    install the missing Debian packages (as root; otherwise prints the apt-get command)
  build   deps, then configure into build/ (RelWithDebInfo) and build
  main    build, then run the flagship (build/examples/04_moe_ep: MoE dispatch/combine with
          kishmem::ep, checked against the CPU, timed) on 4 PEs with mpirun; `main --np N`
          for N PEs, further arguments go to the flagship (e.g. --format bf16)
  perf    build, then the host benchmarks side by side with Open MPI's OSHMEM
          (tools/perf/kishmem-perf --compare; further arguments are passed on)
  test    build, start a private one-node Slurm if none is reachable (root only; stopped
          again on exit), then run ctest; exits with ctest's status
  -h, --help   this text
USAGE
}

log() { echo "dev.sh: $*" >&2; }

deps() {
  local missing=() p st
  for p in "${PACKAGES[@]}"; do
    st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [[ $st == "install ok installed" ]] || missing+=("$p")
  done
  if (( ${#missing[@]} == 0 )); then
    log "all ${#PACKAGES[@]} Debian packages are installed"
    return 0
  fi
  log "missing Debian packages: ${missing[*]}"
  local install="DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    log "not root; run this as root, then try again:"
    echo "apt-get update && $install"
    exit 1
  fi
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
}

build() {
  if [[ ! -f CMakeLists.txt ]]; then
    log "no CMakeLists.txt in $ROOT"
    exit 1
  fi
  local args=(-S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo)
  [[ -x $NVCC ]] && args+=(-DCMAKE_CUDA_COMPILER="$NVCC")
  cmake "${args[@]}"
  cmake --build "$BUILD_DIR" -j"$(nproc)"
}

# True when SLURM_CONF names a readable config whose controller answers and sinfo works.
# (A missing file makes sinfo retry for a minute and a dead controller for ~9 s; `scontrol
# ping` answers at once.)
slurm_reachable() {
  [[ -n ${SLURM_CONF:-} && -r ${SLURM_CONF:-} ]] || return 1
  timeout 10 scontrol ping >/dev/null 2>&1 && timeout 10 sinfo -h >/dev/null 2>&1
}

SLURM_STARTED=0
stop_slurm() {
  # A run killed mid-way (CI timeout) must not leave the simulated cluster of tests/cluster up.
  [[ -x $ROOT/tests/cluster/fixture ]] && KISHMEM_CLUSTER_HOLDER=$$ "$ROOT/tests/cluster/fixture" down >/dev/null 2>&1 || true
  if (( SLURM_STARTED )); then
    SLURM_STARTED=0
    "$ROOT/tests/slurm/down" || log "tests/slurm/down failed"
  fi
}

ensure_slurm() {
  if slurm_reachable; then
    log "using the Slurm cluster at SLURM_CONF=$SLURM_CONF"
    return 0
  fi
  # A cluster from an earlier tests/slurm/up in the default place: use it, leave it running.
  local conf=${KISHMEM_SLURM_DIR:-/tmp/kishmem-slurm}/slurm.conf
  if SLURM_CONF=$conf slurm_reachable; then
    export SLURM_CONF=$conf
    log "using the running Slurm cluster at SLURM_CONF=$SLURM_CONF"
    return 0
  fi
  if [[ $(id -u) -ne 0 ]]; then
    log "no Slurm cluster reachable and not root: the srun tests will be skipped"
    unset SLURM_CONF
    return 0
  fi
  SLURM_STARTED=1
  local out
  out=$("$ROOT/tests/slurm/up")
  local line=${out##*$'\n'}
  [[ $line == "export SLURM_CONF="* ]] || { log "unexpected output from tests/slurm/up: $line"; exit 1; }
  export SLURM_CONF=${line#export SLURM_CONF=}
  log "started a private Slurm cluster (SLURM_CONF=$SLURM_CONF)"
}

cmd=${1:-}
case $cmd in
  -h|--help|help) usage; exit 0 ;;
  deps) deps ;;
  build) deps; build ;;
  main)
    deps
    build
    shift
    np=4
    if [[ ${1:-} == --np ]]; then np=${2:?--np needs a number}; shift 2; fi
    exec "$ROOT/tests/launch.sh" mpirun "$np" 600 -- "$BUILD_DIR/examples/04_moe_ep" "$@"
    ;;
  perf)
    deps
    build
    shift
    exec "$ROOT/tools/perf/kishmem-perf" --compare --build "$BUILD_DIR" "$@"
    ;;
  test)
    deps
    build
    trap stop_slurm EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    ensure_slurm
    rc=0
    ctest --test-dir "$BUILD_DIR" --output-on-failure -j2 --timeout 300 || rc=$?
    exit "$rc"
    ;;
  '') usage >&2; exit 2 ;;
  *) log "unknown command '$cmd'"; usage >&2; exit 2 ;;
esac
