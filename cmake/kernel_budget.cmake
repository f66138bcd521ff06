# Kernel resource budget (tools/kernel_budget/README.md).  Every CUDA compile runs through
# tools/kernel_budget/nvcc_res.py, which keeps ptxas's report of each kernel (registers, static
# shared memory, stack frame) next to its object (OBJECT.res).  The script goes first and runs a
# launcher the user set (-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache, or the environment variable of
# that name) under it: ccache replays ptxas's output on a hit, so the report is written all the
# same.  Set here as a plain variable over the cache entry, so a reconfigure does not add it twice.
set(KISHMEM_KERNEL_BUDGET 0)
if(NOT KISHMEM_HAVE_CUDA)
  return()
endif()
find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND)
  message(STATUS "kishmem: no python3: kernel resources not recorded (no kernel_budget.all)")
  return()
endif()
find_program(KISHMEM_CXXFILT c++filt)
set(_kb_dir ${PROJECT_SOURCE_DIR}/tools/kernel_budget)
if(NOT ${_kb_dir}/nvcc_res.py IN_LIST CMAKE_CUDA_COMPILER_LAUNCHER)
  set(CMAKE_CUDA_COMPILER_LAUNCHER ${Python3_EXECUTABLE} ${_kb_dir}/nvcc_res.py ${CMAKE_CUDA_COMPILER_LAUNCHER})
endif()
set(KISHMEM_KERNEL_BUDGET 1)
