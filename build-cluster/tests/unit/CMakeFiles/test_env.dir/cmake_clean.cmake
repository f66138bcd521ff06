file(REMOVE_RECURSE
  "CMakeFiles/test_env.dir/test_env.cpp.o"
  "CMakeFiles/test_env.dir/test_env.cpp.o.d"
  "test_env"
  "test_env.pdb"
  "test_env[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_env.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
