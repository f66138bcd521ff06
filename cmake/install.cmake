# `cmake --install` rules, the CMake package and the pkg-config file.
# Included at the end of the top-level CMakeLists.txt (after every add_subdirectory).
#
# <prefix>/
#   bin/                    kishmemcc, kishmemc++, kishmemrun, kishmem-info
#   include/                shmem.h, shmemx.h, kishmem/*.h (incl. the generated config.h);
#                           kishmem/ep/*.h (ep/CMakeLists.txt)
#   lib/                    libkishmem.so*; libkishmem_ep.so* (ep/), libkishmem_mpi.so* (mpi_ext/)
#   lib/cmake/kishmem/      kishmemConfig.cmake, kishmemConfigVersion.cmake, kishmemTargets*.cmake
#   lib/pkgconfig/          kishmem.pc
#
# Consumers need only -lkishmem: the runtime (OBJECT library kishmem_runtime) is inside the
# shared library and linked PRIVATE, so neither it nor PMIx/UCX appear in the exported target.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(KISHMEM_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/kishmem" CACHE STRING
  "Where the CMake package (kishmemConfig.cmake) is installed, relative to the prefix")
set(KISHMEM_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig" CACHE STRING
  "Where kishmem.pc is installed, relative to the prefix")
set(_ki_pkg ${PROJECT_BINARY_DIR}/kishmem-package)

# ---- the library ----------------------------------------------------------------------------------
target_include_directories(kishmem PUBLIC $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
# Installed, the library keeps the run paths of what it links outside the system directories
# (a PMIx or UCX of its own prefix), as the build tree's copy does.
set_target_properties(kishmem PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
install(TARGETS kishmem EXPORT kishmemTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# ---- public headers -----------------------------------------------------------------------------
# The whole public include directory (shmem.h, shmemx.h, kishmem/*.h), listed at install time,
# so a header added there later is installed without touching this file.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/shmem_api/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp" PATTERN "*.cuh")
# The device headers (kishmem/device/...): what shmem.h includes when nvcc compiles a kernel.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/device/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/kishmem/config.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kishmem)

# ---- programs -----------------------------------------------------------------------------------
file(RELATIVE_PATH _ki_bin_to_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
if(TARGET kishmem-info)
  set_target_properties(kishmem-info PROPERTIES
    INSTALL_RPATH "$ORIGIN/${_ki_bin_to_lib}" INSTALL_RPATH_USE_LINK_PATH TRUE)
  install(TARGETS kishmem-info RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
# kishmemcc, kishmemc++ (install-tree copies) and kishmemrun, from tools/wrappers.
get_property(_ki_programs GLOBAL PROPERTY KISHMEM_INSTALL_PROGRAMS)
if(_ki_programs)
  install(PROGRAMS ${_ki_programs} DESTINATION ${CMAKE_INSTALL_BINDIR})
else()
  message(WARNING "kishmem: tools/wrappers was not added before cmake/install.cmake: "
                  "kishmemcc, kishmemc++ and kishmemrun will not be installed")
endif()

# ---- CMake package: find_package(kishmem) -> kishmem::kishmem ----------------------------------
install(EXPORT kishmemTargets NAMESPACE kishmem:: DESTINATION ${KISHMEM_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/kishmemConfig.cmake.in
  ${_ki_pkg}/kishmemConfig.cmake
  INSTALL_DESTINATION ${KISHMEM_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR)
# 0.x: a new minor version may change the API.
write_basic_package_version_file(${_ki_pkg}/kishmemConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${_ki_pkg}/kishmemConfig.cmake ${_ki_pkg}/kishmemConfigVersion.cmake
  DESTINATION ${KISHMEM_INSTALL_CMAKEDIR})

# ---- pkg-config: kishmem.pc ---------------------------------------------------------------------
# `prefix` is the one `cmake --install --prefix P` really installs to, so the file is written at
# install time: configured now with every other value, finished by the install script.
foreach(d LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${d}}")
    set(KISHMEM_PC_${d} "${CMAKE_INSTALL_${d}}")
  else()
    set(KISHMEM_PC_${d} "\${prefix}/${CMAKE_INSTALL_${d}}")
  endif()
endforeach()
set(KISHMEM_PC_PREFIX "@KISHMEM_PC_PREFIX@")   # kept for the install-time step
configure_file(${CMAKE_CURRENT_LIST_DIR}/kishmem.pc.in ${_ki_pkg}/kishmem.pc.stage @ONLY)
install(CODE "set(_ki_pc_stage \"${_ki_pkg}/kishmem.pc.stage\")
  set(_ki_pc_out \"${_ki_pkg}/kishmem.pc\")")
install(CODE [[
  set(KISHMEM_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  configure_file("${_ki_pc_stage}" "${_ki_pc_out}" @ONLY)
]])
install(FILES ${_ki_pkg}/kishmem.pc DESTINATION ${KISHMEM_INSTALL_PKGCONFIGDIR})
