# CMake generated Testfile for 
# Source directory: /work/main/tests/unit
# Build directory: /work/main/build-cluster/tests/unit
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
include("/work/main/build-cluster/tests/unit/test_allocator[1]_include.cmake")
include("/work/main/build-cluster/tests/unit/test_blob[1]_include.cmake")
include("/work/main/build-cluster/tests/unit/test_env[1]_include.cmake")
include("/work/main/build-cluster/tests/unit/test_mlx5[1]_include.cmake")
