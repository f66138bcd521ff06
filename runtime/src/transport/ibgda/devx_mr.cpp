// DEVX setup, part 4: the symmetric heap as a memory region peers address by rkey.
#include <infiniband/verbs.h>

#include <cerrno>
#include <cstring>

#include "devx.h"

namespace kishmem::ibgda {

Status devx_register_heap(DevxDevice& dev, void* addr, std::size_t bytes, int dmabuf_fd, uint64_t dmabuf_offset,
                          DevxMr* out, std::string* why) {
    const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                       IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_RELAXED_ORDERING;
    const uint64_t iova = reinterpret_cast<uintptr_t>(addr);
    errno = 0;
    // GPU heaps: the dma-buf is the memory, iova the address peers put in their WQEs.
    ibv_mr* mr = dmabuf_fd >= 0 ? ibv_reg_dmabuf_mr(dev.pd(), dmabuf_offset, bytes, iova, dmabuf_fd, access)
                                : ibv_reg_mr(dev.pd(), addr, bytes, access);
    if (!mr) {
        *why = dev.name() + ": registering the " + std::to_string(bytes) + "-byte " +
               (dmabuf_fd >= 0 ? "GPU heap through its dma-buf (ibv_reg_dmabuf_mr)" : "host heap (ibv_reg_mr)") +
               " failed: " + std::strerror(errno ? errno : EIO);
        return Status::transport_error;
    }
    out->mr = mr;
    out->lkey = mr->lkey;
    out->rkey = mr->rkey;
    out->addr = iova;
    out->bytes = bytes;
    return Status::ok;
}

void devx_deregister(DevxMr* mr) {
    if (mr->mr) ibv_dereg_mr(mr->mr);
    *mr = DevxMr{};
}

}  // namespace kishmem::ibgda
