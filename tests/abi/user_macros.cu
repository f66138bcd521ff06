/* The CUDA form of user_macros.c: under nvcc shmem.h defines the device routines and registers
 * this translation unit's device state, from macros and namespace names of its own.  The user's
 * KS, kd, K_ARG0, K_HD and CHECK are defined before the includes to values that break any header
 * code using them, checked untouched after, then given the user's meanings and used next to
 * shmem_* calls in a kernel.  Built (compiled and linked) by tests/abi; run on a GPU machine it
 * prints "PASS user_macros.cu" (one PE; without a GPU it says so and exits 77). */
#define KS (-101)
#define kd (-102)
#define K_ARG0 (-103)
#define K_HD (-104)
#define CHECK (-105)

#include <shmem.h>
#include <shmemx.h>

#if !defined(KS) || KS != -101 || !defined(kd) || kd != -102 || !defined(K_ARG0) || K_ARG0 != -103
#error "a public header redefined or undefined KS, kd or K_ARG0"
#endif
#if !defined(K_HD) || K_HD != -104 || !defined(CHECK) || CHECK != -105
#error "a public header redefined or undefined K_HD or CHECK"
#endif

#include <cstdio>

#undef KS
#undef kd
#undef K_ARG0
#undef K_HD
#undef CHECK
#define KS 4
#define K_ARG0(a, ...) (a)
#define K_HD __host__ __device__ static inline
#define CHECK(cond)                                                           \
    do {                                                                      \
        if (!(cond)) {                                                        \
            std::printf("FAIL: user_macros.cu:%d: %s\n", __LINE__, #cond);    \
            return 1;                                                         \
        }                                                                     \
    } while (0)

namespace kd {  // a namespace of the user's own, named like the alias the headers once had
K_HD long twice(long v) { return 2 * v; }
}  // namespace kd

__global__ void ring(long *x, long *got) {
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int i = 0; i < KS; ++i) shmem_long_p(&x[i], kd::twice(10 * i + me), (me + 1) % npes);
    shmem_quiet();
    shmem_barrier_all();
    *got = shmem_long_g(&x[K_ARG0(KS - 1, 0)], me) + shmem_long_atomic_fetch_add(&x[0], 1, me);
}

__global__ void warp_barrier() { shmemx_barrier_all_warp(); }  // a shmemx.h routine

int main() {
    int gpus = 0;
    if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0) {
        std::printf("user_macros.cu: no GPU here: built and linked only\n");
        return 77;
    }
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    long *x = static_cast<long *>(shmem_malloc(KS * sizeof(long)));
    long *got = nullptr;
    CHECK(x != nullptr && cudaMalloc(&got, sizeof(long)) == cudaSuccess);
    ring<<<1, 1>>>(x, got);
    warp_barrier<<<1, 32>>>();
    long host = 0;
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(cudaMemcpy(&host, got, sizeof host, cudaMemcpyDeviceToHost) == cudaSuccess);
    const int from = (me + npes - 1) % npes;
    CHECK(host == 2 * (10 * (KS - 1) + from) + 2 * from);
    shmem_barrier_all();
    shmem_free(x);
    shmem_finalize();
    std::printf("PASS user_macros.cu on %d PE(s)\n", npes);
    return 0;
}
