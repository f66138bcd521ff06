// Device-side benchmarks, one source for two libraries: built against kishmem (spec names, no
// -rdc) or, with -DUSE_NVSHMEM, against NVSHMEM (nvshmem_ names, -rdc=true).  Prints lines
// "RESULT <impl> <test> <bytes> <value> <unit>" that tools/perf/gpu/compare.py pairs up.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#ifdef USE_NVSHMEM
#include <mpi.h>
#include <nvshmem.h>
#include <nvshmemx.h>
#define IMPL "nvshmem"
#define S(x) nvshmem_##x
#define SX(x) nvshmemx_##x
#define CMP_EQ NVSHMEM_CMP_EQ
#define CMP_GE NVSHMEM_CMP_GE
#define TEAM_WORLD NVSHMEM_TEAM_WORLD
#else
#include <shmem.h>
#include <shmemx.h>
#define IMPL "kishmem"
#define S(x) shmem_##x
#define SX(x) shmemx_##x
#define CMP_EQ SHMEM_CMP_EQ
#define CMP_GE SHMEM_CMP_GE
#define TEAM_WORLD SHMEM_TEAM_WORLD
#endif

#define CK(x)                                                                                   \
    do {                                                                                        \
        cudaError_t e_ = (x);                                                                   \
        if (e_ != cudaSuccess) {                                                                \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                       \
            std::exit(1);                                                                       \
        }                                                                                       \
    } while (0)

__global__ void pingpong(long* flag, int iters, int me) {
    int peer = 1 - me;
    for (int i = 1; i <= iters; ++i) {
        if (me == 0) {
            S(long_p)(flag, i, peer);
            S(long_wait_until)(flag, CMP_EQ, i);
        } else {
            S(long_wait_until)(flag, CMP_EQ, i);
            S(long_p)(flag, i, peer);
        }
    }
}

// The physical limit: the same ping-pong with plain volatile stores and loads through the
// mapped peer pointer, no library code.
__global__ void pingpong_raw(volatile long* mine, volatile long* theirs, int iters, int me) {
    for (int i = 1; i <= iters; ++i) {
        if (me == 0) {
            *theirs = i;
            while (*mine != i) {
            }
        } else {
            while (*mine != i) {
            }
            *theirs = i;
        }
    }
}

__global__ void p_quiet(long* cell, int iters) {
    for (int i = 0; i < iters; ++i) {
        S(long_p)(cell, i, 1);
        S(quiet)();
    }
}

__global__ void g_loop(long* cell, int iters, long* sink) {
    long acc = 0;
    for (int i = 0; i < iters; ++i) acc += S(long_g)(cell + (i & 7), 1);
    *sink = acc;
}

__global__ void put_thread(char* dst, const char* src, size_t n, int iters) {
    for (int i = 0; i < iters; ++i) S(putmem_nbi)(dst, src, n, 1);
    S(quiet)();
}

__global__ void put_warp(char* dst, const char* src, size_t n, int iters, int pe) {
    for (int i = 0; i < iters; ++i) SX(putmem_nbi_warp)(dst, src, n, pe);
    if (threadIdx.x == 0) S(quiet)();
}

// The same loop with no library: the warp copies 16-byte words (8-byte words below 16 bytes)
// straight to the peer's heap through its mapped address (shmem_ptr), then __syncwarp, as
// put_warp's copy does: what the mapping alone lets a small warp put cost.
__global__ void put_warp_raw(char* peer_dst, const char* src, size_t n, int iters) {
    const unsigned r = threadIdx.x & 31u;
    for (int i = 0; i < iters; ++i) {
        if (n >= 16) {
            for (size_t w = r; w < n / 16; w += 32) reinterpret_cast<int4*>(peer_dst)[w] = reinterpret_cast<const int4*>(src)[w];
        } else if (r < n / 8) {
            reinterpret_cast<long*>(peer_dst)[r] = reinterpret_cast<const long*>(src)[r];
        }
        __syncwarp();
    }
    __threadfence_system();
}

