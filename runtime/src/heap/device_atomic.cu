// Host-initiated atomics on device memory: the host cannot do them itself, so a one-thread
// kernel does the operation and copies the old value back.
#include <cuda_runtime.h>

#include "device_heap.h"
#include "kishmem/vocab.h"

namespace kishmem {
namespace {

template <class W>
__device__ W apply(W* p, int op, W v, W c) {
    switch (static_cast<AmoOp>(op)) {
        case AmoOp::fetch: return atomicAdd(p, W(0));
        case AmoOp::set: return atomicExch(p, v);
        case AmoOp::swap: return atomicExch(p, v);
        case AmoOp::cswap: return atomicCAS(p, c, v);
        case AmoOp::add: case AmoOp::fetch_add: return atomicAdd(p, v);
        case AmoOp::and_: case AmoOp::fetch_and: return atomicAnd(p, v);
        case AmoOp::or_: case AmoOp::fetch_or: return atomicOr(p, v);
        case AmoOp::xor_: case AmoOp::fetch_xor: return atomicXor(p, v);
    }
    return 0;
}

__global__ void amo_kernel(void* addr, int op, unsigned width, unsigned long long v, unsigned long long c,
                           unsigned long long* out) {
    if (width == 4)
        *out = apply<unsigned int>(static_cast<unsigned int*>(addr), op, static_cast<unsigned int>(v),
                                   static_cast<unsigned int>(c));
    else
        *out = apply<unsigned long long>(static_cast<unsigned long long*>(addr), op, v, c);
}

}  // namespace

Status device_atomic(void* addr, int op, unsigned width, uint64_t operand, uint64_t compare, uint64_t* old) {
    static unsigned long long* result = nullptr;
    if (!result && cudaMallocHost(&result, sizeof *result) != cudaSuccess) return Status::no_memory;
    amo_kernel<<<1, 1>>>(addr, op, width, operand, compare, result);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        warn("atomic", "host atomic on device memory failed: %s", cudaGetErrorString(e));
        return Status::transport_error;
    }
    if (old) *old = *result;
    return Status::ok;
}

}  // namespace kishmem
