// Cooperation scope as a type: the same template serves one thread, a warp or a block.
#pragma once
#if defined(__CUDACC__)

namespace kishmem::device {

struct Thread {
    static __device__ __forceinline__ unsigned rank() { return 0; }
    static __device__ __forceinline__ unsigned size() { return 1; }
    static __device__ __forceinline__ void sync() {}
};

struct Warp {
    static __device__ __forceinline__ unsigned rank() { return threadIdx.x & 31u; }
    static __device__ __forceinline__ unsigned size() { return 32; }
    static __device__ __forceinline__ void sync() { __syncwarp(); }
};

struct Block {
    static __device__ __forceinline__ unsigned rank() {
        return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    }
    static __device__ __forceinline__ unsigned size() { return blockDim.x * blockDim.y * blockDim.z; }
    static __device__ __forceinline__ void sync() { __syncthreads(); }
};

}  // namespace kishmem::device

#endif
