// The software NIC between processes. Every PE runs a SimNic over the runtime's own routes,
// registers its symmetric heap, publishes key/base/size, and posts WQEs built with the device
// encoders from host code to every other PE: writes (data segment, inline, multi-BB inline,
// write-with-immediate), reads, fetch-adds and compare-swaps, and on one extra QP a write
// with a bad rkey that must come back as a remote access error (CQE fields, and the failure the
// host reports: PE, QP, operation, address) with its follower flushed.
// After shmem_barrier_all every PE checks what landed in its heap against values computed
// here independently.
// shmemx_nic_stats: with no device backend (a host heap) it returns SHMEMX_NIC_STATS_NONE and
// zeros; in CUDA builds this NIC is then put in the runtime's place of one
// (swap_device_backend), and the counters must grow by exactly the work requests, payload bytes,
// doorbells and errors posted here.
//
// With --am the NIC reaches PEs on other hosts as it does for GPU heaps there: through UCX
// active messages (transport/ucx_am), the target's service applying them to its heap; same-host
// PEs through the runtime's load/store routes.  Hosts are told apart by host names (the
// oracle), and the test requires shmem_ptr non-NULL exactly for same-host PEs and the service's
// counts to be exactly the off-host PEs' operations (kOpsPerPeer each way): same-host traffic
// never goes through UCX, off-host traffic always does.  --am-all sends every peer that way
// (the carriage on one host); --am-lazy too, with no endpoint made beforehand: each one is made
// when a PE first sends there or answers a request from there (a service must answer a PE it
// did not connect to).
//
//   ibgda_sim_mp            the test (prints "PASS ibgda_sim_mp on N PEs")
//   ibgda_sim_mp --am[-all|-lazy] the same over UCX active messages
//   ibgda_sim_mp --status   prints kishmem::ibgda_status() and exits (no shmem_init)
//   ibgda_sim_mp --nic-stats-null  calls shmemx_nic_stats(NULL): must end with a message
#include <sched.h>
#include <unistd.h>
#include <shmem.h>
#include <shmemx.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../mp/mp_check.h"  // CHECK
#include "kishmem/device/ibgda/mlx5_cqe.h"
#include "kishmem/device/ibgda/mlx5_wqe.h"
#include "kishmem/ibgda_info.h"
#include "kishmem/config.h"
#include "kishmem/runtime.h"
#include "transport/ibgda/heap_access.h"
#include "transport/ibgda/sim_nic.h"
#if KISHMEM_HAVE_CUDA_BUILD
#include "device_backend/backend.h"
#endif
#if KISHMEM_HAVE_UCX_BUILD
#include "transport/ucx_am/ucx_am.h"
#endif

namespace m = kishmem::mlx5;
using kishmem::Status;
using namespace kishmem::ibgda;

static int me = -1, npes = 0;

namespace {

constexpr int kChunk = 4096;  // bytes each PE writes into each peer's inbox
constexpr int kAdds = 50;     // fetch-adds per peer
constexpr int kSlots = 64;    // compare-swap slots per PE
constexpr uint32_t kLogBbs = 8;
// Heap operations the NIC executes per peer: the write, two inline writes, the write-imm, the
// read, the fetch-adds and the compare-swaps (the bad-key QP's WQEs execute none).
constexpr uint64_t kOpsPerPeer = 5 + kAdds + kSlots;
// Their payload bytes: the write and the read (kChunk each), the 8- and 100-byte inline
// writes, the 64-byte write-imm, 8 per atomic.
constexpr uint64_t kBytesPerPeer = 2 * kChunk + 8 + 100 + 64 + 8 * (kAdds + kSlots);
constexpr std::size_t kAddrBytes = 4096;  // a UCX worker address, exchanged through the heap

uint8_t pattern(int from, int to, int i) { return static_cast<uint8_t>(from * 31 + to * 7 + i * 13 + 1); }
uint8_t own_pattern(int pe, int i) { return static_cast<uint8_t>(pe * 101 + i * 3 + 5); }

// One QP towards one PE, posted from host code the way a kernel will post.
struct Queue {
    SimQpView v;
    m::SendQueue sq{};
    int peer = -1;
    uint32_t rkey = 0;
    uint64_t base = 0;
    int outstanding = 0;       // CQEs still expected
    uint32_t since_drain = 0;  // BBs posted since the ring was last known empty
    void* last = nullptr;
};

class Harness {
public:
    Harness(SimNic& nic, uint32_t cqn) : nic_(nic), cq_(nic.cq_view(cqn)) {}

