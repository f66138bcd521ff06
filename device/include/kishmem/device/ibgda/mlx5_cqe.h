// mlx5 completion queue entries: ownership check, decoding, and writing them the way the NIC
// does (for the software NIC). Host and device alike (KISHMEM_HD).
//
// CQ geometry assumed here: 1 << log_cq_size entries of 64 bytes, CQE compression off.
// Ownership: software created every entry with op_own = kCqeInvalid << 4 (owner bit 0). The
// producer writes the entry for its index pi with owner bit (pi >> log_cq_size) & 1, so the
// bit flips on each pass over the ring; the consumer at index ci owns the entry when the
// opcode is not kCqeInvalid and the owner bit equals (ci >> log_cq_size) & 1.
#pragma once

#include <string.h>

#include "kishmem/device/hd.h"
#include "kishmem/device/ibgda/mlx5_defs.h"

namespace kishmem {
namespace mlx5 {

// One CQE, decoded into host byte order. Fields that do not apply to the opcode are 0.
struct CqeInfo {
    uint8_t opcode;           // kCqe*
    uint8_t owner;            // 0 or 1
    uint8_t wqe_opcode;       // REQ / REQ_ERR: opcode of the completed (failed) send WQE
    uint8_t syndrome;         // REQ_ERR / RESP_ERR: kSynd*
    uint8_t vendor_syndrome;  // REQ_ERR / RESP_ERR
    uint16_t wqe_counter;     // wqe_idx of the WQE this CQE completes
    uint32_t qpn;
    uint32_t byte_cnt;        // success CQEs only
    uint32_t imm;             // RESP_WR_IMM / RESP_SEND_IMM (RESP_SEND_INV: invalidated rkey)
};

KISHMEM_FORCEINLINE constexpr uint8_t cqe_opcode(uint8_t op_own) { return static_cast<uint8_t>(op_own >> 4); }
KISHMEM_FORCEINLINE constexpr uint8_t cqe_owner(uint8_t op_own) { return op_own & kCqeOwnerMask; }
KISHMEM_FORCEINLINE constexpr bool cqe_is_error(uint8_t opcode) {
    return opcode == kCqeReqErr || opcode == kCqeRespErr;
}
// Responder CQEs whose imm_inval_pkey carries an immediate (or, for SEND_INV, an rkey).
KISHMEM_FORCEINLINE constexpr bool cqe_has_imm(uint8_t opcode) {
    return opcode == kCqeRespWrImm || opcode == kCqeRespSendImm || opcode == kCqeRespSendInv;
}
// Owner bit of the entry at (free-running) index idx in a CQ of 1 << log_cq_size entries.
KISHMEM_FORCEINLINE constexpr uint8_t cqe_owner_for(uint32_t idx, uint32_t log_cq_size) {
    return static_cast<uint8_t>((idx >> log_cq_size) & 1u);
}
// Does the consumer at index ci own an entry whose last byte is op_own?
KISHMEM_FORCEINLINE constexpr bool cqe_sw_owned(uint8_t op_own, uint32_t ci, uint32_t log_cq_size) {
    return cqe_opcode(op_own) != kCqeInvalid && cqe_owner(op_own) == cqe_owner_for(ci, log_cq_size);
}

// Entry for (free-running) index idx.
KISHMEM_HD void* cqe_slot(void* cq_buf, uint32_t idx, uint32_t log_cq_size) {
    return static_cast<uint8_t*>(cq_buf) + (static_cast<size_t>(idx & ((1u << log_cq_size) - 1)) << 6);
}
KISHMEM_HD const void* cqe_slot(const void* cq_buf, uint32_t idx, uint32_t log_cq_size) {
    return static_cast<const uint8_t*>(cq_buf) + (static_cast<size_t>(idx & ((1u << log_cq_size) - 1)) << 6);
}

// Mark every entry of a fresh CQ as never written (what the verbs provider does at creation).
KISHMEM_HD void init_cq(void* cq_buf, uint32_t log_cq_size) {
    for (uint32_t i = 0; i < (1u << log_cq_size); ++i)
        static_cast<uint8_t*>(cqe_slot(cq_buf, i, log_cq_size))[63] = static_cast<uint8_t>(kCqeInvalid << 4);
}

namespace detail {

// 32-bit word w (byte offset 4*w) of a CQE, raw (big-endian fields stay big-endian). Volatile
// on the GPU so the load goes to memory the NIC writes, not to a stale L1 line.
KISHMEM_FORCEINLINE uint32_t cqe_word(const void* cqe, uint32_t w) {
#if defined(__CUDA_ARCH__)
    return static_cast<const volatile uint32_t*>(cqe)[w];
#else
    uint32_t v;
    memcpy(&v, static_cast<const uint8_t*>(cqe) + 4 * w, sizeof v);
    return v;
#endif
}

KISHMEM_FORCEINLINE void cqe_store_word(void* cqe, uint32_t w, uint32_t v) {
#if defined(__CUDA_ARCH__)
    static_cast<volatile uint32_t*>(cqe)[w] = v;
#else
    memcpy(static_cast<uint8_t*>(cqe) + 4 * w, &v, sizeof v);
#endif
}

KISHMEM_FORCEINLINE void release_fence() {
#if defined(__CUDA_ARCH__)
    __threadfence_system();  // the consumer may be the host or another GPU kernel
#else
    __atomic_thread_fence(__ATOMIC_RELEASE);
#endif
}

KISHMEM_FORCEINLINE void acquire_fence() {
#if defined(__CUDA_ARCH__)
    __threadfence();
#else
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
#endif
}

// Everything but op_own: bytes 0..62. Word indices: 9 imm_inval_pkey, 11 byte_cnt,
// 13 vendor_err_synd (byte 54) / syndrome (byte 55), 14 sop_drop_qpn, 15 wqe_counter/signature.
KISHMEM_FORCEINLINE void write_cqe_body(void* cqe, const CqeInfo& c) {
    const bool err = cqe_is_error(c.opcode);
    for (uint32_t w = 0; w < 9; ++w) cqe_store_word(cqe, w, 0u);
    cqe_store_word(cqe, 9, cqe_has_imm(c.opcode) ? be32(c.imm) : 0u);
    cqe_store_word(cqe, 10, 0u);
    cqe_store_word(cqe, 11, err ? 0u : be32(c.byte_cnt));
    cqe_store_word(cqe, 12, 0u);
    cqe_store_word(cqe, 13, err ? (static_cast<uint32_t>(c.vendor_syndrome) << 16) |
                                      (static_cast<uint32_t>(c.syndrome) << 24)
                                : 0u);
    cqe_store_word(cqe, 14, be32((static_cast<uint32_t>(c.wqe_opcode) << 24) | (c.qpn & 0xffffffu)));
    uint8_t* p = static_cast<uint8_t*>(cqe);
    const uint16_t wc = be16(c.wqe_counter);
#if defined(__CUDA_ARCH__)
    *reinterpret_cast<volatile uint16_t*>(p + 60) = wc;
#else
    memcpy(p + 60, &wc, sizeof wc);
#endif
    static_cast<volatile uint8_t*>(cqe)[62] = 0;  // signature
}

KISHMEM_FORCEINLINE uint8_t make_op_own(const CqeInfo& c) {
    return static_cast<uint8_t>((c.opcode << 4) | (c.owner & kCqeOwnerMask));
}

}  // namespace detail

// Decode a CQE (the caller has checked ownership, or is looking at a copy).
KISHMEM_HD CqeInfo decode_cqe(const void* cqe) {
    const uint32_t w15 = detail::cqe_word(cqe, 15);
    const uint32_t w14 = be32(detail::cqe_word(cqe, 14));
    CqeInfo c{};
    const uint8_t op_own = static_cast<uint8_t>(w15 >> 24);
    c.opcode = cqe_opcode(op_own);
    c.owner = cqe_owner(op_own);
    c.wqe_counter = be16(static_cast<uint16_t>(w15));
    c.wqe_opcode = static_cast<uint8_t>(w14 >> 24);
    c.qpn = w14 & 0xffffffu;
    if (cqe_is_error(c.opcode)) {
        const uint32_t w13 = detail::cqe_word(cqe, 13);
        c.vendor_syndrome = static_cast<uint8_t>(w13 >> 16);
        c.syndrome = static_cast<uint8_t>(w13 >> 24);
    } else {
        c.byte_cnt = be32(detail::cqe_word(cqe, 11));
        if (cqe_has_imm(c.opcode)) c.imm = be32(detail::cqe_word(cqe, 9));
    }
    return c;
}

// Consumer: if the entry for ci is ready, decode it into *out and return true. The caller then
// advances ci and, from time to time, publishes it with update_cq_dbrec.
KISHMEM_HD bool poll_cqe(const void* cq_buf, uint32_t log_cq_size, uint32_t ci, CqeInfo* out) {
    const void* cqe = cqe_slot(cq_buf, ci, log_cq_size);
    const uint8_t op_own = static_cast<const volatile uint8_t*>(cqe)[63];
    if (!cqe_sw_owned(op_own, ci, log_cq_size)) return false;
    detail::acquire_fence();
    *out = decode_cqe(cqe);
    return true;
}

// CQ doorbell record: entries before ci are consumed and may be reused by the producer.
KISHMEM_HD void update_cq_dbrec(volatile uint32_t* dbrec, uint32_t ci) { dbrec[kCqSetCi] = be32(ci & 0xffffffu); }

// Write a whole CQE from c (c.owner included) in plain program order, op_own last; no fence.
// Fields that do not apply to c.opcode are written as 0, as the NIC leaves them.
KISHMEM_HD void encode_cqe(void* cqe, const CqeInfo& c) {
    detail::write_cqe_body(cqe, c);
    static_cast<volatile uint8_t*>(cqe)[63] = detail::make_op_own(c);
}

// Producer (software NIC): write the entry for producer index pi so that a concurrent consumer
// sees either the old entry or the complete new one. c.owner is set from pi.
KISHMEM_HD void publish_cqe(void* cq_buf, uint32_t log_cq_size, uint32_t pi, CqeInfo c) {
    void* cqe = cqe_slot(cq_buf, pi, log_cq_size);
    c.owner = cqe_owner_for(pi, log_cq_size);
    detail::write_cqe_body(cqe, c);
    detail::release_fence();
    static_cast<volatile uint8_t*>(cqe)[63] = detail::make_op_own(c);
}

}  // namespace mlx5
}  // namespace kishmem
