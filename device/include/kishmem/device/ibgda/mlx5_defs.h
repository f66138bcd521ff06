// mlx5 work-queue and completion-queue layouts and constants, as plain data.
//
// These mirror the hardware formats that rdma-core describes in <infiniband/mlx5dv.h>, but are
// written out here because device code cannot include rdma-core. tests/unit/test_mlx5.cpp
// checks every size and offset below against rdma-core's own structs.
//
// Byte order: every multi-byte field of these structs holds a big-endian value, exactly as the
// NIC reads or writes it. Never assign them directly; use the writers in mlx5_wqe.h and the
// readers in mlx5_cqe.h, or be32()/be64() below.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "kishmem/device/hd.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "kishmem's mlx5 encoding assumes a little-endian host (x86-64, aarch64) and GPU"
#endif

namespace kishmem {
namespace mlx5 {

// ---- send WQE geometry -----------------------------------------------------------------
constexpr uint32_t kSendWqeBB = 64;     // one basic block (BB); the ring is an array of BBs
constexpr uint32_t kSendWqeShift = 6;   // log2(kSendWqeBB)
constexpr uint32_t kDsBytes = 16;       // the ctrl segment's ds counts 16-byte units
constexpr uint32_t kDsPerBB = kSendWqeBB / kDsBytes;
constexpr uint32_t kMaxWqeBBs = 16;     // the largest send WQE mlx5 accepts (1 KiB)

// ---- send WQE opcodes (low byte of ctrl.opmod_idx_opcode) --------------------------------
constexpr uint8_t kOpNop = 0x00;
constexpr uint8_t kOpSendInval = 0x01;
constexpr uint8_t kOpRdmaWrite = 0x08;
constexpr uint8_t kOpRdmaWriteImm = 0x09;
constexpr uint8_t kOpSend = 0x0a;
constexpr uint8_t kOpSendImm = 0x0b;
constexpr uint8_t kOpRdmaRead = 0x10;
constexpr uint8_t kOpAtomicCs = 0x11;        // 64-bit compare-and-swap
constexpr uint8_t kOpAtomicFa = 0x12;        // 64-bit fetch-and-add
constexpr uint8_t kOpAtomicMaskedCs = 0x14;  // extended atomics (size in opmod); not built here
constexpr uint8_t kOpAtomicMaskedFa = 0x15;

// ---- ctrl segment fm_ce_se byte ------------------------------------------------------------
// bits 7:5 fence mode, bits 3:2 completion-event mode (CE), bit 1 solicited event.
constexpr uint8_t kCtrlSolicited = 0x02;
constexpr uint8_t kCtrlCqUpdate = 0x08;    // CE = 2: always write a CQE for this WQE
constexpr uint8_t kCtrlCeMask = 0x0c;      // CE = 0: a CQE only if the WQE fails
constexpr uint8_t kFenceNone = 0x00;
constexpr uint8_t kFenceInitiatorSmall = 0x20;
constexpr uint8_t kFenceFence = 0x40;
constexpr uint8_t kFenceStrongOrdering = 0x60;
// What rdma-core calls MLX5_WQE_CTRL_FENCE and sets for IBV_SEND_FENCE: wait for all earlier
// RDMA reads and atomics of this QP before executing this WQE.
constexpr uint8_t kFenceSmallAndFence = 0x80;
constexpr uint8_t kFenceMask = 0xe0;

// ---- data segments ---------------------------------------------------------------------------
constexpr uint32_t kInlineSeg = 0x80000000u;  // or-ed into an inline segment's byte_count
constexpr uint32_t kAtomicSize = 8;           // local bytes an atomic WQE returns (old value)

// ---- doorbell records (arrays of big-endian 32-bit words) ---------------------------------
constexpr uint32_t kRcvDbr = 0;    // QP dbrec word: receive queue counter
constexpr uint32_t kSndDbr = 1;    // QP dbrec word: send queue producer index (16 bits)
constexpr uint32_t kCqSetCi = 0;   // CQ dbrec word: consumer index (24 bits)
constexpr uint32_t kCqArmDb = 1;   // CQ dbrec word: arm request

// ---- CQE opcodes (op_own >> 4) ----------------------------------------------------------------
constexpr uint8_t kCqeReq = 0;
constexpr uint8_t kCqeRespWrImm = 1;
constexpr uint8_t kCqeRespSend = 2;
constexpr uint8_t kCqeRespSendImm = 3;
constexpr uint8_t kCqeRespSendInv = 4;
constexpr uint8_t kCqeResizeCq = 5;
constexpr uint8_t kCqeNoPacket = 6;
constexpr uint8_t kCqeSigErr = 12;
constexpr uint8_t kCqeReqErr = 13;
constexpr uint8_t kCqeRespErr = 14;
constexpr uint8_t kCqeInvalid = 15;  // software marks never-written CQEs with this
constexpr uint8_t kCqeOwnerMask = 0x01;

// ---- error CQE syndromes (mlx5_err_cqe.syndrome) ---------------------------------------------
constexpr uint8_t kSyndLocalLengthErr = 0x01;
constexpr uint8_t kSyndLocalQpOpErr = 0x02;
constexpr uint8_t kSyndLocalProtErr = 0x04;
constexpr uint8_t kSyndWrFlushErr = 0x05;
constexpr uint8_t kSyndMwBindErr = 0x06;
constexpr uint8_t kSyndBadRespErr = 0x10;
constexpr uint8_t kSyndLocalAccessErr = 0x11;
constexpr uint8_t kSyndRemoteInvalReqErr = 0x12;
constexpr uint8_t kSyndRemoteAccessErr = 0x13;
constexpr uint8_t kSyndRemoteOpErr = 0x14;
constexpr uint8_t kSyndTransportRetryExcErr = 0x15;
constexpr uint8_t kSyndRnrRetryExcErr = 0x16;
constexpr uint8_t kSyndRemoteAbortedErr = 0x22;
constexpr uint8_t kVendorSyndOdpPageFault = 0x93;  // mlx5_err_cqe.vendor_err_synd

// ---- segment layouts ---------------------------------------------------------------------------
// Control segment, first 16 bytes of every send WQE.
//   opmod_idx_opcode = opmod << 24 | wqe_index << 8 | opcode  (wqe_index: first BB, 16 bits)
//   qpn_ds           = qpn << 8 | ds                          (ds: WQE size in 16-B units)
struct CtrlSeg {
    uint32_t opmod_idx_opcode;
    uint32_t qpn_ds;
    uint8_t signature;
    uint8_t dci_stream_channel_id[2];
    uint8_t fm_ce_se;
    uint32_t imm;  // immediate data (write/send with imm), invalidation key, UMR mkey
};

// Remote address segment: RDMA write/read and atomics.
struct RaddrSeg {
    uint64_t raddr;
    uint32_t rkey;
    uint32_t reserved;
};

// Pointer (gather/scatter) data segment.
struct DataSeg {
    uint32_t byte_count;
    uint32_t lkey;
    uint64_t addr;
};

// Atomic segment. Fetch-add: swap_add = addend, compare = 0. Compare-swap: both used.
struct AtomicSeg {
    uint64_t swap_add;
    uint64_t compare;
};

// Inline data segment header; the payload follows it directly, padded to 16 bytes.
struct InlineSeg {
    uint32_t byte_count;  // length | kInlineSeg
};

// 64-byte CQE as the NIC writes it (with 128-byte CQEs this is the upper half of each entry).
// Only the fields the RC send/receive paths use are named; the first 32 bytes carry
// Ethernet/UD/tag-matching details that are not used here.
struct Cqe64 {
    uint8_t rsvd0[32];
    uint32_t srqn_uidx;
    uint32_t imm_inval_pkey;  // RESP_*_IMM: the immediate, as it came off the wire
    uint8_t app;
    uint8_t app_op;
    uint16_t app_info;
    uint32_t byte_cnt;        // REQ: bytes read (RDMA read) / 8 (atomics); RESP: bytes received
    uint64_t timestamp;
    uint32_t sop_drop_qpn;    // REQ: WQE opcode << 24 | qpn
    uint16_t wqe_counter;     // REQ: wqe_index of the completed WQE; RESP: receive WQE index
    uint8_t signature;
    uint8_t op_own;           // CQE opcode << 4 | format << 2 | solicited << 1 | owner
};

// The same 64 bytes when op_own >> 4 is kCqeReqErr or kCqeRespErr.
struct ErrCqe {
    uint8_t rsvd0[32];
    uint32_t srqn;
    uint8_t rsvd1[18];
    uint8_t vendor_err_synd;
    uint8_t syndrome;
    uint32_t s_wqe_opcode_qpn;  // opcode of the failed WQE << 24 | qpn
    uint16_t wqe_counter;       // wqe_index of the failed WQE
    uint8_t signature;
    uint8_t op_own;
};

static_assert(sizeof(CtrlSeg) == 16, "ctrl segment is one 16-byte unit");
static_assert(offsetof(CtrlSeg, qpn_ds) == 4, "mlx5 ctrl layout");
static_assert(offsetof(CtrlSeg, signature) == 8, "mlx5 ctrl layout");
static_assert(offsetof(CtrlSeg, fm_ce_se) == 11, "mlx5 ctrl layout");
static_assert(offsetof(CtrlSeg, imm) == 12, "mlx5 ctrl layout");
static_assert(sizeof(RaddrSeg) == 16 && offsetof(RaddrSeg, rkey) == 8, "mlx5 raddr layout");
static_assert(sizeof(DataSeg) == 16 && offsetof(DataSeg, addr) == 8, "mlx5 data layout");
static_assert(sizeof(AtomicSeg) == 16 && offsetof(AtomicSeg, compare) == 8, "mlx5 atomic layout");
static_assert(sizeof(InlineSeg) == 4, "mlx5 inline header");
static_assert(sizeof(Cqe64) == 64, "mlx5 CQE is 64 bytes");
static_assert(offsetof(Cqe64, imm_inval_pkey) == 36, "mlx5 CQE layout");
static_assert(offsetof(Cqe64, byte_cnt) == 44, "mlx5 CQE layout");
static_assert(offsetof(Cqe64, sop_drop_qpn) == 56, "mlx5 CQE layout");
static_assert(offsetof(Cqe64, wqe_counter) == 60, "mlx5 CQE layout");
static_assert(offsetof(Cqe64, op_own) == 63, "mlx5 CQE layout");
static_assert(sizeof(ErrCqe) == 64, "mlx5 error CQE is 64 bytes");
static_assert(offsetof(ErrCqe, vendor_err_synd) == 54, "mlx5 error CQE layout");
static_assert(offsetof(ErrCqe, syndrome) == 55, "mlx5 error CQE layout");
static_assert(offsetof(ErrCqe, s_wqe_opcode_qpn) == 56, "mlx5 error CQE layout");
static_assert(offsetof(ErrCqe, wqe_counter) == 60, "mlx5 error CQE layout");

// ---- byte order ----------------------------------------------------------------------------------
// Host and GPU are little-endian; the NIC's formats are big-endian. One swap converts either way.
KISHMEM_FORCEINLINE uint16_t be16(uint16_t x) {
    return static_cast<uint16_t>((x >> 8) | (x << 8));
}

KISHMEM_FORCEINLINE uint32_t be32(uint32_t x) {
#if defined(__CUDA_ARCH__)
    return __byte_perm(x, 0u, 0x0123);
#else
    return __builtin_bswap32(x);
#endif
}

KISHMEM_FORCEINLINE uint64_t be64(uint64_t x) {
    return (static_cast<uint64_t>(be32(static_cast<uint32_t>(x))) << 32) |
           be32(static_cast<uint32_t>(x >> 32));
}

// Names for messages (host and device): the send opcodes the NIC executes and the error
// syndromes, in the words of the PRM; anything else is "unknown".
KISHMEM_HD const char* wqe_opcode_name(uint8_t op) {
    switch (op) {
    case kOpNop: return "NOP";
    case kOpRdmaWrite: return "RDMA write";
    case kOpRdmaWriteImm: return "RDMA write with immediate";
    case kOpSend: return "send";
    case kOpSendImm: return "send with immediate";
    case kOpRdmaRead: return "RDMA read";
    case kOpAtomicCs: return "atomic compare-swap";
    case kOpAtomicFa: return "atomic fetch-add";
    default: return "unknown operation";
    }
}

KISHMEM_HD const char* syndrome_name(uint8_t s) {
    switch (s) {
    case kSyndLocalLengthErr: return "local length error";
    case kSyndLocalQpOpErr: return "local QP operation error (malformed WQE)";
    case kSyndLocalProtErr: return "local protection error";
    case kSyndWrFlushErr: return "work request flushed";
    case kSyndMwBindErr: return "memory window bind error";
    case kSyndBadRespErr: return "bad response";
    case kSyndLocalAccessErr: return "local access error";
    case kSyndRemoteInvalReqErr: return "remote invalid request";
    case kSyndRemoteAccessErr: return "remote access error";
    case kSyndRemoteOpErr: return "remote operation error";
    case kSyndTransportRetryExcErr: return "transport retry counter exceeded";
    case kSyndRnrRetryExcErr: return "RNR retry counter exceeded";
    case kSyndRemoteAbortedErr: return "remote aborted";
    default: return "unknown syndrome";
    }
}

}  // namespace mlx5
}  // namespace kishmem
