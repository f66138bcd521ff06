// ep/bench/signal_cost.cu: how long one "data, then a flag that says the data is there" takes
// from writer to reader on one GPU, by the ways a kernel can order the two (one process, no
// kishmem). Two blocks on different SMs ping-pong: each in turn writes BYTES of data (a warp's
// 16-byte stores), orders them before a 64-bit flag and raises the flag; the other waits for the
// flag with an acquiring load and checks the data's last word. Half the round trip is printed,
// median of 7 runs of 2000 round trips each. Ways:
//   fence+add      fence.acq_rel, then an atomic add (kishmem::ep's arrival today: shmem_quiet,
//                  shmem_uint64_atomic_add)
//   red.release    one reduction with release semantics (no separate fence)
//   st.release     a release store of the flag's next value
//   fence+st       fence.acq_rel, then a relaxed store
// each at GPU scope and at system scope. Built and run by `ep/bench/gpu_run.sh profile`.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_check.h"

enum Way { kFenceAdd, kRedRelease, kStRelease, kFenceSt, kWays };
const char* kNames[kWays] = {"fence+add", "red.release", "st.release", "fence+st"};

template <int Way, bool Sys>
__device__ __forceinline__ void raise(unsigned long long* flag, unsigned long long next) {
    if (Way == kFenceAdd || Way == kFenceSt) {
        if (Sys) asm volatile("fence.acq_rel.sys;" ::: "memory");
        else asm volatile("fence.acq_rel.gpu;" ::: "memory");
    }
    if (Way == kFenceAdd) atomicAdd(flag, 1ull);
    if (Way == kFenceSt) asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(flag), "l"(next) : "memory");
    if (Way == kRedRelease) {
        if (Sys) asm volatile("red.release.sys.global.add.u64 [%0], %1;" ::"l"(flag), "l"(1ull) : "memory");
        else asm volatile("red.release.gpu.global.add.u64 [%0], %1;" ::"l"(flag), "l"(1ull) : "memory");
    }
    if (Way == kStRelease) {
        if (Sys) asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(flag), "l"(next) : "memory");
        else asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(flag), "l"(next) : "memory");
    }
}

__device__ __forceinline__ unsigned long long acquire(const unsigned long long* p) {
    unsigned long long v;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

// Block b (0 or 1) of one warp: writes data[b] and raises flag[b]; waits for flag[1 - b].
template <int Way, bool Sys>
__global__ void pingpong(uint4* data, unsigned long long* flag, int words, int iters, int* bad, unsigned long long* ns) {
    const int b = blockIdx.x, lane = threadIdx.x;
    uint4* mine = data + static_cast<size_t>(b) * words;
    const uint4* theirs = data + static_cast<size_t>(1 - b) * words;
    unsigned long long t0 = 0;
    if (lane == 0) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    for (int i = 1; i <= iters; ++i) {
        const unsigned stamp = static_cast<unsigned>(i * 2 + b);
        if (b == 1 || i > 1) {  // block 1 answers; block 0 starts
            if (lane == 0)
                while (acquire(flag + (1 - b)) < static_cast<unsigned long long>(b == 1 ? i : i - 1)) {
                }
            __syncwarp();
            if (lane == 0 && words > 0 && theirs[words - 1].x != static_cast<unsigned>((b == 1 ? i : i - 1) * 2 + 1 - b))
                atomicAdd(bad, 1);
        }
        for (int w = lane; w < words; w += 32) mine[w] = make_uint4(stamp, stamp, stamp, stamp);
        __syncwarp();
        if (lane == 0) raise<Way, Sys>(flag + b, static_cast<unsigned long long>(i));
        __syncwarp();
    }
    if (b == 0 && lane == 0) {
        while (acquire(flag + 1) < static_cast<unsigned long long>(iters)) {
        }
        unsigned long long t1;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
        *ns = t1 - t0;
    }
}

template <int Way, bool Sys>
double one_way_ns(uint4* data, unsigned long long* flag, int words, int* bad, unsigned long long* ns) {
    constexpr int kIters = 2000;
    std::vector<double> r;
    for (int run = 0; run < 7; ++run) {
        CK(cudaMemset(flag, 0, 2 * sizeof *flag));
        pingpong<Way, Sys><<<2, 32>>>(data, flag, words, kIters, bad, ns);
        CK(cudaDeviceSynchronize());
        unsigned long long h = 0;
        CK(cudaMemcpy(&h, ns, sizeof h, cudaMemcpyDeviceToHost));
        r.push_back(static_cast<double>(h) / kIters / 2);
    }
    std::sort(r.begin(), r.end());
    return r[r.size() / 2];
}

int main() {
    const int sizes[] = {0, 64, 7392, 57344};  // bytes: the flag alone, offsets, one FP8 token row, 8 of them
    uint4* data;
    unsigned long long *flag, *ns;
    int* bad;
    CK(cudaMalloc(&data, 2 * 57344));
    CK(cudaMalloc(&flag, 2 * sizeof *flag));
    CK(cudaMalloc(&ns, sizeof *ns));
    CK(cudaMalloc(&bad, sizeof *bad));
    CK(cudaMemset(bad, 0, sizeof *bad));
    std::printf("one-way time, data then flag, two blocks of one GPU (ns)\n| bytes | scope |");
    for (const char* n : kNames) std::printf(" %s |", n);
    std::printf("\n| ---: | --- |");
    for (int w = 0; w < kWays; ++w) std::printf(" ---: |");
    std::printf("\n");
    for (int bytes : sizes) {
        const int words = bytes / 16;
        std::printf("| %d | gpu | %.0f | %.0f | %.0f | %.0f |\n", bytes, one_way_ns<kFenceAdd, false>(data, flag, words, bad, ns),
                    one_way_ns<kRedRelease, false>(data, flag, words, bad, ns), one_way_ns<kStRelease, false>(data, flag, words, bad, ns),
                    one_way_ns<kFenceSt, false>(data, flag, words, bad, ns));
        std::printf("| %d | sys | %.0f | %.0f | %.0f | %.0f |\n", bytes, one_way_ns<kFenceAdd, true>(data, flag, words, bad, ns),
                    one_way_ns<kRedRelease, true>(data, flag, words, bad, ns), one_way_ns<kStRelease, true>(data, flag, words, bad, ns),
                    one_way_ns<kFenceSt, true>(data, flag, words, bad, ns));
    }
    int h = 0;
    CK(cudaMemcpy(&h, bad, sizeof h, cudaMemcpyDeviceToHost));
    std::printf("%s: %d stale reads\n", h ? "FAIL" : "PASS", h);
    return h ? 1 : 0;
}
