# Empty dependencies file for mp_alloc.
# This may be replaced when dependencies are built.
