// The top-k row check that the CPU form, the kernels and ep/bench/entry_cost.cu share: plain
// data, no kishmem header beyond the host/device qualifiers.
#pragma once

#include "kishmem/device/hd.h"

namespace kishmem::ep {

// The first bad entry of one row (row[0..K), K <= 16), or -1: < -1, >= E, or an expert already
// in the row (reported at its second entry). The row is loaded whole first (on the GPU its loads
// are then in flight together). Host and kernels (gpu_kernels.cuh) check with this one function.
#if defined(__CUDA_ARCH__)  // the device pass only: the host compiler does not know the pragma
#define KISHMEM_EP_UNROLL _Pragma("unroll")
#else
#define KISHMEM_EP_UNROLL
#endif
template <class Idx>
KISHMEM_HD int first_bad_in_row(const Idx* row, int K, int E) {
    constexpr int kMax = 16;
    long long e[kMax];
    KISHMEM_EP_UNROLL
    for (int k = 0; k < kMax; ++k) e[k] = k < K ? static_cast<long long>(row[k]) : -1;
    int bad = -1;
    KISHMEM_EP_UNROLL
    for (int k = kMax - 1; k >= 0; --k) {  // the lowest k wins
        if (k >= K) continue;
        bool b = e[k] < -1 || e[k] >= E;
        KISHMEM_EP_UNROLL
        for (int i = 0; i < k; ++i) b = b || (e[k] >= 0 && e[i] == e[k]);
        if (b) bad = k;
    }
    return bad;
}
#undef KISHMEM_EP_UNROLL

}  // namespace kishmem::ep
