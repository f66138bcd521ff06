// Builds without CUDA: the GPU form of select_topk is not available.
#include "internal.h"

namespace kishmem::ep {

int select_topk_gpu(cudaStream_t, const float*, int, int, int, int, int, int32_t*, float*) {
    topk_report("select_topk_gpu", "this build has no GPU support");
    return kNoGpu;
}

}  // namespace kishmem::ep