    void add(Queue* q) { by_qpn_[q->v.qpn] = q; }

    m::WqeHeader hdr(Queue& q, bool sig) {
        return m::WqeHeader{static_cast<uint16_t>(q.sq.pi), q.sq.qpn, sig ? m::kCtrlCqUpdate : uint8_t{0}};
    }
    // Room for `bbs` more BBs without overrunning WQEs the NIC has not consumed yet.
    void* reserve(Queue& q, uint32_t bbs) {
        if (q.since_drain + bbs + 1 > (1u << kLogBbs) / 2) drain(q);
        return q.sq.wqe_slot(q.sq.pi);
    }
    void posted(Queue& q, uint32_t bbs, bool sig) {
        q.last = q.sq.wqe_slot(q.sq.pi);
        q.sq.pi += bbs;
        q.since_drain += bbs;
        if (sig) ++q.outstanding;
    }
    void ring(Queue& q) {
        ++rings;
        __atomic_thread_fence(__ATOMIC_RELEASE);
        m::update_sq_dbrec(q.v.dbrec, q.sq.pi);
        __atomic_thread_fence(__ATOMIC_RELEASE);
        m::ring_doorbell(q.v.doorbell, m::doorbell_value(q.last));
        nic_.kick();
    }
    // A signaled NOP, then wait for every completion of q: the ring is empty afterwards.
    void drain(Queue& q) {
        void* w = q.sq.wqe_slot(q.sq.pi);
        posted(q, m::build_nop(w, hdr(q, true)), true);
        ++nops;
        ring(q);
        wait(q);
        q.since_drain = 0;
    }
    void wait(Queue& q) {
        const auto t0 = std::chrono::steady_clock::now();
        while (q.outstanding > 0) {
            if (poll_one()) continue;
            kishmem::rt::progress();  // peers' NICs may need this PE's transport to progress
            sched_yield();
            CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30),
                  "QP to PE %d: %d completions missing after 30 s (QP state: %s)", q.peer, q.outstanding,
                  nic_.qp_error(q.v.qpn).c_str());
        }
    }
    std::vector<m::CqeInfo> errors;  // error CQEs seen, in order
    // Doorbells rung and NOPs posted. Every ring is followed by a wait for a completion of a
    // WQE posted no earlier, on a pass that services every QP: the NIC sees each ring.
    uint64_t rings = 0, nops = 0;

private:
    bool poll_one() {
        m::CqeInfo c;
        if (!m::poll_cqe(cq_.buf, cq_.log_size, ci_, &c)) return false;
        ++ci_;
        m::update_cq_dbrec(cq_.dbrec, ci_);
        auto it = by_qpn_.find(c.qpn);
        CHECK(it != by_qpn_.end(), "CQE for unknown QP 0x%x", c.qpn);
        Queue& q = *it->second;
        if (c.opcode != m::kCqeReq) {
            errors.push_back(c);
        }
        CHECK(q.outstanding > 0, "unexpected CQE (opcode %u, syndrome 0x%x, wqe %u) on the QP to PE %d: %s", c.opcode,
              c.syndrome, c.wqe_counter, q.peer, nic_.qp_error(q.v.qpn).c_str());
        --q.outstanding;
        return true;
    }
    SimNic& nic_;
    SimCqView cq_;
    uint32_t ci_ = 0;
    std::map<uint32_t, Queue*> by_qpn_;
};

std::size_t off_of(const void* sym) { return static_cast<const char*>(sym) - kishmem::rt::heap_base(); }

