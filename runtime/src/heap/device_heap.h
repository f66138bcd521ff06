// The symmetric heap in GPU memory: one cudaMalloc per PE, shared with same-host PEs through
// CUDA IPC handles.  Built only with CUDA; the CUDA runtime is linked statically and reaches
// the driver lazily, so a machine without a GPU driver simply has no device heap.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "../blob.h"
#include "kishmem/log.h"
#include "kishmem/vocab.h"

namespace kishmem {

class DeviceHeap {
public:
    ~DeviceHeap();
    // Picks the GPU (KISHMEM_DEVICE_ID, else local_rank % devices) and allocates `bytes`.
    // Returns unsupported with *why set when no GPU is usable.
    Status open(int local_rank, std::size_t bytes, std::string* why);
    // What same-host peers need to map this heap: IPC handle, device identity.
    Blob export_blob() const;
    // Maps a peer's heap (its export_blob); *same_gpu tells whether it is this GPU.
    Status map_peer(const Blob& peer, char** base, bool* same_gpu, std::string* why);
    // Whether a peer's export_blob names this heap's GPU (same UUID), on any host.
    bool same_gpu(const Blob& peer) const;
    char* base() const { return base_; }
    std::size_t size() const { return size_; }
    int device() const { return device_; }
    void close();

private:
    char* base_ = nullptr;
    std::size_t size_ = 0;
    int device_ = -1;
    std::string uuid_;
    std::vector<char*> mapped_;
};

// Device-memory helpers for host code (cudaMemcpy / cudaMemset; complete when they return).
Status device_copy(void* dst, const void* src, std::size_t n);
Status device_set(void* dst, int value, std::size_t n);
// A host-initiated atomic on device memory (a one-thread kernel on GPU `device`, -1: the current
// one); returns the old value. Thread-safe: each host thread has its own stream and result slot,
// and waits for its own stream only (device_atomic.cu).
Status device_atomic(int device, void* addr, AmoOp op, unsigned width, uint64_t operand, uint64_t compare,
                     uint64_t* old);

}  // namespace kishmem
