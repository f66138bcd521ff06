// The one place the device path chooses how to reach a PE that peer() (rma.h) does not map:
// IBGDA work queues when the runtime published a QP table, else the CPU proxy's channels.
// Each routine has the same meaning in both backends (ibgda/backend.h, proxy/backend.h).
// KISHMEM_DEVICE_NO_REMOTE compiles both out (load/store only: the benchmark variant that
// measures what the dispatch costs).
#pragma once
#if defined(__CUDACC__)
#include <stddef.h>
#include <stdint.h>

#include "kishmem/device/ibgda/backend.h"
#include "kishmem/device/proxy/backend.h"
#include "kishmem/device/state.h"
#include "kishmem/vocab.h"

namespace kishmem::device::remote {

// Whether some PE is reached other than by load/store.
__device__ __forceinline__ bool any(const State& s) {
#if defined(KISHMEM_DEVICE_NO_REMOTE)
    (void)s;
    return false;
#else
    return s.ibgda != nullptr || s.proxy != nullptr;
#endif
}

#define KISHMEM_REMOTE_CALL(...) \
    (s.ibgda != nullptr ? ::kishmem::device::ibgda::__VA_ARGS__ : ::kishmem::device::proxy::__VA_ARGS__)

__device__ __forceinline__ void put(const State& s, int pe, size_t roff, const void* src, size_t n, const char* call,
                                    bool nbi) {
    KISHMEM_REMOTE_CALL(put(s, pe, roff, src, n, call, nbi));
}
__device__ __forceinline__ void put_value(const State& s, int pe, size_t roff, uint64_t value, uint32_t n) {
    KISHMEM_REMOTE_CALL(put_value(s, pe, roff, value, n));
}
__device__ __forceinline__ void get(const State& s, int pe, size_t roff, void* dst, size_t n, const char* call) {
    KISHMEM_REMOTE_CALL(get(s, pe, roff, dst, n, call));
}
__device__ __forceinline__ uint64_t amo(const State& s, int pe, size_t roff, AmoOp op, unsigned width, uint64_t v,
                                        uint64_t c, const char* call) {
    return KISHMEM_REMOTE_CALL(amo(s, pe, roff, op, width, v, c, call));
}
__device__ __forceinline__ void put_signal(const State& s, int pe, size_t roff, const void* src, size_t n,
                                           size_t sig_off, uint64_t value, int op, const char* call, bool nbi) {
    KISHMEM_REMOTE_CALL(put_signal(s, pe, roff, src, n, sig_off, value, op, call, nbi));
}
__device__ __forceinline__ void quiet(const State& s) { KISHMEM_REMOTE_CALL(quiet(s)); }

#undef KISHMEM_REMOTE_CALL

}  // namespace kishmem::device::remote

#endif  // __CUDACC__
