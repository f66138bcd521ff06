// The software NIC against WQEs built with the device encoders, over a fake heap in this
// process: data movement, completions, every error completion and the flushes after it, ring
// and index wrap, CQ back-pressure, the progress thread, and garbage that must not crash it.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "kishmem/device/ibgda/mlx5_cqe.h"
#include "kishmem/device/ibgda/mlx5_wqe.h"
#include "transport/ibgda/sim_nic.h"
#include "transport/ibgda/wqe_decode.h"

namespace {

namespace m = kishmem::mlx5;
using kishmem::Status;
using namespace kishmem::ibgda;

constexpr int kPes = 3;
constexpr std::size_t kHeapBytes = 1 << 16;

// Heaps of kPes PEs as plain buffers; counts what reaches it.
class FakeHeap final : public HeapAccess {
public:
    FakeHeap() : mem(kPes, std::vector<uint8_t>(kHeapBytes)) {}
    Status write(int pe, std::size_t off, const void* src, std::size_t n) override {
        if (!valid(pe, off, n)) return Status::invalid;
        std::memcpy(&mem[pe][off], src, n);
        ++writes;
        return Status::ok;
    }
    Status read(int pe, std::size_t off, void* dst, std::size_t n) override {
        if (!valid(pe, off, n)) return Status::invalid;
        std::memcpy(dst, &mem[pe][off], n);
        ++reads;
        return Status::ok;
    }
    Status fetch_add(int pe, std::size_t off, uint64_t add, uint64_t* old) override {
        if (!valid(pe, off, 8)) return Status::invalid;
        std::memcpy(old, &mem[pe][off], 8);
        const uint64_t v = *old + add;
        std::memcpy(&mem[pe][off], &v, 8);
        return Status::ok;
    }
    Status compare_swap(int pe, std::size_t off, uint64_t compare, uint64_t swap, uint64_t* old) override {
        if (!valid(pe, off, 8)) return Status::invalid;
        std::memcpy(old, &mem[pe][off], 8);
        if (*old == compare) std::memcpy(&mem[pe][off], &swap, 8);
        return Status::ok;
    }
    Status flush() override {
        ++flushes;
        return Status::ok;
    }
    uint64_t u64(int pe, std::size_t off) const {
        uint64_t v;
        std::memcpy(&v, &mem[pe][off], 8);
        return v;
    }
    std::vector<std::vector<uint8_t>> mem;
    int writes = 0, reads = 0, flushes = 0;

private:
    bool valid(int pe, std::size_t off, std::size_t n) const {
        return pe >= 0 && pe < kPes && off <= kHeapBytes && n <= kHeapBytes - off;
    }
};

// Host-side poster for one SimNic QP, as a kernel would post: WQE, doorbell record, doorbell.
struct Poster {
    SimQpView v;
    m::SendQueue sq;
    void init(const SimQpView& view) {
        v = view;
        sq = m::SendQueue{v.sq, v.log_bbs, 0, v.qpn};
    }
    m::WqeHeader hdr(bool signaled) const {
        return m::WqeHeader{static_cast<uint16_t>(sq.pi), sq.qpn, signaled ? m::kCtrlCqUpdate : uint8_t{0}};
    }
    void* slot() const { return sq.wqe_slot(sq.pi); }
    uint16_t write(m::RemoteRef r, m::LocalRef l, uint32_t n, bool sig = true) {
        return advance(m::build_rdma_write(slot(), hdr(sig), r, l, n));
    }
    uint16_t write_imm(m::RemoteRef r, m::LocalRef l, uint32_t n, uint32_t imm, bool sig = true) {
        return advance(m::build_rdma_write_imm(slot(), hdr(sig), r, l, n, imm));
    }
    uint16_t write_inline(m::RemoteRef r, const void* src, uint32_t n, bool sig = true) {
        return advance(m::build_rdma_write_inline(sq, sq.pi, sig ? m::kCtrlCqUpdate : 0, r, src, n));
    }
    uint16_t read(m::RemoteRef r, m::LocalRef l, uint32_t n, bool sig = true) {
        return advance(m::build_rdma_read(slot(), hdr(sig), r, l, n));
    }
    uint16_t fetch_add(m::RemoteRef r, m::LocalRef l, uint64_t add, bool sig = true) {
        return advance(m::build_atomic_fetch_add(slot(), hdr(sig), r, l, add));
    }
    uint16_t cswap(m::RemoteRef r, m::LocalRef l, uint64_t cmp, uint64_t swp, bool sig = true) {
        return advance(m::build_atomic_compare_swap(slot(), hdr(sig), r, l, cmp, swp));
    }
    uint16_t nop(bool sig = true) { return advance(m::build_nop(slot(), hdr(sig))); }
    // Marks `bbs` BBs at the producer index as one posted WQE (its bytes written by the caller).
    uint16_t advance(uint32_t bbs) {
        const uint16_t idx = static_cast<uint16_t>(sq.pi);
        last_ctrl = sq.wqe_slot(sq.pi);
        sq.pi += bbs;
        return idx;
    }
    void ring() {
        __atomic_thread_fence(__ATOMIC_RELEASE);
        m::update_sq_dbrec(v.dbrec, sq.pi);
        __atomic_thread_fence(__ATOMIC_RELEASE);
        m::ring_doorbell(v.doorbell, m::doorbell_value(last_ctrl));
    }
    void* last_ctrl = nullptr;
};

struct Poller {
    SimCqView v;
    uint32_t ci = 0;
    bool next(m::CqeInfo* c) {
        if (!m::poll_cqe(v.buf, v.log_size, ci, c)) return false;
        ++ci;
        m::update_cq_dbrec(v.dbrec, ci);
        return true;
    }
    std::vector<m::CqeInfo> drain() {
        std::vector<m::CqeInfo> out;
        m::CqeInfo c;
        while (next(&c)) out.push_back(c);
        return out;
    }
};

class sim_nic : public ::testing::Test {
protected:
    void SetUp() override { build(6, 6); }
    void build(uint32_t log_bbs, uint32_t log_cq, int target = 1) {
        nic = std::make_unique<SimNic>(&heap, opts);
        for (int pe = 0; pe < kPes; ++pe) {
            MemoryKey k;
            ASSERT_EQ(nic->register_memory(heap.mem[pe].data(), kHeapBytes, &k), Status::ok);
            remote[pe] = RemoteHeap{pe, k.key, k.addr, k.bytes};
        }
        local.assign(1 << 14, 0);
        ASSERT_EQ(nic->register_memory(local.data(), local.size(), &lk), Status::ok);
        ASSERT_EQ(nic->create_cq(log_cq, &cqn), Status::ok);
        ASSERT_EQ(nic->create_qp(cqn, log_bbs, remote[target], &qpn), Status::ok);
        post.init(nic->qp_view(qpn));
        cq.v = nic->cq_view(cqn);
        tpe = target;
    }
    m::RemoteRef rref(std::size_t off) const { return m::RemoteRef{remote[tpe].base + off, remote[tpe].rkey}; }
    m::LocalRef lref(std::size_t off) { return m::LocalRef{reinterpret_cast<uintptr_t>(local.data()) + off, lk.key}; }
    std::vector<m::CqeInfo> run() {
        post.ring();
        while (nic->poll() != 0) {
        }
        return cq.drain();
    }
    void expect_ok(const m::CqeInfo& c, uint8_t wqe_op, uint16_t idx, uint32_t byte_cnt = 0) {
        EXPECT_EQ(c.opcode, m::kCqeReq);
        EXPECT_EQ(c.wqe_opcode, wqe_op);
        EXPECT_EQ(c.wqe_counter, idx);
        EXPECT_EQ(c.qpn, qpn);
        EXPECT_EQ(c.byte_cnt, byte_cnt);
    }

