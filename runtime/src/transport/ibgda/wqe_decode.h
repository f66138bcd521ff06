// Reading mlx5 send WQEs the way the NIC does: the host-side inverse of the builders in
// device/include/kishmem/device/ibgda/mlx5_wqe.h. Used by the software NIC.
//
// A WQE is fetched once into a private copy (the NIC's DMA read), unwrapping a WQE that runs
// past the ring end, and only that copy is parsed: a producer that keeps writing the ring
// cannot change a WQE between its checks and its execution.
//
// What is accepted (anything else is a fault, reported as a local QP operation error):
//   NOP                   ds >= 1, opmod 0; contents past the ctrl segment ignored
//   RDMA write / w-imm    ctrl | raddr                    ds 2 (zero length)
//                         ctrl | raddr | inline           ds 2 + inline_ds(n), exactly
//                         ctrl | raddr | data x k         ds 2 + k (gather list)
//   RDMA read             ctrl | raddr [| data x k]       ds 2 + k (scatter list, no inline)
//   atomic CS / FA        ctrl | raddr | atomic | data    ds 4, data byte_count 8
// ds is the 6-bit field of ctrl.qpn_ds; a WQE spans ceil(ds / 4) basic blocks. A data
// segment's byte_count of 0 means 2^31 bytes, as on the hardware.
#pragma once

#include <cstdint>
#include <cstring>

#include "kishmem/device/ibgda/mlx5_defs.h"

namespace kishmem::ibgda {

constexpr uint32_t kMaxWqeBytes = mlx5::kMaxWqeBBs * mlx5::kSendWqeBB;  // 1 KiB
constexpr uint32_t kMaxDs = 0x3f;                                      // ctrl.qpn_ds ds field
constexpr uint32_t kMaxSges = kMaxDs - 2;
constexpr uint64_t kMaxMessageBytes = uint64_t{1} << 31;

enum class WqeFault : uint8_t {
    none,
    bad_opcode,   // not one the NIC executes, or a nonzero opmod
    bad_ds,       // ds 0, over 63, larger than the ring, or past the posted producer index
    bad_index,    // ctrl wqe_index is not the consumer index
    bad_qpn,      // ctrl qpn is not this QP
    bad_layout,   // segments inconsistent with the opcode and ds
    too_long,     // total length over 2^31 bytes (local length error)
};

const char* wqe_fault_name(WqeFault f);

struct WqeSge {
    uint64_t addr;
    uint32_t lkey;
    uint32_t length;  // bytes (a byte_count of 0 already turned into 2^31)
};

// The NIC's private copy of one WQE.
struct alignas(64) WqeBytes {
    uint8_t b[kMaxWqeBytes];
};

struct DecodedWqe {
    uint8_t opcode = 0;
    uint8_t opmod = 0;
    uint8_t fm_ce_se = 0;
    uint8_t ds = 0;          // as written (before validation)
    uint16_t wqe_idx = 0;
    uint32_t qpn = 0;
    uint32_t imm = 0;        // host order
    uint32_t bbs = 1;        // basic blocks this WQE occupies (1 when ds is unusable)
    uint64_t raddr = 0;
    uint32_t rkey = 0;
    uint64_t swap_add = 0;   // host order (the WQE carries them big-endian)
    uint64_t compare = 0;
    uint32_t n_sge = 0;
    WqeSge sge[kMaxSges];
    bool is_inline = false;
    uint32_t inline_len = 0;
    const uint8_t* inline_data = nullptr;  // into the WqeBytes the WQE was fetched into
    uint64_t length = 0;     // bytes moved (sum of the SGEs, or the inline length, or 8)
    WqeFault fault = WqeFault::none;

    bool signaled() const { return (fm_ce_se & mlx5::kCtrlCqUpdate) != 0; }
};

namespace detail {

inline uint32_t load_be32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, sizeof v);
    return mlx5::be32(v);
}

inline uint64_t load_be64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return mlx5::be64(v);
}

inline const uint8_t* slot(const uint8_t* ring, uint32_t log_bbs, uint32_t idx) {
    return ring + (static_cast<size_t>(idx & ((1u << log_bbs) - 1)) << mlx5::kSendWqeShift);
}

inline bool parse_sges(const uint8_t* seg, uint32_t count, DecodedWqe* d) {
    for (uint32_t i = 0; i < count; ++i, seg += mlx5::kDsBytes) {
        const uint32_t bc = load_be32(seg);
        if (bc & mlx5::kInlineSeg) return false;  // an inline header where a pointer belongs
        WqeSge& s = d->sge[d->n_sge++];
        s.length = bc == 0 ? 0x80000000u : bc;
        s.lkey = load_be32(seg + 4);
        s.addr = load_be64(seg + 8);
        d->length += s.length;
    }
    return true;
}

}  // namespace detail

