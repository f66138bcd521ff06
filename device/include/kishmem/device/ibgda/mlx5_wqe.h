// mlx5 send WQE encoding: segment writers, complete-WQE builders, the send ring and doorbells.
//
// Host and device alike (KISHMEM_HD); no rdma-core or CUDA runtime header is needed.
//
// A send WQE is a run of 16-byte segments starting at a 64-byte basic block (BB) of the send
// ring. The builders here produce, in order:
//   RDMA write / write-imm / read   ctrl | raddr | data              ds 3 (2 when length is 0)
//   RDMA write inline               ctrl | raddr | inline hdr+bytes  ds 2 + ceil((4+n)/16)
//   atomic fetch-add / cmp-swap     ctrl | raddr | atomic | data     ds 4
//   NOP                             ctrl                             ds 1
// and return the number of BBs used, ceil(ds / 4); the caller advances its producer index by it.
//
// Ordering is the caller's job: WQE stores, then a fence, then the doorbell record, then a fence,
// then the doorbell. Nothing here fences.
#pragma once

#include <string.h>

#include "kishmem/device/hd.h"
#include "kishmem/device/ibgda/mlx5_defs.h"

namespace kishmem {
namespace mlx5 {

// Fields every WQE carries in its ctrl segment.
struct WqeHeader {
    uint16_t wqe_idx;  // producer index of the WQE's first BB (low 16 bits)
    uint32_t qpn;      // 24-bit QP number
    uint8_t fm_ce_se;  // kFence* | kCtrlCqUpdate | kCtrlSolicited
};

// Remote memory: address in the peer's registered region and its rkey.
struct RemoteRef {
    uint64_t addr;
    uint32_t rkey;
};

// Local memory: address in a registered region and its lkey.
struct LocalRef {
    uint64_t addr;
    uint32_t lkey;
};

KISHMEM_FORCEINLINE constexpr uint32_t wqe_bbs(uint32_t ds) { return (ds + kDsPerBB - 1) / kDsPerBB; }

// Inline payload of n bytes: header plus data, padded to whole 16-byte units (0 when n == 0,
// where the segment is left out, as rdma-core does for an empty gather list).
KISHMEM_FORCEINLINE constexpr uint32_t inline_ds(uint32_t n) {
    return n == 0 ? 0 : (static_cast<uint32_t>(sizeof(InlineSeg)) + n + kDsBytes - 1) / kDsBytes;
}

namespace detail {

struct alignas(16) Words4 {
    uint32_t w[4];
};

// One 16-byte segment, given as four 32-bit words in memory order (already big-endian where
// the field is). dst must be 16-byte aligned: one vector store on the GPU.
KISHMEM_FORCEINLINE void store_seg(void* dst, uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3) {
#if defined(__CUDA_ARCH__)
    *static_cast<Words4*>(dst) = Words4{{w0, w1, w2, w3}};
#else
    const Words4 v{{w0, w1, w2, w3}};
    memcpy(dst, &v, sizeof v);
#endif
}

KISHMEM_FORCEINLINE uint32_t hi32(uint64_t x) { return static_cast<uint32_t>(x >> 32); }
KISHMEM_FORCEINLINE uint32_t lo32(uint64_t x) { return static_cast<uint32_t>(x); }

KISHMEM_FORCEINLINE uint32_t ctrl_word0(uint8_t opcode, uint16_t wqe_idx, uint8_t opmod) {
    return be32((static_cast<uint32_t>(opmod) << 24) | (static_cast<uint32_t>(wqe_idx) << 8) | opcode);
}

KISHMEM_FORCEINLINE uint32_t ctrl_word1(uint32_t qpn, uint8_t ds) {
    return be32(((qpn & 0xffffffu) << 8) | ds);
}

}  // namespace detail

// ---- segment writers (seg: 16-byte aligned) ------------------------------------------------------

// imm is taken in host order and stored big-endian: the receiver's CQE reports the same value.
// (rdma-core's mlx5dv_set_ctrl_seg stores imm as given, expecting it already big-endian.)
// signature and dci_stream_channel_id are written as 0.
KISHMEM_HD void write_ctrl_seg(void* seg, uint8_t opcode, uint16_t wqe_idx, uint32_t qpn, uint8_t ds,
                               uint8_t fm_ce_se, uint32_t imm = 0, uint8_t opmod = 0) {
    detail::store_seg(seg, detail::ctrl_word0(opcode, wqe_idx, opmod), detail::ctrl_word1(qpn, ds),
                      be32(fm_ce_se), be32(imm));
}

KISHMEM_HD void write_raddr_seg(void* seg, uint64_t raddr, uint32_t rkey) {
    detail::store_seg(seg, be32(detail::hi32(raddr)), be32(detail::lo32(raddr)), be32(rkey), 0u);
}

KISHMEM_HD void write_data_seg(void* seg, uint64_t addr, uint32_t lkey, uint32_t length) {
    detail::store_seg(seg, be32(length), be32(lkey), be32(detail::hi32(addr)), be32(detail::lo32(addr)));
}

KISHMEM_HD void write_atomic_seg(void* seg, uint64_t swap_add, uint64_t compare) {
    detail::store_seg(seg, be32(detail::hi32(swap_add)), be32(detail::lo32(swap_add)),
                      be32(detail::hi32(compare)), be32(detail::lo32(compare)));
}

// Inline segment at seg: header, n payload bytes, zeros up to the next 16-byte boundary.
// If ring_end is not null, writing continues at ring_begin when it reaches ring_end (a WQE
// that starts in the last BBs of the ring wraps to the first). Returns inline_ds(n).
KISHMEM_HD uint32_t write_inline_seg(void* seg, const void* src, uint32_t n,
                                     void* ring_begin = nullptr, const void* ring_end = nullptr) {
    if (n == 0) return 0;
    const uint32_t hdr = be32(n | kInlineSeg);
#if defined(__CUDA_ARCH__)
    *static_cast<uint32_t*>(seg) = hdr;
#else
    memcpy(seg, &hdr, sizeof hdr);
#endif
    uint8_t* p = static_cast<uint8_t*>(seg) + sizeof hdr;
    const uint8_t* s = static_cast<const uint8_t*>(src);
    const uint32_t total = inline_ds(n) * kDsBytes - static_cast<uint32_t>(sizeof hdr);
    for (uint32_t i = 0; i < total; ++i) {
        if (p == ring_end) p = static_cast<uint8_t*>(ring_begin);
        *p++ = i < n ? s[i] : 0;
    }
    return inline_ds(n);
}

// ---- complete WQEs (wqe: start of a 64-byte aligned BB; returns BBs used) -------------------------

namespace detail {

KISHMEM_FORCEINLINE uint32_t build_rdma(void* wqe, uint8_t opcode, const WqeHeader& h, RemoteRef remote,
                                        LocalRef local, uint32_t length, uint32_t imm) {
    uint8_t* p = static_cast<uint8_t*>(wqe);
    const uint8_t ds = length != 0 ? 3 : 2;
    write_ctrl_seg(p, opcode, h.wqe_idx, h.qpn, ds, h.fm_ce_se, imm);
    write_raddr_seg(p + 16, remote.addr, remote.rkey);
    if (length != 0) write_data_seg(p + 32, local.addr, local.lkey, length);
    return 1;
}

KISHMEM_FORCEINLINE uint32_t build_atomic(void* wqe, uint8_t opcode, const WqeHeader& h, RemoteRef remote,
                                          LocalRef fetch, uint64_t swap_add, uint64_t compare) {
    uint8_t* p = static_cast<uint8_t*>(wqe);
    write_ctrl_seg(p, opcode, h.wqe_idx, h.qpn, 4, h.fm_ce_se);
    write_raddr_seg(p + 16, remote.addr, remote.rkey);
    write_atomic_seg(p + 32, swap_add, compare);
    write_data_seg(p + 48, fetch.addr, fetch.lkey, kAtomicSize);
    return 1;
}

}  // namespace detail

// Write length bytes from local to remote. length 0 leaves the data segment out.
KISHMEM_HD uint32_t build_rdma_write(void* wqe, const WqeHeader& h, RemoteRef remote, LocalRef local,
                                     uint32_t length) {
    return detail::build_rdma(wqe, kOpRdmaWrite, h, remote, local, length, 0);
}

// As build_rdma_write, and the target's receive side gets a CQE carrying imm (host order here).
KISHMEM_HD uint32_t build_rdma_write_imm(void* wqe, const WqeHeader& h, RemoteRef remote, LocalRef local,
                                         uint32_t length, uint32_t imm) {
    return detail::build_rdma(wqe, kOpRdmaWriteImm, h, remote, local, length, imm);
}

// Read length bytes from remote into local.
KISHMEM_HD uint32_t build_rdma_read(void* wqe, const WqeHeader& h, RemoteRef remote, LocalRef local,
                                    uint32_t length) {
    return detail::build_rdma(wqe, kOpRdmaRead, h, remote, local, length, 0);
}

// RDMA write of n bytes copied into the WQE (no lkey needed). The WQE must lie contiguously
// from wqe; n must not exceed the QP's max_inline_data. Up to 28 bytes fit in one BB.
KISHMEM_HD uint32_t build_rdma_write_inline(void* wqe, const WqeHeader& h, RemoteRef remote, const void* src,
                                            uint32_t n, void* ring_begin = nullptr,
                                            const void* ring_end = nullptr) {
    uint8_t* p = static_cast<uint8_t*>(wqe);
    const uint32_t ds = 2 + inline_ds(n);
    write_ctrl_seg(p, kOpRdmaWrite, h.wqe_idx, h.qpn, static_cast<uint8_t>(ds), h.fm_ce_se);
    write_raddr_seg(p + 16, remote.addr, remote.rkey);
    write_inline_seg(p + 32, src, n, ring_begin, ring_end);
    return wqe_bbs(ds);
}

// Inline write of a value of n = 1..8 bytes held in a register (shmem_p): the low n bytes of
// value in memory order, i.e. the bytes of a T stored on this little-endian machine. One BB.
KISHMEM_HD uint32_t build_rdma_write_inline_value(void* wqe, const WqeHeader& h, RemoteRef remote,
                                                  uint64_t value, uint32_t n) {
    uint8_t* p = static_cast<uint8_t*>(wqe);
    const uint64_t bytes = n >= 8 ? value : value & ((uint64_t{1} << (8 * n)) - 1);
    write_ctrl_seg(p, kOpRdmaWrite, h.wqe_idx, h.qpn, 3, h.fm_ce_se);
    write_raddr_seg(p + 16, remote.addr, remote.rkey);
    detail::store_seg(p + 32, be32(n | kInlineSeg), detail::lo32(bytes), detail::hi32(bytes), 0u);
    return 1;
}

// 64-bit fetch-and-add at remote; the old value lands in 8 bytes at fetch.
KISHMEM_HD uint32_t build_atomic_fetch_add(void* wqe, const WqeHeader& h, RemoteRef remote, LocalRef fetch,
                                           uint64_t add) {
    return detail::build_atomic(wqe, kOpAtomicFa, h, remote, fetch, add, 0);
}

// 64-bit compare-and-swap at remote (swap if *remote == compare); the old value lands at fetch.
KISHMEM_HD uint32_t build_atomic_compare_swap(void* wqe, const WqeHeader& h, RemoteRef remote, LocalRef fetch,
                                              uint64_t compare, uint64_t swap) {
    return detail::build_atomic(wqe, kOpAtomicCs, h, remote, fetch, swap, compare);
}

// A WQE that moves no data: pads a ring, or, with kCtrlCqUpdate, asks for a completion.
KISHMEM_HD uint32_t build_nop(void* wqe, const WqeHeader& h) {
    write_ctrl_seg(wqe, kOpNop, h.wqe_idx, h.qpn, 1, h.fm_ce_se);
    return 1;
}

// ---- send ring ---------------------------------------------------------------------------------

// Plain description of one send queue: 1 << log_bbs BBs at buf (64-byte aligned).
struct SendQueue {
    uint8_t* buf;
    uint32_t log_bbs;
    uint32_t pi;   // free-running producer index in BBs; the NIC sees its low 16 bits
    uint32_t qpn;

