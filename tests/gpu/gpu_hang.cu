// GPU test: a kernel that waits too long says what it waits for (KISHMEM_HANG_WARN), then goes
// on once the wait ends. Run with KISHMEM_HANG_WARN=1 through tests/gpu/hang_check.sh, which
// checks the messages:
//   1. every PE's kernel waits in shmem_int_wait_until for a flag of its own that the host sets
//      2.5 s later (a copy on a stream of its own, next to the waiting kernel);
//   2. (2 PEs or more) PE 1 enters a device barrier 2.5 s after the others: PE 0's kernel names
//      PE 1 (with 2 PEs) as the PE it waits for.
// Exits 77 (CTest's skip) where no GPU is usable.
#include <cuda_runtime.h>
#include <shmem.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "gpu_check.h"

__global__ void k_wait(int* flag) {
    if (threadIdx.x == 0) shmem_int_wait_until(flag, SHMEM_CMP_EQ, 1);
}

__global__ void k_barrier() { shmem_barrier_all(); }

int main() {
    GPU_TEST_INIT();
    const int me = shmem_my_pe(), np = shmem_n_pes();
    int* flag = static_cast<int*>(shmem_calloc(1, sizeof(int)));
    cudaStream_t side;
    CK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    int* one = nullptr;
    CK(cudaMallocHost(&one, sizeof(int)));
    *one = 1;
    shmem_barrier_all();

    k_wait<<<1, 32>>>(flag);
    usleep(2500 * 1000);
    CK(cudaMemcpyAsync(flag, one, sizeof(int), cudaMemcpyHostToDevice, side));
    CK(cudaStreamSynchronize(side));
    CK(cudaDeviceSynchronize());
    shmem_barrier_all();

    if (np > 1) {
        if (me == 1) usleep(2500 * 1000);
        k_barrier<<<1, 1>>>();  // the thread-scope barrier: one thread per PE
        CK(cudaDeviceSynchronize());
    }
    shmem_barrier_all();
    if (me == 0) std::printf("PASS gpu_hang on %d PEs\n", np);
    CK(cudaFreeHost(one));
    shmem_finalize();
    return 0;
}
