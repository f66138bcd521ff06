// The end of a combine receive, as every PE's peers see it: it adds kArriveUnit to
// arrive[kArriveRead][me] on every mapped PE (it reads no more of their expert_out), which the
// pull combine's senders wait for before their call ends (gpu_kernels.cuh). A refused combine or
// hook acknowledges the same way (gpu_refuse.cu), so that no sender waits for a receive that
// will not run. One thread.
#pragma once

#include <shmem.h>

#include "kishmem/ep/layout.h"

namespace kishmem::ep::gpu {

__device__ inline void acknowledge_read(const Layout& l, char* base) {
    const View v{base};
    for (int r = 0; r < l.npes; ++r) {
        const int pe = v.pe_of(l)[r];
        if (shmem_ptr(base, pe)) shmem_uint64_atomic_add(v.arrive(l) + kArriveRead * l.npes + l.me, kArriveUnit, pe);
    }
}

}  // namespace kishmem::ep::gpu