shmemx_nic_stats_t nic_stats(int want_rc) {
    shmemx_nic_stats_t st;
    std::memset(&st, 0xa5, sizeof st);  // every field must be written
    const int rc = shmemx_nic_stats(&st);
    CHECK(rc == want_rc, "shmemx_nic_stats returned %d, expected %d", rc, want_rc);
    return st;
}

#if KISHMEM_HAVE_CUDA_BUILD
// This test's NIC as the runtime's device backend, for its counters only (its failure on
// purpose is checked here, not reported at the next barrier).
class HostNic final : public kishmem::DeviceBackend {
public:
    explicit HostNic(const SimNic& nic) : nic_(nic) {}
    const char* name() const override { return "host-driven software NIC"; }
    Status open(const kishmem::DeviceBackendArgs&, kishmem::device::State*, std::string*) override { return Status::ok; }
    void drain() override {}
    void close() override {}
    bool counters(kishmem::rt::DeviceCounters* out) const override {
        *out = kishmem::counters_of(nic_.stats());
        return true;
    }

private:
    const SimNic& nic_;
};
#endif

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "--status") == 0) {
        std::printf("%s\n", kishmem::ibgda_status().c_str());
        return 0;
    }
    if (argc > 1 && std::strcmp(argv[1], "--nic-stats-null") == 0) {
        shmem_init();
        shmemx_nic_stats(nullptr);
        std::printf("shmemx_nic_stats(NULL) returned\n");
        shmem_finalize();
        return 0;
    }
    const bool am_lazy = argc > 1 && std::strcmp(argv[1], "--am-lazy") == 0;
    const bool am_all = am_lazy || (argc > 1 && std::strcmp(argv[1], "--am-all") == 0);
    const bool am = am_all || (argc > 1 && std::strcmp(argv[1], "--am") == 0);
    int provided = -1;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "thread level %d", provided);
    CHECK(npes >= 2, "needs at least 2 PEs, got %d", npes);
    {
        const shmemx_nic_stats_t none = nic_stats(SHMEMX_NIC_STATS_NONE);  // host heap: no device backend
        CHECK(none.work_requests == 0 && none.bytes == 0 && none.doorbells == 0 && none.errors == 0 &&
                  none.source == SHMEMX_NIC_SOURCE_NONE,
              "shmemx_nic_stats without a NIC: %llu work requests, %llu bytes, %llu doorbells, %llu errors, source %d",
              static_cast<unsigned long long>(none.work_requests), static_cast<unsigned long long>(none.bytes),
              static_cast<unsigned long long>(none.doorbells), static_cast<unsigned long long>(none.errors), none.source);
    }

    // ---- symmetric objects ------------------------------------------------------------------
    auto* keys = static_cast<uint64_t*>(shmem_calloc(3 * static_cast<size_t>(npes), sizeof(uint64_t)));
    auto* inbox = static_cast<uint8_t*>(shmem_calloc(static_cast<size_t>(npes) * kChunk, 1));
    auto* inl = static_cast<uint64_t*>(shmem_calloc(static_cast<size_t>(npes), sizeof(uint64_t)));
    auto* inl100 = static_cast<uint8_t*>(shmem_calloc(static_cast<size_t>(npes) * 128, 1));
    auto* imm_area = static_cast<uint8_t*>(shmem_calloc(static_cast<size_t>(npes) * 64, 1));
    auto* counter = static_cast<uint64_t*>(shmem_calloc(1, sizeof(uint64_t)));
    auto* owner = static_cast<uint64_t*>(shmem_calloc(kSlots, sizeof(uint64_t)));
    auto* wins = static_cast<int*>(shmem_calloc(static_cast<size_t>(npes) * npes, sizeof(int)));
    auto* own = static_cast<uint8_t*>(shmem_malloc(kChunk));
    auto* untouched = static_cast<uint64_t*>(shmem_calloc(8, sizeof(uint64_t)));
    CHECK(keys && inbox && inl && inl100 && imm_area && counter && owner && wins && own && untouched, "shmem_malloc");
    for (int i = 0; i < kChunk; ++i) own[i] = own_pattern(me, i);

    // ---- the NIC ------------------------------------------------------------------------------
    std::string why;
    std::unique_ptr<HeapAccess> heap = make_runtime_heap_access(0, &why);
    CHECK(heap != nullptr, "make_runtime_heap_access: %s", why.c_str());
    std::vector<bool> via_am(static_cast<size_t>(npes), false);  // the peers the NIC reaches over UCX active messages
