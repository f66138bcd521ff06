# Sourced by the tests/tools scripts that start programs with kishmemrun.
# mpirun_env: Open MPI's settings for these runs (as root too); a caller's value wins.
mpirun_env() {
  command -v mpirun >/dev/null || fail "mpirun not found (install openmpi-bin)"
  export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
  export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
  export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
  export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader,tcp}
}
# slurm_or_skip: exits 77 (CTest's skip) unless a Slurm cluster answers.
slurm_or_skip() {
  if [[ -z ${SLURM_CONF:-} || ! -r ${SLURM_CONF:-} ]] || ! command -v salloc >/dev/null ||
     ! timeout 10 scontrol ping >/dev/null 2>&1 || ! timeout 10 sinfo -h >/dev/null 2>&1; then
    echo "SKIP: no Slurm cluster reachable (run tests/slurm/up)"
    exit 77
  fi
}
