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
// and the library's own code (kishmem/device/rma.h, over a state of this program whose PE 0 is
// the destination allocation):
//   api        device::put_nbi<Warp> (or <Thread>) to PE 0: what shmemx_putmem_nbi_warp runs
//   api-copy   the library's copy<Warp> and sync, the address looked up once before the loop
// (api-inline and api-onecall, the lookup inline and one call for unmapped PEs, were measured at
// 9408c68, and four-words, the path with no loop widened to four 16-byte words a lane, at
// 6fd0592; all are in the library since: docs/gpu.md.)
// Each: median over 7 launches of one warp (or thread) doing 2000 puts, ns per put.
//   nvcc -O3 -arch=sm_90 -std=c++17 -I device/include -I shmem_api/include tools/perf/gpu/put_cost.cu -o put_cost
//   ./put_cost
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../../../ep/bench/cuda_check.h"
#include "kishmem/device/rma.h"

namespace kd = kishmem::device;
__constant__ kd::State g_state;  // one PE (0): its heap is the destination allocation

enum Way { kToday, kLdg, kNoSync, kHeld, kLaneWords, kApi, kApiCopy, kWays };
const char* kNames[kWays] = {"today", "ldg", "nosync", "held", "lane-words", "api", "api-copy"};

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

// The library's ways, by one cooperation scope.
template <int Way, class Coop>
__device__ void api_loop(char* dst, const char* src, size_t n, int iters) {
    if constexpr (Way == kApi) {
        for (int i = 0; i < iters; ++i) kd::put_nbi<Coop>(g_state, dst, src, n, 0, "put_cost");
    } else {  // api-copy: the address looked up once
        char* d = kd::peer(g_state, dst, 0, "put_cost");
        for (int i = 0; i < iters; ++i) {
            kd::copy<Coop>(d, src, n);
            Coop::sync();
        }
    }
}

template <int Way>
__global__ void put_loop(char* dst, const char* src, size_t n, int iters) {
    const unsigned r = threadIdx.x & 31u, lanes = blockDim.x;
    if constexpr (Way >= kApi) {
        if (lanes == 32) api_loop<Way, kd::Warp>(dst, src, n, iters);
        else api_loop<Way, kd::Thread>(dst, src, n, iters);
    } else if constexpr (Way == kHeld) {  // n <= 16 * lanes: each lane's one 16-byte word (or 8-byte) held in registers
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

// The library's copy checked before it is timed: every size up to 64 bytes a
// lane and a few above, both ends 16-byte aligned, by a thread and a warp, every byte of the
// 4 KiB around checked.
__global__ void copy_once(char* dst, const char* src, size_t n) {
    if (blockDim.x == 32) kd::copy<kd::Warp>(dst, src, n);
    else kd::copy<kd::Thread>(dst, src, n);
}

bool check_copy(char* dst, char* src) {
    std::vector<char> pat(4096), got(4096);
    for (size_t i = 0; i < pat.size(); ++i) pat[i] = static_cast<char>(i * 7 + 3);
    CK(cudaMemcpy(src, pat.data(), pat.size(), cudaMemcpyHostToDevice));
    for (int threads : {1, 32}) {
        for (size_t n = 0; n <= 64 * static_cast<size_t>(threads) + 40; ++n) {
            CK(cudaMemset(dst, 0, 4096));
            copy_once<<<1, threads>>>(dst + 16, src + 16, n);
            CK(cudaMemcpy(got.data(), dst, 4096, cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < 4096; ++i) {
                const char want = i >= 16 && i < 16 + n ? pat[i] : 0;
                if (got[i] != want) {
                    std::printf("FAIL: the library's copy, %d thread(s), %zu bytes: byte %zu is %d, not %d\n", threads,
                                n, i, got[i], want);
                    return false;
                }
            }
        }
    }
    return true;
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
    kd::State st{};
    st.n_pes = 1;
    st.initialized = 1;
    st.heap_base = dst;
    st.heap_size = 1 << 20;
    st.peer_base[0] = dst;
    CK(cudaMemcpyToSymbol(g_state, &st, sizeof st));
    cudaDeviceProp prop{};
    CK(cudaGetDeviceProperties(&prop, 0));
    if (!check_copy(dst, src)) return 1;
    CK(cudaMemset(src, 1, 1 << 20));
    std::printf("# put_cost: %s; ns per put, median of 7 launches of 2000 puts (the library's copy checked)\n", prop.name);
    for (int threads : {1, 32}) {
        std::printf("\n| %s | bytes |", threads == 1 ? "thread" : "warp");
        for (const char* w : kNames) std::printf(" %s |", w);
        std::printf("\n| --- | ---: |");
        for (int w = 0; w < kWays; ++w) std::printf(" ---: |");
        std::printf("\n");
        for (size_t n = 8; n <= 2048; n *= 4) {
            const double v[kWays] = {ns_per_put<kToday>(dst, src, n, threads), ns_per_put<kLdg>(dst, src, n, threads),
                                     ns_per_put<kNoSync>(dst, src, n, threads),
                                     threads == 32 && n <= 16 * 32 ? ns_per_put<kHeld>(dst, src, n, threads) : -1,
                                     ns_per_put<kLaneWords>(dst, src, n, threads), ns_per_put<kApi>(dst, src, n, threads),
                                     ns_per_put<kApiCopy>(dst, src, n, threads)};
            std::printf("| | %zu |", n);
            for (double x : v) x < 0 ? std::printf(" - |") : std::printf(" %.1f |", x);
            std::printf("\n");
        }
    }
    CK(cudaFree(src));
    CK(cudaFree(dst));
    return 0;
}
