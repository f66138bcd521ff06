file(REMOVE_RECURSE
  "CMakeFiles/test_mlx5.dir/test_mlx5.cpp.o"
  "CMakeFiles/test_mlx5.dir/test_mlx5.cpp.o.d"
  "test_mlx5"
  "test_mlx5.pdb"
  "test_mlx5[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_mlx5.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
