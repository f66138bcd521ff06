# The CPU proxy (kernels post descriptors, a host thread executes them), included by
# runtime/CMakeLists.txt into the kishmem_runtime OBJECT target. The executor always builds
# (host posters test it in CI); the device side (channels mapped into the GPU, the IPC heap
# access) only with CUDA.
set(_proxy ${CMAKE_CURRENT_LIST_DIR})
target_sources(kishmem_runtime PRIVATE ${_proxy}/proxy.cpp)
if(KISHMEM_HAVE_CUDA)
  target_sources(kishmem_runtime PRIVATE ${_proxy}/device_proxy.cpp)
endif()
unset(_proxy)
