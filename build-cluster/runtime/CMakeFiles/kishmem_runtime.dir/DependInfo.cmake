
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/runtime/src/bootstrap/bootstrap.cpp" "runtime/CMakeFiles/kishmem_runtime.dir/src/bootstrap/bootstrap.cpp.o" "gcc" "runtime/CMakeFiles/kishmem_runtime.dir/src/bootstrap/bootstrap.cpp.o.d"
  "/work/main/runtime/src/bootstrap/pmix.cpp" "runtime/CMakeFiles/kishmem_runtime.dir/src/bootstrap/pmix.cpp.o" "gcc" "runtime/CMakeFiles/kishmem_runtime.dir/src/bootstrap/pmix.cpp.o.d"
  "/work/main/runtime/src/env.cpp" "runtime/CMakeFiles/kishmem_runtime.dir/src/env.cpp.o" "gcc" "runtime/CMakeFiles/kishmem_runtime.dir/src/env.cpp.o.d"
  "/work/main/runtime/src/heap/allocator.cpp" "runtime/CMakeFiles/kishmem_runtime.dir/src/heap/allocator.cpp.o" "gcc" "runtime/CMakeFiles/kishmem_runtime.dir/src/heap/allocator.cpp.o.d"
  "/work/main/runtime/src/heap/heap.cpp" "runtime/CMakeFiles/kishmem_runtime.dir/src/heap/heap.cpp.o" "gcc" "runtime/CMakeFiles/kishmem_runtime.dir/src/heap/heap.cpp.o.d"
  "/work/main/runtime/src/heap/segment.cpp" "runtime/CMakeFiles/kishmem_runtime.dir/src/heap/segment.cpp.o" "gcc" "runtime/CMakeFiles/kishmem_runtime.dir/src/heap/segment.cpp.o.d"
  "/work/main/runtime/src/init.cpp" "runtime/CMakeFiles/kishmem_runtime.dir/src/init.cpp.o" "gcc" "runtime/CMakeFiles/kishmem_runtime.dir/src/init.cpp.o.d"
  "/work/main/runtime/src/log.cpp" "runtime/CMakeFiles/kishmem_runtime.dir/src/log.cpp.o" "gcc" "runtime/CMakeFiles/kishmem_runtime.dir/src/log.cpp.o.d"
  "/work/main/runtime/src/rma.cpp" "runtime/CMakeFiles/kishmem_runtime.dir/src/rma.cpp.o" "gcc" "runtime/CMakeFiles/kishmem_runtime.dir/src/rma.cpp.o.d"
  "/work/main/runtime/src/sync.cpp" "runtime/CMakeFiles/kishmem_runtime.dir/src/sync.cpp.o" "gcc" "runtime/CMakeFiles/kishmem_runtime.dir/src/sync.cpp.o.d"
  "/work/main/runtime/src/transport/ucx/ucx.cpp" "runtime/CMakeFiles/kishmem_runtime.dir/src/transport/ucx/ucx.cpp.o" "gcc" "runtime/CMakeFiles/kishmem_runtime.dir/src/transport/ucx/ucx.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
