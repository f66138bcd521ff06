# Kernel resource budget (tools/kernel_budget/README.md).  Every CUDA compile runs through
# tools/kernel_budget/nvcc_res.py, which keeps ptxas's report of each kernel (registers, static
# shared memory, stack frame) next to its object (OBJECT.res); the test kernel_budget.all
# (tests/tools) compares the reports with tools/kernel_budget/budget.txt, and the target
# kernel_budget_update rewrites that table from this build.  The script goes first and runs a
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
set(KISHMEM_KERNEL_BUDGET_CMD ${Python3_EXECUTABLE} ${_kb_dir}/kernel_budget.py --build ${PROJECT_BINARY_DIR}
  --table ${_kb_dir}/budget.txt --arch sm_90 --cxxfilt ${KISHMEM_CXXFILT} --nvcc-version ${CMAKE_CUDA_COMPILER_VERSION})
# Build first (cmake --build build), then this: budget.txt gets this build's figures.
add_custom_target(kernel_budget_update COMMAND ${KISHMEM_KERNEL_BUDGET_CMD} --update VERBATIM USES_TERMINAL)
