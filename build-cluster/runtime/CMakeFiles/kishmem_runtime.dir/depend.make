# Empty dependencies file for kishmem_runtime.
# This may be replaced when dependencies are built.
