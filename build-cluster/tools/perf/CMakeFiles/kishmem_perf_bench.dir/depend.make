# Empty dependencies file for kishmem_perf_bench.
# This may be replaced when dependencies are built.