#if KISHMEM_HAVE_UCX_BUILD
    std::unique_ptr<HeapAccess> applier;  // what the service applies peers' requests with (this PE's heap)
    std::unique_ptr<kishmem::UcxAm> service;
    if (am) {
        // Hosts by name: same-host peers must be load/store (shmem_ptr), the others not.
        auto* hosts = static_cast<char*>(shmem_calloc(static_cast<size_t>(npes), 64));
        char host[64] = {0};
        gethostname(host, sizeof host - 1);
        for (int pe = 0; pe < npes; ++pe) shmem_putmem(hosts + 64 * me, host, sizeof host, pe);
        shmem_barrier_all();
        int off_host = 0;
        for (int pe = 0; pe < npes; ++pe) {
            const bool same = std::strcmp(hosts + 64 * pe, host) == 0;
            CHECK((shmem_ptr(inbox, pe) != nullptr) == same, "shmem_ptr to PE %d (%s, this PE on %s) is %p", pe,
                  hosts + 64 * pe, host, shmem_ptr(inbox, pe));
            via_am[pe] = pe != me && (am_all || !same);
            off_host += !same;
        }
        if (std::getenv("KISHMEM_TEST_MULTIHOST")) CHECK(off_host > 0, "the job does not span hosts");
        // Channels of their own: their flushes wait for nothing else (the service's flush runs
        // under its lock, and channel 0's UCX traffic to other hosts is not its business).
        applier = make_runtime_heap_access(1, &why);
        CHECK(applier != nullptr, "make_runtime_heap_access: %s", why.c_str());
        kishmem::Blob blob;
        CHECK(kishmem::UcxAm::open(me, npes, kishmem::rt::heap_size(), applier.get(), &service, &blob, &why) == Status::ok,
              "UcxAm::open: %s", why.c_str());
        CHECK(blob.size() + 8 <= kAddrBytes, "worker address of %zu bytes", blob.size());
        auto* addrs = static_cast<uint8_t*>(shmem_calloc(static_cast<size_t>(npes), kAddrBytes));
        const uint64_t len = blob.size();
        std::vector<uint8_t> slot(kAddrBytes);
        std::memcpy(slot.data(), &len, 8);
        std::memcpy(slot.data() + 8, blob.data(), blob.size());
        for (int pe = 0; pe < npes; ++pe) shmem_putmem(addrs + kAddrBytes * me, slot.data(), kAddrBytes, pe);
        shmem_barrier_all();
        std::vector<kishmem::Blob> all(static_cast<size_t>(npes));
        for (int pe = 0; pe < npes; ++pe) {
            uint64_t n = 0;
            std::memcpy(&n, addrs + kAddrBytes * pe, 8);
            all[pe].assign(addrs + kAddrBytes * pe + 8, addrs + kAddrBytes * pe + 8 + n);
        }
        const std::vector<bool> connect_now = am_lazy ? std::vector<bool>(via_am.size(), false) : via_am;
        // the service's thread serves the peers while this PE waits in the barrier between the
        // two halves of connecting
        service->start();
        CHECK(service->connect(all, connect_now, &why, [] { shmem_barrier_all(); }) == Status::ok, "UcxAm::connect: %s",
              why.c_str());
        std::vector<std::unique_ptr<HeapAccess>> parts;
        parts.push_back(make_runtime_heap_access(2, &why));  // same-host peers: load/store
        parts.push_back(service->client(nullptr));
        std::vector<int> part_of(static_cast<size_t>(npes));
        for (int pe = 0; pe < npes; ++pe) part_of[pe] = via_am[pe] ? 1 : 0;
        heap = make_split_heap_access(std::move(parts), std::move(part_of));
    }
#else
    CHECK(!am, "--am needs a build with UCX");
