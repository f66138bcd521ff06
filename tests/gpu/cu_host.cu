// The host half of the __host__ __device__ routines: a .cu file (nvcc, no -rdc) calling the
// OpenSHMEM API from host code, context forms and collectives included, checks the values.
// It needs no GPU (the heap is in host memory): it runs everywhere CUDA builds, and proves that
// every name a kernel can call also links and works on the host. The kernel below is compiled
// (the device half of the same names, SHMEM_CTX_DEFAULT in device code), never launched here.
#include <shmem.h>
#include <shmemx.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "gpu_check.h"

__global__ void k_ctx(long* cell, int* ints, uint64_t* sig) {
    const int right = (shmem_my_pe() + 1) % shmem_n_pes();
    shmem_ctx_long_p(SHMEM_CTX_DEFAULT, cell, 1, right);
    shmem_ctx_int_put_nbi(SHMEM_CTX_DEFAULT, ints, ints + 4, 4, right);
    shmem_ctx_long_atomic_add(SHMEM_CTX_DEFAULT, cell + 1, 2, right);
    shmem_ctx_signal_add(SHMEM_CTX_DEFAULT, sig, 1, right);
    shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
}

int main() {
    setenv("KISHMEM_HEAP", "host", 1);  // its host code stores to the heap: never a GPU heap
    shmem_init();
    const int me = shmem_my_pe(), np = shmem_n_pes(), right = (me + 1) % np, left = (me + np - 1) % np;
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "shmem_ctx_create");
    long* cell = static_cast<long*>(shmem_calloc(2, sizeof(long)));
    int* ints = static_cast<int*>(shmem_calloc(8, sizeof(int)));
    uint64_t* sig = static_cast<uint64_t*>(shmem_calloc(2, sizeof(uint64_t)));
    for (int i = 0; i < 4; ++i) ints[4 + i] = me * 10 + i;
    shmem_barrier_all();
    // context and default forms, through the __host__ halves
    shmem_ctx_long_p(ctx, cell, 100 + me, right);
    shmem_ctx_int_put_nbi(ctx, ints, ints + 4, 4, right);
    shmem_ctx_long_atomic_add(ctx, cell + 1, 2, right);
    shmem_ctx_signal_add(ctx, sig, 1, right);
    shmem_ctx_quiet(ctx);
    shmem_long_atomic_add(cell + 1, 3, right);
    shmem_signal_set(sig + 1, 7 + me, right);
    shmem_quiet();
    shmem_barrier_all();
    CHECK(cell[0] == 100 + left && cell[1] == 5, "p / atomic_add: %ld %ld", cell[0], cell[1]);
    for (int i = 0; i < 4; ++i) CHECK(ints[i] == left * 10 + i, "put_nbi element %d = %d", i, ints[i]);
    CHECK(shmem_signal_fetch(sig) == 1 && shmem_signal_fetch(sig + 1) == uint64_t(7 + left), "signal_add / set: %llu %llu",
          (unsigned long long)shmem_signal_fetch(sig), (unsigned long long)shmem_signal_fetch(sig + 1));
    // collectives, through the __host__ halves
    int* a = static_cast<int*>(shmem_malloc(np * sizeof(int)));
    int* b = static_cast<int*>(shmem_malloc(np * sizeof(int)));
    long* s = static_cast<long*>(shmem_malloc(sizeof(long)));
    long* r = static_cast<long*>(shmem_malloc(2 * sizeof(long)));
    for (int j = 0; j < np; ++j) a[j] = me * 100 + j;
    *s = me + 1;
    shmem_barrier_all();
    shmem_int_alltoall(SHMEM_TEAM_WORLD, b, a, 1);
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, r, s, 1);
    shmem_long_sum_exscan(SHMEM_TEAM_WORLD, r + 1, s, 1);
    for (int j = 0; j < np; ++j) CHECK(b[j] == j * 100 + me, "alltoall from %d: %d", j, b[j]);
    CHECK(r[0] == static_cast<long>(np) * (np + 1) / 2, "sum_reduce %ld", r[0]);
    CHECK(r[1] == static_cast<long>(me) * (me + 1) / 2, "sum_exscan %ld", r[1]);
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    if (me == 0) std::printf("PASS cu_host on %d PEs\n", np);
    shmem_finalize();
    return 0;
}
