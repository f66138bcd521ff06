// The few mlx5 PRM command layouts the DEVX setup writes, as (bit offset, bit width) pairs.
//
// rdma-core installs the DEVX_SET/DEVX_GET macros but not the mlx5_ifc structs they need, so
// the fields are written here by hand. Conventions are the PRM's: a command is an array of
// big-endian 32-bit words; bit offset 0 is the most significant bit of word 0; no field
// below crosses a word except the 64-bit ones, which are word-aligned. Names in comments are
// the PRM / mlx5_ifc field names. Offsets of qpc fields are relative to the QP context
// (which starts at bit 0xc0 in CREATE_QP and in the three modify commands); offsets of cqc
// fields relative to the CQ context (bit 0x80 in CREATE_CQ).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace kishmem::ibgda::prm {

struct Field {
    uint32_t bit;
    uint32_t bits;
};

inline void set(void* cmd, Field f, uint32_t v) {
    uint8_t* p = static_cast<uint8_t*>(cmd) + (f.bit / 32) * 4;
    uint32_t w;
    std::memcpy(&w, p, 4);
    w = __builtin_bswap32(w);
    const uint32_t shift = 32 - f.bits - (f.bit % 32);
    const uint32_t mask = (f.bits == 32 ? 0xffffffffu : ((1u << f.bits) - 1)) << shift;
    w = (w & ~mask) | ((v << shift) & mask);
    w = __builtin_bswap32(w);
    std::memcpy(p, &w, 4);
}

inline uint32_t get(const void* cmd, Field f) {
    const uint8_t* p = static_cast<const uint8_t*>(cmd) + (f.bit / 32) * 4;
    uint32_t w;
    std::memcpy(&w, p, 4);
    w = __builtin_bswap32(w);
    const uint32_t shift = 32 - f.bits - (f.bit % 32);
    return (w >> shift) & (f.bits == 32 ? 0xffffffffu : ((1u << f.bits) - 1));
}

inline void set64(void* cmd, uint32_t bit, uint64_t v) {
    set(cmd, Field{bit, 32}, static_cast<uint32_t>(v >> 32));
    set(cmd, Field{bit + 32, 32}, static_cast<uint32_t>(v));
}

inline void set_bytes(void* cmd, uint32_t bit, const void* src, std::size_t n) {
    std::memcpy(static_cast<uint8_t*>(cmd) + bit / 8, src, n);
}

// ---- command opcodes and sizes -------------------------------------------------------------------
constexpr uint32_t kCreateCq = 0x400;
constexpr uint32_t kCreateQp = 0x500;
constexpr uint32_t kRst2InitQp = 0x502;
constexpr uint32_t kInit2RtrQp = 0x503;
constexpr uint32_t kRtr2RtsQp = 0x504;
constexpr uint32_t k2ErrQp = 0x507;
constexpr std::size_t kCreateCqInBytes = 0x880 / 8;   // create_cq_in without the pas list
constexpr std::size_t kCreateQpInBytes = 0x880 / 8;   // create_qp_in without the pas list
constexpr std::size_t kModifyQpInBytes = 0x880 / 8;   // rst2init / init2rtr / rtr2rts_qp_in
constexpr std::size_t kQp2ErrInBytes = 0x80 / 8;
constexpr std::size_t kOutBytes = 0x80 / 8;           // every *_out used here

// ---- common header and outputs ---------------------------------------------------------------------
constexpr Field kOpcode{0x00, 16};    // *_in.opcode
constexpr Field kOpMod{0x30, 16};     // *_in.op_mod
constexpr Field kQpnIn{0x48, 24};     // modify_qp_in.qpn, qp_2err_in.qpn
constexpr Field kOutStatus{0x00, 8};  // *_out.status
constexpr Field kOutSyndrome{0x20, 32};
constexpr Field kOutObjId{0x48, 24};  // create_cq_out.cqn, create_qp_out.qpn

// ---- CREATE_CQ -----------------------------------------------------------------------------------
constexpr uint32_t kCqc = 0x80;                              // create_cq_in.cq_context
constexpr Field kCqcDbrUmemValid{kCqc + 0x06, 1};            // cqc.dbr_umem_valid
constexpr Field kCqcCqeSz{kCqc + 0x08, 3};                   // cqc.cqe_sz (0: 64 bytes)
constexpr Field kCqcOi{kCqc + 0x0e, 1};                      // cqc.oi (overrun ignore)
constexpr Field kCqcDbrUmemId{kCqc + 0x20, 32};              // cqc.dbr_umem_id
constexpr Field kCqcLogCqSize{kCqc + 0x63, 5};               // cqc.log_cq_size
constexpr Field kCqcUarPage{kCqc + 0x68, 24};                // cqc.uar_page
constexpr Field kCqcCEqn{kCqc + 0xb8, 8};                    // cqc.c_eqn
constexpr Field kCqcLogPageSize{kCqc + 0xc3, 5};             // cqc.log_page_size (log2(page) - 12)
constexpr uint32_t kCqcDbrAddr = kCqc + 0x1c0;               // cqc.dbr_addr (64 bits; umem offset)
constexpr uint32_t kCqUmemOffset = 0x280;                    // create_cq_in.cq_umem_offset (64 bits)
constexpr Field kCqUmemId{0x2c0, 32};                        // create_cq_in.cq_umem_id
constexpr Field kCqUmemValid{0x2e0, 1};                      // create_cq_in.cq_umem_valid

