// ep/bench/host_cost.cu: what each CUDA call on the GPU form's per-call path costs the host (one
// process, no kishmem): the checks a dispatch or combine makes before its launch (is the stream
// being captured, where a pointer lives, the device count) and the launches themselves, with an
// argument block of Args' size (232 bytes) and with 8 bytes. Median and 90th percentile of 4000
// calls each, host clock around the single call; the GPU is kept busy ahead of the launches
// (a kernel that waits) so no launch waits for a free slot or a completed one. Built and run by
// `ep/bench/gpu_run.sh profile` (plain nvcc, -lcuda).
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "cuda_check.h"

struct Big {
    char b[232];
};
__global__ void empty_small(int) {}
__global__ void empty_big(const __grid_constant__ Big) {}
__global__ void spin(unsigned long long ns) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); while (t - t0 < ns);
}

int main() {
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    void* dev = nullptr;
    CK(cudaMalloc(&dev, 1 << 20));
    void* host = std::malloc(1 << 20);
    CK(cuInit(0) == CUDA_SUCCESS ? cudaSuccess : cudaErrorUnknown);
    using clk = std::chrono::steady_clock;
    std::printf("| call | median | p90 |\n| --- | ---: | ---: |\n");
    auto time = [&](const char* name, const std::function<void()>& f, bool launches) {
        constexpr int kN = 4000, kBatch = 200;
        std::vector<double> d;
        for (int i = 0; i < kN + 100; ++i) {
            if (launches && i % kBatch == 0) {  // the GPU busy ahead of the next batch
                CK(cudaStreamSynchronize(s));
                spin<<<1, 1, 0, s>>>(2000000);
            }
            const auto t0 = clk::now();
            f();
            const double us = std::chrono::duration<double, std::micro>(clk::now() - t0).count();
            if (i >= 100) d.push_back(us);
        }
        CK(cudaStreamSynchronize(s));
        std::sort(d.begin(), d.end());
        std::printf("| %s | %.2f us | %.2f us |\n", name, d[d.size() / 2], d[d.size() * 9 / 10]);
    };
    cudaStreamCaptureStatus cs;
    int n = 0;
    cudaPointerAttributes pa;
    unsigned int mt = 0;
    Big big{};
    time("cudaStreamIsCapturing", [&] { (void)cudaStreamIsCapturing(s, &cs); }, false);
    time("cudaGetDeviceCount", [&] { (void)cudaGetDeviceCount(&n); }, false);
    time("cudaPointerGetAttributes (device memory)", [&] { (void)cudaPointerGetAttributes(&pa, dev); }, false);
    time("cudaPointerGetAttributes (malloc'd host memory)", [&] { (void)cudaPointerGetAttributes(&pa, host); }, false);
    time("cuPointerGetAttribute MEMORY_TYPE (device memory)",
         [&] { (void)cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(dev)); }, false);
    time("cudaGetLastError", [&] { (void)cudaGetLastError(); }, false);
    time("launch <<<1, 32>>>, 4-byte argument", [&] { empty_small<<<1, 32, 0, s>>>(0); }, true);
    time("launch <<<64, 512>>>, 232-byte argument", [&] { empty_big<<<64, 512, 0, s>>>(big); }, true);
    time("launch <<<64, 512>>> + cudaGetLastError", [&] {
        empty_big<<<64, 512, 0, s>>>(big);
        (void)cudaGetLastError();
    }, true);
    time("cudaMemsetAsync 16 bytes", [&] { (void)cudaMemsetAsync(dev, 0, 16, s); }, true);
    std::free(host);
    CK(cudaFree(dev));
    return 0;
}