    FakeHeap heap;
    SimNicOptions opts;  // build() makes the NIC with these
    std::unique_ptr<SimNic> nic;
    RemoteHeap remote[kPes];
    std::vector<uint8_t> local;
    MemoryKey lk;
    uint32_t cqn = 0, qpn = 0;
    int tpe = 1;
    Poster post;
    Poller cq;
};

TEST_F(sim_nic, WriteFromDataSegment) {
    for (int i = 0; i < 300; ++i) local[i] = static_cast<uint8_t>(i * 7 + 1);
    const uint16_t idx = post.write(rref(1000), lref(0), 300);
    auto c = run();
    ASSERT_EQ(c.size(), 1u);
    expect_ok(c[0], m::kOpRdmaWrite, idx);
    EXPECT_EQ(std::memcmp(&heap.mem[1][1000], local.data(), 300), 0);
    EXPECT_EQ(heap.mem[1][999], 0);
    EXPECT_EQ(heap.mem[1][1300], 0);
    EXPECT_EQ(heap.mem[0][1000], 0);  // the QP's target only
    EXPECT_GE(heap.flushes, 1);       // the CQE came after a flush
    EXPECT_EQ(nic->qp_state(qpn), QpState::rts);
}

TEST_F(sim_nic, WriteImmAndGatherList) {
    for (int i = 0; i < 64; ++i) local[i] = static_cast<uint8_t>(0xa0 + i);
    const uint16_t a = post.write_imm(rref(64), lref(0), 16, 0xdeadbeef);
    // A gather list of three pieces, assembled by hand: ctrl | raddr | data x 3 (ds 5, 2 BBs).
    uint8_t* w = static_cast<uint8_t*>(post.slot());
    m::write_ctrl_seg(w, m::kOpRdmaWrite, static_cast<uint16_t>(post.sq.pi), qpn, 5, m::kCtrlCqUpdate);
    m::write_raddr_seg(w + 16, rref(512).addr, rref(512).rkey);
    m::write_data_seg(w + 32, lref(40).addr, lk.key, 8);
    m::write_data_seg(w + 48, lref(0).addr, lk.key, 4);
    m::write_data_seg(post.sq.wqe_slot(post.sq.pi + 1), lref(20).addr, lk.key, 2);
    const uint16_t b = post.advance(2);
    auto c = run();
    ASSERT_EQ(c.size(), 2u);
    expect_ok(c[0], m::kOpRdmaWriteImm, a);
    expect_ok(c[1], m::kOpRdmaWrite, b);
    EXPECT_EQ(std::memcmp(&heap.mem[1][64], local.data(), 16), 0);
    EXPECT_EQ(std::memcmp(&heap.mem[1][512], &local[40], 8), 0);
    EXPECT_EQ(std::memcmp(&heap.mem[1][520], &local[0], 4), 0);
    EXPECT_EQ(std::memcmp(&heap.mem[1][524], &local[20], 2), 0);
}

TEST_F(sim_nic, InlineWriteSpanningRingEnd) {
    build(3, 4);  // 8 BBs
    for (int i = 0; i < 6; ++i) post.nop(false);
    EXPECT_TRUE(run().empty());  // consumed: the ring's 8 BBs are free again
    uint8_t src[200];
    for (int i = 0; i < 200; ++i) src[i] = static_cast<uint8_t>(255 - i);
    const uint16_t idx = post.write_inline(rref(4096), src, 200);  // ds 2 + 13 = 15: 4 BBs, 6,7,0,1
    EXPECT_EQ(post.sq.pi, 10u);
    const uint64_t v = 0x1122334455667788ull;
    post.advance(m::build_rdma_write_inline_value(post.slot(), post.hdr(true), rref(8192), v, 8));
    auto c = run();
    ASSERT_EQ(c.size(), 2u);
    expect_ok(c[0], m::kOpRdmaWrite, idx);
    EXPECT_EQ(std::memcmp(&heap.mem[1][4096], src, 200), 0);
    EXPECT_EQ(heap.u64(1, 8192), v);
}

TEST_F(sim_nic, ReadLandsInLocalBuffer) {
    for (int i = 0; i < 1000; ++i) heap.mem[1][3000 + i] = static_cast<uint8_t>(i ^ 0x5a);
    const uint16_t idx = post.read(rref(3000), lref(100), 1000);
    auto c = run();
    ASSERT_EQ(c.size(), 1u);
    expect_ok(c[0], m::kOpRdmaRead, idx, 1000);
    EXPECT_EQ(std::memcmp(&local[100], &heap.mem[1][3000], 1000), 0);
    EXPECT_EQ(local[99], 0);
    EXPECT_EQ(local[1100], 0);
}

TEST_F(sim_nic, AtomicsReturnOldValues) {
    uint64_t init = 40;
    std::memcpy(&heap.mem[1][256], &init, 8);
    const uint16_t a = post.fetch_add(rref(256), lref(0), 2);
    post.fetch_add(rref(256), lref(8), uint64_t{1} << 40, false);
    const uint16_t c1 = post.cswap(rref(256), lref(16), 7, 99);                          // mismatch: no swap
    const uint16_t c2 = post.cswap(rref(256), lref(24), 42 + (uint64_t{1} << 40), 1234);  // match
    auto c = run();
    ASSERT_EQ(c.size(), 3u);
    expect_ok(c[0], m::kOpAtomicFa, a, 8);
    expect_ok(c[1], m::kOpAtomicCs, c1, 8);
    expect_ok(c[2], m::kOpAtomicCs, c2, 8);
    uint64_t got[4];
    std::memcpy(got, local.data(), sizeof got);
    EXPECT_EQ(got[0], 40u);
    EXPECT_EQ(got[1], 42u);
    EXPECT_EQ(got[2], 42u + (uint64_t{1} << 40));
    EXPECT_EQ(got[3], 42u + (uint64_t{1} << 40));
    EXPECT_EQ(heap.u64(1, 256), 1234u);
}

TEST_F(sim_nic, NopAndUnsignaledWqes) {
    local[0] = 9;
    for (int i = 0; i < 5; ++i) post.write(rref(8 * i), lref(0), 1, false);
    auto c = run();
    EXPECT_TRUE(c.empty());
    for (int i = 0; i < 5; ++i) EXPECT_EQ(heap.mem[1][8 * i], 9);  // moved all the same
    const uint16_t idx = post.nop(true);
    c = run();
    ASSERT_EQ(c.size(), 1u);
    expect_ok(c[0], m::kOpNop, idx);
    EXPECT_EQ(idx, 5);
    EXPECT_EQ(nic->stats().wqes, 6u);
}

TEST_F(sim_nic, CompleteWithoutDataMovesNothing) {
    nic->set_complete_without_data(true);
    local[0] = 1;
    post.write(rref(0), lref(0), 8);
    post.fetch_add(rref(64), lref(8), 5);
    auto c = run();
    ASSERT_EQ(c.size(), 2u);
    EXPECT_EQ(c[0].opcode, m::kCqeReq);
    EXPECT_EQ(c[1].opcode, m::kCqeReq);
    EXPECT_EQ(heap.writes, 0);
    EXPECT_EQ(heap.u64(1, 64), 0u);
}

TEST_F(sim_nic, ZeroLengthTransfersCheckNoKey) {
    post.write(m::RemoteRef{12345, 0xbad}, lref(0), 0);
    post.read(m::RemoteRef{0, 0}, lref(0), 0);
    auto c = run();
    ASSERT_EQ(c.size(), 2u);
    EXPECT_EQ(c[0].opcode, m::kCqeReq);
    EXPECT_EQ(c[1].opcode, m::kCqeReq);
}

// ---- errors: one bad WQE, then followers that must be flushed ----------------------------------

struct BadCase {
    const char* name;
    uint8_t syndrome;
    uint8_t wqe_opcode;
    // Posts the bad WQE through the fixture (may write raw bytes).
    void (*post)(sim_nic* t);
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

class sim_nic_errors : public sim_nic, public ::testing::WithParamInterface<BadCase> {
public:
    Poster& P() { return post; }
    m::RemoteRef R(std::size_t off) const { return rref(off); }
    m::LocalRef L(std::size_t off) { return lref(off); }
    uint32_t lkey() const { return lk.key; }
    uint32_t rkey() const { return remote[tpe].rkey; }
    uint32_t rkey_of(int pe) const { return remote[pe].rkey; }
    uint64_t base() const { return remote[tpe].base; }
    uint32_t qp() const { return qpn; }
};

#define FX static_cast<sim_nic_errors*>(t)

const BadCase kBadCases[] = {
    {"bad_rkey", m::kSyndRemoteAccessErr, m::kOpRdmaWrite,
     [](sim_nic* t) { FX->P().write(m::RemoteRef{FX->R(0).addr, FX->rkey() ^ 0x100}, FX->L(0), 8); }},
    {"rkey_of_another_pe", m::kSyndRemoteAccessErr, m::kOpRdmaRead,
     [](sim_nic* t) { FX->P().read(m::RemoteRef{FX->R(0).addr, FX->rkey_of(0)}, FX->L(0), 8); }},
    {"raddr_past_heap_end", m::kSyndRemoteAccessErr, m::kOpRdmaWrite,
     [](sim_nic* t) { FX->P().write(FX->R(kHeapBytes - 4), FX->L(0), 8); }},
    {"raddr_before_heap", m::kSyndRemoteAccessErr, m::kOpRdmaRead,
     [](sim_nic* t) { FX->P().read(m::RemoteRef{FX->base() - 8, FX->rkey()}, FX->L(0), 8); }},
    {"atomic_out_of_range", m::kSyndRemoteAccessErr, m::kOpAtomicFa,
     [](sim_nic* t) { FX->P().fetch_add(FX->R(kHeapBytes), FX->L(0), 1); }},
    {"atomic_misaligned", m::kSyndRemoteInvalReqErr, m::kOpAtomicCs,
     [](sim_nic* t) { FX->P().cswap(FX->R(12), FX->L(0), 0, 1); }},
    {"bad_lkey", m::kSyndLocalProtErr, m::kOpRdmaWrite,
     [](sim_nic* t) { FX->P().write(FX->R(0), m::LocalRef{FX->L(0).addr, FX->lkey() + 0x100}, 8); }},
    {"local_range_outside_region", m::kSyndLocalProtErr, m::kOpRdmaRead,
     [](sim_nic* t) { FX->P().read(FX->R(0), FX->L((1 << 14) - 4), 8); }},
    {"atomic_result_bad_lkey", m::kSyndLocalProtErr, m::kOpAtomicFa,
     [](sim_nic* t) { FX->P().fetch_add(FX->R(0), m::LocalRef{FX->L(0).addr, 7}, 1); }},
    {"opcode_send", m::kSyndLocalQpOpErr, m::kOpSend,
     [](sim_nic* t) {
         m::write_ctrl_seg(FX->P().slot(), m::kOpSend, static_cast<uint16_t>(FX->P().sq.pi), FX->qp(), 1,
                           m::kCtrlCqUpdate);
         FX->P().advance(1);
     }},
    {"opcode_undefined", m::kSyndLocalQpOpErr, 0x1f,
     [](sim_nic* t) {
         m::write_ctrl_seg(FX->P().slot(), 0x1f, static_cast<uint16_t>(FX->P().sq.pi), FX->qp(), 1, 0);
         FX->P().advance(1);
     }},
    {"masked_atomic_opmod", m::kSyndLocalQpOpErr, m::kOpAtomicMaskedFa,
     [](sim_nic* t) {
         m::write_ctrl_seg(FX->P().slot(), m::kOpAtomicMaskedFa, static_cast<uint16_t>(FX->P().sq.pi), FX->qp(), 4, 0,
                           0, 3);
         FX->P().advance(1);
     }},
    {"ds_zero", m::kSyndLocalQpOpErr, m::kOpRdmaWrite,
     [](sim_nic* t) {
         m::write_ctrl_seg(FX->P().slot(), m::kOpRdmaWrite, static_cast<uint16_t>(FX->P().sq.pi), FX->qp(), 0,
                           m::kCtrlCqUpdate);
         FX->P().advance(1);
     }},
    {"ds_over_63", m::kSyndLocalQpOpErr, m::kOpNop,
     [](sim_nic* t) {
         m::write_ctrl_seg(FX->P().slot(), m::kOpNop, static_cast<uint16_t>(FX->P().sq.pi), FX->qp(), 64, 0);
         FX->P().advance(1);
     }},
    {"atomic_ds_3", m::kSyndLocalQpOpErr, m::kOpAtomicFa,
     [](sim_nic* t) {
         FX->P().fetch_add(FX->R(0), FX->L(0), 1);
         m::write_ctrl_seg(FX->P().last_ctrl, m::kOpAtomicFa, static_cast<uint16_t>(FX->P().sq.pi - 1), FX->qp(), 3, 0);
     }},
    {"atomic_result_not_8_bytes", m::kSyndLocalQpOpErr, m::kOpAtomicCs,
     [](sim_nic* t) {
         FX->P().cswap(FX->R(0), FX->L(0), 1, 2);
         m::write_data_seg(static_cast<uint8_t*>(FX->P().last_ctrl) + 48, FX->L(0).addr, FX->lkey(), 4);
     }},
    {"read_with_inline_data", m::kSyndLocalQpOpErr, m::kOpRdmaRead,
     [](sim_nic* t) {
         uint32_t x = 5;
         FX->P().write_inline(FX->R(0), &x, 4);
         m::write_ctrl_seg(FX->P().last_ctrl, m::kOpRdmaRead, static_cast<uint16_t>(FX->P().sq.pi - 1), FX->qp(), 3, 0);
     }},
    {"inline_length_disagrees_with_ds", m::kSyndLocalQpOpErr, m::kOpRdmaWrite,
     [](sim_nic* t) {
         uint8_t x[40] = {};
         FX->P().write_inline(FX->R(0), x, 40);  // ds 5, 2 BBs; ds 6 keeps 2 BBs, one unit too many
         m::write_ctrl_seg(FX->P().last_ctrl, m::kOpRdmaWrite, static_cast<uint16_t>(FX->P().sq.pi - 2), FX->qp(), 6,
                           0);
     }},
    {"wrong_wqe_index", m::kSyndLocalQpOpErr, m::kOpNop,
     [](sim_nic* t) {
         m::write_ctrl_seg(FX->P().slot(), m::kOpNop, static_cast<uint16_t>(FX->P().sq.pi + 7), FX->qp(), 1, 0);
         FX->P().advance(1);
     }},
    {"wrong_qpn", m::kSyndLocalQpOpErr, m::kOpNop,
     [](sim_nic* t) {
         m::write_ctrl_seg(FX->P().slot(), m::kOpNop, static_cast<uint16_t>(FX->P().sq.pi), FX->qp() + 1, 1, 0);
         FX->P().advance(1);
     }},
    {"gather_over_2GiB", m::kSyndLocalLengthErr, m::kOpRdmaWrite,
     [](sim_nic* t) {  // two byte_count-0 segments: 2 x 2^31 bytes
         uint8_t* w = static_cast<uint8_t*>(FX->P().slot());
         m::write_ctrl_seg(w, m::kOpRdmaWrite, static_cast<uint16_t>(FX->P().sq.pi), FX->qp(), 4, 0);
         m::write_raddr_seg(w + 16, FX->R(0).addr, FX->rkey());
         m::write_data_seg(w + 32, FX->L(0).addr, FX->lkey(), 0);
         m::write_data_seg(w + 48, FX->L(0).addr, FX->lkey(), 0);
         FX->P().advance(1);
     }},
};

TEST_P(sim_nic_errors, ErrorCqeThenFlush) {
    const BadCase& bc = GetParam();
    for (int i = 0; i < 16; ++i) local[i] = static_cast<uint8_t>(0x70 + i);
    const uint16_t ok0 = post.write(rref(2048), lref(0), 16, false);  // before: executes, no CQE
    const uint16_t bad = static_cast<uint16_t>(post.sq.pi);
    bc.post(this);
    const uint16_t f1 = post.write(rref(4096), lref(0), 16, true);
    const uint16_t f2 = post.nop(false);
    const uint16_t f3 = post.fetch_add(rref(128), lref(64), 1, false);
    auto c = run();
    (void)ok0;
    ASSERT_EQ(c.size(), 4u) << bc.name;
    EXPECT_EQ(c[0].opcode, m::kCqeReqErr) << bc.name;
    EXPECT_EQ(c[0].syndrome, bc.syndrome) << bc.name << ": " << nic->qp_error(qpn);
    EXPECT_EQ(c[0].wqe_counter, bad) << bc.name;
    EXPECT_EQ(c[0].wqe_opcode, bc.wqe_opcode) << bc.name;
    EXPECT_EQ(c[0].qpn, qpn);
    const uint16_t flushed[3] = {f1, f2, f3};
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(c[1 + i].opcode, m::kCqeReqErr) << bc.name;
        EXPECT_EQ(c[1 + i].syndrome, m::kSyndWrFlushErr) << bc.name;
        EXPECT_EQ(c[1 + i].wqe_counter, flushed[i]) << bc.name;
    }
    EXPECT_EQ(std::memcmp(&heap.mem[1][2048], local.data(), 16), 0);  // the WQE before the error ran
    EXPECT_EQ(heap.mem[1][4096], 0) << bc.name;                         // the flushed ones did not
    EXPECT_EQ(heap.u64(1, 128), 0u);
    EXPECT_EQ(nic->qp_state(qpn), QpState::error);
    EXPECT_NE(nic->qp_error(qpn), "");
    // WQEs posted after the error are flushed too.
    const uint16_t late = post.write(rref(4096), lref(0), 16, false);
    c = run();
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].syndrome, m::kSyndWrFlushErr);
    EXPECT_EQ(c[0].wqe_counter, late);
    const SimNicStats s = nic->stats();
    EXPECT_EQ(s.errors, 1u);
    EXPECT_EQ(s.flushed, 4u);
    // Through reset the QP works again from index 0.
    ASSERT_EQ(nic->reset_qp(qpn), Status::ok);
    post.sq.pi = 0;
    const uint16_t again = post.write(rref(4096), lref(0), 16);
    c = run();
    ASSERT_EQ(c.size(), 1u);
    expect_ok(c[0], m::kOpRdmaWrite, again);
    EXPECT_EQ(again, 0);
    EXPECT_EQ(std::memcmp(&heap.mem[1][4096], local.data(), 16), 0);
}

