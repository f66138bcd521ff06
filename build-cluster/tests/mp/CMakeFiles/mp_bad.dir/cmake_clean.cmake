file(REMOVE_RECURSE
  "CMakeFiles/mp_bad.dir/mp_bad.c.o"
  "CMakeFiles/mp_bad.dir/mp_bad.c.o.d"
  "mp_bad"
  "mp_bad.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mp_bad.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
