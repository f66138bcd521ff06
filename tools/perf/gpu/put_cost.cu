// tools/perf/gpu/put_cost.cu: what one small put by a thread or a warp costs in a loop of puts
// (the device benchmark's put_bw_thread / put_bw_warp at 8-512 bytes), by the ways the copy could
// be written (one process, no kishmem; the destination a second allocation of the same GPU).
// Ways:
//   today      the device API's copy: 16-byte words while both ends allow, else 8-byte words,
//              plain loads, __syncwarp after each put
//   ldg        the same with the source read through the read-only path (ld.global.nc)
//   nosync     today's without the __syncwarp after each put
//   held       the source loaded once before the loop: what the loads cost the loop
//   lane-words one 8-byte word per lane (no 16-byte path), plain loads
// Each: median over 7 launches of one warp (or thread) doing 2000 puts, ns per put.
//   nvcc -O3 -arch=sm_90 -std=c++17 tools/perf/gpu/put_cost.cu -o put_cost && ./put_cost
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../../../ep/bench/cuda_check.h"

enum Way { kToday, kLdg, kNoSync, kHeld, kLaneWords, kWays };
const char* kNames[kWays] = {"today", "ldg", "nosync", "held", "lane-words"};

template <int Way, class T>
__device__ __forceinline__ T load(const T* p) {
    if constexpr (Way == kLdg) return __ldg(p);
    else return *p;
}

// n bytes from s to d by `lanes` lanes (lane r takes words r, r + lanes, ...).
template <int Way>
__device__ __forceinline__ void copy(char* d, const char* s, size_t n, unsigned r, unsigned lanes) {
    size_t done = 0;
    if (Way != kLaneWords && ((reinterpret_cast<uintptr_t>(d) | reinterpret_cast<uintptr_t>(s)) & 15) == 0) {
        const size_t nw = n / 16;
        for (size_t i = r; i < nw; i += lanes) reinterpret_cast<int4*>(d)[i] = load<Way>(reinterpret_cast<const int4*>(s) + i);
        done = nw * 16;
    }
    const size_t nw = (n - done) / 8;
    for (size_t i = r; i < nw; i += lanes)
        reinterpret_cast<uint64_t*>(d + done)[i] = load<Way>(reinterpret_cast<const uint64_t*>(s + done) + i);
}

template <int Way>
__global__ void put_loop(char* dst, const char* src, size_t n, int iters) {
    const unsigned r = threadIdx.x & 31u, lanes = blockDim.x;
    if constexpr (Way == kHeld) {  // n <= 16 * lanes: each lane's one 16-byte word (or 8-byte) held in registers
        int4 w{};
        const bool on = r * 16 < n;
        if (on) w = *reinterpret_cast<const int4*>(src + r * 16);
        for (int i = 0; i < iters; ++i) {
            if (n >= 16) {
                if (on) reinterpret_cast<int4*>(dst)[r] = w;
            } else if (r == 0) {
                *reinterpret_cast<uint64_t*>(dst) = *reinterpret_cast<uint64_t*>(&w);
            }
            __syncwarp();
        }
    } else {
        for (int i = 0; i < iters; ++i) {
            copy<Way>(dst, src, n, r, lanes);
            if (Way != kNoSync) __syncwarp();
        }
    }
}

template <int Way>
double ns_per_put(char* dst, const char* src, size_t n, int threads) {
    constexpr int kIters = 2000, kRuns = 7;
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    put_loop<Way><<<1, threads>>>(dst, src, n, kIters);  // warm-up
    std::vector<double> t;
    for (int run = 0; run < kRuns; ++run) {
        CK(cudaEventRecord(a));
        put_loop<Way><<<1, threads>>>(dst, src, n, kIters);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms * 1e6 / kIters);
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    return t[kRuns / 2];
}

int main() {
    char *src, *dst;
    CK(cudaMalloc(&src, 1 << 20));
    CK(cudaMalloc(&dst, 1 << 20));
    CK(cudaMemset(src, 1, 1 << 20));
    cudaDeviceProp prop{};
    CK(cudaGetDeviceProperties(&prop, 0));
    std::printf("# put_cost: %s; ns per put, median of 7 launches of 2000 puts\n", prop.name);
    for (int threads : {1, 32}) {
        std::printf("\n| %s | bytes |", threads == 1 ? "thread" : "warp");
        for (const char* w : kNames) std::printf(" %s |", w);
        std::printf("\n| --- | ---: |%s\n", " ---: | ---: | ---: | ---: | ---: |");
        for (size_t n = 8; n <= 512; n *= 4) {
            const double v[kWays] = {ns_per_put<kToday>(dst, src, n, threads), ns_per_put<kLdg>(dst, src, n, threads),
                                     ns_per_put<kNoSync>(dst, src, n, threads),
                                     threads == 32 ? ns_per_put<kHeld>(dst, src, n, threads) : -1,
                                     ns_per_put<kLaneWords>(dst, src, n, threads)};
            std::printf("| | %zu |", n);
            for (double x : v) x < 0 ? std::printf(" - |") : std::printf(" %.1f |", x);
            std::printf("\n");
        }
    }
    CK(cudaFree(src));
    CK(cudaFree(dst));
    return 0;
}