INSTANTIATE_TEST_SUITE_P(Cases, sim_nic_errors, ::testing::ValuesIn(kBadCases),
                         [](const ::testing::TestParamInfo<BadCase>& i) { return std::string(i.param.name); });

// KISHMEM_SIM_NIC_FAIL: the nth WQE the NIC reads fails with the kind's syndrome, nothing of it
// lands, the QP flushes what follows, and the NIC keeps the failure (PE, QP, operation,
// address) for the host's report.
struct FaultCase {
    NicFaultKind kind;
    uint8_t syndrome;
    const char* words;
};
class sim_nic_fault : public sim_nic, public ::testing::WithParamInterface<FaultCase> {};

TEST_P(sim_nic_fault, NthWorkRequestFails) {
    const FaultCase& fc = GetParam();
    opts.fault = NicFault{fc.kind, 2, -1};
    build(6, 6);
    for (int i = 0; i < 16; ++i) local[i] = static_cast<uint8_t>(0x30 + i);
    const uint16_t ok0 = post.write(rref(256), lref(0), 16, true);
    const uint16_t bad = post.write(rref(1024), lref(0), 16, false);  // unsignalled: the error CQE comes anyway
    const uint16_t after = post.nop(true);
    auto c = run();
    ASSERT_EQ(c.size(), 3u);
    expect_ok(c[0], m::kOpRdmaWrite, ok0);
    EXPECT_EQ(c[1].opcode, m::kCqeReqErr);
    EXPECT_EQ(c[1].syndrome, fc.syndrome) << nic->qp_error(qpn);
    EXPECT_EQ(c[1].wqe_counter, bad);
    EXPECT_EQ(c[1].wqe_opcode, m::kOpRdmaWrite);
    EXPECT_EQ(c[1].qpn, qpn);
    EXPECT_EQ(c[2].syndrome, m::kSyndWrFlushErr);
    EXPECT_EQ(c[2].wqe_counter, after);
    EXPECT_EQ(std::memcmp(&heap.mem[1][256], local.data(), 16), 0);  // the first one ran
    EXPECT_EQ(heap.mem[1][1024], 0);                                  // the failed one did not
    EXPECT_EQ(nic->qp_state(qpn), QpState::error);
    NicFailure f;
    ASSERT_TRUE(nic->first_failure(&f));
    EXPECT_EQ(f.pe, 1);
    EXPECT_EQ(f.qpn, qpn);
    EXPECT_EQ(f.wqe_opcode, m::kOpRdmaWrite);
    EXPECT_EQ(f.wqe_counter, bad);
    EXPECT_EQ(f.syndrome, fc.syndrome);
    const std::string d = describe(f);
    char head[64];
    std::snprintf(head, sizeof head, " to PE 1 on QP 0x%x (WQE 1): ", qpn);
    EXPECT_EQ(d.rfind("RDMA write of ", 0), 0u) << d;
    EXPECT_NE(d.find(head + std::string(fc.words)), std::string::npos) << d;
    EXPECT_NE(d.find("KISHMEM_SIM_NIC_FAIL"), std::string::npos) << d;
    if (fc.kind != NicFaultKind::malformed) {  // a corrupted WQE is not decoded far enough for its address
        EXPECT_EQ(f.raddr, remote[1].base + 1024);
        EXPECT_TRUE(f.in_heap);
        EXPECT_EQ(f.heap_offset, 1024u);
        EXPECT_NE(d.find("RDMA write of 16 bytes"), std::string::npos) << d;
        EXPECT_NE(d.find("heap offset 0x400)"), std::string::npos) << d;
    }
    EXPECT_EQ(nic->stats().errors, 1u);
    // Only the nth: after a reset the same QP works again.
    ASSERT_EQ(nic->reset_qp(qpn), Status::ok);
    post.sq.pi = 0;
    c = run();
    EXPECT_TRUE(c.empty());
    post.write(rref(2048), lref(0), 16);
    c = run();
    ASSERT_EQ(c.size(), 1u);
    expect_ok(c[0], m::kOpRdmaWrite, 0);
}

