// CK for ep/bench's one-process programs (plain nvcc, no kishmem): a failed CUDA call ends the
// program naming the call.
#pragma once
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                    \
    do {                                                                         \
        const cudaError_t e_ = (x);                                              \
        if (e_ != cudaSuccess) {                                                 \
            std::fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(e_)); \
            std::exit(1);                                                        \
        }                                                                        \
    } while (0)
