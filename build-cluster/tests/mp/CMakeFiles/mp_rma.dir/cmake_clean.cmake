file(REMOVE_RECURSE
  "CMakeFiles/mp_rma.dir/mp_rma.c.o"
  "CMakeFiles/mp_rma.dir/mp_rma.c.o.d"
  "mp_rma"
  "mp_rma.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mp_rma.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
