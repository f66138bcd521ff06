file(REMOVE_RECURSE
  "CMakeFiles/mp_amo.dir/mp_amo.c.o"
  "CMakeFiles/mp_amo.dir/mp_amo.c.o.d"
  "mp_amo"
  "mp_amo.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mp_amo.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
