// The software NIC: executes mlx5 send queues that kernels (or host code) fill exactly as they
// would fill a ConnectX's, and answers with CQEs laid out as the ConnectX writes them.
//
// Memory shared with the posting side (all from alloc_queue_memory, byte offsets):
//   QP block   [0, 64 << log_bbs)                send ring: 64-byte basic blocks (BBs)
//              [64 << log_bbs, +64)              doorbell record: be32 word 0 receive counter,
//                                                be32 word 1 send producer index (low 16 bits)
//   UAR page   4096 bytes of its own per QP; the 8-byte doorbell register at +0x800
//   CQ block   [0, 64 << log_cq)                 CQEs, 64 bytes each, owner bit in byte 63
//              [64 << log_cq, +64)               CQ doorbell record: be32 word 0 consumer index
//                                                (24 bits), word 1 arm
// The same layout the DEVX setup (devx.h) registers as umem for a real NIC.
//
// What the NIC does, per QP, on its progress thread (or in poll()): read the doorbell record's
// send counter, and for every BB from its consumer index up to it, fetch and decode the WQE
// (wqe_decode.h), check it, execute it through HeapAccess against the one PE the QP is
// connected to, and write a CQE when the WQE asked for one (kCtrlCqUpdate) or failed. A
// failed WQE moves the QP to the error state; every later WQE then completes with a flush
// error CQE, signaled or not. The NIC never writes over a CQE the consumer has not released
// through the CQ doorbell record: it waits instead (stats: cq_full_stalls).
//
// Keys: register_memory returns one key per region, used as lkey and rkey alike (an mlx5
// mkey). A WQE's rkey must be the key the target PE registered for its heap, and
// [raddr, raddr + length) must lie in that heap as registered; lkeys must name a region of
// this NIC and the local range must lie in it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "../progress_thread.h"
#include "heap_access.h"
#include "kishmem/log.h"