#endif
    SimNic nic(heap.get());
    MemoryKey hk, lk;
    CHECK(nic.register_memory(kishmem::rt::heap_base(), kishmem::rt::heap_size(), &hk) == Status::ok, "heap");
    // Private memory the WQEs gather from and scatter into.
    std::vector<uint8_t> local(static_cast<size_t>(npes) * (kChunk * 2 + 8 * kAdds + 8 * kSlots + 256));
    CHECK(nic.register_memory(local.data(), local.size(), &lk) == Status::ok, "local");
    const uint64_t mine[3] = {hk.key, hk.addr, hk.bytes};
    for (int pe = 0; pe < npes; ++pe) shmem_putmem(keys + 3 * me, mine, sizeof mine, pe);
    shmem_barrier_all();  // keys published, `own` filled everywhere

    uint32_t cqn = 0;
    CHECK(nic.create_cq(12, &cqn) == Status::ok, "create_cq");
    Harness h(nic, cqn);
    std::vector<Queue> q(static_cast<size_t>(npes) + 1);
    for (int pe = 0; pe <= npes; ++pe) {
        const int peer = pe < npes ? pe : (me + 1) % npes;  // q[npes]: the QP that gets the bad key
        if (peer == me && pe < npes) continue;
        const RemoteHeap target{peer, static_cast<uint32_t>(keys[3 * peer]), keys[3 * peer + 1], keys[3 * peer + 2]};
        uint32_t qpn = 0;
        CHECK(nic.create_qp(cqn, kLogBbs, target, &qpn) == Status::ok, "create_qp to PE %d", peer);
        Queue& x = q[pe];
        x.v = nic.qp_view(qpn);
        x.sq = m::SendQueue{x.v.sq, x.v.log_bbs, 0, x.v.qpn};
        x.peer = peer;
        x.rkey = target.rkey;
        x.base = target.base;
        h.add(&x);
    }
    nic.start();
#if KISHMEM_HAVE_CUDA_BUILD
    CHECK(kishmem::swap_device_backend(std::make_unique<HostNic>(nic)) == nullptr, "a device backend runs already");
    const shmemx_nic_stats_t before = nic_stats(0);
