// See backend.h (make_backend_heap).
#include <memory>

#include "../transport/ibgda/heap_access.h"
#include "../transport/ibgda/ipc_heap_access.h"
#include "backend.h"
#if KISHMEM_HAVE_UCX
#include "../transport/ucx_am/ucx_am.h"
#endif

namespace kishmem {

Status make_backend_heap(const DeviceBackendArgs& args, std::unique_ptr<ibgda::HeapAccess>* out, std::string* why) {
    std::unique_ptr<ibgda::HeapAccess> ipc;
    Status s = ibgda::make_ipc_heap_access(args.bases, args.heap, args.heap_bytes, args.gpu, &ipc, why);
    if (s != Status::ok || !args.am) {
        if (s == Status::ok) *out = std::move(ipc);
        return s;
    }
#if KISHMEM_HAVE_UCX
    ibgda::LocalCopy copy = ibgda::make_cuda_copy(args.gpu, why);
    if (!copy) return Status::unsupported;
    std::vector<std::unique_ptr<ibgda::HeapAccess>> parts;
    parts.push_back(std::move(ipc));
    parts.push_back(args.am->client(std::move(copy)));
    std::vector<int> part_of(args.npes, 0);
    for (int pe = 0; pe < args.npes; ++pe)
        if (!args.bases[pe]) part_of[pe] = 1;  // not mapped here: on another host
    *out = ibgda::make_split_heap_access(std::move(parts), std::move(part_of));
    return Status::ok;
#else
    *why = "GPU heaps on other hosts need UCX, and this library was built without it";
    return Status::unsupported;
#endif
}

}  // namespace kishmem