// ---- QP context (qpc) ---------------------------------------------------------------------------
constexpr uint32_t kQpc = 0xc0;                              // create_qp_in.qpc, modify_qp_in.qpc
constexpr Field kQpcSt{kQpc + 0x08, 8};                      // qpc.st (0: RC)
constexpr Field kQpcPmState{kQpc + 0x13, 2};                 // qpc.pm_state (3: migrated)
constexpr Field kQpcPd{kQpc + 0x28, 24};                     // qpc.pd
constexpr Field kQpcMtu{kQpc + 0x40, 3};                     // qpc.mtu (IB enum: 1 = 256 .. 5 = 4096)
constexpr Field kQpcLogMsgMax{kQpc + 0x43, 5};               // qpc.log_msg_max
constexpr Field kQpcLogRqSize{kQpc + 0x49, 4};               // qpc.log_rq_size
constexpr Field kQpcNoSq{kQpc + 0x50, 1};                    // qpc.no_sq
constexpr Field kQpcLogSqSize{kQpc + 0x51, 4};               // qpc.log_sq_size (in BBs)
constexpr Field kQpcTsFormat{kQpc + 0x58, 2};                // qpc.ts_format
constexpr Field kQpcUarPage{kQpc + 0x68, 24};                // qpc.uar_page
constexpr Field kQpcLogPageSize{kQpc + 0xa3, 5};             // qpc.log_page_size (log2(page) - 12)
constexpr Field kQpcRemoteQpn{kQpc + 0xa8, 24};              // qpc.remote_qpn
constexpr uint32_t kAds = kQpc + 0xc0;                       // qpc.primary_address_path
constexpr Field kAdsPkeyIndex{kAds + 0x10, 16};              // ads.pkey_index
constexpr Field kAdsGrh{kAds + 0x28, 1};                     // ads.grh
constexpr Field kAdsRlid{kAds + 0x30, 16};                   // ads.rlid
constexpr Field kAdsAckTimeout{kAds + 0x40, 5};              // ads.ack_timeout
constexpr Field kAdsSrcAddrIndex{kAds + 0x48, 8};            // ads.src_addr_index (GID index)
constexpr Field kAdsHopLimit{kAds + 0x58, 8};                // ads.hop_limit
constexpr Field kAdsTclass{kAds + 0x64, 8};                  // ads.tclass
constexpr uint32_t kAdsRgid = kAds + 0x80;                   // ads.rgid_rip (16 bytes)
constexpr Field kAdsUdpSport{kAds + 0x110, 16};              // ads.udp_sport (RoCE v2)
constexpr Field kAdsSl{kAds + 0x124, 4};                     // ads.sl
constexpr Field kAdsVhcaPortNum{kAds + 0x128, 8};            // ads.vhca_port_num
constexpr Field kAdsRmac47_32{kAds + 0x130, 16};             // ads.rmac_47_32
constexpr Field kAdsRmac31_0{kAds + 0x140, 32};              // ads.rmac_31_0
constexpr Field kQpcLogSraMax{kQpc + 0x388, 3};              // qpc.log_sra_max
constexpr Field kQpcRetryCount{kQpc + 0x38d, 3};             // qpc.retry_count
constexpr Field kQpcRnrRetry{kQpc + 0x390, 3};               // qpc.rnr_retry
constexpr Field kQpcNextSendPsn{kQpc + 0x3c8, 24};           // qpc.next_send_psn
constexpr Field kQpcCqnSnd{kQpc + 0x3e8, 24};                // qpc.cqn_snd
constexpr Field kQpcLogRraMax{kQpc + 0x488, 3};              // qpc.log_rra_max
constexpr Field kQpcAtomicMode{kQpc + 0x48c, 4};             // qpc.atomic_mode (3: up to 8 bytes)
constexpr Field kQpcRre{kQpc + 0x490, 1};                    // qpc.rre (remote read enable)
constexpr Field kQpcRwe{kQpc + 0x491, 1};                    // qpc.rwe
constexpr Field kQpcRae{kQpc + 0x492, 1};                    // qpc.rae
constexpr Field kQpcMinRnrNak{kQpc + 0x4a3, 5};              // qpc.min_rnr_nak
constexpr Field kQpcNextRcvPsn{kQpc + 0x4a8, 24};            // qpc.next_rcv_psn
constexpr Field kQpcCqnRcv{kQpc + 0x4e8, 24};                // qpc.cqn_rcv
constexpr uint32_t kQpcDbrAddr = kQpc + 0x500;               // qpc.dbr_addr (64 bits; umem offset)
constexpr Field kQpcRqType{kQpc + 0x565, 3};                 // qpc.rq_type (3: zero-size RQ)
constexpr Field kQpcDbrUmemValid{kQpc + 0x683, 1};           // qpc.dbr_umem_valid
constexpr Field kQpcDbrUmemId{kQpc + 0x720, 32};             // qpc.dbr_umem_id
constexpr uint32_t kQpWqUmemOffset = 0x800;                  // create_qp_in.wq_umem_offset (64 bits)
constexpr Field kQpWqUmemId{0x840, 32};                      // create_qp_in.wq_umem_id
constexpr Field kQpWqUmemValid{0x860, 1};                    // create_qp_in.wq_umem_valid

constexpr uint32_t kQpcStRc = 0x0;
constexpr uint32_t kQpcPmMigrated = 0x3;
constexpr uint32_t kQpcRqZeroSize = 0x3;
constexpr uint32_t kQpcAtomicUpTo8B = 0x3;

}  // namespace kishmem::ibgda::prm

namespace kishmem::ibgda {
// "CMD failed: <errno text> (command status 0x.., syndrome 0x..)" from a DEVX command's output.
std::string devx_cmd_error(const char* cmd, const void* out);
}  // namespace kishmem::ibgda
