// Expert-parallel MoE dispatch and combine with device-initiated SHMEM: every PE (one per GPU,
// or several per GPU under MPS) holds T tokens of H bf16 values and E/npes experts; each token
// is routed to its top-K experts. Dispatch sends each token once to every PE that owns one of
// its experts (with its expert ids and weights); the experts run there (a stand-in: an
// elementwise scale per expert, weighted and summed per token and PE); combine sends each PE's
// partial result back to the token's PE, which adds the partials. The kernels use only the
// public device API: putmem_nbi by a block, quiet, uint64 p and wait_until, barriers.
//
// Checked against a host computation of the same routing and expert functions, then timed.
//   mpirun -np 4 build/examples/03_moe_dispatch_combine [tokens hidden topk experts_per_pe rounds]
// Defaults: 128 tokens per PE, hidden 7168, top-8, 32 experts per PE (DeepSeek-V3-like), 20 timed rounds.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <shmem.h>
#include <shmemx.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "PE %d: %s: %s\n", shmem_my_pe(), #x, cudaGetErrorString(e_));    \
            shmem_global_exit(1);                                                                  \
        }                                                                                          \
    } while (0)

namespace {

constexpr int kMaxTopK = 8;

struct Config {
    int tokens, hidden, topk, experts_per_pe, npes, me;
};

// Routing, the same on host and device: token t of PE `pe` picks topk distinct experts out of
// npes * experts_per_pe with weights (k + 1) / sum.
__host__ __device__ inline uint32_t mix(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

__host__ __device__ inline void route(const Config& c, int pe, int t, int* experts, float* weights) {
    const int ne = c.npes * c.experts_per_pe;
    const float wsum = c.topk * (c.topk + 1) / 2.0f;
    int n = 0;
    for (uint32_t salt = 0; n < c.topk; ++salt) {
        const int e = static_cast<int>(mix(static_cast<uint32_t>(pe * 1000003 + t * 131 + salt * 7919)) % ne);
        bool seen = false;
        for (int i = 0; i < n; ++i) seen |= experts[i] == e;
        if (seen) continue;
        experts[n] = e;
        weights[n] = (n + 1) / wsum;
        ++n;
    }
}

__host__ __device__ inline float expert_fn(int e, float x) { return x * (1.0f + (e % 61) / 64.0f) - (e % 7) / 128.0f; }

__host__ __device__ inline float token_value(int pe, int t, int h) {
    return static_cast<float>(static_cast<int>(mix(pe * 7 + t * 65537u + h * 3u) % 2001u) - 1000) / 1000.0f;
}

// Symmetric buffers (every PE allocates the same):
//   x      [T][H] bf16          this PE's tokens
//   recv   [npes][T][H] bf16    tokens received from PE s at [s][t]
//   meta   [npes][T] Meta       their routing (expert ids, weights) and the round that sent them
//   stage  [npes][T][H] float   this PE's experts' partial result for PE s's token t
//   part   [npes][T][H] float   the partials of this PE's tokens, from PE p at [p][t]
//   out    [T][H] float         the combined result
//   flag   [2][npes] uint64     per phase, per source PE: the epoch whose data has all arrived
struct Meta {
    int experts[kMaxTopK];
    float weights[kMaxTopK];
    uint64_t epoch;  // the round that sent this token here (older: not sent this round)
};

struct Bufs {
    __nv_bfloat16* x;
    __nv_bfloat16* recv;
    Meta* meta;
    float* stage;
    float* part;
    float* out;
    uint64_t* flag;
    unsigned int* done;  // GPU memory, not symmetric: blocks of this PE done with a phase
};

// The end of a phase (0 dispatch, 1 combine), by thread 0 of every block after its block's work:
// this block's puts complete; the last block to get here tells every PE that this PE's data of
// the phase has arrived (flag[phase][me] = epoch) and resets the block count for the next kernel.
__device__ void phase_done(const Config& c, const Bufs& b, int phase, uint64_t epoch) {
    if (threadIdx.x != 0) return;
    shmem_quiet();
    __threadfence_system();
    if (atomicAdd(b.done, 1u) == gridDim.x - 1) {  // the last block: every block's puts are complete
        __threadfence_system();
        for (int p = 0; p < c.npes; ++p) shmem_uint64_p(b.flag + phase * c.npes + c.me, epoch, p);
        shmem_quiet();
        *b.done = 0;
    }
}

// One block per token: send the token (and its routing) to every PE owning one of its experts.
// The last block to finish, after every block's quiet, tells each PE that this PE's tokens
// have arrived (flag[0][me] = epoch).
__global__ void dispatch(Config c, Bufs b, uint64_t epoch) {
    const int t = blockIdx.x;
    __shared__ Meta m;
    __shared__ int dests[kMaxTopK + 1];
    __shared__ int ndest;
    if (threadIdx.x == 0) {
        route(c, c.me, t, m.experts, m.weights);
        m.epoch = epoch;
        ndest = 0;
        for (int k = 0; k < c.topk; ++k) {
            const int p = m.experts[k] / c.experts_per_pe;
            bool seen = false;
            for (int i = 0; i < ndest; ++i) seen |= dests[i] == p;
            if (!seen) dests[ndest++] = p;
        }
    }
    __syncthreads();
    const size_t tok = static_cast<size_t>(c.hidden) * sizeof(__nv_bfloat16);
    for (int i = 0; i < ndest; ++i) {
        const int p = dests[i];
        const size_t slot = static_cast<size_t>(c.me) * c.tokens + t;
        shmemx_putmem_nbi_block(reinterpret_cast<char*>(b.recv) + slot * tok, reinterpret_cast<const char*>(b.x) + t * tok,
                                tok, p);
        if (threadIdx.x == 0) shmem_putmem_nbi(b.meta + slot, &m, sizeof m, p);
    }
    __syncthreads();
    phase_done(c, b, 0, epoch);
}

// Blocks take (source PE, token) items in turn: wait for the source's tokens, run this PE's
// experts of the token, weight and add them, and send the partial result back to the token's
// PE. Its blocks (and reduce_partials') wait for other PEs' kernels, which may share this GPU
// (MPS): the grid is bounded by shmemx_collective_launch_query_gridsize, so that the waiting
// blocks of every PE on the GPU fit together and leave the kernels they wait for room to run.
__global__ void experts_and_combine(Config c, Bufs b, uint64_t epoch) {
    for (int item = blockIdx.x; item < c.npes * c.tokens; item += gridDim.x) {
        const int s = item / c.tokens, t = item % c.tokens;
        if (threadIdx.x == 0) shmem_uint64_wait_until(b.flag + s, SHMEM_CMP_GE, epoch);
        __syncthreads();
        const size_t slot = static_cast<size_t>(s) * c.tokens + t;
        const Meta& m = b.meta[slot];
        // Was this token sent here this round? (then some of its experts live here)
        const bool mine = m.epoch == epoch;
        // PE s's own tokens: straight into part (the reduce reads [me][t]); others: staged, then sent
        float* part = (s == c.me ? b.part : b.stage) + slot * c.hidden;
        if (mine) {
            const __nv_bfloat16* x = b.recv + slot * c.hidden;
            for (int h = threadIdx.x; h < c.hidden; h += blockDim.x) {
                const float v = __bfloat162float(x[h]);
                float acc = 0.0f;
                for (int k = 0; k < c.topk; ++k)
                    if (m.experts[k] / c.experts_per_pe == c.me) acc += m.weights[k] * expert_fn(m.experts[k], v);
                part[h] = acc;
            }
            __syncthreads();
            // back to PE s, at its [me][t] slot
            if (s != c.me)
                shmemx_putmem_nbi_block(b.part + (static_cast<size_t>(c.me) * c.tokens + t) * c.hidden, part,
                                        c.hidden * sizeof(float), s);
        }
        __syncthreads();
    }
    phase_done(c, b, 1, epoch);
}

// Blocks take tokens in turn: wait for every PE's partials, add those of the PEs the token went to.
__global__ void reduce_partials(Config c, Bufs b, uint64_t epoch) {
    if (threadIdx.x < c.npes) shmem_uint64_wait_until(b.flag + c.npes + threadIdx.x, SHMEM_CMP_GE, epoch);
    __syncthreads();
    for (int t = blockIdx.x; t < c.tokens; t += gridDim.x) {
        int experts[kMaxTopK];
        float weights[kMaxTopK];
        route(c, c.me, t, experts, weights);
        unsigned mask = 0;
        for (int k = 0; k < c.topk; ++k) mask |= 1u << (experts[k] / c.experts_per_pe);
        for (int h = threadIdx.x; h < c.hidden; h += blockDim.x) {
            float acc = 0.0f;
            for (int p = 0; p < c.npes; ++p)
                if (mask >> p & 1u) acc += b.part[(static_cast<size_t>(p) * c.tokens + t) * c.hidden + h];
            b.out[static_cast<size_t>(t) * c.hidden + h] = acc;
        }
    }
}

constexpr int kThreads = 256;

// Blocks of a kernel that waits for other PEs: one per item, at most what co-resides with the
// other PEs' waiting kernels on this GPU.
int waiting_grid(const void* kernel, int items) {
    int most = 0;
    const int e = shmemx_collective_launch_query_gridsize(kernel, dim3(kThreads), nullptr, 0, &most);
    if (e != 0) {
        std::fprintf(stderr, "PE %d: shmemx_collective_launch_query_gridsize: %s\n", shmem_my_pe(),
                     cudaGetErrorString(static_cast<cudaError_t>(e)));
        shmem_global_exit(1);
    }
    if (most < 1) {
        std::fprintf(stderr, "PE %d: no block of a waiting kernel fits beside the %d PEs on this GPU\n", shmem_my_pe(),
                     shmemx_gpu_pes());
        shmem_global_exit(1);
    }
    return std::min(items, most);
}

__global__ void fill_tokens(Config c, __nv_bfloat16* x) {
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < static_cast<size_t>(c.tokens) * c.hidden;
         i += static_cast<size_t>(gridDim.x) * blockDim.x)
        x[i] = __float2bfloat16(token_value(c.me, static_cast<int>(i / c.hidden), static_cast<int>(i % c.hidden)));
}

}  // namespace

