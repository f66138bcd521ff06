// Waiting in kernels, with a limit: what the device routines that spin (wait_until, barriers,
// waits for the NIC or the CPU proxy) use to say what they wait for when it takes too long.
#pragma once
#if defined(__CUDACC__)

#include "kishmem/device/state.h"

namespace kishmem::device {

// A wait in a kernel that takes too long says so: after KISHMEM_HANG_WARN seconds once ("still
// waiting"), after KISHMEM_HANG_ABORT seconds with a trap ("giving up"). describe(what, seconds)
// prints the message naming the call and what is awaited. The clock (%globaltimer) is read every
// 1024 polls, so a wait that ends soon costs a counter.
struct Patience {
    unsigned long long start = 0;
    unsigned polls = 0;
    bool warned = false;
    template <class Describe>
    __device__ __forceinline__ void tick(const State& s, Describe describe) {
        if ((++polls & 1023u) != 0 || (s.hang_warn_ns == 0 && s.hang_abort_ns == 0)) return;
        unsigned long long now;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (start == 0) {
            start = now;
            return;
        }
        const unsigned long long waited = now - start;
        if (s.hang_abort_ns != 0 && waited >= s.hang_abort_ns) {
            describe("giving up (KISHMEM_HANG_ABORT)", waited * 1e-9);
            __trap();
        }
        if (!warned && s.hang_warn_ns != 0 && waited >= s.hang_warn_ns) {
            warned = true;
            describe("still waiting", waited * 1e-9);
        }
    }
};

}  // namespace kishmem::device

#endif  // __CUDACC__
