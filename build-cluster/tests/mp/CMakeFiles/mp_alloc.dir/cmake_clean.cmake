file(REMOVE_RECURSE
  "CMakeFiles/mp_alloc.dir/mp_alloc.c.o"
  "CMakeFiles/mp_alloc.dir/mp_alloc.c.o.d"
  "mp_alloc"
  "mp_alloc.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mp_alloc.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
