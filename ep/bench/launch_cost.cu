// ep/bench/launch_cost.cu: what the GPU spends outside a kernel of the dispatch's shape (one
// process, no kishmem). On the H200 at 6fd0592 the 2-PE dispatch's latency between CUDA events was
// 6.9 us longer than its kernel (first block's start to last block's end) while an empty <<<1, 32>>>
// kernel cost 4.5 us between the same events: ~2.4 us more outside the kernel for the dispatch.
// This times kernels that do nothing but stamp the clock, with the parts of the dispatch's shape
// added one at a time (66 blocks of 512 threads with 128 registers and a 256-byte stack frame (the dispatch: 352), a
// 232-byte __grid_constant__ argument block, ~8.6 KB of shared memory, 512 B dynamic), then the
// whole shape with other block counts and with the shared memory carveout set:
//   between events   CUDA events around the one kernel, the GPU kept ahead of the host (a wait
//                    kernel queued first), after a <<<1, 32>>> kernel as the barrier before a call
//   kernel           the GPU's global timer from the first block's start to the last block's end
//   outside          the difference: the launch and the end as the GPU does them
// Median of 300 rounds each; the GPU waits 100 us before each round's kernels, so that the host
// has queued them all (as the flagship's pass with the host ahead). Built and run by every GPU
// pass's ep stage and by `ep/bench/gpu_run.sh profile` (plain nvcc).
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <functional>
#include <vector>

#include "cuda_check.h"

namespace {

struct Big {  // the size of the EP kernels' Args
    char b[232];
};
struct Small {
    char b[8];
};

__device__ unsigned long long g_stamp[2];  // first start (complemented, atomicMax), last end

__device__ __forceinline__ unsigned long long now_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ __forceinline__ void stamp_start() {
    if (threadIdx.x == 0) atomicMax(&g_stamp[0], ~now_ns());
}
__device__ __forceinline__ void stamp_end() {
    __syncthreads();
    if (threadIdx.x == 0) atomicMax(&g_stamp[1], now_ns());
}

__global__ void spin(unsigned long long ns) {
    const unsigned long long t0 = now_ns();
    while (now_ns() - t0 < ns) {
    }
}
__global__ void barrier_stand_in() {}

// <<<1, 32>>>: the floor's empty kernel, stamped.
__global__ void empty_kernel() {
    stamp_start();
    stamp_end();
}

// The dispatch's shape. `work` is never set: its body only gives the kernel the dispatch's
// registers (128), a stack frame (a local array indexed at run time: 256 bytes a thread; the
// dispatch has 352) and its shared memory, which the launch has to provide.
template <bool Smem, class A>
__global__ void __launch_bounds__(512, 1) shaped(const __grid_constant__ A args, const float4* work, float4* out) {
    __shared__ float4 s[Smem ? 538 : 1];  // 8,608 bytes with Smem
    stamp_start();
    if (work) {
        float4 r[28];
        int frame[64];
#pragma unroll
        for (int i = 0; i < 28; ++i) r[i] = work[threadIdx.x + i * 512 + args.b[i % sizeof args.b]];
        for (int i = 0; i < 64; ++i) frame[(i * 7 + threadIdx.x) % 64] = static_cast<int>(r[i % 28].x);
        s[threadIdx.x % (Smem ? 538 : 1)] = r[0];
        __syncthreads();
        float4 acc = s[(threadIdx.x + 1) % (Smem ? 538 : 1)];
#pragma unroll
        for (int i = 0; i < 28; ++i) acc = make_float4(acc.x * r[i].y + r[i].x, acc.y * r[i].z + r[i].w, acc.z + r[i].x, acc.w - r[i].z);
        acc.x += static_cast<float>(frame[(threadIdx.x * 13) % 64]);
        out[blockIdx.x * 512 + threadIdx.x] = acc;
    }
    stamp_end();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main() {
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    const Big big{};
    std::printf("| kernel | between events | kernel (first start to last end) | outside |\n| --- | ---: | ---: | ---: |\n");
    auto time = [&](const char* name, const std::function<void()>& launch) {
        constexpr int kRounds = 300;
        std::vector<double> ev, ker;
        for (int r = 0; r < kRounds + 20; ++r) {
            const unsigned long long zero[2] = {0, 0};
            CK(cudaMemcpyToSymbolAsync(g_stamp, zero, sizeof zero, 0, cudaMemcpyHostToDevice, s));
            spin<<<1, 1, 0, s>>>(100000);  // the host ahead (as the flagship's 100 us): all below is queued before it ends
            barrier_stand_in<<<1, 32, 0, s>>>();
            CK(cudaEventRecord(a, s));
            launch();
            CK(cudaEventRecord(b, s));
            unsigned long long st[2];
            CK(cudaMemcpyFromSymbolAsync(st, g_stamp, sizeof st, 0, cudaMemcpyDeviceToHost, s));
            CK(cudaStreamSynchronize(s));
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, a, b));
            if (r < 20) continue;
            ev.push_back(ms * 1e3);
            ker.push_back(static_cast<double>(st[1] - ~st[0]) * 1e-3);
        }
        const double e = median(ev), k = median(ker);
        std::printf("| %s | %.2f us | %.2f us | %.2f us |\n", name, e, k, e - k);
    };
    // One part of the dispatch's shape added at a time; the carveout last (it stays set).
    time("empty <<<1, 32>>> (the floor's)", [&] { empty_kernel<<<1, 32, 0, s>>>(); });
    time("<<<66, 512>>>, 128 registers and the stack frame, 8-byte argument",
         [&] { shaped<false, Small><<<66, 512, 0, s>>>(Small{}, nullptr, nullptr); });
    time("+ the 232-byte argument", [&] { shaped<false, Big><<<66, 512, 0, s>>>(big, nullptr, nullptr); });
    time("+ 8.6 KB of shared memory", [&] { shaped<true, Big><<<66, 512, 0, s>>>(big, nullptr, nullptr); });
    time("+ 512 B of dynamic shared memory (the dispatch's whole shape)",
         [&] { shaped<true, Big><<<66, 512, 512, s>>>(big, nullptr, nullptr); });
    time("the whole shape with 132 blocks (one per SM)", [&] { shaped<true, Big><<<132, 512, 512, s>>>(big, nullptr, nullptr); });
    time("the whole shape with 1 block", [&] { shaped<true, Big><<<1, 512, 512, s>>>(big, nullptr, nullptr); });
    CK(cudaFuncSetAttribute(shaped<true, Big>, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
    time("the whole shape, carveout set to the most shared memory",
         [&] { shaped<true, Big><<<66, 512, 512, s>>>(big, nullptr, nullptr); });
    cudaFuncAttributes fa{};
    CK(cudaFuncGetAttributes(&fa, shaped<true, Big>));
    std::printf("(the shaped kernel: %d registers, %zu bytes of local memory a thread, %zu bytes of static shared memory)\n",
                fa.numRegs, fa.localSizeBytes, fa.sharedSizeBytes);
    return 0;
}