namespace kishmem::ibgda {

struct DecodedWqe;

// ---- queue memory ------------------------------------------------------------------------------
// Every byte the NIC shares with a poster comes from here: page-aligned, zeroed host memory
// today; host-pinned and mapped into the GPU once kernels post (one place to change).
struct QueueMemory {
    void* ptr = nullptr;
    std::size_t bytes = 0;
};
Status alloc_queue_memory(std::size_t bytes, QueueMemory* out);
void free_queue_memory(QueueMemory* m);
// Whether p is host-pinned memory mapped into the GPU at the same address (what kernels need).
bool queue_memory_gpu_mapped(const void* p);

constexpr std::size_t kDbrBytes = 64;
constexpr std::size_t kUarPageBytes = 4096;
constexpr std::size_t kUarDoorbellOffset = 0x800;
constexpr uint32_t kMaxLogSqBbs = 15;   // qpc.log_sq_size is 4 bits
constexpr uint32_t kMaxLogCqSize = 20;

// ---- what posters and pollers see (plain data) ---------------------------------------------------
struct SimQpView {
    uint8_t* sq = nullptr;                  // 64 << log_bbs bytes
    uint32_t log_bbs = 0;
    uint32_t qpn = 0;
    volatile uint32_t* dbrec = nullptr;     // [mlx5::kSndDbr]: producer index, big-endian
    volatile uint64_t* doorbell = nullptr;  // the "UAR" register
    uint32_t cqn = 0;
};

struct SimCqView {
    uint8_t* buf = nullptr;                 // 64 << log_size bytes
    uint32_t log_size = 0;
    uint32_t cqn = 0;
    volatile uint32_t* dbrec = nullptr;     // [mlx5::kCqSetCi]: consumer index, big-endian
};

// A registered region: key serves as lkey and rkey.
struct MemoryKey {
    uint32_t key = 0;
    uint64_t addr = 0;
    uint64_t bytes = 0;
};

// The heap a QP writes into: the target PE and the key, base and size it registered.
struct RemoteHeap {
    int pe = -1;
    uint32_t rkey = 0;
    uint64_t base = 0;
    uint64_t bytes = 0;
};

enum class QpState : uint8_t { rts, error };

// A work request the NIC fails on purpose, for tests of the error paths
// (KISHMEM_SIM_NIC_FAIL=<kind>:<nth>[:<pe>]): the nth WQE it reads (1-based, over every QP,
// NOPs included) completes with the error CQE a ConnectX writes for that kind:
//   remote_access   syndrome 0x13: the responder refused the access (nothing moved)
//   retry_exceeded  syndrome 0x15: the transport gave up waiting for the responder
//   malformed       the WQE's ctrl segment is corrupted (opmod set) before the NIC decodes it:
//                   syndrome 0x02 through the NIC's own malformed-WQE check
// and the QP goes to the error state like any failed WQE.
enum class NicFaultKind : uint8_t { none, remote_access, retry_exceeded, malformed };
struct NicFault {
    NicFaultKind kind = NicFaultKind::none;
    uint64_t nth = 0;
    int pe = -1;  // only the NIC of this PE (-1: every PE's); the opener filters
};
// Parses "<kind>:<nth>[:<pe>]" ("" is none); *why names what is wrong.
Status parse_nic_fault(const std::string& spec, NicFault* out, std::string* why);

// The first WQE that failed on this NIC (flushes not counted), as the host reports it.
struct NicFailure {
    int pe = -1;             // the PE the QP reaches
    uint32_t qpn = 0;
    uint8_t wqe_opcode = 0;  // mlx5::kOp*
    uint16_t wqe_counter = 0;
    uint8_t syndrome = 0;    // mlx5::kSynd*
    uint64_t raddr = 0;      // the remote address the WQE named (0: none, or unreadable)
    uint64_t length = 0;     // bytes it would have moved
    uint64_t heap_offset = 0;  // raddr - the target heap's base (meaningful when in_heap)
    bool in_heap = false;
    std::string why;         // the NIC's reason
};
// "RDMA write of 8 bytes to PE 1 on QP 0x108 (WQE 0): remote access error (syndrome 0x13),
// remote address 0x... (heap offset 0x...): <why>"
std::string describe(const NicFailure& f);

struct SimNicOptions {
    bool complete_without_data = false;  // consume WQEs, write CQEs, move no bytes
    NicFault fault;                      // a WQE to fail on purpose (tests)
    uint32_t max_wqes_per_pass = 64;     // per QP per pass, so one busy QP cannot starve others
    uint32_t idle_spin_us = 50;          // busy polling after the last work, then sleeps
    uint32_t max_sleep_us = 500;         // sleeps double from 1 us up to this
};

struct SimNicStats {
    uint64_t wqes = 0;        // WQEs executed successfully
    uint64_t cqes = 0;        // CQEs written (errors and flushes included)
    uint64_t errors = 0;      // WQEs that failed (not counting flushes)
    uint64_t flushed = 0;     // WQEs completed with a flush error
    uint64_t bytes = 0;       // payload bytes moved
    uint64_t doorbells = 0;   // changes of a doorbell register seen
    uint64_t cq_full_stalls = 0;
    uint64_t sleeps = 0;
};

class SimNic {
public:
    // heap is not owned and must outlive the NIC.
    explicit SimNic(HeapAccess* heap, SimNicOptions opt = {});
    ~SimNic();
    SimNic(const SimNic&) = delete;
    SimNic& operator=(const SimNic&) = delete;

    Status register_memory(const void* addr, std::size_t bytes, MemoryKey* out);
    Status create_cq(uint32_t log_size, uint32_t* cqn);
    // A QP in RTS, connected to target, completing into cqn. 1 <= log_bbs <= kMaxLogSqBbs.
    Status create_qp(uint32_t cqn, uint32_t log_bbs, const RemoteHeap& target, uint32_t* qpn);
    SimQpView qp_view(uint32_t qpn) const;
    SimCqView cq_view(uint32_t cqn) const;
    QpState qp_state(uint32_t qpn) const;
    // Why the QP went to the error state ("" while it is in RTS).
    std::string qp_error(uint32_t qpn) const;
    // Error -> reset -> RTS, as a modify through RST does on hardware: consumer index 0, and
    // the doorbell record's send counter cleared; the poster restarts at producer index 0.
    Status reset_qp(uint32_t qpn);

