# Empty compiler generated dependencies file for mp_rma.
# This may be replaced when dependencies are built.