INSTANTIATE_TEST_SUITE_P(Kinds, sim_nic_fault,
                         ::testing::Values(FaultCase{NicFaultKind::remote_access, m::kSyndRemoteAccessErr,
                                                     "remote access error (syndrome 0x13)"},
                                           FaultCase{NicFaultKind::retry_exceeded, m::kSyndTransportRetryExcErr,
                                                     "transport retry counter exceeded (syndrome 0x15)"},
                                           FaultCase{NicFaultKind::malformed, m::kSyndLocalQpOpErr,
                                                     "local QP operation error (malformed WQE) (syndrome 0x02)"}),
                         [](const ::testing::TestParamInfo<FaultCase>& i) {
                             return std::string(i.param.kind == NicFaultKind::remote_access    ? "remote_access"
                                                : i.param.kind == NicFaultKind::retry_exceeded ? "retry_exceeded"
                                                                                               : "malformed");
                         });

TEST_F(sim_nic, NoFailureWithoutAnError) {
    NicFailure f;
    post.write(rref(0), lref(0), 8);
    run();
    EXPECT_FALSE(nic->first_failure(&f));
}

TEST(sim_nic_fault_spec, Parses) {
    NicFault f;
    std::string why;
    ASSERT_EQ(parse_nic_fault("", &f, &why), Status::ok);
    EXPECT_EQ(f.kind, NicFaultKind::none);
    ASSERT_EQ(parse_nic_fault("remote_access:3", &f, &why), Status::ok);
    EXPECT_EQ(f.kind, NicFaultKind::remote_access);
    EXPECT_EQ(f.nth, 3u);
    EXPECT_EQ(f.pe, -1);
    ASSERT_EQ(parse_nic_fault("malformed:1:2", &f, &why), Status::ok);
    EXPECT_EQ(f.kind, NicFaultKind::malformed);
    EXPECT_EQ(f.pe, 2);
    ASSERT_EQ(parse_nic_fault("retry_exceeded:12", &f, &why), Status::ok);
    EXPECT_EQ(f.kind, NicFaultKind::retry_exceeded);
    for (const char* bad : {"remote_access", "remote_access:", "remote_access:0", "remote:1", "malformed:x",
                            "malformed:1:", "malformed:1:-1", "malformed:1:2:3", ":1"}) {
        why.clear();
        EXPECT_EQ(parse_nic_fault(bad, &f, &why), Status::invalid) << bad;
        EXPECT_NE(why.find("expected <kind>:<nth>[:<pe>]"), std::string::npos) << bad << ": " << why;
        EXPECT_EQ(f.kind, NicFaultKind::none) << bad;
    }
}