#endif

    // Local layout per peer p, at p * stride: [0, kChunk) write source, [kChunk, 2 kChunk) read
    // target, then fetch-add results, compare-swap results, 256 bytes of imm-write source.
    const std::size_t stride = local.size() / npes;
    auto L = [&](int p, std::size_t off) {
        return m::LocalRef{reinterpret_cast<uintptr_t>(local.data()) + p * stride + off, lk.key};
    };
    auto Lp = [&](int p, std::size_t off) { return local.data() + p * stride + off; };
    const std::size_t kRead = kChunk, kFa = 2 * kChunk, kCs = kFa + 8 * kAdds, kImm = kCs + 8 * kSlots;

    for (int p = 0; p < npes; ++p) {
        if (p == me) continue;
        Queue& x = q[p];
        auto R = [&](const void* sym) { return m::RemoteRef{x.base + off_of(sym), x.rkey}; };
        for (int i = 0; i < kChunk; ++i) Lp(p, 0)[i] = pattern(me, p, i);
        for (int i = 0; i < 64; ++i) Lp(p, kImm)[i] = static_cast<uint8_t>(me ^ (i * 5));
        // Unsignaled writes: their data must be at the target once a later CQE arrives.
        void* w = h.reserve(x, 1);
        h.posted(x, m::build_rdma_write(w, h.hdr(x, false), R(inbox + me * kChunk), L(p, 0), kChunk), false);
        w = h.reserve(x, 1);
        const uint64_t value = (static_cast<uint64_t>(me + 1) << 32) | static_cast<uint64_t>(p);
        h.posted(x, m::build_rdma_write_inline_value(w, h.hdr(x, false), R(inl + me), value, 8), false);
        uint8_t blob[100];
        for (int i = 0; i < 100; ++i) blob[i] = pattern(p, me, i + 7);
        h.reserve(x, 3);
        h.posted(x, m::build_rdma_write_inline(x.sq, x.sq.pi, 0, R(inl100 + me * 128), blob, 100), false);
        w = h.reserve(x, 1);
        h.posted(x, m::build_rdma_write_imm(w, h.hdr(x, true), R(imm_area + me * 64), L(p, kImm), 64, 0x1000u + me),
                 true);
        w = h.reserve(x, 1);
        h.posted(x, m::build_rdma_read(w, h.hdr(x, true), R(own), L(p, kRead), kChunk), true);
        for (int r = 0; r < kAdds; ++r) {
            w = h.reserve(x, 1);
            h.posted(x, m::build_atomic_fetch_add(w, h.hdr(x, r % 10 == 9), R(counter), L(p, kFa + 8 * r), me + 1),
                     r % 10 == 9);
        }
        for (int s = 0; s < kSlots; ++s) {
            w = h.reserve(x, 1);
            h.posted(x, m::build_atomic_compare_swap(w, h.hdr(x, false), R(owner + s), L(p, kCs + 8 * s), 0, me + 1),
                     false);
        }
        h.ring(x);
    }
    // The bad key: a remote access error, and the write after it is flushed, not executed.
    {
        Queue& x = q[npes];
        void* w = h.reserve(x, 1);
        h.posted(x, m::build_rdma_write(w, h.hdr(x, true), m::RemoteRef{x.base + off_of(untouched), x.rkey ^ 0x5500u},
                                        L(me, 0), 8),
                 true);
        w = h.reserve(x, 1);
        h.posted(x, m::build_rdma_write(w, h.hdr(x, false), m::RemoteRef{x.base + off_of(untouched + 1), x.rkey},
                                        L(me, 0), 8),
                 false);
        ++x.outstanding;  // the flush completion of the unsignaled follower
        h.ring(x);
        h.wait(x);
        CHECK(h.errors.size() == 2, "%zu error CQEs on the bad-key QP", h.errors.size());
        CHECK(h.errors[0].opcode == m::kCqeReqErr && h.errors[0].syndrome == m::kSyndRemoteAccessErr,
              "first error CQE: opcode %u syndrome 0x%x (%s)", h.errors[0].opcode, h.errors[0].syndrome,
              nic.qp_error(x.v.qpn).c_str());
        CHECK(h.errors[0].wqe_counter == 0 && h.errors[0].wqe_opcode == m::kOpRdmaWrite, "error CQE wqe %u op %u",
              h.errors[0].wqe_counter, h.errors[0].wqe_opcode);
        CHECK(h.errors[1].syndrome == m::kSyndWrFlushErr && h.errors[1].wqe_counter == 1, "flush CQE syndrome 0x%x wqe %u",
              h.errors[1].syndrome, h.errors[1].wqe_counter);
        CHECK(nic.qp_state(x.v.qpn) == QpState::error, "bad-key QP not in error state");
        CHECK(h.errors[0].qpn == x.v.qpn, "error CQE qpn 0x%x, the QP is 0x%x", h.errors[0].qpn, x.v.qpn);
        // What the host reports at its next quiet: the failed WQE as the NIC saw it.
        NicFailure f;
        CHECK(nic.first_failure(&f), "the NIC kept no failure");
        CHECK(f.pe == x.peer && f.qpn == x.v.qpn && f.wqe_opcode == m::kOpRdmaWrite && f.wqe_counter == 0 &&
                  f.syndrome == m::kSyndRemoteAccessErr && f.length == 8,
              "failure: PE %d QP 0x%x op 0x%x WQE %u syndrome 0x%x length %llu", f.pe, f.qpn, f.wqe_opcode, f.wqe_counter,
              f.syndrome, static_cast<unsigned long long>(f.length));
        CHECK(f.raddr == x.base + off_of(untouched) && f.in_heap && f.heap_offset == off_of(untouched),
              "failure address 0x%llx (heap offset 0x%llx), posted 0x%llx",
              static_cast<unsigned long long>(f.raddr), static_cast<unsigned long long>(f.heap_offset),
              static_cast<unsigned long long>(x.base + off_of(untouched)));
        char expect[200];
        std::snprintf(expect, sizeof expect,
                      "RDMA write of 8 bytes to PE %d on QP 0x%x (WQE 0): remote access error (syndrome 0x13), remote "
                      "address 0x%llx (heap offset 0x%llx): rkey 0x%x is not PE %d's heap key",
                      x.peer, x.v.qpn, static_cast<unsigned long long>(f.raddr),
                      static_cast<unsigned long long>(off_of(untouched)), x.rkey ^ 0x5500u, x.peer);
        CHECK(describe(f).rfind(expect, 0) == 0, "failure described as '%s', expected '%s...'", describe(f).c_str(), expect);
        h.errors.clear();
    }
    for (int p = 0; p < npes; ++p)
        if (p != me) h.drain(q[p]);
    CHECK(h.errors.empty(), "%zu unexpected error CQEs, first syndrome 0x%x", h.errors.size(), h.errors[0].syndrome);
