// KISHMEM_CUDA_CONNECTIONS (0, CUDA's choice, by default): the hardware work queues the process
// asks of CUDA, set as CUDA_DEVICE_MAX_CONNECTIONS when the library loads (before any CUDA context
// exists; CUDA reads it once, at context creation) unless the application set that variable.
//
// Why: CUDA aliases streams onto a few hardware queues (under MPS the clients share one pool).
// Work of two streams on one queue runs in order. kishmem's host threads queue copies and
// one-thread atomic kernels on streams of their own while application kernels wait for exactly
// that work (a kernel in shmem_quiet waits for the software NIC; a kernel waiting for a signal
// waits for the active-message service to apply a put). Queued behind such a kernel, the work
// never starts. Two simulated hosts on one GPU (under MPS) hung with those threads in
// cudaStreamSynchronize of streams holding only a copy or a one-thread atomic, which this
// explains. Not asked by default: under MPS the clients share one pool of queues, and a pass with
// 16 per process failed (its logs were lost), so more queues per PE may cost PEs per GPU.
#include <cstdio>
#include <cstdlib>

#include "kishmem/env.h"

namespace kishmem {
namespace {

__attribute__((constructor)) void ask_for_connections() {
#if KISHMEM_HAVE_CUDA
    if (std::getenv("CUDA_DEVICE_MAX_CONNECTIONS")) return;
    const long n = env::cuda_connections();
    if (n <= 0) return;
    char text[16];
    std::snprintf(text, sizeof text, "%ld", n > 32 ? 32L : n);
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", text, 0);
#endif
}

}  // namespace
}  // namespace kishmem
