// The QP table a kernel reaches peers through over IBGDA: plain data the host fills
// (runtime/src/device_backend/ibgda.cpp) and publishes through State::ibgda.
// Host and device alike: no CUDA or rdma-core header.
//
// Per PE `pe` (other than this one) there are `qps_per_pe` RC QPs, each with its own CQ; a
// CTA uses QP (linear block index % qps_per_pe) for every operation to `pe`, so one thread's
// operations to one PE always travel in order on one QP. Descriptor of QP (pe, slot):
// qps[pe * qps_per_pe + slot]; the entries of this PE are zero (this PE is reached by
// load/store).
#pragma once
#include <stddef.h>
#include <stdint.h>

namespace kishmem::device::ibgda {

// Bytes of the per-slot result buffer: an RDMA read of up to this many bytes, or an atomic's
// fetched value, lands at result + (wqe index % ring slots) * kResultBytes.
constexpr uint32_t kResultBytes = 64;

// One QP as its poster sees it (the fields of post.h's DeviceQp, in plain types).
struct QpDesc {
    uint8_t* sq;                  // send ring, 64 << log_bbs bytes (host-pinned, mapped)
    uint32_t log_bbs;
    uint32_t qpn;
    volatile uint32_t* dbrec;     // QP doorbell record
    volatile uint64_t* db;        // doorbell register
    uint32_t* ctr;                // post.h's QpCounters (GPU memory: posters use atomics on it)
    uint8_t* cq;                  // CQ buffer, 64 << log_cq bytes
    uint32_t log_cq;
    uint32_t pad;
    volatile uint32_t* cq_dbrec;  // CQ doorbell record
    uint8_t* result;              // kResultBytes << log_bbs bytes, registered under result_lkey
};

struct DeviceQpTable {
    int n_pes;
    int qps_per_pe;
    uint32_t lkey;                 // this PE's device heap (data segments of puts, reads into the heap)
    uint32_t result_lkey;          // every QP's result buffer
    uint32_t signal_every;         // unsignalled posts flag every signal_every-th slot (a power of two)
    uint32_t pad;
    const QpDesc* qps;             // [n_pes * qps_per_pe]
    const uint32_t* rkey;          // [n_pes]: each PE's heap key
    const uint64_t* remote_base;   // [n_pes]: each PE's heap base as its NIC addresses it
};

}  // namespace kishmem::device::ibgda
