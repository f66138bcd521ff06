file(REMOVE_RECURSE
  "01_ring"
  "01_ring.pdb"
  "CMakeFiles/01_ring.dir/01_ring.c.o"
  "CMakeFiles/01_ring.dir/01_ring.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/01_ring.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