TEST_F(sim_nic, WqeLongerThanWhatIsPostedIsAnError) {
    post.write(rref(0), lref(0), 8);
    const uint16_t bad = post.write(rref(0), lref(0), 8);
    // Claims 3 BBs while the doorbell record posts only its first.
    m::write_ctrl_seg(post.last_ctrl, m::kOpRdmaWrite, bad, qpn, 12, m::kCtrlCqUpdate);
    auto c = run();
    ASSERT_EQ(c.size(), 2u);
    EXPECT_EQ(c[0].opcode, m::kCqeReq);
    EXPECT_EQ(c[1].opcode, m::kCqeReqErr);
    EXPECT_EQ(c[1].syndrome, m::kSyndLocalQpOpErr);
    EXPECT_EQ(c[1].wqe_counter, bad);
    const uint16_t next = post.nop(false);
    c = run();
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].syndrome, m::kSyndWrFlushErr);
    EXPECT_EQ(c[0].wqe_counter, next);
}

TEST_F(sim_nic, ProducerIndexBeyondRingIsAnError) {
    m::update_sq_dbrec(post.v.dbrec, 1000);  // a 64-BB ring
    while (nic->poll() != 0) {
    }
    auto c = cq.drain();
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].opcode, m::kCqeReqErr);
    EXPECT_EQ(c[0].syndrome, m::kSyndLocalQpOpErr);
    EXPECT_EQ(nic->qp_state(qpn), QpState::error);
}