int main(int argc, char** argv) {
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        std::printf("SKIP: no usable GPU\n");
        return 77;
    }
    shmem_init();
    Config c{argc > 1 ? std::atoi(argv[1]) : 128, argc > 2 ? std::atoi(argv[2]) : 7168,
             argc > 3 ? std::atoi(argv[3]) : 8,   argc > 4 ? std::atoi(argv[4]) : 32,
             shmem_n_pes(),                        shmem_my_pe()};
    if (c.tokens < 1 || c.hidden < 1 || c.topk < 1 || c.topk > kMaxTopK || c.experts_per_pe < 1 || c.npes > 32 ||
        c.topk > c.npes * c.experts_per_pe || (argc > 5 && std::atoi(argv[5]) < 1)) {
        if (c.me == 0)
            std::fprintf(stderr, "usage: %s [tokens hidden topk(1..%d) experts_per_pe rounds(>=1)]; at most 32 PEs\n", argv[0],
                         kMaxTopK);
        shmem_finalize();
        return 2;
    }
    const size_t T = c.tokens, H = c.hidden, P = c.npes;
    Bufs b{};
    b.x = static_cast<__nv_bfloat16*>(shmem_malloc(T * H * sizeof(__nv_bfloat16)));
    b.recv = static_cast<__nv_bfloat16*>(shmem_malloc(P * T * H * sizeof(__nv_bfloat16)));
    b.meta = static_cast<Meta*>(shmem_calloc(P * T, sizeof(Meta)));
    b.stage = static_cast<float*>(shmem_malloc(P * T * H * sizeof(float)));
    b.part = static_cast<float*>(shmem_malloc(P * T * H * sizeof(float)));
    b.out = static_cast<float*>(shmem_malloc(T * H * sizeof(float)));
    b.flag = static_cast<uint64_t*>(shmem_calloc(2 * P, sizeof(uint64_t)));
    if (!b.x || !b.recv || !b.meta || !b.stage || !b.part || !b.out || !b.flag) {
        std::fprintf(stderr, "PE %d: the symmetric heap is too small: set SHMEM_SYMMETRIC_SIZE\n", c.me);
        shmem_global_exit(1);
    }
    CK(cudaMalloc(&b.done, sizeof(unsigned int)));
    CK(cudaMemset(b.done, 0, sizeof(unsigned int)));
    fill_tokens<<<128, 256>>>(c, b.x);
    CK(cudaDeviceSynchronize());
    shmem_barrier_all();

    // One round: dispatch, experts + combine send, reduce. Epochs keep rounds apart: a flag
    // only ever grows, so no reset (and no extra barrier) between rounds.
    uint64_t epoch = 0;
    const int wait_combine = waiting_grid(reinterpret_cast<const void*>(experts_and_combine), c.npes * c.tokens);
    const int wait_reduce = waiting_grid(reinterpret_cast<const void*>(reduce_partials), c.tokens);
    cudaEvent_t e0, e1, e2, e3;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaEventCreate(&e2));
    CK(cudaEventCreate(&e3));
    auto round = [&] {
        ++epoch;
        CK(cudaEventRecord(e0));
        dispatch<<<c.tokens, kThreads>>>(c, b, epoch);
        CK(cudaEventRecord(e1));
        experts_and_combine<<<wait_combine, kThreads>>>(c, b, epoch);
        CK(cudaEventRecord(e2));
        reduce_partials<<<wait_reduce, kThreads>>>(c, b, epoch);
        CK(cudaEventRecord(e3));
        CK(cudaEventSynchronize(e3));
        CK(cudaGetLastError());
    };
    round();

    // Check every token against the host.
    std::vector<float> out(T * H);
    CK(cudaMemcpy(out.data(), b.out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    double worst = 0;
    for (size_t t = 0; t < T; ++t) {
        int experts[kMaxTopK];
        float weights[kMaxTopK];
        route(c, c.me, static_cast<int>(t), experts, weights);
        for (size_t h = 0; h < H; ++h) {
            const float v = __bfloat162float(__float2bfloat16(token_value(c.me, static_cast<int>(t), static_cast<int>(h))));
            float want = 0.0f;
            for (int p = 0; p < c.npes; ++p) {
                float part = 0.0f;
                bool any = false;
                for (int k = 0; k < c.topk; ++k)
                    if (experts[k] / c.experts_per_pe == p) part += weights[k] * expert_fn(experts[k], v), any = true;
                if (any) want += part;
            }
            const double err = std::fabs(static_cast<double>(out[t * H + h]) - want);
            if (err > worst) worst = err;
            if (err > 1e-4 * (1.0 + std::fabs(want))) {
                std::fprintf(stderr, "FAIL: PE %d token %zu element %zu: %.7f, expected %.7f\n", c.me, t, h, out[t * H + h],
                             want);
                shmem_global_exit(1);
            }
        }
    }

    // Time: median of 20 rounds of each phase.
    const int reps = argc > 5 ? std::atoi(argv[5]) : 20;
    std::vector<float> td, tc, tr;
    for (int i = 0; i < reps; ++i) {
        shmem_barrier_all();
        round();
        float a, x, y;
        CK(cudaEventElapsedTime(&a, e0, e1));
        CK(cudaEventElapsedTime(&x, e1, e2));
        CK(cudaEventElapsedTime(&y, e2, e3));
        td.push_back(a * 1e3f);
        tc.push_back(x * 1e3f);
        tr.push_back(y * 1e3f);
    }
    auto median = [](std::vector<float> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    shmem_barrier_all();
    if (c.me == 0) {
        std::printf("moe: %d PEs, %d tokens/PE, hidden %d (bf16), top-%d of %d experts (%d per PE)\n", c.npes, c.tokens,
                    c.hidden, c.topk, c.npes * c.experts_per_pe, c.experts_per_pe);
        std::printf("moe: dispatch %.1f us, experts + combine send %.1f us, combine reduce %.1f us (PE 0, median of %d)\n",
                    median(td), median(tc), median(tr), reps);
        std::printf("RESULT moe dispatch_us %.2f\nRESULT moe combine_us %.2f\n", median(td), median(tc) + median(tr));
        std::printf("PASS 03_moe_dispatch_combine on %d PEs (largest error %.2g)\n", c.npes, worst);
    }
    shmem_finalize();
    return 0;
}