#if KISHMEM_HAVE_CUDA_BUILD
    {
        // Every WQE posted has completed (each QP drained): the counters grew by exactly them.
        const shmemx_nic_stats_t after = nic_stats(0);
        kishmem::swap_device_backend(nullptr);
        const uint64_t peers = static_cast<uint64_t>(npes - 1);
        const uint64_t wr = after.work_requests - before.work_requests, by = after.bytes - before.bytes,
                       db = after.doorbells - before.doorbells, er = after.errors - before.errors;
        // (doorbells: rings the NIC saw; two rings between two of its passes over a queue count
        // once, as when the NIC's thread waits for an answer from another host meanwhile)
        CHECK(after.source == SHMEMX_NIC_SOURCE_NIC && wr == kOpsPerPeer * peers + h.nops && by == kBytesPerPeer * peers &&
                  db >= 1 && db <= h.rings && er == 1,
              "shmemx_nic_stats grew by %llu work requests, %llu bytes, %llu doorbells, %llu errors (source %d); posted "
              "%llu (%llu NOPs), %llu bytes, at most %llu doorbells, 1 failing",
              static_cast<unsigned long long>(wr), static_cast<unsigned long long>(by), static_cast<unsigned long long>(db),
              static_cast<unsigned long long>(er), after.source, static_cast<unsigned long long>(kOpsPerPeer * peers + h.nops),
              static_cast<unsigned long long>(h.nops), static_cast<unsigned long long>(kBytesPerPeer * peers),
              static_cast<unsigned long long>(h.rings));
        std::printf("PE %d: shmemx_nic_stats: %llu work requests, %llu bytes, %llu doorbells, %llu error, as posted\n", me,
                    static_cast<unsigned long long>(wr), static_cast<unsigned long long>(by),
                    static_cast<unsigned long long>(db), static_cast<unsigned long long>(er));
    }
