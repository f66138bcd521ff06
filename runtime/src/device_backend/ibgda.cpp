// The IBGDA device backend (KISHMEM_REMOTE=ibgda with a device heap): a NIC with, per other
// PE, kQpsPerPe RC QPs (a CTA uses block % kQpsPerPe) and a CQ each, this PE's device heap
// registered, heap keys and bases exchanged through the bootstrap (open is collective), and the
// plain device::ibgda::DeviceQpTable (device/include/kishmem/device/ibgda/qp_table.h) in GPU
// memory as its device handle.
//
// The NIC is the software NIC (SimNic) whatever KISHMEM_IBGDA_NIC says until the DEVX QPs are
// wired here ("auto" picks it; "hw" is refused).  Data movement: ipc_heap_access.h (copies and
// atomics on the target GPU heaps through this process's CUDA IPC mappings, on a non-blocking
// stream of the NIC's own); PEs on other hosts through UCX active messages (make_backend_heap).
#include <cuda_runtime_api.h>

#include <cstring>
#include <memory>

#include "../bootstrap/bootstrap.h"
#include "../blob.h"
#include "../transport/ibgda/heap_access.h"
#include "../transport/ibgda/ipc_heap_access.h"
#include "../transport/ibgda/nic_select.h"
#include "../transport/ibgda/sim_nic.h"
#include "backend.h"
#include "kishmem/device/ibgda/qp_table.h"
#include "kishmem/device/state.h"
#include "kishmem/env.h"

