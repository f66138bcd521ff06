#!/usr/bin/env bash
# tools/dev.sh: install the Debian packages kishmem needs, build it, run the example or the tests.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

PACKAGES=(openmpi-bin libopenmpi-dev libpmix-dev libpmix-bin libucx-dev ucx-utils libibverbs-dev
          rdma-core ibverbs-providers ibverbs-utils slurmd slurmctld slurm-client munge
          pkg-config cmake g++ make libgtest-dev python3 gnuplot-nox iproute2
          clang libclang-rt-dev python3-dev python3-pybind11 python3-numpy python3-torch python3-pytest
          python3-mpi4py python3-pip)
BUILD_DIR=build
NVCC=/usr/local/cuda/bin/nvcc
# The interpreter that the python3-* packages above belong to: the Python package and its tests
# are built and run with it also where another python3 (pyenv, a venv) comes first in PATH and
# cannot import them (CMake would take that one, and register no Python test). PYTHON3=...
# picks another.
PYTHON3=${PYTHON3:-/usr/bin/python3}

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
          again on exit), then run ctest; then the sanitizer and fuzz steps below; exits
          non-zero when any step failed
  asan    an ASan+UBSan build (build-asan, no CUDA) of the unit tests and a selection of the
          multi-process tests at 2 PEs, run with LeakSanitizer: no leak or error may show
  fuzz    the libFuzzer targets (build-fuzz, clang; skipped without clang), each for
          KISHMEM_FUZZ_SECONDS (20) as a CTest test
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
  [[ -x $PYTHON3 ]] && args+=(-DPython3_EXECUTABLE="$PYTHON3" -DPYBIND11_PYTHON_EXECUTABLE_LAST="$PYTHON3")
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

# ---- ASan + UBSan + LeakSanitizer ----------------------------------------------------------
# A build of its own without CUDA: the unit tests and the multi-process tests below at 2 PEs over
# shared memory (teams, contexts and active sets among them), each process checked for leaks at
# exit.  Third-party leaks (PMIx, hwloc, Open MPI's launcher libraries) are suppressed in
# tests/sanitize/lsan.supp; none of kishmem's may be.
ASAN_DIR=build-asan
ASAN_MP_TESTS=(mp_rma mp_amo mp_sync mp_alloc api_teams api_ctx api_coll api_coll_active_set api_rma api_amo api_lock
               rel_gone rel_churn)
ASAN_TEST_RE='^unit\.|^mp\.mp_(rma|amo|sync|alloc)\.mpirun\.np2\.shm$|^api\.api_(teams|ctx|coll|coll_active_set|rma|amo|lock)\.np2\.shm$|^reliability\.(gone\.(exit|kill)\.mpirun|churn\.np2)$'
asan() {
  local san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
  cmake -S . -B "$ASAN_DIR" -DKISHMEM_ENABLE_CUDA=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS="$san" -DCMAKE_CXX_FLAGS="$san" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
  local targets=("${ASAN_MP_TESTS[@]}") f
  for f in tests/unit/test_*.cpp; do f=${f##*/}; targets+=("${f%.cpp}"); done
  cmake --build "$ASAN_DIR" -j"$(nproc)" --target "${targets[@]}"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86 \
  LSAN_OPTIONS=suppressions=$ROOT/tests/sanitize/lsan.supp:print_suppressions=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "$ASAN_DIR" --output-on-failure -j2 --timeout 300 -R "$ASAN_TEST_RE"
}

# ---- libFuzzer (clang) -------------------------------------------------------------------------
FUZZ_DIR=build-fuzz
fuzz() {
  if ! command -v clang++ >/dev/null || ! command -v clang >/dev/null; then
    log "clang is not installed: the fuzz targets are skipped"
    return 0
  fi
  CC=clang CXX=clang++ cmake -S . -B "$FUZZ_DIR" -DKISHMEM_ENABLE_CUDA=OFF -DKISHMEM_FUZZ=ON \
    -DKISHMEM_FUZZ_SECONDS="${KISHMEM_FUZZ_SECONDS:-20}" >/dev/null
  cmake --build "$FUZZ_DIR" -j"$(nproc)" --target fuzz_env fuzz_blob fuzz_wqe
  ctest --test-dir "$FUZZ_DIR" --output-on-failure -j2 -L fuzz
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
    # The sanitizer and fuzz steps take about 3 and 1 minutes on a quiet 2-core machine.  Under
    # a time budget (KISHMEM_TEST_BUDGET_S, seconds for all of dev.sh test; .ci/run sets it), a
    # step that would not fit any more is skipped, saying so, rather than the whole run killed.
    budget=${KISHMEM_TEST_BUDGET_S:-0}
    fits() { (( budget <= 0 || SECONDS + $1 + 30 <= budget )) || { log "SKIPPED: the $2 step (about $1 s) does not fit in the $(( budget - SECONDS )) s left of KISHMEM_TEST_BUDGET_S=$budget"; return 1; }; }
    log "main tests: ${SECONDS} s since dev.sh started"
    t0=$SECONDS
    if fits 240 ASan+UBSan; then
      asan || { log "the ASan+UBSan tests failed"; rc=1; }
      log "ASan+UBSan step: $(( SECONDS - t0 )) s"
    fi
    t0=$SECONDS
    if fits 90 fuzz; then
      fuzz || { log "the fuzz tests failed"; rc=1; }
      log "fuzz step: $(( SECONDS - t0 )) s"
    fi
    exit "$rc"
    ;;
  asan) deps; trap stop_slurm EXIT; ensure_slurm; asan ;;
  fuzz) deps; fuzz ;;
  '') usage >&2; exit 2 ;;
  *) log "unknown command '$cmd'"; usage >&2; exit 2 ;;
esac
