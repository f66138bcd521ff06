// ep/bench/entry_cost.cu: the first phase of kishmem::ep's dispatch kernel on its own, done the
// ways it could be done (one process, no kishmem): from the first block's start until every block
// knows its entries' ranks, its first row per expert and whether any row of topk_idx is bad (the
// profile's dispatch stages s1 and s2). Ways:
//   global      as the kernel does it: a block's entries ranked by a thread each from global
//               memory (at most 64 entries; else shared atomics), one fetch-add per (block,
//               expert) issued before the check, then every row of topk_idx checked by a thread
//               each, loaded from global memory
//   shared      topk_idx copied into shared memory by the whole block first (one round trip for
//               all of it), then the same ranking, fetch-adds and check from there
//   no-check    global without the check: what the check costs
//   no-reserve  global with each block's first row per expert counted from the entries before
//               its own (a shared-memory histogram) instead of the fetch-adds: what a layout
//               without the reservation round trip leaves before its rows can go
// Grids as the dispatch launches them: a block per token, at most the GPU's SMs shared by 2 PEs
// (66) or 4 PEs (33), 512 threads; the first token's row loads issued at the start as the
// kernel's prefetch. Median over 300 launches of (last block's end - first block's start) by the
// GPU's global timer. One process: the fetch-adds go to this process's memory, where the
// kernel's go to a peer process's (the same GPU's L2 under MPS). Built and run by
// `ep/bench/gpu_run.sh profile`.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "cuda_check.h"
#include "../src/row_check.h"

using kishmem::ep::first_bad_in_row;

constexpr int kThreads = 512, kScan = 64, kMaxEntries = 1024;
enum Way { kGlobal, kShared, kNoCheck, kNoReserve, kWays };
const char* kNames[kWays] = {"global", "shared", "no-check", "no-reserve"};

struct Args {
    const int* idx;  // [T][K]
    const uint4* x;  // [T][H] bf16
    int T, K, E, H;
    int* counter;               // [E]: rows taken per expert
    unsigned long long* stamp;  // [2]: the first start (complemented: max finds it), the last end
    int* sink;
};

__device__ __forceinline__ unsigned long long now() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Dynamic shared memory: s_cnt [E], s_base [E], then s_before [E] (no-reserve) or the indices
// [T * K] (shared).
template <int Way>
__global__ void __launch_bounds__(kThreads, 1) entry(const __grid_constant__ Args a) {
    extern __shared__ int s_dyn[];
    __shared__ int s_ent[kMaxEntries], s_rank[kMaxEntries];
    __shared__ int s_bad;
    const int tid = threadIdx.x, K = a.K, T = a.T;
    if (tid == 0) atomicMax(&a.stamp[0], ~now());
    const int per = (T + gridDim.x - 1) / gridDim.x, t0 = blockIdx.x * per, t1 = min(T, t0 + per);
    const int n = t0 < t1 ? (t1 - t0) * K : 0;
    uint4 pf0{}, pf1{};
    if (t0 < t1 && tid < a.H / 16) {
        pf0 = __ldg(a.x + static_cast<size_t>(t0) * a.H / 8 + 2 * tid);
        pf1 = __ldg(a.x + static_cast<size_t>(t0) * a.H / 8 + 2 * tid + 1);
    }
    int* s_cnt = s_dyn;
    int* s_base = s_dyn + a.E;
    int* s_more = s_dyn + 2 * a.E;
    if (tid == 0) s_bad = INT_MAX;
    const int* src = a.idx;
    if (Way == kShared) {
        for (int j = tid; j < T * K; j += kThreads) s_more[j] = a.idx[j];
        __syncthreads();
        src = s_more;
    }
    if (Way == kNoReserve) {  // the entries before this block's, per expert
        for (int e = tid; e < a.E; e += kThreads) s_more[e] = 0;
        __syncthreads();
        for (int j = tid; j < t0 * K; j += kThreads)
            if (const int e = a.idx[j]; e >= 0 && e < a.E) atomicAdd(&s_more[e], 1);
        __syncthreads();
    }
    const int* my = src + static_cast<size_t>(t0) * K;
    int fe = -1, fv = 0;
    if (n <= kScan) {
        if (tid < n) {
            const int ej = my[tid];
            const int e = ej >= 0 && ej < a.E ? ej : -1;
            int rank = 0, cnt = 0;
            for (int i = 0; i < n; ++i) {
                const bool same = my[i] == ej;
                rank += same && i < tid;
                cnt += same;
            }
            s_ent[tid] = e;
            s_rank[tid] = rank;
            if (e >= 0 && rank == 0) {
                fe = e;
                fv = Way == kNoReserve ? s_more[e] : atomicAdd(&a.counter[e], cnt);
            }
        }
    } else {
        for (int j = tid; j < n; j += kThreads) {
            const int e = my[j];
            s_ent[j] = e >= 0 && e < a.E ? e : -1;
            if (s_ent[j] >= 0) s_cnt[s_ent[j]] = 0;
        }
        __syncthreads();
        for (int j = tid; j < n; j += kThreads)
            if (s_ent[j] >= 0) s_rank[j] = atomicAdd(&s_cnt[s_ent[j]], 1);
        __syncthreads();
        for (int j = tid; j < n; j += kThreads) {
            const int e = s_ent[j];
            if (e >= 0 && s_rank[j] == 0) s_base[e] = Way == kNoReserve ? s_more[e] : atomicAdd(&a.counter[e], s_cnt[e]);
        }
    }
    if (Way != kNoCheck) {
        int bad_at = INT_MAX;
        for (int t = tid; t < T; t += kThreads) {
            const int k = first_bad_in_row(src + static_cast<size_t>(t) * K, K, a.E);
            if (k >= 0) bad_at = min(bad_at, t * K + k);
        }
        if (bad_at != INT_MAX) atomicMin(&s_bad, bad_at);
    }
    __syncthreads();
    if (fe >= 0) s_base[fe] = fv;
    __syncthreads();
    if (tid == 0) atomicMax(&a.stamp[1], now());
    // Keep every result alive: a bad row or a row past its expert's end is counted.
    if (tid < n && s_ent[tid] >= 0 && s_base[s_ent[tid]] + s_rank[tid] >= T) atomicAdd(a.sink, 1);
    if (tid == 0 && (s_bad != INT_MAX || (pf0.x ^ pf1.w) == 0x5eed5eedu)) atomicAdd(a.sink, 1);
}

