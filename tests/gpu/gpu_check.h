// Checks of the GPU tests: a failed CUDA call or condition names the PE and ends the job.
#pragma once
#include <cuda_runtime.h>
#include <shmem.h>

#include <cstdio>

#define CK(x)                                                                                   \
    do {                                                                                        \
        cudaError_t e_ = (x);                                                                   \
        if (e_ != cudaSuccess) {                                                                \
            std::fprintf(stderr, "FAIL: PE %d: %s: %s\n", shmem_my_pe(), #x, cudaGetErrorString(e_)); \
            shmem_global_exit(1);                                                               \
        }                                                                                       \
    } while (0)
#define CHECK(cond, ...)                                                                        \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            std::fprintf(stderr, "FAIL: PE %d: line %d: %s: ", shmem_my_pe(), __LINE__, #cond); \
            std::fprintf(stderr, __VA_ARGS__);                                                  \
            std::fputc('\n', stderr);                                                           \
            shmem_global_exit(1);                                                               \
        }                                                                                       \
    } while (0)