// ---- rings, indices and the CQ -----------------------------------------------------------------

TEST_F(sim_nic, RingAndIndexWrapOverManyWqes) {
    build(4, 5);  // 16 BBs, 32 CQEs
    const int total = 70000;  // the 16-bit WQE index wraps once
    int signaled = 0, seen = 0;
    uint32_t expect_next = 0;  // wqe_counter of the next signaled WQE
    std::vector<uint16_t> sig_idx;
    for (int i = 0; i < total; ++i) {
        const std::size_t off = (static_cast<std::size_t>(i) * 8) % (kHeapBytes - 64);
        const uint64_t val = 0x9e3779b97f4a7c15ull * (i + 1);
        const bool sig = i % 5 == 4 || i == total - 1;
        uint16_t idx;
        if (i % 3 == 0) {
            idx = post.write_inline(rref(off), &val, 8, sig);
        } else if (i % 3 == 1) {
            std::memcpy(&local[(i % 512) * 8], &val, 8);
            idx = post.write(rref(off), lref((i % 512) * 8), 8, sig);
        } else {
            uint8_t bytes[40];
            for (int k = 0; k < 40; ++k) bytes[k] = static_cast<uint8_t>(val >> (k % 8 * 8));
            idx = post.write_inline(rref(off), bytes, 40, sig);  // 2 BBs, may wrap
        }
        if (sig) {
            ++signaled;
            sig_idx.push_back(idx);
        }
        // Keep the ring from overflowing: let the NIC catch up every few WQEs.
        if (i % 4 == 3 || i == total - 1) {
            for (const m::CqeInfo& c : run()) {
                ASSERT_EQ(c.opcode, m::kCqeReq) << "WQE " << i << ": " << nic->qp_error(qpn);
                ASSERT_LT(seen, signaled);
                EXPECT_EQ(c.wqe_counter, sig_idx[seen]);
                ++seen;
            }
        }
        (void)expect_next;
    }
    EXPECT_EQ(seen, signaled);
    EXPECT_GT(post.sq.pi, 65536u);
    // The last write to each offset is what the heap holds.
    for (int i = total - 1; i >= total - 200; --i) {
        const std::size_t off = (static_cast<std::size_t>(i) * 8) % (kHeapBytes - 64);
        const uint64_t val = 0x9e3779b97f4a7c15ull * (i + 1);
        EXPECT_EQ(heap.u64(1, off), val) << i;
    }
    EXPECT_EQ(nic->stats().wqes, static_cast<uint64_t>(total));
}

