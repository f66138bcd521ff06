# Empty dependencies file for test_env.
# This may be replaced when dependencies are built.
