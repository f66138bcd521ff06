# kishmem::ep GPU form (tests/gpu's helpers: skipped without a GPU; GPU heap under MPS on the GPU
# machine): over load/store at 2 and 4 PEs, over IBGDA (software NIC) and the CPU proxy at 2;
# select_topk_gpu against select_topk on the inputs of ep.topk (gpu.ep.topk.np1).
kishmem_gpu_exe(ep_gpu ep_gpu.cu)
target_link_libraries(ep_gpu PRIVATE kishmem_ep)
foreach(np 2 4)
  kishmem_gpu_test(gpu.ep.auto.np${np} ${np} ep_gpu "PASS ep_gpu on ${np} PEs" auto)
endforeach()
foreach(path ibgda proxy)
  kishmem_gpu_test(gpu.ep.${path}.np2 2 ep_gpu "PASS ep_gpu on 2 PEs" ${path})
endforeach()
kishmem_gpu_exe(ep_topk_gpu ep_topk_gpu.cu)
target_link_libraries(ep_topk_gpu PRIVATE kishmem_ep)
kishmem_gpu_test(gpu.ep.topk.np1 1 ep_topk_gpu "PASS ep_topk_gpu" auto)
