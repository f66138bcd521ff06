// Builds without CUDA: no heap is ever in GPU memory, so the GPU form is never chosen; the
// entry points answer kNoGpu should they be reached.
#include "internal.h"

namespace kishmem::ep {

bool GpuPath::is_device_memory(const void*) { return false; }
bool GpuPath::capturing(cudaStream_t) { return false; }
int GpuPath::send_blocks(const Buffer&, int, int*) { return 0; }
int GpuPath::waiting_blocks(const Buffer&, int) { return 0; }
int GpuPath::combine_blocks(const Buffer&, int) { return 0; }
long long GpuPath::device_id() { return 0; }
int GpuPath::init(Buffer&) { return kNoGpu; }
void GpuPath::fini(Buffer&) {}
int GpuPath::dispatch_send(Buffer&, cudaStream_t, const void*, const void*, bool, int, bool, bool) { return kNoGpu; }
int GpuPath::dispatch_recv(Buffer&, cudaStream_t) { return kNoGpu; }
int GpuPath::combine_send(Buffer&, cudaStream_t, const void*, const float*, void*, int, bool) { return kNoGpu; }
int GpuPath::combine_recv(Buffer&, cudaStream_t, const float*, void*, int) { return kNoGpu; }
int GpuPath::received_bf16(Buffer&, cudaStream_t, void*) { return kNoGpu; }
int GpuPath::combine_bad_input(Buffer&, cudaStream_t) { return kNoGpu; }
int GpuPath::combine_acknowledge(Buffer&, cudaStream_t) { return kNoGpu; }
int GpuPath::check(Buffer&, cudaStream_t) { return kOk; }
int GpuPath::read_clock(Buffer&, unsigned long long*) { return kNoGpu; }
int GpuPath::copy_to_device(void*, const void*, size_t) { return kNoGpu; }
int GpuPath::zero_device(void*, size_t) { return kNoGpu; }

}  // namespace kishmem::ep
