// Function qualifiers for code shared by host C++ and CUDA device code.
//
// KISHMEM_HD          a function callable from host and device, inlined by choice.
// KISHMEM_FORCEINLINE the same, always inlined (small hot helpers).
//
// Under a C++ compiler that is not nvcc both reduce to plain inline functions, so these
// headers also build with g++ alone (tests, the software NIC, the host setup code).
#pragma once

#if defined(__CUDACC__)
#define KISHMEM_HD __host__ __device__ inline
#define KISHMEM_FORCEINLINE __host__ __device__ __forceinline__
#else
#define KISHMEM_HD inline
#define KISHMEM_FORCEINLINE inline __attribute__((always_inline))
#endif
