// ep/bench/reduce_bw.cu: what one GPU reads at combine's reduce pattern, against a plain read of
// the same bytes in the same run (the memory's own figure). One process, no kishmem: 4 x 128
// tokens, each the weighted sum of 8 distinct rows of 7168 bf16 (14,336 bytes) from a pool of
// 4096 rows (58.7 MB, more than the L2), as kishmem::ep's combine_reduce reads them at 4 PEs
// (a block takes tokens blockIdx.x, + gridDim.x, ..., set up CHUNK at a time, then a thread per
// (token, 8 channels)); a copy of that loop, not a call (no kishmem state here): a change to the
// kernel's loop is to be made here too. Median of 30 runs, CUDA events around each launch.
// Built and run by `ep/bench/gpu_run.sh profile` (plain nvcc).
#include <cstdint>
#include <cstdio>
#include <random>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include <cuda_bf16.h>

constexpr int H = 7168, C = H / 8, K = 8, TOK = 512, ROWS = 4096;

__device__ inline float bf(uint32_t h) { return __uint_as_float(h << 16); }

template <int CHUNK>
__global__ void __launch_bounds__(512) reduce(const uint4* pool, const int* rows, const float* w, uint4* out, int T, int tok0) {
    __shared__ const uint4* s_src[CHUNK][K];
    __shared__ float s_w[CHUNK][K];
    const int mine = blockIdx.x >= T ? 0 : (T - 1 - blockIdx.x) / gridDim.x + 1;
    for (int j0 = 0; j0 < mine; j0 += CHUNK) {
        const int nt = min(CHUNK, mine - j0);
        for (int i = threadIdx.x; i < nt * K; i += blockDim.x) {
            const int jt = i / K, k = i % K;
            const int t = tok0 + blockIdx.x + (j0 + jt) * gridDim.x;
            s_src[jt][k] = pool + (size_t)rows[t * K + k] * C;
            s_w[jt][k] = w[t * K + k];
        }
        __syncthreads();
        for (int item = threadIdx.x; item < nt * C; item += blockDim.x) {
            const int jt = item / C, c = item - jt * C;
            float acc[8] = {};
            uint4 raw[K];
#pragma unroll
            for (int k = 0; k < K; ++k) raw[k] = __ldcg(s_src[jt][k] + c);
#pragma unroll
            for (int k = 0; k < K; ++k) {
                const uint32_t wd[4] = {raw[k].x, raw[k].y, raw[k].z, raw[k].w};
#pragma unroll
                for (int i = 0; i < 4; ++i) {
                    acc[2 * i] = __fmaf_rn(s_w[jt][k], bf(wd[i] & 0xffff), acc[2 * i]);
                    acc[2 * i + 1] = __fmaf_rn(s_w[jt][k], bf(wd[i] >> 16), acc[2 * i + 1]);
                }
            }
            uint4 o;
            o.x = __float_as_uint(acc[0]) >> 16 | (__float_as_uint(acc[1]) & 0xffff0000u);
            o.y = __float_as_uint(acc[2]) >> 16 | (__float_as_uint(acc[3]) & 0xffff0000u);
            o.z = __float_as_uint(acc[4]) >> 16 | (__float_as_uint(acc[5]) & 0xffff0000u);
            o.w = __float_as_uint(acc[6]) >> 16 | (__float_as_uint(acc[7]) & 0xffff0000u);
            const int t = tok0 + blockIdx.x + (j0 + jt) * gridDim.x;
            out[(size_t)t * C + c] = o;
        }
        __syncthreads();
    }
}

// A plain read of n uint4 (a sum so that nothing is left out).
__global__ void plain_read(const uint4* p, size_t n, unsigned* sink) {
    unsigned acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const uint4 v = __ldcg(p + i);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x12345678u) *sink = acc;
}

