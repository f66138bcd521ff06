file(REMOVE_RECURSE
  "CMakeFiles/mp_sync.dir/mp_sync.c.o"
  "CMakeFiles/mp_sync.dir/mp_sync.c.o.d"
  "mp_sync"
  "mp_sync.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mp_sync.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
