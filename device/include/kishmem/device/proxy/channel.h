// The CPU-proxy channel: how a kernel hands an operation to a proxy thread on the host, and how
// the proxy answers (runtime/src/transport/proxy executes the other side). Plain data and
// host+device encoders: kernels post with device/proxy/backend.h, host code (tests, the
// benchmark) with the same encoders.
//
// A channel is a ring of 64-byte descriptors in host memory the GPU can write (host-pinned,
// mapped), a result slot of 64 bytes per descriptor slot, and a completion word the proxy
// writes. Per channel:
//   posters   reserve slot i (a free-running 32-bit index; the reservation counter lives in
//             GPU memory), wait until i - done < ring size, write words 1..7 of the descriptor,
//             fence at system scope, then word 0, which carries seq = i + 1. There is no
//             doorbell and no in-order hand-off between posters: each descriptor says by itself
//             that it is complete, so posters finish in any order.
//   the proxy reads slot (tail % size) until its seq is tail + 1, executes it, and moves on;
//             a channel's descriptors run in reservation order. After executing a batch it
//             makes the data visible at the targets (HeapAccess::flush) and only then stores
//             done = tail (release): done = i + 1 means descriptor i and every one before it
//             are complete, their data delivered and their results written.
//   results   a descriptor's result slot is overwritten by the descriptor `size` later in the
//             channel; with `consumed` tracked, a poster of slot i also waits until the poster of
//             slot i - size marked it consumed (at once for descriptors without a result, after
//             reading it for gets into the slot and AMOs), so a result cannot be lost to a thread
//             that stalls between its completion and its read. consumed[k] starts at k + 1 - size.
//   errors    a descriptor the proxy rejects (unknown op, PE out of range, range outside the
//             heap, a failed transfer) still completes; the first error is kept in `error`
//             (0x100 | code | pe << 16, code from ProxyError; the descriptor's index in
//             error_index, its op in error_op and its remote offset in error_offset, both
//             written before `error`).
//
// Descriptor words (little-endian u64, as both sides are):
//   w0  seq (bits 0..31) | op (32..39) | aux (40..47) | pe (48..63)
//   w1  remote offset in the target PE's symmetric heap
//   put         w2 source address (this PE's GPU or mapped memory), w3 bytes
//   put_inline  aux = bytes (1..kProxyInlineBytes), w2..w7 the bytes
//   get         w2 destination address, or 0: into this slot's result, w3 bytes (<= 64 then)
//   amo         aux = AmoOp (low 4 bits, kishmem/vocab.h's numbering) | 0x10 for 8
//               bytes (4 otherwise); w4 operand, w5 compare; the old value in the result slot
//   signal      aux = 0 set, 1 add; w4 value (8-byte word at w1)
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kishmem/device/hd.h"

