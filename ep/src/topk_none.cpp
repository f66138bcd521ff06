// Builds without CUDA: the GPU form of select_topk is not available.
#include <cstdio>

#include "internal.h"

namespace kishmem::ep {

int select_topk_gpu(cudaStream_t, const float*, int, int, int, int, int, int32_t*, float*) {
    std::fprintf(stderr, "kishmem: kishmem::ep::select_topk_gpu: PE %d: this build has no GPU support\n", shmem_my_pe());
    return kNoGpu;
}

}  // namespace kishmem::ep
