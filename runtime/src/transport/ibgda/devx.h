// IBGDA on a real ConnectX: device and port selection, PD, UARs, CQs and RC QPs created with
// DEVX commands on queue memory we own (so kernels can write WQEs and doorbell records into
// it), their connection, and the heap's memory region. Built only with rdma-core
// (KISHMEM_HAVE_VERBS); the declarations need no rdma-core header.
//
// Queue memory has the software NIC's layout (sim_nic.h):
//   QP umem  [0, 64 << log_bbs) send ring, [64 << log_bbs, +64) doorbell record
//            (qpc.dbr_umem_id = the same umem, qpc.dbr_addr = 64 << log_bbs)
//   CQ umem  [0, 64 << log_cq) CQEs, [64 << log_cq, +64) CQ doorbell record
//   doorbell the 8-byte register of a UAR of the QP's own (mlx5dv_devx_uar.reg_addr)
// Host queue memory is registered by address; GPU queue memory (a QueueAllocator given in
// DevxOptions) through its dma-buf.
//
// Files: devx.cpp (probe, device/port, PD, UAR, queue memory), devx_cq.cpp, devx_qp.cpp
// (create, RST->INIT->RTR->RTS, connect), devx_mr.cpp (heap registration).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../../blob.h"
#include "kishmem/log.h"

struct ibv_context;
struct ibv_pd;
struct ibv_mr;
struct mlx5dv_devx_obj;
struct mlx5dv_devx_umem;
struct mlx5dv_devx_uar;

namespace kishmem::ibgda {

// Can IBGDA run on an mlx5 device here? false with *why saying exactly what is missing ("no
// RDMA devices: ibv_get_device_list failed: Function not implemented", "no mlx5 device",
// "DEVX not permitted on mlx5_0: ..."); true with *found naming the device and port. The
// device is the one KISHMEM_IBGDA_DEVICE names, or else the first mlx5 device with an
// active port. Opens the device and allocates a PD and a UAR, then releases them.
bool ibgda_probe(std::string* why, std::string* found = nullptr);

// ---- queue memory --------------------------------------------------------------------------------
struct QueueBuffer {
    void* addr = nullptr;        // CPU address (host) or device address (GPU)
    std::size_t bytes = 0;
    int dmabuf_fd = -1;          // GPU: the dma-buf that exports addr's allocation
    uint64_t dmabuf_offset = 0;  // GPU: offset of addr in that dma-buf
};

// Supplies GPU queue memory (the GPU layer implements it; the runtime needs no CUDA here).
class QueueAllocator {
public:
    virtual ~QueueAllocator() = default;
    virtual Status alloc(std::size_t bytes, QueueBuffer* out) = 0;  // page-aligned, with dma-buf
    virtual Status fill(const QueueBuffer& b, std::size_t off, const void* src, std::size_t n) = 0;
    virtual void release(QueueBuffer* b) = 0;
};

struct DevxOptions {
    std::string device;                     // NAME[:PORT]; "" = KISHMEM_IBGDA_DEVICE, else the first usable
    QueueAllocator* gpu_queues = nullptr;   // set: queues in GPU memory (dma-buf umem)
};

struct PortInfo {
    uint8_t num = 0;
    bool roce = false;       // Ethernet link layer (RoCE v2) rather than InfiniBand
    uint16_t lid = 0;        // InfiniBand
    uint8_t gid[16] = {};    // RoCE: the GID at gid_index
    uint8_t gid_index = 0;
    uint8_t active_mtu = 0;  // IB enum, 1 (256) .. 5 (4096)
};

class DevxDevice {
public:
    ~DevxDevice();
    DevxDevice(const DevxDevice&) = delete;
    DevxDevice& operator=(const DevxDevice&) = delete;
    static Status open(const DevxOptions& opt, std::unique_ptr<DevxDevice>* out, std::string* why);

    ibv_context* context() const { return ctx_; }
    ibv_pd* pd() const { return pd_; }
    uint32_t pdn() const { return pdn_; }
    uint32_t eqn() const { return eqn_; }
    const PortInfo& port() const { return port_; }
    const std::string& name() const { return name_; }
    mlx5dv_devx_uar* cq_uar() const { return cq_uar_; }