// Fields of the ctrl segment at ring index idx, without the rest of the WQE.
inline void decode_ctrl(const uint8_t* ctrl, DecodedWqe* d) {
    const uint32_t w0 = detail::load_be32(ctrl);
    const uint32_t w1 = detail::load_be32(ctrl + 4);
    d->opcode = static_cast<uint8_t>(w0);
    d->wqe_idx = static_cast<uint16_t>(w0 >> 8);
    d->opmod = static_cast<uint8_t>(w0 >> 24);
    d->qpn = w1 >> 8;
    d->ds = static_cast<uint8_t>(w1);
    d->fm_ce_se = ctrl[11];
    d->imm = detail::load_be32(ctrl + 12);
}

// Copies the WQE at (free-running) index idx of a ring of 1 << log_bbs BBs into *out and
// decodes it. avail_bbs: BBs posted from idx on (producer index - idx); expect_idx and
// expect_qpn: what the ctrl segment must carry. Returns false when d->fault is set; d->bbs
// is then the span to skip (1 where ds itself is unusable).
inline bool decode_wqe(const uint8_t* ring, uint32_t log_bbs, uint32_t idx, uint32_t avail_bbs, uint32_t expect_qpn,
                       WqeBytes* out, DecodedWqe* d) {
    using namespace mlx5;
    *d = DecodedWqe{};
    std::memcpy(out->b, detail::slot(ring, log_bbs, idx), kSendWqeBB);
    decode_ctrl(out->b, d);
    const uint32_t ds = d->ds;
    const uint32_t bbs = (ds + kDsPerBB - 1) / kDsPerBB;
    if (ds == 0 || ds > kMaxDs || bbs > (1u << log_bbs) || bbs > avail_bbs) {
        d->fault = WqeFault::bad_ds;
        return false;
    }
    d->bbs = bbs;
    for (uint32_t i = 1; i < bbs; ++i)
        std::memcpy(out->b + i * kSendWqeBB, detail::slot(ring, log_bbs, idx + i), kSendWqeBB);
    if (d->wqe_idx != static_cast<uint16_t>(idx)) {
        d->fault = WqeFault::bad_index;
        return false;
    }
    if (d->qpn != (expect_qpn & 0xffffffu)) {
        d->fault = WqeFault::bad_qpn;
        return false;
    }
    if (d->opmod != 0) {
        d->fault = WqeFault::bad_opcode;
        return false;
    }
    const uint8_t* seg = out->b + kDsBytes;  // the segment after ctrl
    bool ok = true;
    switch (d->opcode) {
        case kOpNop:
            break;
        case kOpRdmaWrite:
        case kOpRdmaWriteImm:
        case kOpRdmaRead:
            if (ds < 2) {
                ok = false;
                break;
            }
            d->raddr = detail::load_be64(seg);
            d->rkey = detail::load_be32(seg + 8);
            seg += kDsBytes;
            if (ds > 2 && d->opcode != kOpRdmaRead && (detail::load_be32(seg) & kInlineSeg)) {
                const uint32_t n = detail::load_be32(seg) & ~kInlineSeg;
                // The inline payload must fill exactly the units ds gives it.
                const uint64_t units = (uint64_t{sizeof(InlineSeg)} + n + kDsBytes - 1) / kDsBytes;
                if (n == 0 || units != ds - 2) {
                    ok = false;
                    break;
                }
                d->is_inline = true;
                d->inline_len = n;
                d->inline_data = seg + sizeof(InlineSeg);
                d->length = n;
            } else {
                ok = detail::parse_sges(seg, ds - 2, d);
            }
            break;
        case kOpAtomicCs:
        case kOpAtomicFa:
            if (ds != 4) {
                ok = false;
                break;
            }
            d->raddr = detail::load_be64(seg);
            d->rkey = detail::load_be32(seg + 8);
            d->swap_add = detail::load_be64(seg + 16);
            d->compare = detail::load_be64(seg + 24);
            ok = detail::parse_sges(seg + 32, 1, d) && d->sge[0].length == kAtomicSize;
            break;
        default:
            d->fault = WqeFault::bad_opcode;
            return false;
    }
    if (!ok) {
        d->fault = WqeFault::bad_layout;
        return false;
    }
    if (d->length > kMaxMessageBytes) {
        d->fault = WqeFault::too_long;
        return false;
    }
    return true;
}

inline const char* wqe_fault_name(WqeFault f) {
    switch (f) {
        case WqeFault::none: return "none";
        case WqeFault::bad_opcode: return "unsupported opcode";
        case WqeFault::bad_ds: return "bad ds count";
        case WqeFault::bad_index: return "wqe_index is not the consumer index";
        case WqeFault::bad_qpn: return "qpn is not this QP";
        case WqeFault::bad_layout: return "segments do not match the opcode";
        case WqeFault::too_long: return "message longer than 2^31 bytes";
    }
    return "?";
}

}  // namespace kishmem::ibgda
