file(REMOVE_RECURSE
  "CMakeFiles/kishmem-info.dir/kishmem_info.cpp.o"
  "CMakeFiles/kishmem-info.dir/kishmem_info.cpp.o.d"
  "kishmem-info"
  "kishmem-info.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/kishmem-info.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