#endif

    // ---- what this PE fetched ---------------------------------------------------------------------
    for (int p = 0; p < npes; ++p) {
        if (p == me) continue;
        for (int i = 0; i < kChunk; ++i)
            CHECK(Lp(p, kRead)[i] == own_pattern(p, i), "read from PE %d byte %d: %u", p, i, Lp(p, kRead)[i]);
        uint64_t prev = 0;
        for (int r = 0; r < kAdds; ++r) {  // one QP executes in order: strictly increasing
            uint64_t v;
            std::memcpy(&v, Lp(p, kFa + 8 * r), 8);
            CHECK(r == 0 || v > prev, "fetch-add %d from PE %d returned %llu after %llu", r, p,
                  static_cast<unsigned long long>(v), static_cast<unsigned long long>(prev));
            prev = v;
        }
        int won = 0;
        for (int s = 0; s < kSlots; ++s) {
            uint64_t v;
            std::memcpy(&v, Lp(p, kCs + 8 * s), 8);
            CHECK(v <= static_cast<uint64_t>(npes) && v != static_cast<uint64_t>(p) + 1 && v != static_cast<uint64_t>(me) + 1,
                  "compare-swap slot %d on PE %d returned %llu", s, p, static_cast<unsigned long long>(v));
            won += v == 0;
        }
        shmem_int_p(&wins[p * npes + me], won, 0);
    }
    shmem_barrier_all();

    // ---- what landed in this PE's heap --------------------------------------------------------------
    uint64_t expect_counter = 0;
    for (int p = 0; p < npes; ++p) {
        if (p == me) continue;
        expect_counter += static_cast<uint64_t>(kAdds) * (p + 1);
        for (int i = 0; i < kChunk; ++i)
            CHECK(inbox[p * kChunk + i] == pattern(p, me, i), "inbox from PE %d byte %d: %u", p, i, inbox[p * kChunk + i]);
        CHECK(inl[p] == ((static_cast<uint64_t>(p + 1) << 32) | static_cast<uint64_t>(me)), "inline value from PE %d: %llx", p,
              static_cast<unsigned long long>(inl[p]));
        for (int i = 0; i < 100; ++i)
            CHECK(inl100[p * 128 + i] == pattern(me, p, i + 7), "inline bytes from PE %d byte %d", p, i);
        CHECK(inl100[p * 128 + 100] == 0, "inline write ran past its 100 bytes");
        for (int i = 0; i < 64; ++i)
            CHECK(imm_area[p * 64 + i] == static_cast<uint8_t>(p ^ (i * 5)), "write-imm from PE %d byte %d", p, i);
    }
    CHECK(*counter == expect_counter, "counter %llu, expected %llu", static_cast<unsigned long long>(*counter),
          static_cast<unsigned long long>(expect_counter));
    for (int s = 0; s < kSlots; ++s)
        CHECK(owner[s] >= 1 && owner[s] <= static_cast<uint64_t>(npes) && owner[s] != static_cast<uint64_t>(me) + 1,
              "slot %d owned by %llu", s, static_cast<unsigned long long>(owner[s]));
    for (int i = 0; i < 8; ++i) CHECK(untouched[i] == 0, "a write on the failed QP landed (word %d)", i);
    if (me == 0) {
        for (int t = 0; t < npes; ++t) {
            int total = 0;
            for (int p = 0; p < npes; ++p) total += wins[t * npes + p];
            CHECK(total == kSlots, "compare-swap winners on PE %d: %d", t, total);
        }
    }
    const SimNicStats st = nic.stats();
    CHECK(st.errors == 1 && st.flushed == 1, "NIC stats: %llu errors, %llu flushed", static_cast<unsigned long long>(st.errors),
          static_cast<unsigned long long>(st.flushed));
    shmem_barrier_all();  // every PE's NIC is done: no more requests to anyone's service
    nic.stop();
#if KISHMEM_HAVE_UCX_BUILD
    if (service) {
        // Exactly the off-host peers' operations went over UCX, each way (same-host ones never).
        uint64_t peers = 0;
        for (int pe = 0; pe < npes; ++pe) peers += via_am[pe];
        const kishmem::UcxAm::Stats a = service->stats();
        CHECK(a.requests_sent == kOpsPerPeer * peers && a.requests_served == kOpsPerPeer * peers,
              "UCX active messages: %llu requests sent, %llu served; expected %llu each (%llu off-host peers)",
              static_cast<unsigned long long>(a.requests_sent), static_cast<unsigned long long>(a.requests_served),
              static_cast<unsigned long long>(kOpsPerPeer * peers), static_cast<unsigned long long>(peers));
        std::printf("PE %d: %llu of %llu NIC operations over UCX active messages (%llu peers reached that way; %llu resent, "
                    "%llu repeated)\n", me, static_cast<unsigned long long>(a.requests_sent),
                    static_cast<unsigned long long>(kOpsPerPeer * (npes - 1)), static_cast<unsigned long long>(peers),
                    static_cast<unsigned long long>(a.resent), static_cast<unsigned long long>(a.repeated));
        shmem_barrier_all();
        heap.reset();  // the client before its service
        service->stop();
        service.reset();
    }
#endif
    if (me == 0) std::printf("PASS ibgda_sim_mp on %d PEs\n", npes);
    std::fflush(stdout);
    shmem_finalize();
    return 0;
}
