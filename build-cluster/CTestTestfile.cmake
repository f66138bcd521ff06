# CMake generated Testfile for 
# Source directory: /work/main
# Build directory: /work/main/build-cluster
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
subdirs("runtime")
subdirs("shmem_api")
subdirs("tools")
subdirs("examples")
subdirs("tests")