__global__ void put_block(char* dst, const char* src, size_t n, int iters) {
    // Each block moves its slice of the message: the grid together moves n bytes per iteration.
    size_t slice = (n + gridDim.x - 1) / gridDim.x;
    size_t off = slice * blockIdx.x;
    size_t len = off < n ? (n - off < slice ? n - off : slice) : 0;
    for (int i = 0; i < iters && len; ++i) SX(putmem_nbi_block)(dst + off, src + off, len, 1);
    if (threadIdx.x == 0) S(quiet)();
}

// Team collectives by one block per PE (every PE launches the same kernel): n bytes per member
// for alltoall, n bytes of ints for the sum reduction.
__global__ void alltoall_block(char* dst, const char* src, size_t n, int iters) {
    for (int i = 0; i < iters; ++i) SX(alltoallmem_block)(TEAM_WORLD, dst, src, n);
}

__global__ void sum_reduce_block(int* dst, const int* src, size_t nints, int iters) {
    for (int i = 0; i < iters; ++i) SX(int_sum_reduce_block)(TEAM_WORLD, dst, src, nints);
}

static float time_kernel(const std::function<void()>& launch) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    CK(cudaGetLastError());
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    return ms;
}

static void report(const char* test, size_t bytes, double value, const char* unit) {
    std::printf("RESULT %s %s %zu %.4f %s\n", IMPL, test, bytes, value, unit);
    std::fflush(stdout);
}

int main(int argc, char** argv) {
#ifdef USE_NVSHMEM
    // NVSHMEM is bootstrapped with a unique id that MPI broadcasts (its own MPI plugin may be
    // built against another MPI than the machine's).
    MPI_Init(&argc, &argv);
    int rank = 0, nranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int ndev = 1;
    CK(cudaGetDeviceCount(&ndev));
    CK(cudaSetDevice(rank % ndev));  // NVSHMEM initialises on the current device's context
    CK(cudaFree(nullptr));
    nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
    if (rank == 0) nvshmemx_get_uniqueid(&id);
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    nvshmemx_set_attr_uniqueid_args(rank, nranks, &id, &attr);
    nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);
#else
    S(init)();