TEST_F(sim_nic, FullCqStallsInsteadOfOverwriting) {
    build(6, 2);  // 4 CQEs
    for (int i = 0; i < 7; ++i) post.nop(true);
    post.ring();
    while (nic->poll() != 0) {
    }
    EXPECT_GT(nic->stats().cq_full_stalls, 0u);
    m::CqeInfo c;
    for (uint16_t i = 0; i < 4; ++i) {  // read without releasing: the NIC must not write more
        ASSERT_TRUE(m::poll_cqe(cq.v.buf, cq.v.log_size, i, &c));
        EXPECT_EQ(c.wqe_counter, i);
    }
    EXPECT_FALSE(m::poll_cqe(cq.v.buf, cq.v.log_size, 4, &c));
    EXPECT_EQ(nic->poll(), 0u);
    for (int i = 0; i < 4; ++i) ASSERT_TRUE(cq.next(&c));  // release all four
    while (nic->poll() != 0) {
    }
    auto rest = cq.drain();
    ASSERT_EQ(rest.size(), 3u);
    EXPECT_EQ(rest[0].wqe_counter, 4);
    EXPECT_EQ(rest[2].wqe_counter, 6);
}

TEST_F(sim_nic, QpsShareOneCq) {
    uint32_t qpn2 = 0;
    ASSERT_EQ(nic->create_qp(cqn, 5, remote[2], &qpn2), Status::ok);
    Poster p2;
    p2.init(nic->qp_view(qpn2));
    local[0] = 0x42;
    post.write(rref(0), lref(0), 1);
    p2.write(m::RemoteRef{remote[2].base + 8, remote[2].rkey}, lref(0), 1);
    // QP 2 may not use PE 1's key: each QP reaches one PE.
    p2.write(m::RemoteRef{remote[1].base + 16, remote[1].rkey}, lref(0), 1);
    p2.ring();
    auto c = run();
    ASSERT_EQ(c.size(), 3u);
    int from1 = 0, from2 = 0;
    for (auto& e : c) (e.qpn == qpn ? from1 : from2)++;
    EXPECT_EQ(from1, 1);
    EXPECT_EQ(from2, 2);
    EXPECT_EQ(heap.mem[1][0], 0x42);
    EXPECT_EQ(heap.mem[2][8], 0x42);
    EXPECT_EQ(heap.mem[1][16], 0);
    EXPECT_EQ(nic->qp_state(qpn2), QpState::error);
    EXPECT_EQ(nic->qp_state(qpn), QpState::rts);
}

