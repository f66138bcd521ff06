# Empty dependencies file for 01_ring.
# This may be replaced when dependencies are built.
