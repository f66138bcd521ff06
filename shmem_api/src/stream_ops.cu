// Stream-ordered host calls (shmemx_*_on_stream): each is a small kernel on the caller's
// stream, so it orders with the stream's other work and can be captured into a CUDA graph.
// This translation unit keeps its own copy of the device state, like any user .cu file: it
// includes the public shmem.h and defines API routines, so it belongs to shmem_api (the runtime
// below never includes the public C API; docs/layers.md).
#include <cuda_runtime.h>
#include <shmemx.h>  // shmem.h and the declarations of the routines below (visible: exported)

#include "kishmem/log.h"

namespace {

__global__ void k_put(void* d, const void* s, size_t n, int pe) { shmemx_putmem_block(d, s, n, pe); }
__global__ void k_put_signal(void* d, const void* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe) {
    shmemx_putmem_signal_block(d, s, n, sig, v, op, pe);
}
__global__ void k_quiet() { shmem_quiet(); }
__global__ void k_barrier() { shmemx_barrier_all_block(); }
__global__ void k_signal_wait(uint64_t* sig, int cmp, uint64_t v) { shmem_signal_wait_until(sig, cmp, v); }

// Loaded at init: the first launch of k_signal_wait behind a k_put_signal that waits for the
// software NIC deadlocked under lazy loading (kishmem/device/state.h).
const kishmem::device::PreloadKernels<k_put, k_put_signal, k_quiet, k_barrier, k_signal_wait> g_preload;

int launched(const char* call, cudaError_t e) {
    if (e == cudaSuccess) return 0;
    kishmem::warn(call, "kernel launch failed: %s", cudaGetErrorString(e));
    return static_cast<int>(e);
}

}  // namespace

extern "C" {

int shmemx_putmem_on_stream(void* dest, const void* src, size_t nelems, int pe, cudaStream_t stream) {
    k_put<<<1, 256, 0, stream>>>(dest, src, nelems, pe);
    return launched("shmemx_putmem_on_stream", cudaGetLastError());
}

int shmemx_putmem_signal_on_stream(void* dest, const void* src, size_t nelems, uint64_t* sig_addr, uint64_t signal,
                                   int sig_op, int pe, cudaStream_t stream) {
    k_put_signal<<<1, 256, 0, stream>>>(dest, src, nelems, sig_addr, signal, sig_op, pe);
    return launched("shmemx_putmem_signal_on_stream", cudaGetLastError());
}

int shmemx_signal_wait_until_on_stream(uint64_t* sig_addr, int cmp, uint64_t cmp_value, cudaStream_t stream) {
    k_signal_wait<<<1, 1, 0, stream>>>(sig_addr, cmp, cmp_value);
    return launched("shmemx_signal_wait_until_on_stream", cudaGetLastError());
}

int shmemx_quiet_on_stream(cudaStream_t stream) {
    k_quiet<<<1, 1, 0, stream>>>();
    return launched("shmemx_quiet_on_stream", cudaGetLastError());
}

int shmemx_barrier_all_on_stream(cudaStream_t stream) {
    k_barrier<<<1, 32, 0, stream>>>();
    return launched("shmemx_barrier_all_on_stream", cudaGetLastError());
}

}  // extern "C"