// ---- the progress thread ---------------------------------------------------------------------------

TEST_F(sim_nic, ThreadCompletesSleepsWhenIdleAndStops) {
    nic->start();
    EXPECT_TRUE(nic->running());
    local[0] = 0x33;
    const uint16_t idx = post.write(rref(100), lref(0), 1);
    post.ring();
    m::CqeInfo c;
    const auto t0 = std::chrono::steady_clock::now();
    while (!cq.next(&c)) {
        ASSERT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
        std::this_thread::yield();
    }
    expect_ok(c, m::kOpRdmaWrite, idx);
    EXPECT_EQ(heap.mem[1][100], 0x33);
    EXPECT_GE(nic->stats().doorbells, 1u);
    // Idle: it must fall back to sleeping rather than spin.
    const auto ts = std::chrono::steady_clock::now();
    while (nic->stats().sleeps < 5) {
        ASSERT_LT(std::chrono::steady_clock::now() - ts, std::chrono::seconds(10)) << "the idle NIC thread never slept";
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    // Work after a long idle is still picked up.
    const uint16_t idx2 = post.nop(true);
    post.ring();
    const auto t1 = std::chrono::steady_clock::now();
    while (!cq.next(&c)) {
        ASSERT_LT(std::chrono::steady_clock::now() - t1, std::chrono::seconds(10));
        std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
    EXPECT_EQ(c.wqe_counter, idx2);
    const auto t2 = std::chrono::steady_clock::now();
    nic->stop();
    EXPECT_FALSE(nic->running());
    EXPECT_LT(std::chrono::steady_clock::now() - t2, std::chrono::milliseconds(500));
}

TEST_F(sim_nic, ThreadCpuUseWhenIdleIsSmall) {
    nic->start();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // past the spin phase
    timespec a, b;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    nic->stop();
    const double cpu = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
    EXPECT_LT(cpu, 0.1) << "an idle NIC thread used " << cpu << " s of CPU in 0.2 s";
}

// ---- garbage ----------------------------------------------------------------------------------

TEST_F(sim_nic, RandomGarbageNeverCrashes) {
    std::mt19937_64 rng(12345);
    for (int round = 0; round < 400; ++round) {
        build(1 + rng() % 6, 1 + rng() % 6);
        const uint32_t ring_bytes = 64u << post.v.log_bbs;
        const int mode = round % 4;
        for (uint32_t i = 0; i < ring_bytes; i += 8) {
            uint64_t r = rng();
            std::memcpy(post.v.sq + i, &r, 8);
        }
        if (mode >= 1) {  // plausible ctrl segments (index, qpn right) over random bodies
            for (uint32_t bb = 0; bb < (1u << post.v.log_bbs); ++bb) {
                static const uint8_t ops[] = {0x00, 0x08, 0x09, 0x10, 0x11, 0x12, 0x0a, 0x14, 0x3f};
                const uint8_t op = ops[rng() % sizeof ops];
                const uint8_t ds = static_cast<uint8_t>(mode == 3 ? 1 + rng() % 8 : rng() % 70);
                m::write_ctrl_seg(post.v.sq + bb * 64, op, static_cast<uint16_t>(bb), qpn, ds,
                                  static_cast<uint8_t>(rng()));
                if (mode == 3) {  // real keys and in-range addresses, random lengths
                    m::write_raddr_seg(post.v.sq + bb * 64 + 16, rref(rng() % kHeapBytes).addr, remote[1].rkey);
                    m::write_data_seg(post.v.sq + bb * 64 + 32, lref(rng() % local.size()).addr, lk.key,
                                      static_cast<uint32_t>(rng() % 4096));
                }
            }
        }
        m::update_sq_dbrec(post.v.dbrec, static_cast<uint32_t>(mode == 0 ? rng() : rng() % (1u << post.v.log_bbs)));
        for (int k = 0; k < 50 && nic->poll() != 0; ++k) {
            cq.drain();
        }
        cq.drain();
    }
    SUCCEED();
}

TEST(sim_nic_decode, FaultNamesAreDistinct) {
    EXPECT_STRNE(wqe_fault_name(WqeFault::bad_ds), wqe_fault_name(WqeFault::bad_layout));
    EXPECT_STREQ(wqe_fault_name(WqeFault::none), "none");
}

TEST(sim_nic_queue_memory, PageAlignedAndZeroed) {
    QueueMemory q;
    ASSERT_EQ(alloc_queue_memory(5000, &q), Status::ok);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(q.ptr) % 4096, 0u);
    EXPECT_EQ(q.bytes, 8192u);
    for (std::size_t i = 0; i < q.bytes; ++i) ASSERT_EQ(static_cast<uint8_t*>(q.ptr)[i], 0);
    free_queue_memory(&q);
    EXPECT_EQ(q.ptr, nullptr);
}

}  // namespace
