// The atomics of the software NIC and the CPU proxy on GPU heaps. A CPU thread cannot do atomics on GPU memory, so a
// one-thread kernel does them, on the executor's own non-blocking stream: it runs next to the
// kernel that posted the work and now waits for its completion (a launch on the legacy stream,
// or a device-wide synchronize, would wait for that kernel instead).
#include <cuda_runtime.h>

#include "ipc_heap_access.h"

namespace kishmem::ibgda {
namespace {

__global__ void nic_atomic(unsigned long long* addr, bool cas, unsigned long long operand, unsigned long long compare,
                           unsigned long long* old_out) {
    *old_out = cas ? atomicCAS(addr, compare, operand) : atomicAdd(addr, operand);
}

}  // namespace

int launch_nic_atomic(void* stream, void* addr, bool cas, unsigned long long operand, unsigned long long compare,
                      unsigned long long* old_out) {
    nic_atomic<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<unsigned long long*>(addr), cas, operand,
                                                              compare, old_out);
    return static_cast<int>(cudaGetLastError());
}

}  // namespace kishmem::ibgda
