file(REMOVE_RECURSE
  "CMakeFiles/kishmem_runtime.dir/src/bootstrap/bootstrap.cpp.o"
  "CMakeFiles/kishmem_runtime.dir/src/bootstrap/bootstrap.cpp.o.d"
  "CMakeFiles/kishmem_runtime.dir/src/bootstrap/pmix.cpp.o"
  "CMakeFiles/kishmem_runtime.dir/src/bootstrap/pmix.cpp.o.d"
  "CMakeFiles/kishmem_runtime.dir/src/env.cpp.o"
  "CMakeFiles/kishmem_runtime.dir/src/env.cpp.o.d"
  "CMakeFiles/kishmem_runtime.dir/src/heap/allocator.cpp.o"
  "CMakeFiles/kishmem_runtime.dir/src/heap/allocator.cpp.o.d"
  "CMakeFiles/kishmem_runtime.dir/src/heap/heap.cpp.o"
  "CMakeFiles/kishmem_runtime.dir/src/heap/heap.cpp.o.d"
  "CMakeFiles/kishmem_runtime.dir/src/heap/segment.cpp.o"
  "CMakeFiles/kishmem_runtime.dir/src/heap/segment.cpp.o.d"
  "CMakeFiles/kishmem_runtime.dir/src/init.cpp.o"
  "CMakeFiles/kishmem_runtime.dir/src/init.cpp.o.d"
  "CMakeFiles/kishmem_runtime.dir/src/log.cpp.o"
  "CMakeFiles/kishmem_runtime.dir/src/log.cpp.o.d"
  "CMakeFiles/kishmem_runtime.dir/src/rma.cpp.o"
  "CMakeFiles/kishmem_runtime.dir/src/rma.cpp.o.d"
  "CMakeFiles/kishmem_runtime.dir/src/sync.cpp.o"
  "CMakeFiles/kishmem_runtime.dir/src/sync.cpp.o.d"
  "CMakeFiles/kishmem_runtime.dir/src/transport/ucx/ucx.cpp.o"
  "CMakeFiles/kishmem_runtime.dir/src/transport/ucx/ucx.cpp.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/kishmem_runtime.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
