# tools/gpu/common.sh: sourced by the GPU machine's scripts (tools/gpu/run.sh, progress.sh,
# sanitize.sh, run_hosts.sh, all.sh, ep/bench/gpu_run.sh) for what they all do the same way.
#   gpu_begin NAME        a stage's start: the repository root (ROOT, the working directory),
#                         RES (=$OUT, else ./NAME), a temporary directory T removed at exit (with
#                         the MPS daemon, if one was started), env.txt
# The functions below need ROOT, RES and T set.
#   gpu_env_file          the machine, the compilers, the launcher and the commit, into $RES/env.txt
#   gpu_configure DIR [ARGS...]  configure DIR (Release, this machine's nvcc, PMIx headers carried
#                         in .gpu-deps/pmix/include where the machine lacks them, then ARGS for
#                         CMake; $RES/configure.log)
#   gpu_build DIR TGT...  build TGT... in DIR ($RES/build.log);
#                         both return non-zero on failure, having printed the errors
#   mps_start / mps_stop  a private MPS daemon (several PEs on one GPU), its pipe and log
#                         directories under $T; mps_stop waits until its server has gone (found by
#                         command line: pgrep -x sees only a name's first 15 characters)
#   mps_restart NAME      after a failed job: the server log's tail into $RES/mps-restarts.log and a
#                         fresh daemon (a GPU fault under MPS takes the server down)
#   nvshmem_build SRC OUT [NVCC-FLAGS...]  NVSHMEM (the Python wheel, else any libnvshmem_host)
#                         linked into OUT with MPI; log in $RES/nvshmem_build.log; non-zero when
#                         NVSHMEM is missing (NV empty) or the build fails; an OUT newer than SRC
#                         is kept (the GPU pass builds both peers beside kishmem)
gpu_begin() {
  ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  cd "$ROOT" || exit 1
  RES=${OUT:-$ROOT/$1}
  mkdir -p "$RES"
  T=$(mktemp -d)
  trap 'mps_stop; rm -rf "$T"' EXIT
  gpu_env_file
}

# Every stage's builds and runs take the machine's UCX, else the copy carried in .gpu-deps/ucx
# (carry_ucx.sh): a build without UCX cannot reach the simulated hosts.
_ucx=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.gpu-deps/ucx
if ! pkg-config --exists ucx 2>/dev/null && [[ -d $_ucx/lib/pkgconfig ]]; then
  export PKG_CONFIG_PATH=$_ucx/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
  export LD_LIBRARY_PATH=$_ucx/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export CUDA_MODULE_LOADING=EAGER NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0

gpu_env_file() {
  { date -u; nvidia-smi -L; nvcc --version | tail -1; mpirun --version | head -1
    git -C "$ROOT" rev-parse HEAD 2>/dev/null || true; } > "$RES/env.txt" 2>&1
}

gpu_configure() {  # DIR [CMAKE ARGS...]
  local dir=$1 gen=()
  shift
  command -v ninja >/dev/null && gen=(-G Ninja)
  cmake -S "$ROOT" -B "$dir" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" \
    -DKISHMEM_PMIX_INCLUDE_HINT="$ROOT/.gpu-deps/pmix/include" "$@" > "$RES/configure.log" 2>&1 \
    || { tail -30 "$RES/configure.log"; return 1; }
  grep -E "kishmem:" "$RES/configure.log"
  : > "$RES/build.log"  # this run's builds only
}
gpu_build() {
  local dir=$1; shift
  local from
  from=$(( $(wc -l < "$RES/build.log" 2>/dev/null || echo 0) + 1 ))
  cmake --build "$dir" -j"$(nproc)" --target "$@" >> "$RES/build.log" 2>&1 \
    || { tail -n +"$from" "$RES/build.log" | grep -E "error:|error [A-Z]|FAILED|\*\*\*" | head -30; return 1; }
}

mps_up=0
mps_start() {
  export CUDA_MPS_PIPE_DIRECTORY=$T/mps CUDA_MPS_LOG_DIRECTORY=$T/mpslog
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  nvidia-cuda-mps-control -d && mps_up=1
}
mps_stop() {
  (( mps_up )) || return 0
  echo quit | timeout 10 nvidia-cuda-mps-control >/dev/null 2>&1
  mps_up=0
  for _ in $(seq 20); do pgrep -u "$(id -u)" -f nvidia-cuda-mps-server >/dev/null || break; sleep 0.5; done
}
mps_restart() {
  (( mps_up )) || return 0
  { echo "---- MPS after $1"; tail -20 "$CUDA_MPS_LOG_DIRECTORY/server.log" 2>/dev/null; } >> "$RES/mps-restarts.log"
  mps_stop; mps_start && echo "MPS daemon restarted after $1"
}

NV=
nvshmem_build() {
  local src=$1 out=$2; shift 2
  NV=$(python3 -c 'import nvidia.nvshmem as m; print(list(m.__path__)[0])' 2>/dev/null)
  [[ -n $NV ]] || NV=$(dirname "$(dirname "$(find / -name 'libnvshmem_host.so*' -print -quit 2>/dev/null)")" 2>/dev/null)
  [[ -n $NV && -d $NV/include ]] || { NV=; echo "NVSHMEM not found" > "$RES/nvshmem_build.log"; return 1; }
  [[ $out -nt $src ]] && return 0
  mkdir -p "$T/nvlib" "$(dirname "$out")" && for f in "$NV"/lib/libnvshmem_host.so.*; do ln -sf "$f" "$T/nvlib/libnvshmem_host.so"; done
  local mpi_inc mpi_lib
  mpi_inc=$(for d in $(mpicxx --showme:incdirs); do printf -- '-I%s ' "$d"; done)
  mpi_lib=$(for d in $(mpicxx --showme:libdirs); do printf -- '-L%s ' "$d"; done)
  # shellcheck disable=SC2086  # the MPI flags are words
  nvcc -O3 -rdc=true -arch=sm_90 "$@" -I"$NV/include" $mpi_inc "$src" -o "$out" -L"$T/nvlib" -L"$NV/lib" $mpi_lib \
    -lmpi -lnvshmem_host -lnvshmem_device -lcuda -Xlinker -rpath -Xlinker "$NV/lib" > "$RES/nvshmem_build.log" 2>&1
}