    void start();
    void stop();
    bool running() const { return thread_.running(); }
    void kick();  // wake a sleeping progress thread now (host posters may call it after a doorbell)
    // One pass over every QP on the calling thread; returns the WQEs consumed. Safe alongside
    // the thread (passes are serialized).
    std::size_t poll();

    void set_complete_without_data(bool on) { complete_without_data_.store(on, std::memory_order_relaxed); }
    SimNicStats stats() const;
    // The first failed WQE (false while none failed; one relaxed load then).
    bool first_failure(NicFailure* out) const;

private:
    struct Region {
        uint32_t key;
        uint64_t addr;
        uint64_t bytes;
    };
    struct Cq {
        uint32_t cqn;
        uint32_t log_size;
        QueueMemory mem;
        uint32_t pi = 0;  // free-running producer index
    };
    struct Qp {
        uint32_t qpn;
        uint32_t log_bbs;
        Cq* cq;
        RemoteHeap target;
        QueueMemory mem;
        QueueMemory uar;
        uint32_t ci = 0;  // free-running consumer index in BBs
        QpState state = QpState::rts;
        uint64_t last_doorbell = 0;
        std::string error;
    };
    enum class Step { done, stalled, idle };

    std::size_t poll_locked();
    std::size_t service(Qp& q);
    Step step(Qp& q, uint32_t avail);
    Step flush_one(Qp& q, uint32_t avail);
    uint8_t check(const Qp& q, const DecodedWqe& d, std::string* why) const;
    uint8_t execute(Qp& q, const DecodedWqe& d, uint32_t* byte_cnt, std::string* why);
    // Flushes the writes issued since the last flush; a syndrome and *why when they failed.
    uint8_t land(const Qp& q, std::string* why);
    bool cq_has_room(const Cq& c) const;
    void complete(Qp& q, uint8_t cqe_opcode, uint8_t wqe_opcode, uint16_t wqe_counter, uint32_t byte_cnt,
                  uint8_t syndrome);
    void fail(Qp& q, uint8_t wqe_opcode, uint16_t wqe_counter, uint8_t syndrome, const std::string& why,
              uint64_t raddr = 0, uint64_t length = 0);
    // Whether the WQE about to be read is the one opt_.fault names (counted once consumed).
    bool fault_due() const { return opt_.fault.kind != NicFaultKind::none && wrs_ + 1 == opt_.fault.nth; }
    const Region* find_region(uint32_t key) const;
    Qp* qp_locked(uint32_t qpn) const;
    Cq* cq_locked(uint32_t cqn) const;

    HeapAccess* heap_;
    SimNicOptions opt_;
    std::atomic<bool> complete_without_data_;
    mutable std::mutex mu_;  // structures below, and one pass at a time
    std::vector<Region> regions_;
    std::vector<std::unique_ptr<Cq>> cqs_;
    std::vector<std::unique_ptr<Qp>> qps_;
    bool dirty_ = false;  // writes issued since the last HeapAccess::flush
    uint64_t wrs_ = 0;    // WQEs read and consumed (not flushed ones), for opt_.fault
    std::atomic<bool> failed_{false};
    NicFailure failure_;  // the first failure, under mu_ (failed_ set once it is written)

    struct Counters {
        std::atomic<uint64_t> wqes{0}, cqes{0}, errors{0}, flushed{0}, bytes{0}, doorbells{0}, cq_full_stalls{0};
    } n_;
    ProgressThread thread_;  // last: stopped before the members its poll() uses go
};

}  // namespace kishmem::ibgda