template <int Way>
double median_us(const Args& a, int grid, std::vector<int>& counts) {
    const size_t smem = (2 * a.E + (Way == kShared ? a.T * a.K : Way == kNoReserve ? a.E : 0)) * sizeof(int);
    std::vector<double> dt;
    for (int r = 0; r < 300; ++r) {
        CK(cudaMemsetAsync(a.counter, 0, a.E * sizeof(int)));
        CK(cudaMemsetAsync(a.stamp, 0, 2 * sizeof(unsigned long long)));
        entry<Way><<<grid, kThreads, smem>>>(a);
        CK(cudaGetLastError());
        unsigned long long s[2];
        CK(cudaMemcpy(s, a.stamp, sizeof s, cudaMemcpyDeviceToHost));
        dt.push_back(static_cast<double>(s[1] - ~s[0]) / 1e3);
    }
    counts.resize(a.E);
    CK(cudaMemcpy(counts.data(), a.counter, a.E * sizeof(int), cudaMemcpyDeviceToHost));
    std::sort(dt.begin(), dt.end());
    return dt[dt.size() / 2];
}

int main() {
    const int K = 8, H = 7168, Tmax = 128;
    int *idx, *counter, *sink;
    uint4* x;
    unsigned long long* stamp;
    CK(cudaMalloc(&idx, Tmax * K * sizeof(int)));
    CK(cudaMalloc(&x, static_cast<size_t>(Tmax) * H * 2));
    CK(cudaMemset(x, 0, static_cast<size_t>(Tmax) * H * 2));
    CK(cudaMalloc(&counter, 4096 * sizeof(int)));
    CK(cudaMalloc(&sink, sizeof(int)));
    CK(cudaMemset(sink, 0, sizeof(int)));
    CK(cudaMalloc(&stamp, 2 * sizeof(unsigned long long)));
    int bad = 0;
    std::printf("dispatch's first phase alone: first block's start to the last block's end, median of 300 (us)\n"
                "| PEs | tokens | blocks |");
    for (const char* n : kNames) std::printf(" %s |", n);
    std::printf("\n| ---: | ---: | ---: |");
    for (int w = 0; w < kWays; ++w) std::printf(" ---: |");
    std::printf("\n");
    for (int npes : {2, 4}) {
        const int E = 32 * npes;
        for (int T : {1, 8, 32, 128}) {
            // K distinct experts per token, from a fixed sequence
            std::vector<int> h(static_cast<size_t>(T) * K);
            uint32_t s = 12345u + T * 7u + npes;
            for (int t = 0; t < T; ++t)
                for (int k = 0; k < K; ++k) {
                    int e;
                    bool dup;
                    do {
                        s = s * 1664525u + 1013904223u;
                        e = static_cast<int>((s >> 8) % E);
                        dup = std::find(h.begin() + t * K, h.begin() + t * K + k, e) != h.begin() + t * K + k;
                    } while (dup);
                    h[t * K + k] = e;
                }
            CK(cudaMemcpy(idx, h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice));
            const Args a{idx, x, T, K, E, H, counter, stamp, sink};
            const int grid = std::min(T, 132 / npes);
            std::vector<int> c;
            double us[kWays];
            us[kGlobal] = median_us<kGlobal>(a, grid, c);
            long total = 0;
            for (int v : c) total += v;
            if (total != static_cast<long>(T) * K) {
                std::printf("FAIL: %d PEs, %d tokens: the fetch-adds took %ld rows, not %d\n", npes, T, total, T * K);
                bad = 1;
            }
            us[kShared] = median_us<kShared>(a, grid, c);
            us[kNoCheck] = median_us<kNoCheck>(a, grid, c);
            us[kNoReserve] = median_us<kNoReserve>(a, grid, c);
            std::printf("| %d | %d | %d | %.2f | %.2f | %.2f | %.2f |\n", npes, T, grid, us[kGlobal], us[kShared], us[kNoCheck],
                        us[kNoReserve]);
        }
    }
    int sunk = 0;
    CK(cudaMemcpy(&sunk, sink, sizeof sunk, cudaMemcpyDeviceToHost));
    if (sunk) {
        std::printf("FAIL: %d rows past their expert's end or bad rows found (the input has none)\n", sunk);
        bad = 1;
    }
    std::printf("%s\n", bad ? "FAIL entry_cost" : "PASS entry_cost");
    return bad;
}
