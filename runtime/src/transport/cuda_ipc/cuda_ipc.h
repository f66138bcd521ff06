// Host-initiated operations on device heaps of same-host PEs, mapped through CUDA IPC: puts and
// gets are cudaMemcpy into the mapped peer heap, atomics a one-thread kernel.  Every operation
// is complete when it returns, so fence and quiet have nothing to wait for.
#pragma once
#include <vector>

#include "../../heap/device_heap.h"
#include "../transport.h"

namespace kishmem {

class CudaIpcTransport final : public Transport {
public:
    // bases[pe]: pe's heap as mapped here; device: this PE's GPU (where the atomics' kernels run).
    CudaIpcTransport(std::vector<char*> bases, int device) : bases_(std::move(bases)), device_(device) {}
    const char* name() const override { return "cuda_ipc"; }
    unsigned caps() const override { return cap_load_store; }
    int channels() const override { return 1; }  // synchronous: one quiet covers all
    Status put(int, int pe, std::size_t off, const void* src, std::size_t n, bool) override {
        return device_copy(bases_[pe] + off, src, n);
    }
    Status get(int, int pe, std::size_t off, void* dst, std::size_t n, bool) override {
        return device_copy(dst, bases_[pe] + off, n);
    }
    Status amo(int, int pe, std::size_t off, AmoOp op, unsigned width, uint64_t operand, uint64_t compare,
               uint64_t* fetched) override {
        return device_atomic(device_, bases_[pe] + off, op, width, operand, compare, fetched);
    }
    Status fence(int) override { return Status::ok; }
    Status quiet(int) override { return Status::ok; }
    char* base(int pe) const { return bases_[pe]; }

private:
    std::vector<char*> bases_;
    int device_;
};

}  // namespace kishmem
