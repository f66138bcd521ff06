// The DLPack capsule of dlpack.h: the struct and its shape live in one heap block that the
// consumer's deleter frees (the data itself is the symmetric heap's, never freed here).
#include "dlpack.h"

namespace kishmem::py {
namespace {

struct Owned {
    DLManagedTensor managed;
    std::vector<int64_t> shape;
};

void delete_owned(DLManagedTensor* m) { delete static_cast<Owned*>(m->manager_ctx); }

// A capsule that no consumer took still owns its tensor (the DLPack protocol's rule).
void capsule_destructor(PyObject* capsule) {
    if (PyCapsule_IsValid(capsule, "dltensor")) {
        auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
        if (m && m->deleter) m->deleter(m);
    }
}

}  // namespace

PyObject* dlpack_capsule(void* data, const std::vector<int64_t>& shape, uint8_t code, uint8_t bits, int device_type,
                         int device_id) {
    auto* o = new Owned();
    o->shape = shape;
    DLTensor& t = o->managed.dl_tensor;
    t.data = data;
    t.device = DLDevice{device_type, device_id};
    t.ndim = static_cast<int32_t>(o->shape.size());
    t.dtype = DLDataType{code, bits, 1};
    t.shape = o->shape.data();
    t.strides = nullptr;
    t.byte_offset = 0;
    o->managed.manager_ctx = o;
    o->managed.deleter = delete_owned;
    PyObject* c = PyCapsule_New(&o->managed, "dltensor", capsule_destructor);
    if (!c) delete o;
    return c;
}

}  // namespace kishmem::py