namespace kishmem::ibgda {

namespace {

namespace dib = kishmem::device::ibgda;

constexpr int kQpsPerPe = 8;             // CTA b uses QP b % 8 of each PE
constexpr uint32_t kLogRing = 10;        // 1024 WQE slots per QP; the CQ has as many entries
constexpr uint32_t kSignalEvery = 64;    // unsignalled posts ask for a CQE every 64 slots
constexpr std::size_t kCounterBytes = 64;  // post.h's QpCounters, padded


struct DeviceQps {
    std::unique_ptr<HeapAccess> heap;
    std::unique_ptr<SimNic> nic;
    QueueMemory results;
    void* table = nullptr;     // GPU memory: the table block (layout in build_table)
    void* counters = nullptr;  // GPU memory: kCounterBytes per QP
    ~DeviceQps() {
        if (nic) nic->stop();
        nic.reset();  // frees the queues
        heap.reset();
        free_queue_memory(&results);
        if (table) cudaFree(table);
        if (counters) cudaFree(counters);
    }
};

std::size_t align64(std::size_t x) { return (x + 63) & ~std::size_t{63}; }

class IbgdaBackend final : public DeviceBackend {
public:
    const char* name() const override { return "ibgda"; }
    Status open(const DeviceBackendArgs& args, device::State* st, std::string* why) override;
    void drain() override {
        if (!q_) return;
        // poll() runs one pass after any pass of the progress thread: 0 means nothing is left
        // (every pass ends with the NIC's flush, so the data has landed).
        while (q_->nic->poll() != 0) {
        }
    }
    void close() override { q_.reset(); }
    std::string failure() const override {
        NicFailure f;
        if (!q_ || !q_->nic->first_failure(&f)) return {};
        return "the software NIC failed a kernel's " + describe(f);
    }
    bool counters(rt::DeviceCounters* out) const override {
        if (!q_) return false;
        *out = counters_of(q_->nic->stats());
        return true;
    }

private:
    std::unique_ptr<DeviceQps> q_;
};

}  // namespace

Status IbgdaBackend::open(const DeviceBackendArgs& args, device::State* st, std::string* why) {
    const int npes = args.npes, me = args.pe;
    char* const heap = args.heap;
    const std::size_t heap_bytes = args.heap_bytes;
    auto q = std::make_unique<DeviceQps>();
    std::string mine_why;
    MemoryKey heap_key{}, result_key{};
    NicKind kind = NicKind::sim;
    Status ok = choose_nic(&kind, &mine_why);
    if (ok == Status::ok && kind == NicKind::hw) {
        if (env::ibgda_nic() == env::IbgdaNic::hw) {
            ok = Status::unsupported;
            mine_why = "KISHMEM_IBGDA_NIC=hw: kernels post to the software NIC only so far (the DEVX QPs are not "
                       "wired to the device path)";
        } else {
            debug("IBGDA for kernels: %s found, software NIC used (DEVX QPs not wired to the device path yet)",
                  mine_why.c_str());
        }
    }
    NicFault fault;  // a WQE to fail on purpose (tests)
    if (ok == Status::ok && parse_nic_fault(env::sim_nic_fail(), &fault, &mine_why) != Status::ok) {
        ok = Status::invalid;
        mine_why = "KISHMEM_SIM_NIC_FAIL=" + mine_why;
    }
    if (ok == Status::ok) ok = make_backend_heap(args, &q->heap, &mine_why);
    if (ok == Status::ok) {
        SimNicOptions opt;
        opt.idle_spin_us = 1000;  // kernels wait on every get/AMO: stay awake between them
        opt.max_sleep_us = 100;
        if (fault.pe < 0 || fault.pe == me) opt.fault = fault;  // else another PE's NIC fails
        q->nic = std::make_unique<SimNic>(q->heap.get(), opt);
        ok = q->nic->register_memory(heap, heap_bytes, &heap_key);
        const std::size_t result_bytes = std::size_t{dib::kResultBytes} << kLogRing;
        if (ok == Status::ok) ok = alloc_queue_memory(result_bytes * npes * kQpsPerPe, &q->results);
        if (ok == Status::ok && !queue_memory_gpu_mapped(q->results.ptr)) {
            ok = Status::unsupported;
            mine_why = "queue memory is not host-pinned memory mapped at the same address into the GPU";
        } else if (ok == Status::ok) {
            ok = q->nic->register_memory(q->results.ptr, q->results.bytes, &result_key);
        }
        if (ok != Status::ok && mine_why.empty()) mine_why = std::string("NIC setup: ") + status_name(ok);
    }

    // Every PE learns every heap key and base, and whether everyone got this far.
    std::vector<Blob> all;
    Blob mine = BlobWriter()
                    .u64(ok == Status::ok)
                    .u64(heap_key.key)
                    .u64(reinterpret_cast<uintptr_t>(heap))
                    .str(mine_why)
                    .take();
    Status bs = args.boot->allgather(mine, &all, nullptr);
    if (bs != Status::ok) return *why = "bootstrap allgather of the IBGDA keys failed", bs;
    std::vector<uint32_t> rkey(npes);
    std::vector<uint64_t> rbase(npes);
    for (int r = 0; r < npes; ++r) {
        BlobReader rd(all[r]);
        const bool their_ok = rd.u64() != 0;
        rkey[r] = static_cast<uint32_t>(rd.u64());
        rbase[r] = rd.u64();
        std::string their_why = rd.str();
        if (!rd.at_end()) return *why = "malformed IBGDA key data from PE " + std::to_string(r), Status::invalid;
        if (!their_ok) return *why = "PE " + std::to_string(r) + " cannot run IBGDA: " + their_why, Status::unsupported;
    }

    // QPs and the table. Table block in GPU memory (one cudaMalloc), byte offsets:
    //   [0, sizeof(DeviceQpTable))   the table
    //   [o_qps, + nq * sizeof(QpDesc))  descriptors, QP (pe, slot) at pe * kQpsPerPe + slot
    //   [o_rkey, + npes * 4)          heap keys      [o_base, + npes * 8)  heap bases
    // Counters: kCounterBytes per QP, same index, zeroed (GPU memory: posters update them with
    // atomics, which host-mapped memory does not support across PCIe).
    const std::size_t nq = static_cast<std::size_t>(npes) * kQpsPerPe;
    const std::size_t o_qps = align64(sizeof(dib::DeviceQpTable));
    const std::size_t o_rkey = align64(o_qps + nq * sizeof(dib::QpDesc));
    const std::size_t o_base = align64(o_rkey + npes * sizeof(uint32_t));
    const std::size_t table_bytes = o_base + npes * sizeof(uint64_t);
    cudaError_t e = cudaMalloc(&q->table, table_bytes);
    if (e == cudaSuccess) e = cudaMalloc(&q->counters, nq * kCounterBytes);
    if (e == cudaSuccess) e = cudaMemset(q->counters, 0, nq * kCounterBytes);
    if (e != cudaSuccess) return *why = cuda_error_text("IBGDA table in GPU memory", e), Status::no_memory;
    std::vector<uint8_t> host(table_bytes, 0);
    char* dev = static_cast<char*>(q->table);
    auto* descs = reinterpret_cast<dib::QpDesc*>(host.data() + o_qps);
    for (int pe = 0; pe < npes; ++pe) {
        if (pe == me) continue;
        const RemoteHeap target{pe, rkey[pe], rbase[pe], heap_bytes};
        for (int slot = 0; slot < kQpsPerPe; ++slot) {
            uint32_t cqn = 0, qpn = 0;
            Status qs = q->nic->create_cq(kLogRing, &cqn);
            if (qs == Status::ok) qs = q->nic->create_qp(cqn, kLogRing, target, &qpn);
            if (qs != Status::ok) return *why = std::string("creating a QP: ") + status_name(qs), qs;
            const SimQpView v = q->nic->qp_view(qpn);
            const SimCqView c = q->nic->cq_view(cqn);
            if (!queue_memory_gpu_mapped(v.sq) || !queue_memory_gpu_mapped(c.buf))
                return *why = "software NIC queues are not mapped into the GPU", Status::unsupported;
            const std::size_t i = static_cast<std::size_t>(pe) * kQpsPerPe + slot;
            dib::QpDesc& d = descs[i];
            d.sq = v.sq;
            d.log_bbs = v.log_bbs;
            d.qpn = v.qpn;
            d.dbrec = v.dbrec;
            d.db = v.doorbell;
            d.ctr = reinterpret_cast<uint32_t*>(static_cast<char*>(q->counters) + i * kCounterBytes);
            d.cq = c.buf;
            d.log_cq = c.log_size;
            d.cq_dbrec = c.dbrec;
            d.result = static_cast<uint8_t*>(q->results.ptr) + i * (std::size_t{dib::kResultBytes} << kLogRing);
        }
    }
    std::memcpy(host.data() + o_rkey, rkey.data(), npes * sizeof(uint32_t));
    std::memcpy(host.data() + o_base, rbase.data(), npes * sizeof(uint64_t));
    dib::DeviceQpTable t{};
    t.n_pes = npes;
    t.qps_per_pe = kQpsPerPe;
    t.lkey = heap_key.key;
    t.result_lkey = result_key.key;
    t.signal_every = kSignalEvery;
    t.qps = reinterpret_cast<const dib::QpDesc*>(dev + o_qps);
    t.rkey = reinterpret_cast<const uint32_t*>(dev + o_rkey);
    t.remote_base = reinterpret_cast<const uint64_t*>(dev + o_base);
    std::memcpy(host.data(), &t, sizeof t);
    if ((e = cudaMemcpy(q->table, host.data(), table_bytes, cudaMemcpyHostToDevice)) != cudaSuccess)
        return *why = cuda_error_text("copying the IBGDA table", e), Status::transport_error;

    q->nic->start();
    st->ibgda = static_cast<const dib::DeviceQpTable*>(q->table);
    st->ibgda_qps_per_pe = kQpsPerPe;
    debug("IBGDA for kernels: software NIC, %d QPs per PE of %u slots, heap key 0x%x", kQpsPerPe, 1u << kLogRing,
          heap_key.key);
    q_ = std::move(q);
    return Status::ok;
}

}  // namespace kishmem::ibgda

namespace kishmem {
std::unique_ptr<DeviceBackend> make_ibgda_backend() { return std::make_unique<ibgda::IbgdaBackend>(); }
}  // namespace kishmem
