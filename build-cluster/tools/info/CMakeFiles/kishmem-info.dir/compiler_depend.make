# Empty compiler generated dependencies file for kishmem-info.
# This may be replaced when dependencies are built.