#endif
    // --quick: a tenth of the latency tests' and collectives' iterations, collectives up to 2 KB,
    // each put bandwidth measured over at most 50 ms
    // (PEs on two hosts through a software path: a device reduction there reads each remote
    // element with its own get, 28 ms per call at 2 KB).
    bool quick = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--quick")) {
            quick = true;
        } else {
            std::fprintf(stderr, "usage: %s [--quick]\n", argv[0]);
            return 2;
        }
    }
    const int div = quick ? 10 : 1;
    int me = S(my_pe)(), np = S(n_pes)();
    if (np < 2) {
        std::fprintf(stderr, "needs 2 PEs\n");
        return 1;
    }
    const size_t maxn = 4u << 20;
    long* flag = (long*)S(malloc)(64 * sizeof(long));
    char* src = (char*)S(malloc)(maxn);
    char* dst = (char*)S(malloc)(maxn);
    long* sink = nullptr;
    CK(cudaMalloc(&sink, sizeof(long)));
    CK(cudaMemset(flag, 0, 64 * sizeof(long)));
    CK(cudaMemset(src, 1, maxn));
    CK(cudaDeviceSynchronize());
    S(barrier_all)();

    // ping-pong: both PEs run; one-way latency = time / (2 iters)
    const int pp_iters = 20000 / div;
    for (int rep = 0; rep < 3; ++rep) {
        CK(cudaMemset(flag, 0, sizeof(long)));
        CK(cudaDeviceSynchronize());
        S(barrier_all)();
        float ms = time_kernel([&] { pingpong<<<1, 1>>>(flag, pp_iters, me); });
        S(barrier_all)();
        if (me == 0 && rep == 2) report("pingpong_oneway", 8, ms * 1e3 / (2.0 * pp_iters), "us");
    }
    {
        long* theirs = (long*)S(ptr)(flag + 24, 1 - me);
        for (int rep = 0; rep < 3 && theirs; ++rep) {
            CK(cudaMemset(flag + 24, 0, sizeof(long)));
            CK(cudaDeviceSynchronize());
            S(barrier_all)();
            float ms = time_kernel([&] { pingpong_raw<<<1, 1>>>(flag + 24, theirs, pp_iters, me); });
            S(barrier_all)();
            if (me == 0 && rep == 2) report("pingpong_raw_limit", 8, ms * 1e3 / (2.0 * pp_iters), "us");
        }
    }
    if (me == 0) {
        const int iters = 20000 / div;
        p_quiet<<<1, 1>>>(flag + 8, 100);
        float ms = time_kernel([&] { p_quiet<<<1, 1>>>(flag + 8, iters); });
        report("p_quiet", 8, ms * 1e3 / iters, "us");
        ms = time_kernel([&] { g_loop<<<1, 1>>>(flag + 16, iters, sink); });
        report("g_latency", 8, ms * 1e3 / iters, "us");
    }
    S(barrier_all)();

    // put_bw_warp_self: the warp put to this PE's own heap (no peer mapping in the way);
    // put_bw_warp_raw_limit: the warp put's copy alone, to the peer's mapped heap (up to 2 KiB)
    const char* names[] = {"put_bw_thread", "put_bw_warp", "put_bw_block", "put_bw_grid", "put_bw_warp_self",
                           "put_bw_warp_raw_limit"};
    char* peer_dst = (char*)S(ptr)(dst, 1);
    for (int v = 0; v < 6; ++v) {
        for (size_t n = 8; n <= maxn; n *= 4) {
            if (me != 0 || (v >= 4 && n > 2048) || (v == 5 && !peer_dst)) continue;
            const int iters = v == 0 && n > 65536 ? 10  // one thread is slow at large sizes
                              : (int)(n <= 65536 ? 2000 : (n <= (1u << 20) ? 200 : 50));
            // At most max_ms per measurement: puts to another host through a software path are
            // thousands of times slower than NVLink's, and PE 1 waits in barrier_all meanwhile.
            // A probe of 1/100 of the iterations first; on one host every test stays below 250 ms
            // (the slowest, NVSHMEM's 64 KB thread puts: about 220), and runs its warm-up and
            // measurement at the full count as before.
            const float max_ms = quick ? 50 : 250;
            int k = iters / 100 > 0 ? iters / 100 : 1;
            auto launch = [&] {
                if (v == 0) put_thread<<<1, 1>>>(dst, src, n, k);
                if (v == 1) put_warp<<<1, 32>>>(dst, src, n, k, 1);
                if (v == 4) put_warp<<<1, 32>>>(dst, src, n, k, me);
                if (v == 5) put_warp_raw<<<1, 32>>>(peer_dst, src, n, k);
                if (v == 2) put_block<<<1, 512>>>(dst, src, n, k);
                if (v == 3) put_block<<<32, 512>>>(dst, src, n, k);
            };
            const float probe = time_kernel(launch) / k;
            k = probe * iters > max_ms ? (int)(max_ms / probe) + 1 : iters;
            time_kernel(launch);  // warm-up
            const float ms = time_kernel(launch);
            report(names[v], n, (double)n * k / (ms * 1e-3) / 1e9, "GB/s");
        }
        S(barrier_all)();
    }
    // collectives: every PE runs; time per call (both PEs' kernels overlap, PE 0 reports)
    const char* cnames[] = {"alltoall_block", "sum_reduce_block"};
    for (int v = 0; v < 2; ++v) {
        for (size_t n = 8; n <= (quick ? 2048 : maxn / 4); n *= 4) {
            const int iters = (n <= 65536 ? 500 : 50) / div;
            auto launch = [&] {
                if (v == 0) alltoall_block<<<1, 512>>>(dst, src, n, iters);
                else sum_reduce_block<<<1, 256>>>((int*)dst, (const int*)src, n / sizeof(int), iters);  // NVSHMEM's needs <= 256
            };
            CK(cudaDeviceSynchronize());
            S(barrier_all)();
            time_kernel(launch);  // warm-up
            S(barrier_all)();
            float ms = time_kernel(launch);
            S(barrier_all)();
            if (me == 0) report(cnames[v], n, ms * 1e3 / iters, "us");
        }
    }
    S(barrier_all)();
    S(free)(dst);
    S(free)(src);
    S(free)(flag);
    S(finalize)();
#ifdef USE_NVSHMEM
    MPI_Finalize();
#endif
    return 0;
}
