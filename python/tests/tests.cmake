# The Python package's tests (pytest), under the real launchers at 1, 2 and 4 PEs: the host heap
# and the CPU form of kishmem::ep, every result checked against NumPy/torch. Each pytest test has
# its own time limit (conftest.py: a stuck test prints where it waits and ends the run), and
# tests/launch.sh kills a run that outlives TIMEOUT. Registered only when the interpreter CMake
# found can import numpy, torch and pytest (Debian: python3-numpy python3-torch python3-pytest).
execute_process(COMMAND ${Python3_EXECUTABLE} -c "import numpy, torch, pytest"
  RESULT_VARIABLE _ki_py_deps OUTPUT_QUIET ERROR_QUIET)
if(NOT _ki_py_deps EQUAL 0)
  message(STATUS "kishmem: ${Python3_EXECUTABLE} cannot import numpy, torch and pytest: no Python tests")
  return()
endif()

# The launcher wrapper and the test environment that tests/CMakeLists.txt sets for every test.
foreach(v KISHMEM_LAUNCH KISHMEM_TEST_ENV)
  get_directory_property(${v} DIRECTORY ${PROJECT_SOURCE_DIR}/tests DEFINITION ${v})
endforeach()
set(_ki_pytest ${Python3_EXECUTABLE} -m pytest -p no:cacheprovider -q --color=no ${CMAKE_CURRENT_SOURCE_DIR}/tests)
set(_ki_pyenv "PYTHONPATH=${CMAKE_CURRENT_BINARY_DIR};PYTHONDONTWRITEBYTECODE=1;OMP_NUM_THREADS=1")

# kishmem_python_test(NAME FILE "LAUNCHERS" "NPES" ENV): pytest on FILE, each launcher, each PE count.
function(kishmem_python_test name file launchers npes env)
  foreach(launcher IN LISTS launchers)
    foreach(np IN LISTS npes)
      kishmem_launch_test(python.${name}.${launcher}.np${np} ${launcher} ${np} 240 "PASS python ${file} on ${np} PEs" ""
        "${KISHMEM_TEST_ENV};${_ki_pyenv};${env}" ${_ki_pytest}/${file})
    endforeach()
  endforeach()
endfunction()

foreach(t core ep bad)
  kishmem_python_test(${t} test_${t}.py "mpirun;srun" "1;2;4" "KISHMEM_HEAP=host")
endforeach()
# torchrun (no PMIx, no MPI): kishmem.init through torch.distributed's store; the same core and
# kishmem.ep tests through it, and the store bootstrap's own checks.
foreach(t core ep torchrun)
  kishmem_python_test(${t} test_${t}.py torchrun "2;4" "KISHMEM_HEAP=host")
endforeach()
# mpi4py: kishmem.init(comm=...) over MPI_COMM_WORLD and a split (skipped without mpi4py).
kishmem_python_test(mpi test_mpi.py mpirun "2;4" "KISHMEM_HEAP=host")
# The example and the benchmark, as users run them.
kishmem_launch_test(python.example_05.mpirun.np4 mpirun 4 240 "PASS 05_moe_ep on 4 PEs" "FAIL:"
  "${KISHMEM_TEST_ENV};${_ki_pyenv};KISHMEM_HEAP=host"
  ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/examples/05_moe_ep.py)
kishmem_launch_test(python.example_05.srun.np2 srun 2 240 "PASS 05_moe_ep on 2 PEs" "FAIL:"
  "${KISHMEM_TEST_ENV};${_ki_pyenv};KISHMEM_HEAP=host"
  ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/examples/05_moe_ep.py)
kishmem_launch_test(python.example_05.torchrun.np2 torchrun 2 240 "PASS 05_moe_ep on 2 PEs" "FAIL:"
  "${KISHMEM_TEST_ENV};${_ki_pyenv};KISHMEM_HEAP=host"
  ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/examples/05_moe_ep.py)
kishmem_launch_test(python.bench_ep.mpirun.np2 mpirun 2 240 "PASS bench_ep on 2 PEs" "FAIL:"
  "${KISHMEM_TEST_ENV};${_ki_pyenv};KISHMEM_HEAP=host"
  ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/bench_ep.py --tokens 16 --hidden 512 --rounds 3 --check)

# pip install ./python as python/README.md gives it (a CMake build of its own, kept in the build
# tree between runs; alone, so that the build has the cores), then that installed copy under
# mpirun: the package and the bundled libraries it loads are the installed ones, and they work.
execute_process(COMMAND ${Python3_EXECUTABLE} -m pip --version RESULT_VARIABLE _ki_pip OUTPUT_QUIET ERROR_QUIET)
if(_ki_pip EQUAL 0)
  set(_ki_pip_work ${CMAKE_CURRENT_BINARY_DIR}/pip-install)
  kishmem_checked_test(NAME python.pip_install TIMEOUT 870 PASS "PASS pip install" FAIL "FAIL:"
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tests/pip_install.sh ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR} ${_ki_pip_work})
  set_tests_properties(python.pip_install PROPERTIES RUN_SERIAL TRUE FIXTURES_SETUP python_pip)
  kishmem_launch_test(python.pip_installed.mpirun.np2 mpirun 2 240 "PASS pip-installed kishmem on PE 1 of 2" "FAIL:"
    "${KISHMEM_TEST_ENV};PYTHONPATH=${_ki_pip_work}/target;KISHMEM_PIP_TARGET=${_ki_pip_work}/target;PYTHONDONTWRITEBYTECODE=1;OMP_NUM_THREADS=1;KISHMEM_HEAP=host"
    ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tests/pip_smoke.py)
  set_tests_properties(python.pip_installed.mpirun.np2 PROPERTIES FIXTURES_REQUIRED python_pip)
else()
  message(STATUS "kishmem: ${Python3_EXECUTABLE} has no pip: no test of pip install ./python")
endif()

# GPU: the same package on the GPU heap and the GPU form (skipped without a GPU; run on the GPU
# machine under MPS, see python/README.md).
if(KISHMEM_HAVE_CUDA)
  foreach(np 1 2 4)
    kishmem_launch_test(python.gpu.mpirun.np${np} mpirun ${np} 240 "PASS python test_gpu.py on ${np} PEs" ""
      "SHMEM_SYMMETRIC_SIZE=1G;KISHMEM_HEAP=device;KISHMEM_HANG_ABORT=60;CUDA_MODULE_LOADING=EAGER;${_ki_pyenv}"
      ${_ki_pytest}/test_gpu.py)
    set_tests_properties(python.gpu.mpirun.np${np} PROPERTIES RESOURCE_LOCK gpu)
  endforeach()
endif()
