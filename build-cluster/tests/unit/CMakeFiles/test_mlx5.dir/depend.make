# Empty dependencies file for test_mlx5.
# This may be replaced when dependencies are built.