    KISHMEM_HD uint32_t size_bbs() const { return 1u << log_bbs; }
    // BB holding producer index idx, wrapping modulo the ring size.
    KISHMEM_HD void* wqe_slot(uint32_t idx) const {
        return buf + (static_cast<size_t>(idx & (size_bbs() - 1)) << kSendWqeShift);
    }
    // BBs from idx's slot to the end of the ring: a WQE of more BBs than this wraps.
    KISHMEM_HD uint32_t bbs_to_end(uint32_t idx) const { return size_bbs() - (idx & (size_bbs() - 1)); }
    KISHMEM_HD void* ring_end() const { return buf + (static_cast<size_t>(size_bbs()) << kSendWqeShift); }
};

// Inline write at producer index idx of sq, wrapping the payload around the ring end if needed.
KISHMEM_HD uint32_t build_rdma_write_inline(const SendQueue& sq, uint32_t idx, uint8_t fm_ce_se,
                                            RemoteRef remote, const void* src, uint32_t n) {
    const WqeHeader h{static_cast<uint16_t>(idx), sq.qpn, fm_ce_se};
    return build_rdma_write_inline(sq.wqe_slot(idx), h, remote, src, n, sq.buf, sq.ring_end());
}

// ---- doorbells ---------------------------------------------------------------------------------

// Doorbell record: tell the NIC that BBs up to (not including) pi are valid.
KISHMEM_HD void update_sq_dbrec(volatile uint32_t* dbrec, uint32_t pi) {
    dbrec[kSndDbr] = be32(pi & 0xffffu);
}

// The 8-byte doorbell value is the first 8 bytes of the last WQE's ctrl segment, in memory
// order; as a little-endian integer that is word0 | word1 << 32.
KISHMEM_HD uint64_t doorbell_value(const void* ctrl) {
#if defined(__CUDA_ARCH__)
    return *static_cast<const uint64_t*>(ctrl);
#else
    uint64_t v;
    memcpy(&v, ctrl, sizeof v);
    return v;
#endif
}

// Same value computed from the fields, without reading the WQE back.
KISHMEM_HD uint64_t make_doorbell_value(uint8_t opcode, uint16_t wqe_idx, uint32_t qpn, uint8_t ds,
                                        uint8_t opmod = 0) {
    return static_cast<uint64_t>(detail::ctrl_word0(opcode, wqe_idx, opmod)) |
           (static_cast<uint64_t>(detail::ctrl_word1(qpn, ds)) << 32);
}

// Ring: one 64-bit store to the UAR/BlueFlame doorbell register.
KISHMEM_HD void ring_doorbell(volatile uint64_t* db, uint64_t value) { *db = value; }

}  // namespace mlx5
}  // namespace kishmem
