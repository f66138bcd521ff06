# IBGDA host side, included by runtime/CMakeLists.txt into the kishmem_runtime OBJECT target.
# The software NIC and the status line always build; the DEVX setup for real mlx5 devices only
# with rdma-core (libibverbs + libmlx5).
set(_ibgda ${CMAKE_CURRENT_LIST_DIR})
target_sources(kishmem_runtime PRIVATE
  ${_ibgda}/heap_access.cpp
  ${_ibgda}/sim_nic.cpp
  ${_ibgda}/sim_exec.cpp
  ${_ibgda}/ibgda_info.cpp
)
# Kernels posting over IBGDA (KISHMEM_REMOTE=ibgda with a device heap): per-peer QPs and the
# device QP table; needs the CUDA runtime.
if(KISHMEM_HAVE_CUDA)
  target_sources(kishmem_runtime PRIVATE
    ${_ibgda}/ipc_heap_access.cpp
    ${_ibgda}/device_qps_amo.cu
  )
endif()
# The WQE/CQE encoding shared with device code.
target_include_directories(kishmem_runtime PRIVATE ${PROJECT_SOURCE_DIR}/device/include)
if(KISHMEM_HAVE_VERBS)
  target_sources(kishmem_runtime PRIVATE
    ${_ibgda}/devx.cpp
    ${_ibgda}/devx_cq.cpp
    ${_ibgda}/devx_qp.cpp
    ${_ibgda}/devx_mr.cpp
  )
  target_compile_definitions(kishmem_runtime PRIVATE KISHMEM_HAVE_VERBS=1)
  target_link_libraries(kishmem_runtime PUBLIC PkgConfig::VERBS)
endif()
unset(_ibgda)
