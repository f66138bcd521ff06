// The GPU form's answer to a bad call of combine or its hook (Buffer::refuse_combine): one
// thread tells every PE what a combine send would have (gpu_kernels.cuh): comb_off[me] = 0
// (nothing to read here), comb_flag[me] = round | kBadInputBit, then arrive[kCombine][me]
// grows by kArriveUnit; and, reading nothing itself, it acknowledges (arrive[kRead][me] = round)
// to every mapped PE, as a finished receive does to those that wait (signal.cuh); a refused hook after a sent
// combine gives only that acknowledgement and waits for the peers' ones, as a receive does. In stream order after this PE's earlier kernels
// (so no late word of theirs overwrites it) and capturable. The receive kernel of every peer
// sees the bit and records kErrPeerBadCombine instead of summing.
#include <cuda_runtime.h>
#include <shmem.h>

#include "signal.cuh"
#include "internal.h"

namespace kishmem::ep {
namespace {

__global__ void refuse_combine(Layout l, char* base) {
    const View v{base};
    const uint64_t flag = v.local(l)->round | kBadInputBit;
    for (int r = 0; r < l.npes; ++r) {
        const int pe = v.pe_of(l)[r];
        shmem_uint64_p(v.comb_off(l) + l.me, 0, pe);
        gpu::arrive_at(l, base, kArriveCombine, v.comb_flag(l) + l.me, flag, kArriveUnit, pe);
    }
    gpu::acknowledge_read(l, base, View{base}.local(l)->round, true);
    shmem_quiet();
}

// A refused hook after a sent combine: what its receive would have done at its end, reading
// nothing: the acknowledgement, then (the caller's expert_out read in place) the wait for the peers' ones,
// so that the caller may overwrite expert_out once the refused call is done on the stream.
__global__ void acknowledge(Layout l, char* base) {
    gpu::acknowledge_read(l, base, View{base}.local(l)->round, true);
    shmem_quiet();
    if (View{base}.local(l)->wait_reads) gpu::wait_read_acknowledged(l, base, View{base}.local(l)->round);
}

// Loaded at init, not at a first launch behind a kernel that waits (kishmem/device/state.h).
const kishmem::device::PreloadKernels<refuse_combine, acknowledge> g_preload;

}  // namespace

int GpuPath::combine_bad_input(Buffer& b, cudaStream_t s) {
    refuse_combine<<<1, 1, 0, s>>>(b.layout_, b.base_);
    const cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? kOk : b.fail(kBadArgument, "combine", "the kernel that tells the peers could not start: %s", cudaGetErrorString(e));
}

int GpuPath::combine_acknowledge(Buffer& b, cudaStream_t s) {
    acknowledge<<<1, 1, 0, s>>>(b.layout_, b.base_);
    const cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? kOk : b.fail(kBadArgument, "combine_recv", "the kernel that acknowledges the peers could not start: %s", cudaGetErrorString(e));
}

}  // namespace kishmem::ep
