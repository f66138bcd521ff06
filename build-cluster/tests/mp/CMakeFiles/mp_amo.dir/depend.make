# Empty dependencies file for mp_amo.
# This may be replaced when dependencies are built.
