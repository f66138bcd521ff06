file(REMOVE_RECURSE
  "CMakeFiles/kishmem.dir/src/alloc.cpp.o"
  "CMakeFiles/kishmem.dir/src/alloc.cpp.o.d"
  "CMakeFiles/kishmem.dir/src/amo.cpp.o"
  "CMakeFiles/kishmem.dir/src/amo.cpp.o.d"
  "CMakeFiles/kishmem.dir/src/rma.cpp.o"
  "CMakeFiles/kishmem.dir/src/rma.cpp.o.d"
  "CMakeFiles/kishmem.dir/src/setup.cpp.o"
  "CMakeFiles/kishmem.dir/src/setup.cpp.o.d"
  "CMakeFiles/kishmem.dir/src/sync.cpp.o"
  "CMakeFiles/kishmem.dir/src/sync.cpp.o.d"
  "libkishmem.pdb"
  "libkishmem.so"
  "libkishmem.so.0"
  "libkishmem.so.0.1.0"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/kishmem.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
