// The mlx5 encoding in device/include/kishmem/device/ibgda against rdma-core: every WQE our
// builders produce must equal, byte for byte, the one assembled with rdma-core's own helpers
// and structs; CQEs filled the way the NIC fills them must decode to the values put in.
#include <endian.h>
#include <infiniband/mlx5dv.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kishmem/device/ibgda/mlx5_cqe.h"
#include "kishmem/device/ibgda/mlx5_wqe.h"

namespace {

namespace m = kishmem::mlx5;

// ---- layouts and constants, checked at compile time --------------------------------------------
#define SAME_OFFSET(ours, theirs, field) \
    static_assert(offsetof(ours, field) == offsetof(theirs, field), #ours "::" #field " offset")
#define SAME_VALUE(ours, theirs) \
    static_assert(static_cast<uint32_t>(ours) == static_cast<uint32_t>(theirs), #ours " != " #theirs)

static_assert(sizeof(m::CtrlSeg) == sizeof(mlx5_wqe_ctrl_seg), "ctrl size");
SAME_OFFSET(m::CtrlSeg, mlx5_wqe_ctrl_seg, opmod_idx_opcode);
SAME_OFFSET(m::CtrlSeg, mlx5_wqe_ctrl_seg, qpn_ds);
SAME_OFFSET(m::CtrlSeg, mlx5_wqe_ctrl_seg, signature);
SAME_OFFSET(m::CtrlSeg, mlx5_wqe_ctrl_seg, dci_stream_channel_id);
SAME_OFFSET(m::CtrlSeg, mlx5_wqe_ctrl_seg, fm_ce_se);
SAME_OFFSET(m::CtrlSeg, mlx5_wqe_ctrl_seg, imm);
static_assert(sizeof(m::RaddrSeg) == sizeof(mlx5_wqe_raddr_seg), "raddr size");
SAME_OFFSET(m::RaddrSeg, mlx5_wqe_raddr_seg, raddr);
SAME_OFFSET(m::RaddrSeg, mlx5_wqe_raddr_seg, rkey);
SAME_OFFSET(m::RaddrSeg, mlx5_wqe_raddr_seg, reserved);
static_assert(sizeof(m::DataSeg) == sizeof(mlx5_wqe_data_seg), "data size");
SAME_OFFSET(m::DataSeg, mlx5_wqe_data_seg, byte_count);
SAME_OFFSET(m::DataSeg, mlx5_wqe_data_seg, lkey);
SAME_OFFSET(m::DataSeg, mlx5_wqe_data_seg, addr);
static_assert(sizeof(m::AtomicSeg) == sizeof(mlx5_wqe_atomic_seg), "atomic size");
SAME_OFFSET(m::AtomicSeg, mlx5_wqe_atomic_seg, swap_add);
SAME_OFFSET(m::AtomicSeg, mlx5_wqe_atomic_seg, compare);
static_assert(sizeof(m::InlineSeg) == sizeof(mlx5_wqe_inl_data_seg), "inline header size");
static_assert(sizeof(m::Cqe64) == sizeof(mlx5_cqe64), "cqe size");
SAME_OFFSET(m::Cqe64, mlx5_cqe64, srqn_uidx);
SAME_OFFSET(m::Cqe64, mlx5_cqe64, imm_inval_pkey);
SAME_OFFSET(m::Cqe64, mlx5_cqe64, app);
SAME_OFFSET(m::Cqe64, mlx5_cqe64, app_op);
SAME_OFFSET(m::Cqe64, mlx5_cqe64, app_info);
SAME_OFFSET(m::Cqe64, mlx5_cqe64, byte_cnt);
SAME_OFFSET(m::Cqe64, mlx5_cqe64, timestamp);
SAME_OFFSET(m::Cqe64, mlx5_cqe64, sop_drop_qpn);
SAME_OFFSET(m::Cqe64, mlx5_cqe64, wqe_counter);
SAME_OFFSET(m::Cqe64, mlx5_cqe64, signature);
SAME_OFFSET(m::Cqe64, mlx5_cqe64, op_own);
static_assert(sizeof(m::ErrCqe) == sizeof(mlx5_err_cqe), "error cqe size");
SAME_OFFSET(m::ErrCqe, mlx5_err_cqe, srqn);
SAME_OFFSET(m::ErrCqe, mlx5_err_cqe, vendor_err_synd);
SAME_OFFSET(m::ErrCqe, mlx5_err_cqe, syndrome);
SAME_OFFSET(m::ErrCqe, mlx5_err_cqe, s_wqe_opcode_qpn);
SAME_OFFSET(m::ErrCqe, mlx5_err_cqe, wqe_counter);
SAME_OFFSET(m::ErrCqe, mlx5_err_cqe, signature);
SAME_OFFSET(m::ErrCqe, mlx5_err_cqe, op_own);

SAME_VALUE(m::kSendWqeBB, MLX5_SEND_WQE_BB);
SAME_VALUE(m::kSendWqeShift, MLX5_SEND_WQE_SHIFT);
SAME_VALUE(m::kOpNop, MLX5_OPCODE_NOP);
SAME_VALUE(m::kOpSendInval, MLX5_OPCODE_SEND_INVAL);
SAME_VALUE(m::kOpRdmaWrite, MLX5_OPCODE_RDMA_WRITE);
SAME_VALUE(m::kOpRdmaWriteImm, MLX5_OPCODE_RDMA_WRITE_IMM);
SAME_VALUE(m::kOpSend, MLX5_OPCODE_SEND);
SAME_VALUE(m::kOpSendImm, MLX5_OPCODE_SEND_IMM);
SAME_VALUE(m::kOpRdmaRead, MLX5_OPCODE_RDMA_READ);
SAME_VALUE(m::kOpAtomicCs, MLX5_OPCODE_ATOMIC_CS);
SAME_VALUE(m::kOpAtomicFa, MLX5_OPCODE_ATOMIC_FA);
SAME_VALUE(m::kOpAtomicMaskedCs, MLX5_OPCODE_ATOMIC_MASKED_CS);
SAME_VALUE(m::kOpAtomicMaskedFa, MLX5_OPCODE_ATOMIC_MASKED_FA);
SAME_VALUE(m::kCtrlCqUpdate, MLX5_WQE_CTRL_CQ_UPDATE);
SAME_VALUE(m::kCtrlSolicited, MLX5_WQE_CTRL_SOLICITED);
SAME_VALUE(m::kFenceSmallAndFence, MLX5_WQE_CTRL_FENCE);
SAME_VALUE(m::kFenceInitiatorSmall, MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE);
SAME_VALUE(m::kInlineSeg, MLX5_INLINE_SEG);
SAME_VALUE(m::kRcvDbr, MLX5_RCV_DBR);
SAME_VALUE(m::kSndDbr, MLX5_SND_DBR);
SAME_VALUE(m::kCqeOwnerMask, MLX5_CQE_OWNER_MASK);
SAME_VALUE(m::kCqeReq, MLX5_CQE_REQ);
SAME_VALUE(m::kCqeRespWrImm, MLX5_CQE_RESP_WR_IMM);
SAME_VALUE(m::kCqeRespSend, MLX5_CQE_RESP_SEND);
SAME_VALUE(m::kCqeRespSendImm, MLX5_CQE_RESP_SEND_IMM);
SAME_VALUE(m::kCqeRespSendInv, MLX5_CQE_RESP_SEND_INV);
SAME_VALUE(m::kCqeResizeCq, MLX5_CQE_RESIZE_CQ);
SAME_VALUE(m::kCqeNoPacket, MLX5_CQE_NO_PACKET);
SAME_VALUE(m::kCqeSigErr, MLX5_CQE_SIG_ERR);
SAME_VALUE(m::kCqeReqErr, MLX5_CQE_REQ_ERR);
SAME_VALUE(m::kCqeRespErr, MLX5_CQE_RESP_ERR);
SAME_VALUE(m::kCqeInvalid, MLX5_CQE_INVALID);
SAME_VALUE(m::kSyndLocalLengthErr, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
SAME_VALUE(m::kSyndLocalQpOpErr, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
SAME_VALUE(m::kSyndLocalProtErr, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
SAME_VALUE(m::kSyndWrFlushErr, MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
SAME_VALUE(m::kSyndMwBindErr, MLX5_CQE_SYNDROME_MW_BIND_ERR);
SAME_VALUE(m::kSyndBadRespErr, MLX5_CQE_SYNDROME_BAD_RESP_ERR);
SAME_VALUE(m::kSyndLocalAccessErr, MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR);
SAME_VALUE(m::kSyndRemoteInvalReqErr, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
SAME_VALUE(m::kSyndRemoteAccessErr, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
SAME_VALUE(m::kSyndRemoteOpErr, MLX5_CQE_SYNDROME_REMOTE_OP_ERR);
SAME_VALUE(m::kSyndTransportRetryExcErr, MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
SAME_VALUE(m::kSyndRnrRetryExcErr, MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR);
SAME_VALUE(m::kSyndRemoteAbortedErr, MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR);
SAME_VALUE(m::kVendorSyndOdpPageFault, MLX5_CQE_VENDOR_SYNDROME_ODP_PFAULT);

// ---- helpers ------------------------------------------------------------------------------------
constexpr int kIters = 4000;
constexpr uint8_t kFill = 0xa5;  // both buffers start with this, so stray writes show up
constexpr size_t kWqeBuf = 8 * m::kSendWqeBB;

struct Rng {
    std::mt19937_64 gen{0x6b69'7368'6d65'6d00ull};
    uint64_t u64() { return gen(); }
    uint32_t u32() { return static_cast<uint32_t>(gen()); }
    uint16_t u16() { return static_cast<uint16_t>(gen()); }
    uint32_t qpn() { return u32() & 0xffffffu; }
    uint32_t below(uint32_t n) { return static_cast<uint32_t>(gen() % n); }
    uint8_t fm_ce_se() {
        static const uint8_t fences[] = {m::kFenceNone, m::kFenceInitiatorSmall, m::kFenceFence,
                                         m::kFenceStrongOrdering, m::kFenceSmallAndFence};
        uint8_t v = fences[below(5)];
        if (gen() & 1) v |= m::kCtrlCqUpdate;
        if (gen() & 1) v |= m::kCtrlSolicited;
        return v;
    }
};

std::string hex_lines(const uint8_t* p, size_t n, const uint8_t* other) {
    std::string s;
    char line[128];
    for (size_t off = 0; off < n; off += 16) {
        int k = std::snprintf(line, sizeof line, "  %04zx:", off);
        for (size_t i = off; i < off + 16 && i < n; ++i)
            k += std::snprintf(line + k, sizeof line - k, "%s%02x", p[i] != other[i] ? "*" : " ", p[i]);
        s += line;
        s += '\n';
    }
    return s;
}

::testing::AssertionResult SameBytes(const void* ours, const void* ref, size_t n) {
    if (std::memcmp(ours, ref, n) == 0) return ::testing::AssertionSuccess();
    const auto* a = static_cast<const uint8_t*>(ours);
    const auto* b = static_cast<const uint8_t*>(ref);
    return ::testing::AssertionFailure() << "bytes differ (* marks a difference)\nours:\n"
                                         << hex_lines(a, n, b) << "rdma-core:\n"
                                         << hex_lines(b, n, a);
}

struct WqePair {
    alignas(64) uint8_t ours[kWqeBuf];
    alignas(64) uint8_t ref[kWqeBuf];
    WqePair() {
        std::memset(ours, kFill, sizeof ours);
        std::memset(ref, kFill, sizeof ref);
    }
};

// Reference ctrl segment. mlx5dv_set_ctrl_seg does not touch dci_stream_channel_id (bytes 9-10);
// libmlx5's post path clears bytes 8..11 before filling the segment, so do the same.
// imm is passed as rdma-core wants it: already big-endian.
void ref_ctrl(uint8_t* wqe, uint8_t opcode, uint16_t idx, uint32_t qpn, uint8_t ds, uint8_t fm_ce_se,
              uint32_t imm_host = 0) {
    std::memset(wqe + 8, 0, 4);
    mlx5dv_set_ctrl_seg(reinterpret_cast<mlx5_wqe_ctrl_seg*>(wqe), idx, opcode, 0, qpn, fm_ce_se, ds, 0,
                        htobe32(imm_host));
}

void ref_raddr(uint8_t* seg, uint64_t raddr, uint32_t rkey) {
    auto* r = reinterpret_cast<mlx5_wqe_raddr_seg*>(seg);
    r->raddr = htobe64(raddr);
    r->rkey = htobe32(rkey);
    r->reserved = 0;
}

void ref_data(uint8_t* seg, uint64_t addr, uint32_t lkey, uint32_t len) {
    mlx5dv_set_data_seg(reinterpret_cast<mlx5_wqe_data_seg*>(seg), len, lkey, addr);
}

void ref_atomic(uint8_t* seg, uint64_t swap_add, uint64_t compare) {
    auto* a = reinterpret_cast<mlx5_wqe_atomic_seg*>(seg);
    a->swap_add = htobe64(swap_add);
    a->compare = htobe64(compare);
}

// Inline segment as libmlx5 lays it out: be32(len | INLINE) then the bytes; padding zeroed here.
// Returns the segment's size in 16-byte units.
uint32_t ref_inline(uint8_t* seg, const uint8_t* src, uint32_t n) {
    if (n == 0) return 0;
    auto* h = reinterpret_cast<mlx5_wqe_inl_data_seg*>(seg);
    h->byte_count = htobe32(n | MLX5_INLINE_SEG);
    std::memcpy(seg + sizeof *h, src, n);
    const uint32_t units = (static_cast<uint32_t>(sizeof *h) + n + 15) / 16;
    std::memset(seg + sizeof *h + n, 0, units * 16 - sizeof *h - n);
    return units;
}

uint32_t rand_length(Rng& r) { return r.below(8) == 0 ? 0 : r.u32() % (1u << 31); }

// ---- WQE builders ----------------------------------------------------------------------------------
enum class Rdma { kWrite, kWriteImm, kRead };

void check_rdma(Rdma kind) {
    Rng r;
    for (int it = 0; it < kIters; ++it) {
        WqePair b;
        const m::WqeHeader h{r.u16(), r.qpn(), r.fm_ce_se()};
        const m::RemoteRef rem{r.u64(), r.u32()};
        const m::LocalRef loc{r.u64(), r.u32()};
        const uint32_t len = rand_length(r);
        const uint32_t imm = r.u32();
        uint32_t bbs = 0;
        uint8_t opcode = 0;
        switch (kind) {
        case Rdma::kWrite:
            bbs = m::build_rdma_write(b.ours, h, rem, loc, len);
            opcode = MLX5_OPCODE_RDMA_WRITE;
            break;
        case Rdma::kWriteImm:
            bbs = m::build_rdma_write_imm(b.ours, h, rem, loc, len, imm);
            opcode = MLX5_OPCODE_RDMA_WRITE_IMM;
            break;
        case Rdma::kRead:
            bbs = m::build_rdma_read(b.ours, h, rem, loc, len);
            opcode = MLX5_OPCODE_RDMA_READ;
            break;
        }
        const uint8_t ds = len ? 3 : 2;  // an empty gather list leaves the data segment out
        ref_ctrl(b.ref, opcode, h.wqe_idx, h.qpn, ds, h.fm_ce_se, kind == Rdma::kWriteImm ? imm : 0);
        ref_raddr(b.ref + 16, rem.addr, rem.rkey);
        if (len) ref_data(b.ref + 32, loc.addr, loc.lkey, len);
        ASSERT_EQ(bbs, 1u) << "iteration " << it;
        ASSERT_TRUE(SameBytes(b.ours, b.ref, kWqeBuf)) << "iteration " << it << " len " << len;
    }
}

TEST(Mlx5Wqe, RdmaWriteMatchesRdmaCore) { check_rdma(Rdma::kWrite); }
TEST(Mlx5Wqe, RdmaWriteImmMatchesRdmaCore) { check_rdma(Rdma::kWriteImm); }
TEST(Mlx5Wqe, RdmaReadMatchesRdmaCore) { check_rdma(Rdma::kRead); }

TEST(Mlx5Wqe, RdmaWriteInlineMatchesRdmaCore) {
    Rng r;
    uint8_t payload[300];
    for (int it = 0; it < kIters; ++it) {
        WqePair b;
        const m::WqeHeader h{r.u16(), r.qpn(), r.fm_ce_se()};
        const m::RemoteRef rem{r.u64(), r.u32()};
        const uint32_t n = r.below(201);
        for (auto& c : payload) c = static_cast<uint8_t>(r.u32());
        const uint32_t bbs = m::build_rdma_write_inline(b.ours, h, rem, payload, n);
        const uint32_t units = ref_inline(b.ref + 32, payload, n);
        const uint32_t ds = 2 + units;
        ref_ctrl(b.ref, MLX5_OPCODE_RDMA_WRITE, h.wqe_idx, h.qpn, static_cast<uint8_t>(ds), h.fm_ce_se);
        ref_raddr(b.ref + 16, rem.addr, rem.rkey);
        ASSERT_EQ(bbs, (ds * 16 + 63) / 64) << "n " << n;
        ASSERT_TRUE(SameBytes(b.ours, b.ref, kWqeBuf)) << "iteration " << it << " n " << n;
    }
}

TEST(Mlx5Wqe, RdmaWriteInlineValueMatchesRdmaCore) {
    Rng r;
    for (int it = 0; it < kIters; ++it) {
        WqePair b;
        const m::WqeHeader h{r.u16(), r.qpn(), r.fm_ce_se()};
        const m::RemoteRef rem{r.u64(), r.u32()};
        const uint32_t n = 1 + r.below(8);
        const uint64_t value = r.u64();
        const uint32_t bbs = m::build_rdma_write_inline_value(b.ours, h, rem, value, n);
        uint8_t bytes[8];
        std::memcpy(bytes, &value, sizeof bytes);  // the value as this machine stores it
        ref_ctrl(b.ref, MLX5_OPCODE_RDMA_WRITE, h.wqe_idx, h.qpn, 3, h.fm_ce_se);
        ref_raddr(b.ref + 16, rem.addr, rem.rkey);
        ASSERT_EQ(ref_inline(b.ref + 32, bytes, n), 1u);
        ASSERT_EQ(bbs, 1u);
        ASSERT_TRUE(SameBytes(b.ours, b.ref, kWqeBuf)) << "iteration " << it << " n " << n;
    }
}

TEST(Mlx5Wqe, AtomicFetchAddMatchesRdmaCore) {
    Rng r;
    for (int it = 0; it < kIters; ++it) {
        WqePair b;
        const m::WqeHeader h{r.u16(), r.qpn(), r.fm_ce_se()};
        const m::RemoteRef rem{r.u64() & ~7ull, r.u32()};
        const m::LocalRef fetch{r.u64() & ~7ull, r.u32()};
        const uint64_t add = r.u64();
        const uint32_t bbs = m::build_atomic_fetch_add(b.ours, h, rem, fetch, add);
        ref_ctrl(b.ref, MLX5_OPCODE_ATOMIC_FA, h.wqe_idx, h.qpn, 4, h.fm_ce_se);
        ref_raddr(b.ref + 16, rem.addr, rem.rkey);
        ref_atomic(b.ref + 32, add, 0);
        ref_data(b.ref + 48, fetch.addr, fetch.lkey, 8);
        ASSERT_EQ(bbs, 1u);
        ASSERT_TRUE(SameBytes(b.ours, b.ref, kWqeBuf)) << "iteration " << it;
    }
}

TEST(Mlx5Wqe, AtomicCompareSwapMatchesRdmaCore) {
    Rng r;
    for (int it = 0; it < kIters; ++it) {
        WqePair b;
        const m::WqeHeader h{r.u16(), r.qpn(), r.fm_ce_se()};
        const m::RemoteRef rem{r.u64() & ~7ull, r.u32()};
        const m::LocalRef fetch{r.u64() & ~7ull, r.u32()};
        const uint64_t compare = r.u64();
        const uint64_t swap = r.u64();
        const uint32_t bbs = m::build_atomic_compare_swap(b.ours, h, rem, fetch, compare, swap);
        ref_ctrl(b.ref, MLX5_OPCODE_ATOMIC_CS, h.wqe_idx, h.qpn, 4, h.fm_ce_se);
        ref_raddr(b.ref + 16, rem.addr, rem.rkey);
        ref_atomic(b.ref + 32, swap, compare);  // swap_add holds the swap value, compare the comparand
        ref_data(b.ref + 48, fetch.addr, fetch.lkey, 8);
        ASSERT_EQ(bbs, 1u);
        ASSERT_TRUE(SameBytes(b.ours, b.ref, kWqeBuf)) << "iteration " << it;
    }
}

TEST(Mlx5Wqe, NopMatchesRdmaCore) {
    Rng r;
    for (int it = 0; it < kIters; ++it) {
        WqePair b;
        const m::WqeHeader h{r.u16(), r.qpn(), r.fm_ce_se()};
        const uint32_t bbs = m::build_nop(b.ours, h);
        ref_ctrl(b.ref, MLX5_OPCODE_NOP, h.wqe_idx, h.qpn, 1, h.fm_ce_se);
        ASSERT_EQ(bbs, 1u);
        ASSERT_TRUE(SameBytes(b.ours, b.ref, kWqeBuf)) << "iteration " << it;
    }
}

TEST(Mlx5Wqe, CtrlSegWithOpmodAndImmMatchesRdmaCore) {
    Rng r;
    for (int it = 0; it < kIters; ++it) {
        WqePair b;
        const uint8_t opcode = static_cast<uint8_t>(r.u32());
        const uint8_t opmod = static_cast<uint8_t>(r.u32());
        const uint16_t idx = r.u16();
        const uint32_t qpn = r.qpn();
        const uint8_t ds = static_cast<uint8_t>(1 + r.below(63));
        const uint8_t fm = static_cast<uint8_t>(r.u32());
        const uint32_t imm = r.u32();
        m::write_ctrl_seg(b.ours, opcode, idx, qpn, ds, fm, imm, opmod);
        std::memset(b.ref + 8, 0, 4);
        mlx5dv_set_ctrl_seg(reinterpret_cast<mlx5_wqe_ctrl_seg*>(b.ref), idx, opcode, opmod, qpn, fm, ds, 0,
                            htobe32(imm));
        ASSERT_TRUE(SameBytes(b.ours, b.ref, kWqeBuf)) << "iteration " << it;
    }
}

// Inline payload: header, bytes, zero padding to 16 bytes, nothing written past the segment.
TEST(Mlx5Wqe, InlinePadding) {
    uint8_t payload[400];
    for (size_t i = 0; i < sizeof payload; ++i) payload[i] = static_cast<uint8_t>(0x30 + i);
    for (uint32_t n = 0; n <= 300; ++n) {
        alignas(64) uint8_t buf[16 * 64];
        std::memset(buf, kFill, sizeof buf);
        const m::WqeHeader h{7, 0x123456, m::kCtrlCqUpdate};
        const uint32_t bbs = m::build_rdma_write_inline(buf, h, m::RemoteRef{0x1000, 1}, payload, n);
        const uint32_t inl_units = n ? (4 + n + 15) / 16 : 0;
        const uint32_t ds = 2 + inl_units;
        EXPECT_EQ(m::inline_ds(n), inl_units) << n;
        EXPECT_EQ(bbs, (ds + 3) / 4) << n;
        EXPECT_EQ(buf[7], ds) << n;  // low byte of qpn_ds
        if (n == 0) {
            EXPECT_EQ(buf[32], kFill) << "no inline segment for an empty payload";
            continue;
        }
        uint32_t hdr;
        std::memcpy(&hdr, buf + 32, 4);
        EXPECT_EQ(be32toh(hdr), n | 0x80000000u) << n;
        EXPECT_EQ(std::memcmp(buf + 36, payload, n), 0) << n;
        const uint32_t end = 32 + inl_units * 16;
        for (uint32_t i = 36 + n; i < end; ++i) ASSERT_EQ(buf[i], 0) << "pad byte " << i << " n " << n;
        for (uint32_t i = end; i < sizeof buf; ++i) ASSERT_EQ(buf[i], kFill) << "byte " << i << " n " << n;
        EXPECT_EQ(end % 16, 0u);
    }
    EXPECT_EQ(m::wqe_bbs(2 + m::inline_ds(28)), 1u) << "28 bytes of inline data fit one BB";
    EXPECT_EQ(m::wqe_bbs(2 + m::inline_ds(29)), 2u);
}

// ---- send ring and doorbells -------------------------------------------------------------------------
TEST(Mlx5Ring, SlotWrapsModuloRingSize) {
    alignas(64) static uint8_t ring[8 * 64];
    const m::SendQueue sq{ring, 3, 0, 0x42};
    EXPECT_EQ(sq.size_bbs(), 8u);
    EXPECT_EQ(sq.wqe_slot(0), ring);
    EXPECT_EQ(sq.wqe_slot(7), ring + 7 * 64);
    EXPECT_EQ(sq.wqe_slot(8), ring) << "index past the ring lands at slot 0";
    EXPECT_EQ(sq.wqe_slot(9), ring + 64);
    EXPECT_EQ(sq.wqe_slot(0x10007), ring + 7 * 64);
    EXPECT_EQ(sq.wqe_slot(0xffffffffu), ring + 7 * 64);
    EXPECT_EQ(sq.bbs_to_end(5), 3u);
    EXPECT_EQ(sq.bbs_to_end(8), 8u);
    EXPECT_EQ(sq.ring_end(), ring + sizeof ring);
}

// A 3-BB inline WQE posted at the last slot continues at slot 0, exactly as the contiguous WQE.
TEST(Mlx5Ring, InlineWqeWrapsAroundRingEnd) {
    alignas(64) uint8_t ring[8 * 64];
    alignas(64) uint8_t flat[4 * 64];
    uint8_t payload[150];
    for (size_t i = 0; i < sizeof payload; ++i) payload[i] = static_cast<uint8_t>(i * 7 + 1);
    std::memset(ring, kFill, sizeof ring);
    std::memset(flat, kFill, sizeof flat);
    const m::SendQueue sq{ring, 3, 0, 0xabcdef};
    const uint32_t idx = 0x1234f;  // slot 7
    const uint32_t bbs = m::build_rdma_write_inline(sq, idx, m::kCtrlCqUpdate, m::RemoteRef{0xdead0000, 9}, payload,
                                                    sizeof payload);
    const m::WqeHeader h{static_cast<uint16_t>(idx), sq.qpn, m::kCtrlCqUpdate};
    EXPECT_EQ(m::build_rdma_write_inline(flat, h, m::RemoteRef{0xdead0000, 9}, payload, sizeof payload), bbs);
    ASSERT_EQ(bbs, 3u);
    EXPECT_TRUE(SameBytes(ring + 7 * 64, flat, 64)) << "first BB in the last slot";
    EXPECT_TRUE(SameBytes(ring, flat + 64, 128)) << "the rest at the ring start";
    for (size_t i = 2 * 64; i < 7 * 64; ++i) ASSERT_EQ(ring[i], kFill) << "slot bytes untouched " << i;
}

TEST(Mlx5Ring, DoorbellRecord) {
    Rng r;
    for (int it = 0; it < kIters; ++it) {
        volatile uint32_t dbrec[2] = {0x11111111u, 0x22222222u};
        const uint32_t pi = r.u32();
        m::update_sq_dbrec(dbrec, pi);
        EXPECT_EQ(dbrec[MLX5_SND_DBR], htobe32(pi & 0xffff));
        EXPECT_EQ(dbrec[MLX5_RCV_DBR], 0x11111111u) << "receive counter untouched";
        const uint8_t* b = const_cast<const uint8_t*>(reinterpret_cast<volatile uint8_t*>(&dbrec[1]));
        ASSERT_EQ(b[0], 0);
        ASSERT_EQ(b[1], 0);
        ASSERT_EQ(b[2], static_cast<uint8_t>(pi >> 8));
        ASSERT_EQ(b[3], static_cast<uint8_t>(pi));
    }
}

TEST(Mlx5Ring, DoorbellValueIsFirstEightBytesOfCtrl) {
    Rng r;
    for (int it = 0; it < kIters; ++it) {
        WqePair b;
        const m::WqeHeader h{r.u16(), r.qpn(), r.fm_ce_se()};
        const m::RemoteRef rem{r.u64() & ~7ull, r.u32()};
        const m::LocalRef fetch{r.u64() & ~7ull, r.u32()};
        m::build_atomic_fetch_add(b.ours, h, rem, fetch, r.u64());
        ref_ctrl(b.ref, MLX5_OPCODE_ATOMIC_FA, h.wqe_idx, h.qpn, 4, h.fm_ce_se);
        const uint64_t v = m::doorbell_value(b.ours);
        ASSERT_TRUE(SameBytes(&v, b.ref, 8)) << "iteration " << it;
        ASSERT_EQ(m::make_doorbell_value(MLX5_OPCODE_ATOMIC_FA, h.wqe_idx, h.qpn, 4), v);
        // Byte positions worked out by hand: opmod, index (BE), opcode, qpn (BE, 24 bit), ds.
        const uint8_t want[8] = {0,
                                 static_cast<uint8_t>(h.wqe_idx >> 8),
                                 static_cast<uint8_t>(h.wqe_idx),
                                 MLX5_OPCODE_ATOMIC_FA,
                                 static_cast<uint8_t>(h.qpn >> 16),
                                 static_cast<uint8_t>(h.qpn >> 8),
                                 static_cast<uint8_t>(h.qpn),
                                 4};
        volatile uint64_t reg = 0;
        m::ring_doorbell(&reg, v);
        const uint64_t written = reg;
        ASSERT_TRUE(SameBytes(&written, want, 8)) << "iteration " << it;
    }
}

TEST(Mlx5ByteOrder, SwapsMatchEndianH) {
    Rng r;
    for (int it = 0; it < kIters; ++it) {
        const uint64_t x = r.u64();
        ASSERT_EQ(m::be16(static_cast<uint16_t>(x)), htobe16(static_cast<uint16_t>(x)));
        ASSERT_EQ(m::be32(static_cast<uint32_t>(x)), htobe32(static_cast<uint32_t>(x)));
        ASSERT_EQ(m::be64(x), htobe64(x));
    }
}

// ---- CQEs -----------------------------------------------------------------------------------------------
void expect_same(const m::CqeInfo& a, const m::CqeInfo& b, int it) {
    EXPECT_EQ(a.opcode, b.opcode) << it;
    EXPECT_EQ(a.owner, b.owner) << it;
    EXPECT_EQ(a.wqe_opcode, b.wqe_opcode) << it;
    EXPECT_EQ(a.syndrome, b.syndrome) << it;
    EXPECT_EQ(a.vendor_syndrome, b.vendor_syndrome) << it;
    EXPECT_EQ(a.wqe_counter, b.wqe_counter) << it;
    EXPECT_EQ(a.qpn, b.qpn) << it;
    EXPECT_EQ(a.byte_cnt, b.byte_cnt) << it;
    EXPECT_EQ(a.imm, b.imm) << it;
}

// A requester or responder success CQE, filled field by field as the NIC does.
m::CqeInfo hw_success_cqe(Rng& r, mlx5_cqe64* cqe) {
    static const uint8_t req_ops[] = {MLX5_OPCODE_RDMA_WRITE, MLX5_OPCODE_RDMA_WRITE_IMM, MLX5_OPCODE_RDMA_READ,
                                      MLX5_OPCODE_ATOMIC_CS, MLX5_OPCODE_ATOMIC_FA, MLX5_OPCODE_NOP};
    static const uint8_t cqe_ops[] = {MLX5_CQE_REQ, MLX5_CQE_RESP_WR_IMM, MLX5_CQE_RESP_SEND,
                                      MLX5_CQE_RESP_SEND_IMM, MLX5_CQE_RESP_SEND_INV};
    m::CqeInfo want{};
    want.opcode = cqe_ops[r.below(5)];
    want.owner = static_cast<uint8_t>(r.u32() & 1);
    want.wqe_opcode = want.opcode == MLX5_CQE_REQ ? req_ops[r.below(6)] : static_cast<uint8_t>(r.u32());
    want.wqe_counter = r.u16();
    want.qpn = r.qpn();
    want.byte_cnt = r.u32();
    const bool has_imm = want.opcode == MLX5_CQE_RESP_WR_IMM || want.opcode == MLX5_CQE_RESP_SEND_IMM ||
                         want.opcode == MLX5_CQE_RESP_SEND_INV;
    want.imm = has_imm ? r.u32() : 0;
    std::memset(cqe, 0, sizeof *cqe);
    cqe->byte_cnt = htobe32(want.byte_cnt);
    cqe->imm_inval_pkey = htobe32(want.imm);
    cqe->sop_drop_qpn = htobe32((uint32_t{want.wqe_opcode} << 24) | want.qpn);
    cqe->wqe_counter = htobe16(want.wqe_counter);
    cqe->op_own = static_cast<uint8_t>((want.opcode << 4) | want.owner);
    return want;
}

m::CqeInfo hw_error_cqe(Rng& r, mlx5_err_cqe* cqe) {
    static const uint8_t synd[] = {MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,
                                   MLX5_CQE_SYNDROME_WR_FLUSH_ERR, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
                                   MLX5_CQE_SYNDROME_REMOTE_OP_ERR, MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR,
                                   MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR, MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR};
    m::CqeInfo want{};
    want.opcode = (r.u32() & 1) ? MLX5_CQE_REQ_ERR : MLX5_CQE_RESP_ERR;
    want.owner = static_cast<uint8_t>(r.u32() & 1);
    want.wqe_opcode = static_cast<uint8_t>(r.u32());
    want.syndrome = synd[r.below(8)];
    want.vendor_syndrome = static_cast<uint8_t>(r.u32());
    want.wqe_counter = r.u16();
    want.qpn = r.qpn();
    std::memset(cqe, 0, sizeof *cqe);
    cqe->syndrome = want.syndrome;
    cqe->vendor_err_synd = want.vendor_syndrome;
    cqe->s_wqe_opcode_qpn = htobe32((uint32_t{want.wqe_opcode} << 24) | want.qpn);
    cqe->wqe_counter = htobe16(want.wqe_counter);
    cqe->op_own = static_cast<uint8_t>((want.opcode << 4) | want.owner);
    return want;
}

TEST(Mlx5Cqe, DecodesHardwareSuccessCqe) {
    Rng r;
    for (int it = 0; it < kIters; ++it) {
        mlx5_cqe64 cqe;
        const m::CqeInfo want = hw_success_cqe(r, &cqe);
        const m::CqeInfo got = m::decode_cqe(&cqe);
        expect_same(got, want, it);
        EXPECT_EQ(got.opcode, mlx5dv_get_cqe_opcode(&cqe));
        EXPECT_EQ(got.owner, mlx5dv_get_cqe_owner(&cqe));
        EXPECT_FALSE(m::cqe_is_error(got.opcode));
        if (::testing::Test::HasFailure()) return;
    }
}

TEST(Mlx5Cqe, DecodesHardwareErrorCqe) {
    Rng r;
    for (int it = 0; it < kIters; ++it) {
        mlx5_err_cqe cqe;
        const m::CqeInfo want = hw_error_cqe(r, &cqe);
        const m::CqeInfo got = m::decode_cqe(&cqe);
        expect_same(got, want, it);
        EXPECT_TRUE(m::cqe_is_error(got.opcode));
        if (::testing::Test::HasFailure()) return;
    }
}

// Our writer produces the very bytes the NIC would, and decoding gives back what went in.
TEST(Mlx5Cqe, WriterRoundTrip) {
    Rng r;
    for (int it = 0; it < kIters; ++it) {
        alignas(64) uint8_t ref[64];
        alignas(64) uint8_t ours[64];
        std::memset(ours, kFill, sizeof ours);
        const m::CqeInfo info = (it & 1) ? hw_error_cqe(r, reinterpret_cast<mlx5_err_cqe*>(ref))
                                         : hw_success_cqe(r, reinterpret_cast<mlx5_cqe64*>(ref));
        m::encode_cqe(ours, info);
        ASSERT_TRUE(SameBytes(ours, ref, 64)) << "iteration " << it;
        expect_same(m::decode_cqe(ours), info, it);
        if (::testing::Test::HasFailure()) return;
    }
}

// libmlx5's test: opcode != INVALID and owner bit == !!(ci & nent).
bool rdma_core_sw_owned(const mlx5_cqe64* cqe, uint32_t ci, uint32_t nent) {
    return mlx5dv_get_cqe_opcode(const_cast<mlx5_cqe64*>(cqe)) != MLX5_CQE_INVALID &&
           !((cqe->op_own & MLX5_CQE_OWNER_MASK) ^ !!(ci & nent));
}

TEST(Mlx5Cqe, OwnershipMatchesRdmaCore) {
    Rng r;
    for (int it = 0; it < kIters; ++it) {
        mlx5_cqe64 cqe;
        std::memset(&cqe, 0, sizeof cqe);
        cqe.op_own = static_cast<uint8_t>(r.u32());
        const uint32_t log = 1 + r.below(16);
        const uint32_t ci = r.u32();
        ASSERT_EQ(m::cqe_sw_owned(cqe.op_own, ci, log), rdma_core_sw_owned(&cqe, ci, 1u << log))
            << "op_own " << int(cqe.op_own) << " ci " << ci << " log " << log;
    }
}

// Three passes over an 8-entry CQ: the consumer sees each published entry once, in order, and
// never an entry left from the previous pass.
TEST(Mlx5Cqe, PublishAndPollAcrossPasses) {
    constexpr uint32_t kLog = 3;
    alignas(64) uint8_t cq[64 << kLog];
    std::memset(cq, kFill, sizeof cq);
    m::init_cq(cq, kLog);
    uint32_t ci = 0;
    m::CqeInfo got{};
    EXPECT_FALSE(m::poll_cqe(cq, kLog, ci, &got)) << "fresh CQ is empty";
    for (uint32_t pi = 0; pi < 3 * 8; ++pi) {
        m::CqeInfo c{};
        c.opcode = m::kCqeReq;
        c.wqe_opcode = m::kOpRdmaWrite;
        c.wqe_counter = static_cast<uint16_t>(pi * 3);
        c.qpn = 0x777;
        m::publish_cqe(cq, kLog, pi, c);
        ASSERT_TRUE(m::poll_cqe(cq, kLog, ci, &got)) << pi;
        EXPECT_EQ(got.wqe_counter, c.wqe_counter);
        EXPECT_EQ(got.owner, (pi >> kLog) & 1);
        EXPECT_EQ(got.qpn, 0x777u);
        ++ci;
        EXPECT_FALSE(m::poll_cqe(cq, kLog, ci, &got)) << "stale entry read as new at ci " << ci;
    }
    volatile uint32_t dbrec[2] = {0, 0x5555u};
    m::update_cq_dbrec(dbrec, 0x12345678u);
    EXPECT_EQ(dbrec[0], htobe32(0x345678u));
    EXPECT_EQ(dbrec[1], 0x5555u);
}

}  // namespace
