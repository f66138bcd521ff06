// select_topk_gpu against select_topk on the same inputs (topk_cases.h: ties, equal node scores,
// -0.0/+0.0, NaN, infinities, subnormals, the most nodes and experts), experts and weights bit for
// bit, and both against the plain reference of the tie rule (ep/README.md). Inputs reach
// the device on the stream the kernel runs on. Exit 77 (skip) without a GPU.
#include <cuda_runtime.h>

#include <vector>

#include "../gpu/gpu_check.h"  // CK, GPU_TEST_INIT
#include "kishmem/ep/ep.h"
#include "topk_cases.h"

using namespace kishmem::ep;

int main() {
    GPU_TEST_INIT();
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    int fails = 0, n = 0;
    for (const topktest::Case& c : topktest::cases()) {
        const size_t rows = static_cast<size_t>(c.T) * c.K;
        std::vector<int32_t> ref_idx, cpu_idx(rows, -7), gpu_idx(rows, -9);
        std::vector<float> ref_w, cpu_w(rows, -7.0f), gpu_w(rows, -9.0f);
        topktest::reference(c, &ref_idx, &ref_w);
        if (select_topk(c.s.data(), c.T, c.E, c.K, c.max_nodes, c.epn, cpu_idx.data(), cpu_w.data()) != kOk) {
            std::fprintf(stderr, "FAIL: case %s: select_topk refused it\n", c.name.c_str());
            ++fails;
            continue;
        }
        float* s_d = nullptr;
        float* w_d = nullptr;
        int32_t* idx_d = nullptr;
        CK(cudaMalloc(&s_d, c.s.size() * 4));
        CK(cudaMalloc(&w_d, rows * 4));
        CK(cudaMalloc(&idx_d, rows * 4));
        CK(cudaMemcpyAsync(s_d, c.s.data(), c.s.size() * 4, cudaMemcpyHostToDevice, st));
        CK(cudaMemsetAsync(idx_d, 0xff, rows * 4, st));
        CK(cudaMemsetAsync(w_d, 0xff, rows * 4, st));
        if (select_topk_gpu(st, s_d, c.T, c.E, c.K, c.max_nodes, c.epn, idx_d, w_d) != kOk) {
            std::fprintf(stderr, "FAIL: case %s: select_topk_gpu failed\n", c.name.c_str());
            shmem_global_exit(1);
        }
        CK(cudaMemcpyAsync(gpu_idx.data(), idx_d, rows * 4, cudaMemcpyDeviceToHost, st));
        CK(cudaMemcpyAsync(gpu_w.data(), w_d, rows * 4, cudaMemcpyDeviceToHost, st));
        CK(cudaStreamSynchronize(st));
        fails += topktest::compare(c, "select_topk_gpu", gpu_idx.data(), gpu_w.data(), "select_topk", cpu_idx.data(), cpu_w.data());
        fails += topktest::compare(c, "select_topk_gpu", gpu_idx.data(), gpu_w.data(), "the reference", ref_idx.data(), ref_w.data());
        CK(cudaFree(s_d));
        CK(cudaFree(w_d));
        CK(cudaFree(idx_d));
        ++n;
    }
    if (fails) {
        std::fprintf(stderr, "FAIL: PE %d: ep_topk_gpu: %d of the checks failed\n", shmem_my_pe(), fails);
        shmem_global_exit(1);
    }
    std::printf("PASS ep_topk_gpu (%d cases)\n", n);
    shmem_finalize();
    return 0;
}
