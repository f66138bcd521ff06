file(REMOVE_RECURSE
  "CMakeFiles/kishmem_perf_bench.dir/shmem_perf.c.o"
  "CMakeFiles/kishmem_perf_bench.dir/shmem_perf.c.o.d"
  "kishmem_perf_bench"
  "kishmem_perf_bench.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/kishmem_perf_bench.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
