/* The CUDA form of user_macros.c: under nvcc shmem.h defines the device routines and registers
 * this translation unit's device state, from macros and namespace names of its own.  The user's
 * KS, kd, K_ARG0, K_HD and CHECK are defined before the includes to values that break any header
 * code using them, checked untouched after, then given the user's meanings and used next to
 * shmem_* calls in a kernel.  Built, audited and run as one PE by tests/abi (user_build.sh): it
 * prints "PASS user_macros.cu", or without a GPU says so and exits 77 (then built only). */
#include "user_names.h"  /* the user's names, set to values no header may use */

#include <shmem.h>
#include <shmemx.h>

#include "user_names.h"  /* checked untouched, then undefined */

#include <cstdio>

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
