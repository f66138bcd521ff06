// DEVX setup, part 2: completion queues (CREATE_CQ on our own umem).
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "devx.h"
#include "devx_prm.h"
#include "kishmem/device/ibgda/mlx5_defs.h"

namespace kishmem::ibgda {

namespace {
constexpr std::size_t kDbrBytes = 64;
constexpr uint32_t kMaxLogCq = 20;
}  // namespace

// Shared by the QP code: a failed DEVX command's status and syndrome, or errno.
std::string devx_cmd_error(const char* cmd, const void* out) {
    char buf[160];
    const int e = errno;
    std::snprintf(buf, sizeof buf, "%s failed: %s (command status 0x%x, syndrome 0x%08x)", cmd,
                  std::strerror(e ? e : EIO), prm::get(out, prm::kOutStatus), prm::get(out, prm::kOutSyndrome));
    return buf;
}

Status devx_create_cq(DevxDevice& dev, uint32_t log_size, DevxCq* out, std::string* why) {
    if (log_size < 1 || log_size > kMaxLogCq) {
        *why = "CQ of 2^" + std::to_string(log_size) + " entries: log size must be 1.." + std::to_string(kMaxLogCq);
        return Status::invalid;
    }
    DevxCq cq;
    cq.log_size = log_size;
    const std::size_t cqe_bytes = std::size_t{64} << log_size;
    if (Status s = dev.alloc_queue(cqe_bytes + kDbrBytes, &cq.mem, &cq.umem, why); s != Status::ok) return s;
    // Every entry starts invalid with owner bit 0, as the consumer's first pass expects.
    std::vector<uint8_t> init(cqe_bytes, 0);
    for (std::size_t i = 0; i < (std::size_t{1} << log_size); ++i) init[i * 64 + 63] = mlx5::kCqeInvalid << 4;
    if (Status s = dev.fill_queue(cq.mem, 0, init.data(), init.size()); s != Status::ok) {
        *why = "CQ initialization failed";
        dev.free_queue(&cq.mem, cq.umem);
        return s;
    }

    uint8_t in[prm::kCreateCqInBytes] = {};
    uint8_t outbuf[prm::kOutBytes] = {};
    prm::set(in, prm::kOpcode, prm::kCreateCq);
    prm::set(in, prm::kCqcCqeSz, 0);  // 64-byte CQEs
    // Overrun checking off: pollers read CQEs in place and release them lazily; the posting
    // code keeps outstanding signaled WQEs below the CQ size.
    prm::set(in, prm::kCqcOi, 1);
    prm::set(in, prm::kCqcLogCqSize, log_size);
    prm::set(in, prm::kCqcUarPage, dev.cq_uar()->page_id);
    prm::set(in, prm::kCqcCEqn, dev.eqn());
    prm::set(in, prm::kCqcLogPageSize, 0);  // 4 KiB pages (log2(page) - 12)
    prm::set(in, prm::kCqcDbrUmemValid, 1);
    prm::set(in, prm::kCqcDbrUmemId, cq.umem->umem_id);
    prm::set64(in, prm::kCqcDbrAddr, cqe_bytes);  // doorbell record right after the CQEs
    prm::set(in, prm::kCqUmemValid, 1);
    prm::set(in, prm::kCqUmemId, cq.umem->umem_id);
    prm::set64(in, prm::kCqUmemOffset, 0);
    errno = 0;
    cq.obj = mlx5dv_devx_obj_create(dev.context(), in, sizeof in, outbuf, sizeof outbuf);
    if (!cq.obj) {
        *why = dev.name() + ": " + devx_cmd_error("CREATE_CQ", outbuf);
        dev.free_queue(&cq.mem, cq.umem);
        return Status::transport_error;
    }
    cq.cqn = prm::get(outbuf, prm::kOutObjId);
    cq.buf = static_cast<uint8_t*>(cq.mem.addr);
    cq.dbrec = reinterpret_cast<volatile uint32_t*>(cq.buf + cqe_bytes);
    *out = cq;
    return Status::ok;
}

void devx_destroy_cq(DevxDevice& dev, DevxCq* cq) {
    if (cq->obj) mlx5dv_devx_obj_destroy(cq->obj);
    dev.free_queue(&cq->mem, cq->umem);
    *cq = DevxCq{};
}

}  // namespace kishmem::ibgda
