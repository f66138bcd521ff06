// ep/bench/host_cost.cu: what each CUDA call on the GPU form's per-call path costs the host (one
// process, no kishmem): the checks a dispatch or combine makes before its launch (is the stream
// being captured, where a pointer lives, the device count) and the launches themselves, with an
// argument block of Args' size (232 bytes) and with 8 bytes. Median and 90th percentile of 4000
// calls each, host clock around the single call; the GPU is kept busy ahead of the launches
// (a kernel that waits) so no launch waits for a free slot or a completed one; then the launch
// through the driver's cuLaunchKernel, and launches into an idle stream. Built and run by
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
    // gpu: what the stream holds at each call: nothing asked (no launch), a kernel that waits
    // ahead of each batch of launches (busy), or nothing, each call waited for before the next,
    // untimed (idle: the case of a call on an idle GPU).
    enum class Gpu { none, busy, idle };
    auto time = [&](const char* name, const std::function<void()>& f, Gpu gpu) {
        constexpr int kN = 4000, kBatch = 200;
        std::vector<double> d;
        for (int i = 0; i < kN + 100; ++i) {
            if (gpu == Gpu::idle) CK(cudaStreamSynchronize(s));
            if (gpu == Gpu::busy && i % kBatch == 0) {  // the GPU busy ahead of the next batch
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
    time("cudaStreamIsCapturing", [&] { (void)cudaStreamIsCapturing(s, &cs); }, Gpu::none);
    time("cudaGetDeviceCount", [&] { (void)cudaGetDeviceCount(&n); }, Gpu::none);
    time("cudaPointerGetAttributes (device memory)", [&] { (void)cudaPointerGetAttributes(&pa, dev); }, Gpu::none);
    time("cudaPointerGetAttributes (malloc'd host memory)", [&] { (void)cudaPointerGetAttributes(&pa, host); }, Gpu::none);
    time("cuPointerGetAttribute MEMORY_TYPE (device memory)",
         [&] { (void)cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(dev)); }, Gpu::none);
    time("cudaGetLastError", [&] { (void)cudaGetLastError(); }, Gpu::none);
    time("launch <<<1, 32>>>, 4-byte argument", [&] { empty_small<<<1, 32, 0, s>>>(0); }, Gpu::busy);
    time("launch <<<64, 512>>>, 232-byte argument", [&] { empty_big<<<64, 512, 0, s>>>(big); }, Gpu::busy);
    time("launch <<<64, 512>>> + cudaGetLastError", [&] {
        empty_big<<<64, 512, 0, s>>>(big);
        (void)cudaGetLastError();
    }, Gpu::busy);
    time("cudaMemsetAsync 16 bytes", [&] { (void)cudaMemsetAsync(dev, 0, 16, s); }, Gpu::busy);
    // The same launch through the driver: cuLaunchKernel of the kernel's CUfunction, taken once
    // (cudaGetFuncBySymbol), the driver's entry point found through the runtime
    // (cudaGetDriverEntryPointByVersion: what a library that does not link libcuda would call).
    cudaFunction_t fn = nullptr;
    CK(cudaGetFuncBySymbol(&fn, reinterpret_cast<const void*>(empty_big)));
    using Launch = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                                void**, void**);
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult q{};
    CK(cudaGetDriverEntryPointByVersion("cuLaunchKernel", &entry, 12000, cudaEnableDefault, &q));
    const auto launch = reinterpret_cast<Launch>(entry);
    void* args[] = {&big};
    time("cuLaunchKernel <<<64, 512>>>, 232-byte argument", [&] {
        (void)launch(reinterpret_cast<CUfunction>(fn), 64, 1, 1, 512, 1, 1, 0, s, args, nullptr);
    }, Gpu::busy);
    time("cudaLaunchKernel <<<64, 512>>>, 232-byte argument",
         [&] { (void)cudaLaunchKernel(reinterpret_cast<const void*>(empty_big), dim3(64), dim3(512), args, 0, s); }, Gpu::busy);
    time("launch <<<64, 512>>>, 232-byte argument, idle stream", [&] { empty_big<<<64, 512, 0, s>>>(big); }, Gpu::idle);
    time("cuLaunchKernel <<<64, 512>>>, 232-byte argument, idle stream", [&] {
        (void)launch(reinterpret_cast<CUfunction>(fn), 64, 1, 1, 512, 1, 1, 0, s, args, nullptr);
    }, Gpu::idle);
    std::free(host);
    CK(cudaFree(dev));
    return 0;
}
