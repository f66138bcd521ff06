// Host-initiated atomics on device memory: the host cannot do them itself, so a one-thread
// kernel does the operation and writes the old value to pinned host memory.
//
// Threads (SHMEM_THREAD_MULTIPLE) do not share anything here: each host thread has its own
// non-blocking stream and its own result slot, made at its first atomic and released when the
// thread ends. A thread's atomics run in its call order on its stream, and each call waits for
// its own stream only: no device-wide synchronization, so an atomic neither waits for kernels
// the application runs on other streams (one may be spinning on the very word this atomic
// writes) nor for other threads' atomics.
#include <cuda_runtime.h>

#include "device_heap.h"
#include "kishmem/device/amo_code.h"
#include "kishmem/device/state.h"
#include "kishmem/vocab.h"

namespace kishmem {
namespace {

__global__ void amo_kernel(void* addr, AmoOp op, unsigned width, unsigned long long v, unsigned long long c,
                           unsigned long long* out) {
    if (width == 4)
        *out = device::amo_word<unsigned int>(static_cast<unsigned int*>(addr), op, static_cast<unsigned int>(v),
                                                static_cast<unsigned int>(c));
    else
        *out = device::amo_word<unsigned long long>(static_cast<unsigned long long*>(addr), op, v, c);
}

// Loaded at init, not at the first host atomic behind a kernel that waits (kishmem/device/state.h).
const device::PreloadKernels<amo_kernel> g_preload;

// One host thread's stream and result slot on one GPU.
struct ThreadSlot {
    int device = -1;
    cudaStream_t stream = nullptr;
    unsigned long long* result = nullptr;  // pinned host memory the kernel writes

    void release() {
        if (stream) cudaStreamDestroy(stream);
        if (result) cudaFreeHost(result);
        stream = nullptr;
        result = nullptr;
        device = -1;
    }
    ~ThreadSlot() { release(); }

    // Made on first use on `device` (the caller has made it current).
    cudaError_t ready(int dev) {
        if (device == dev) return cudaSuccess;
        release();
        cudaError_t e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaMallocHost(&result, sizeof *result);
        if (e != cudaSuccess) {
            release();
            return e;
        }
        device = dev;
        return cudaSuccess;
    }
};

thread_local ThreadSlot t_slot;

// Makes `device` current for the scope of one call and gives the caller's back afterwards.
class DeviceScope {
public:
    explicit DeviceScope(int device) {
        if (cudaGetDevice(&prev_) != cudaSuccess) prev_ = -1;
        if (device >= 0 && device != prev_) e_ = cudaSetDevice(device);
        else prev_ = -1;  // nothing to give back
    }
    ~DeviceScope() {
        if (prev_ >= 0) cudaSetDevice(prev_);
    }
    cudaError_t error() const { return e_; }

private:
    int prev_ = -1;
    cudaError_t e_ = cudaSuccess;
};

}  // namespace

Status device_atomic(int device, void* addr, AmoOp op, unsigned width, uint64_t operand, uint64_t compare,
                     uint64_t* old) {
    DeviceScope scope(device);
    cudaError_t e = scope.error();
    int dev = device;
    if (e == cudaSuccess && dev < 0) e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = t_slot.ready(dev);
    if (e == cudaSuccess) {
        amo_kernel<<<1, 1, 0, t_slot.stream>>>(addr, op, width, operand, compare, t_slot.result);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaStreamSynchronize(t_slot.stream);
    if (e != cudaSuccess) {
        warn("atomic", "host atomic on device memory failed: %s", cudaGetErrorString(e));
        return e == cudaErrorMemoryAllocation ? Status::no_memory : Status::transport_error;
    }
    if (old) *old = *t_slot.result;
    return Status::ok;
}

}  // namespace kishmem