namespace kishmem::proxy {

constexpr uint32_t kDescBytes = 64;
constexpr uint32_t kResultBytes = 64;
constexpr uint32_t kProxyInlineBytes = 48;  // words 2..7
constexpr uint32_t kMaxPe = 0xffff;

enum ProxyOp : uint8_t { kOpPut = 1, kOpPutInline = 2, kOpGet = 3, kOpAmo = 4, kOpSignal = 5 };
enum ProxyError : uint32_t { kErrOp = 1, kErrPe = 2, kErrRange = 3, kErrTransfer = 4, kErrAmo = 5 };
constexpr uint8_t kAmoWide = 0x10;

// One channel as both sides see it (addresses valid on the poster's side: GPU-mapped host
// memory for kernels, the same memory for the proxy).
struct Channel {
    uint8_t* ring;                  // kDescBytes << log_slots
    uint8_t* result;                // kResultBytes << log_slots
    volatile uint32_t* done;        // written by the proxy
    volatile uint32_t* error;       // 0, or 0x100 | ProxyError | pe << 16 (the first one)
    volatile uint32_t* error_index; // the failed descriptor's index
    uint32_t* resv;                 // posters' reservation counter (GPU memory for kernels)
    uint32_t* seen;                 // the largest `done` a poster has read (GPU memory for
                                    // kernels: most checks need no read across PCIe)
    uint32_t* consumed;             // per slot: index + 1 of the last descriptor whose poster is
                                    // done with the slot's result (GPU memory; nullptr: not
                                    // tracked, for posters that read each result before posting on)
    uint32_t log_slots;
    uint32_t pad;
};

// Next to error_index in the channel's control words (runtime/src/transport/proxy/proxy.h):
// the first failed descriptor's op (ProxyOp) and remote offset (its w1).
KISHMEM_HD const volatile uint32_t* error_op(const Channel& c) { return c.error_index + 1; }
KISHMEM_HD const volatile uint64_t* error_offset(const Channel& c) {
    return reinterpret_cast<const volatile uint64_t*>(c.error + 5);  // 8-byte aligned: 24 bytes into the block
}
KISHMEM_HD const char* desc_op_name(uint32_t op) {
    switch (op) {
    case kOpPut: return "put";
    case kOpPutInline: return "inline put";
    case kOpGet: return "get";
    case kOpAmo: return "atomic";
    case kOpSignal: return "signal";
    default: return "unknown operation";
    }
}

// What kernels find in the device state: n channels (a CTA posts to channel block % n).
struct ChannelTable {
    int n;
    int pad;
    const Channel* channels;
};

KISHMEM_HD uint64_t desc_word0(uint32_t seq, uint8_t op, uint8_t aux, uint32_t pe) {
    return uint64_t{seq} | uint64_t{op} << 32 | uint64_t{aux} << 40 | uint64_t{pe & 0xffffu} << 48;
}

// The fields of a decoded descriptor.
struct Desc {
    uint32_t seq;
    uint8_t op;
    uint8_t aux;
    uint32_t pe;
    uint64_t w[8];
};

KISHMEM_HD Desc decode_desc(const uint64_t* w) {
    Desc d;
    for (int i = 0; i < 8; ++i) d.w[i] = w[i];
    d.seq = static_cast<uint32_t>(w[0]);
    d.op = static_cast<uint8_t>(w[0] >> 32);
    d.aux = static_cast<uint8_t>(w[0] >> 40);
    d.pe = static_cast<uint32_t>(w[0] >> 48);
    return d;
}

KISHMEM_HD uint8_t* desc_slot(const Channel& c, uint32_t idx) {
    return c.ring + static_cast<size_t>(idx & ((1u << c.log_slots) - 1)) * kDescBytes;
}

KISHMEM_HD uint8_t* result_slot(const Channel& c, uint32_t idx) {
    return c.result + static_cast<size_t>(idx & ((1u << c.log_slots) - 1)) * kResultBytes;
}

// Words 1..7 of each kind of descriptor (w0 is written last, by the poster).
struct DescBody {
    uint64_t w[8];
};

KISHMEM_HD DescBody body_put(uint64_t roff, uint64_t src, uint64_t n) { return DescBody{{0, roff, src, n, 0, 0, 0, 0}}; }
KISHMEM_HD DescBody body_get(uint64_t roff, uint64_t dst, uint64_t n) { return DescBody{{0, roff, dst, n, 0, 0, 0, 0}}; }
KISHMEM_HD DescBody body_amo(uint64_t roff, uint64_t operand, uint64_t compare) {
    return DescBody{{0, roff, 0, 0, operand, compare, 0, 0}};
}
KISHMEM_HD DescBody body_signal(uint64_t roff, uint64_t value) { return DescBody{{0, roff, 0, 0, value, 0, 0, 0}}; }
KISHMEM_HD DescBody body_inline(uint64_t roff, const void* src, uint32_t n) {
    DescBody b{{0, roff, 0, 0, 0, 0, 0, 0}};
    memcpy(&b.w[2], src, n);
    return b;
}

}  // namespace kishmem::proxy
