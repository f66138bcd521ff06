// select_topk, GPU form: one thread per token on the caller's stream.
#include <cuda_runtime.h>

#include <cstdio>

#include "internal.h"
#include "kishmem/device/state.h"
#include "topk_row.h"

namespace kishmem::ep {

namespace {
__global__ void select_topk_kernel(const float* s, int T, int E, int K, int max_nodes, int epn, int32_t* idx, float* w) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < T)
        select_row(s + static_cast<size_t>(t) * E, E, K, max_nodes, epn, idx + static_cast<size_t>(t) * K,
                   w ? w + static_cast<size_t>(t) * K : nullptr);
}
// Loaded at init, not at a first launch behind a kernel that waits (kishmem/device/state.h).
const kishmem::device::PreloadKernels<select_topk_kernel> g_preload;
}  // namespace

int select_topk_gpu(cudaStream_t stream, const float* scores, int T, int E, int K, int max_nodes, int epn, int32_t* idx,
                    float* weights) {
    if (const int rc = topk_args_bad("select_topk_gpu", T, E, K, max_nodes, epn, scores, idx)) return rc;
    if (T == 0) return kOk;
    select_topk_kernel<<<(T + 127) / 128, 128, 0, stream>>>(scores, T, E, K, max_nodes, epn, idx, weights);
    const cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) return kOk;
    char m[160];
    std::snprintf(m, sizeof m, "kernel launch failed: %s", cudaGetErrorString(e));
    topk_report("select_topk_gpu", m);
    return kBadArgument;
}

}  // namespace kishmem::ep