    // Queue memory of `bytes` (page multiple), zeroed, registered as umem.
    Status alloc_queue(std::size_t bytes, QueueBuffer* out, mlx5dv_devx_umem** umem, std::string* why);
    Status fill_queue(const QueueBuffer& b, std::size_t off, const void* src, std::size_t n);
    void free_queue(QueueBuffer* b, mlx5dv_devx_umem* umem);
    Status alloc_uar(mlx5dv_devx_uar** out, std::string* why);

private:
    DevxDevice() = default;
    ibv_context* ctx_ = nullptr;
    ibv_pd* pd_ = nullptr;
    uint32_t pdn_ = 0;
    uint32_t eqn_ = 0;
    PortInfo port_;
    std::string name_;
    mlx5dv_devx_uar* cq_uar_ = nullptr;
    QueueAllocator* gpu_ = nullptr;
};

// ---- completion queues ---------------------------------------------------------------------------
struct DevxCq {
    mlx5dv_devx_obj* obj = nullptr;
    uint32_t cqn = 0;
    uint32_t log_size = 0;
    QueueBuffer mem;
    mlx5dv_devx_umem* umem = nullptr;
    uint8_t* buf = nullptr;                // CQEs (a GPU address with GPU queues)
    volatile uint32_t* dbrec = nullptr;
};
Status devx_create_cq(DevxDevice& dev, uint32_t log_size, DevxCq* out, std::string* why);
void devx_destroy_cq(DevxDevice& dev, DevxCq* cq);

// ---- RC queue pairs ------------------------------------------------------------------------------
enum class DevxQpState : uint8_t { reset, init, rtr, rts, error };

struct DevxQp {
    mlx5dv_devx_obj* obj = nullptr;
    uint32_t qpn = 0;
    uint32_t log_bbs = 0;
    int peer = -1;      // the PE this QP connects to
    int slot = 0;       // which of the QPs towards that peer (per CTA / per warp, the caller's mapping)
    uint32_t psn = 0;   // initial send PSN
    uint32_t cqn = 0;
    DevxQpState state = DevxQpState::reset;
    QueueBuffer mem;
    mlx5dv_devx_umem* umem = nullptr;
    mlx5dv_devx_uar* uar = nullptr;
    uint8_t* sq = nullptr;
    volatile uint32_t* dbrec = nullptr;
    volatile uint64_t* doorbell = nullptr;
};
// A QP in RESET towards (peer, slot), completing into cq. log_bbs <= 15.
Status devx_create_qp(DevxDevice& dev, const DevxCq& cq, uint32_t log_bbs, int peer, int slot, DevxQp* out,
                      std::string* why);
void devx_destroy_qp(DevxDevice& dev, DevxQp* qp);
Status devx_qp_to_error(DevxQp& qp, std::string* why);

// Collective over all PEs: every PE passes its QPs (any number per peer, told apart by slot);
// QP (me -> p, slot k) is connected to QP (p -> me, slot k) and taken RESET -> INIT -> RTR ->
// RTS. The allgather carries each PE's blob to every PE, indexed by PE.
using Allgather = std::function<Status(const Blob& mine, std::vector<Blob>* all)>;
Status devx_connect(DevxDevice& dev, int my_pe, int n_pes, std::vector<DevxQp>& qps, const Allgather& allgather,
                    std::string* why);

// ---- heap registration ---------------------------------------------------------------------------
struct DevxMr {
    ibv_mr* mr = nullptr;
    uint32_t lkey = 0;
    uint32_t rkey = 0;
    uint64_t addr = 0;
    std::size_t bytes = 0;
};
// Host memory by address (dmabuf_fd < 0), GPU memory through its dma-buf (addr is then the
// device address peers use as raddr base, at dmabuf_offset in the dma-buf).
Status devx_register_heap(DevxDevice& dev, void* addr, std::size_t bytes, int dmabuf_fd, uint64_t dmabuf_offset,
                          DevxMr* out, std::string* why);
void devx_deregister(DevxMr* mr);

}  // namespace kishmem::ibgda
