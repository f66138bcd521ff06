# Empty compiler generated dependencies file for mp_bad.
# This may be replaced when dependencies are built.
