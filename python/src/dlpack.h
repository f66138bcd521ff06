// DLPack (dmlc/dlpack, ABI version 0.8): the plain structs a framework's from_dlpack reads, so
// symmetric memory becomes a torch tensor (host or GPU) without linking the framework. The
// layout below is DLPack's stable C ABI (the "dltensor" capsule of DLPack before 1.0).
#pragma once

#include <Python.h>
#include <stdint.h>

#include <vector>

namespace kishmem::py {

enum DLDeviceType : int32_t { kDLCPU = 1, kDLCUDA = 2 };
enum DLDataTypeCode : uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLBool = 6 };

struct DLDevice {
    int32_t device_type;
    int32_t device_id;
};
struct DLDataType {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
};
struct DLTensor {
    void* data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t* shape;
    int64_t* strides;  // nullptr: compact row-major
    uint64_t byte_offset;
};
struct DLManagedTensor {
    DLTensor dl_tensor;
    void* manager_ctx;
    void (*deleter)(DLManagedTensor* self);
};

// A "dltensor" capsule viewing `data` (not owned: symmetric memory is freed collectively, by
// kishmem.free) as a row-major tensor of `shape`.
PyObject* dlpack_capsule(void* data, const std::vector<int64_t>& shape, uint8_t code, uint8_t bits, int device_type,
                         int device_id);

}  // namespace kishmem::py