int main() {
    uint4* pool; uint4* out; int* rows; float* w; unsigned* sink;
    const size_t pool_n = (size_t)ROWS * C;
    cudaMalloc(&pool, pool_n * 16); cudaMalloc(&out, (size_t)TOK * C * 16);
    cudaMalloc(&rows, TOK * K * 4); cudaMalloc(&w, TOK * K * 4); cudaMalloc(&sink, 4);
    cudaMemset(pool, 1, pool_n * 16);
    std::vector<int> hr(TOK * K); std::vector<float> hw(TOK * K, 0.125f);
    srand(1);
    // Each token's 8 rows: distinct, as dispatch gives them (every row used exactly twice over 512x8 = 4096 rows).
    std::vector<int> perm(ROWS); for (int i = 0; i < ROWS; ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), std::mt19937(1));
    for (int i = 0; i < TOK * K; ++i) hr[i] = perm[i % ROWS];
    cudaMemcpy(rows, hr.data(), hr.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(w, hw.data(), hw.size() * 4, cudaMemcpyHostToDevice);
    cudaStream_t st[4]; for (auto& s : st) cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    const double bytes = (double)TOK * K * H * 2;
    auto time = [&](const char* name, double tokens, auto launch) {
        std::vector<float> v;
        for (int r = 0; r < 30; ++r) {
            cudaDeviceSynchronize();
            cudaEventRecord(a, 0);
            launch();
            cudaEventRecord(b, 0);
            cudaEventSynchronize(b);
            float ms; cudaEventElapsedTime(&ms, a, b); v.push_back(ms * 1000);
        }
        std::sort(v.begin(), v.end());
        const float us = v[v.size() / 2];
        printf("| %-58s | %8.1f us | %6.2f TB/s |\n", name, us, bytes * tokens / TOK / us / 1e6);
    };
    printf("| pattern (512 tokens x 8 rows of 14336 B = %.1f MB read) | time | read |\n| --- | ---: | ---: |\n", bytes / 1e6);
    time("plain read of the same bytes, 528 x 512", TOK, [&] { plain_read<<<528, 512>>>(pool, (size_t)(bytes / 16), sink); });
    time("plain read, 132 x 512", TOK, [&] { plain_read<<<132, 512>>>(pool, (size_t)(bytes / 16), sink); });
    time("reduce, one kernel 132 x 512, chunk 8", TOK, [&] { reduce<8><<<132, 512>>>(pool, rows, w, out, TOK, 0); });
    time("reduce, one kernel 132 x 512, chunk 1", TOK, [&] { reduce<1><<<132, 512>>>(pool, rows, w, out, TOK, 0); });
    time("reduce, one kernel 264 x 256, chunk 8", TOK, [&] { reduce<8><<<264, 256>>>(pool, rows, w, out, TOK, 0); });
    time("reduce, one kernel 512 x 512 (a block per token)", TOK, [&] { reduce<8><<<512, 512>>>(pool, rows, w, out, TOK, 0); });
    time("reduce, 4 streams x 33 x 512 (4 PEs' share each)", TOK, [&] {
        cudaEventRecord(a, 0);
        for (int p = 0; p < 4; ++p) { cudaStreamWaitEvent(st[p], a); reduce<8><<<33, 512, 0, st[p]>>>(pool, rows, w, out, 128, p * 128); }
        for (int p = 0; p < 4; ++p) { cudaEvent_t d; cudaEventCreate(&d); cudaEventRecord(d, st[p]); cudaStreamWaitEvent(0, d); cudaEventDestroy(d); }
    });
    time("reduce, 2 streams x 66 x 512 (2 PEs' share each), 256 tokens", 256, [&] {
        cudaEventRecord(a, 0);
        for (int p = 0; p < 2; ++p) { cudaStreamWaitEvent(st[p], a); reduce<8><<<66, 512, 0, st[p]>>>(pool, rows, w, out, 128, p * 128); }
        for (int p = 0; p < 2; ++p) { cudaEvent_t d; cudaEventCreate(&d); cudaEventRecord(d, st[p]); cudaStreamWaitEvent(0, d); cudaEventDestroy(d); }
    });
    const cudaError_t e = cudaGetLastError();
    printf("status: %s\n", cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : 1;
}
