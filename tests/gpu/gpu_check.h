// Checks of the GPU tests: a failed CUDA call (CK) or condition (CHECK, mp_check.h) names the
// PE and ends the job.
#pragma once
#include <cuda_runtime.h>
#include <shmem.h>

#include <cstdio>
#include <cstdlib>

#include "../mp/mp_check.h"  // CHECK

#define CK(x)                                                                                   \
    do {                                                                                        \
        cudaError_t e_ = (x);                                                                   \
        if (e_ != cudaSuccess) {                                                                \
            std::fprintf(stderr, "FAIL: PE %d: %s: %s\n", shmem_my_pe(), #x, cudaGetErrorString(e_)); \
            shmem_global_exit(1);                                                               \
        }                                                                                       \
    } while (0)

// In main, before shmem_init: exit 77 (CTest's skip) where no GPU is usable, else ask for a GPU
// heap (unless KISHMEM_HEAP says otherwise).
#define GPU_TEST_REQUIRE_GPU()                                                                  \
    do {                                                                                        \
        int ndev_ = 0;                                                                          \
        if (cudaGetDeviceCount(&ndev_) != cudaSuccess || ndev_ == 0) {                          \
            std::printf("SKIP: no usable GPU\n");                                               \
            return 77;                                                                          \
        }                                                                                       \
        setenv("KISHMEM_HEAP", "device", 0);                                                    \
    } while (0)

// The start of every GPU test that needs no thread level: GPU_TEST_REQUIRE_GPU and shmem_init.
#define GPU_TEST_INIT()                                                                         \
    do {                                                                                        \
        GPU_TEST_REQUIRE_GPU();                                                                 \
        shmem_init();                                                                           \
    } while (0)

// A kernel launched before this has finished, and neither it nor the launch failed.
static inline void sync_device() {
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
}
