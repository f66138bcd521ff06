# Empty dependencies file for kishmem.
# This may be replaced when dependencies are built.
