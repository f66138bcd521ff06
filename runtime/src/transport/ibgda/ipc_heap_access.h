// HeapAccess over the GPU heaps this process maps through CUDA IPC: what the software NIC
// (../../device_backend/ibgda.cpp) and the CPU proxy (../../device_backend/proxy.cpp) move bytes with when kernels
// post to them. CUDA builds only.
//
// The executing thread (the NIC's or the proxy's) copies with cudaMemcpyAsync on a stream of
// its own and runs atomics as a one-thread kernel there (launch_nic_atomic). That stream is
// non-blocking: the kernel that posted the work is still running (it waits for the
// completion), and anything ordered after it, such as a copy on the legacy stream or
// cudaDeviceSynchronize, would deadlock. This is also why neither goes through
// rt::put/get/amo (the runtime's cuda_ipc transport copies on the legacy stream and
// synchronizes the device for atomics). A copy per operation costs microseconds: this makes
// the device paths run and be tested without a NIC, it is not a model of a NIC's speed.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "heap_access.h"

namespace kishmem::ibgda {

// bases[pe]: pe's GPU heap as mapped here (nullptr: not mapped); self: this PE's own heap of
// heap_bytes on GPU `device`. Warms the atomic kernel up on the reserved word at
// device::kDevReserved - 8 of self (so it is not first loaded while a posting kernel runs).
Status make_ipc_heap_access(std::vector<char*> bases, char* self, std::size_t heap_bytes, int device,
                            std::unique_ptr<HeapAccess>* out, std::string* why);

// A LocalCopy for GPU `device`: cudaMemcpyAsync on a non-blocking stream of its own, then a
// wait for that stream (never the legacy stream, which a running kernel would hold up); an
// empty function when the stream cannot be made (*why says why).
LocalCopy make_cuda_copy(int device, std::string* why);

// "what: <CUDA's text for err>", clearing CUDA's last error.
std::string cuda_error_text(const char* what, int err);

// The atomic kernel: a 64-bit fetch-add (cas false) or compare-swap at addr on `stream` (a
// cudaStream_t), the old value stored to *old_out (host-pinned). Returns the launch's
// cudaError_t as int. (device_qps_amo.cu)
int launch_nic_atomic(void* stream, void* addr, bool cas, unsigned long long operand, unsigned long long compare,
                      unsigned long long* old_out);

}  // namespace kishmem::ibgda
