#include "device_heap.h"

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <cstring>

#include "kishmem/env.h"

namespace kishmem {

namespace {
std::string err(const char* what, cudaError_t e) { return std::string(what) + ": " + cudaGetErrorString(e); }
}  // namespace

DeviceHeap::~DeviceHeap() { close(); }

Status DeviceHeap::open(int local_rank, std::size_t bytes, std::string* why) {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        *why = e != cudaSuccess ? err("cudaGetDeviceCount", e) : "no CUDA device";
        cudaGetLastError();
        return Status::unsupported;
    }
    long want = env::device_id();
    device_ = want >= 0 ? static_cast<int>(want % n) : local_rank % n;
    if ((e = cudaSetDevice(device_)) != cudaSuccess) {
        *why = err("cudaSetDevice", e);
        return e == cudaErrorMemoryAllocation ? Status::no_memory : Status::unsupported;  // (init says why)
    }
    void* p = nullptr;
    if ((e = cudaMalloc(&p, bytes)) != cudaSuccess)
        return *why = err("cudaMalloc of the symmetric heap", e) + " (lower SHMEM_SYMMETRIC_SIZE?)", Status::no_memory;
    base_ = static_cast<char*>(p);
    size_ = bytes;
    cudaDeviceProp prop;
    if ((e = cudaGetDeviceProperties(&prop, device_)) != cudaSuccess) return *why = err("cudaGetDeviceProperties", e), Status::unsupported;
    uuid_.assign(prop.uuid.bytes, sizeof prop.uuid.bytes);
    return Status::ok;
}

Blob DeviceHeap::export_blob() const {
    cudaIpcMemHandle_t h;
    std::memset(&h, 0, sizeof h);
    cudaError_t e = cudaIpcGetMemHandle(&h, base_);
    BlobWriter w;
    w.u64(e == cudaSuccess).bytes(&h, sizeof h).str(uuid_).u64(size_);
    return w.take();
}

Status DeviceHeap::map_peer(const Blob& peer, char** base, bool* same_gpu, std::string* why) {
    BlobReader r(peer);
    uint64_t ok = r.u64();
    Blob h = r.bytes();
    std::string uuid = r.str();
    uint64_t size = r.u64();
    if (!r.at_end() || h.size() != sizeof(cudaIpcMemHandle_t) || size != size_)
        return *why = "malformed or mismatched device-heap data", Status::invalid;
    if (!ok) return *why = "the peer could not export an IPC handle for its heap", Status::unreachable;
    cudaIpcMemHandle_t handle;
    std::memcpy(&handle, h.data(), sizeof handle);
    void* p = nullptr;
    cudaError_t e = cudaIpcOpenMemHandle(&p, handle, cudaIpcMemLazyEnablePeerAccess);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return *why = err("cudaIpcOpenMemHandle", e), Status::unreachable;
    }
    mapped_.push_back(static_cast<char*>(p));
    *base = static_cast<char*>(p);
    *same_gpu = uuid == uuid_;
    return Status::ok;
}

bool DeviceHeap::same_gpu(const Blob& peer) const {
    BlobReader r(peer);
    r.u64();
    r.bytes();
    return r.str() == uuid_;
}

void DeviceHeap::close() {
    for (char* p : mapped_) cudaIpcCloseMemHandle(p);
    mapped_.clear();
    if (base_) cudaFree(base_);
    base_ = nullptr;
}

Status device_copy(void* dst, const void* src, std::size_t n) {
    if (n == 0) return Status::ok;
    cudaError_t e = cudaMemcpy(dst, src, n, cudaMemcpyDefault);
    // A device-to-device cudaMemcpy may still run when it returns: complete it, so that what a
    // thread does next (an atomic on its own stream: device_atomic.cu) comes after it.
    if (e == cudaSuccess) e = cudaStreamSynchronize(cudaStreamLegacy);
    if (e != cudaSuccess) {
        warn("device copy", "cudaMemcpy of %zu bytes: %s", n, cudaGetErrorString(e));
        return Status::transport_error;
    }
    return Status::ok;
}

Status device_set(void* dst, int value, std::size_t n) {
    cudaError_t e = cudaMemset(dst, value, n);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    return e == cudaSuccess ? Status::ok : Status::transport_error;
}

}  // namespace kishmem
