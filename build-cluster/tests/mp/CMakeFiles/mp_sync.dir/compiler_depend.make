# Empty compiler generated dependencies file for mp_sync.
# This may be replaced when dependencies are built.
