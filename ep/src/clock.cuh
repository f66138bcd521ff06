// The kernel clock inside the GPU form's kernels (Buffer::set_kernel_clock): each block's
// thread 0 stamps the GPU's global timer at the block's start and, after the block's last
// barrier, at its end, into the call's two words c[0] (start, complemented: the largest holds the
// earliest) and c[1] (end); the host zeroes them on the stream before the launch. c is null while
// the clock is off: a test at the block's start and one at its end, nothing else.
#pragma once

#include <stdint.h>

namespace kishmem::ep::gpu {

__device__ inline unsigned long long globaltimer() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ inline void clock_start(unsigned long long* c) {
    if (c && threadIdx.x == 0) atomicMax(c, ~globaltimer());
}

// Every thread of the block calls it, with the kernel's parameter (a __grid_constant__ Args's
// clock): the pointer is read from the parameter again here rather than kept in a register across
// the kernel's calls (the waits' reports), which ptxas would save on the stack.
__device__ inline void clock_end(unsigned long long* const& param) {
    unsigned long long* c;
    asm volatile("ld.u64 %0, [%1];" : "=l"(c) : "l"(&param));
    if (!c) return;
    __syncthreads();
    if (threadIdx.x == 0) atomicMax(c + 1, globaltimer());
}

}  // namespace kishmem::ep::gpu
