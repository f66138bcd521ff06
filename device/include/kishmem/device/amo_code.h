// What each atomic operation (kishmem/vocab.h's AmoOp, the one numbering of host, device and
// proxy) makes of the old value, and any AMO as a compare-swap loop: both remote backends use
// these (ibgda/backend.h where the NIC has no native atomic, the CPU proxy on the host).
#pragma once
#include <stdint.h>

#include "kishmem/device/hd.h"
#include "kishmem/vocab.h"

namespace kishmem::device {

// The new value of a word of `mask` bits that held `old`, for AMO `op` with operand v and
// comparand c.
KISHMEM_HD uint64_t amo_apply(AmoOp op, uint64_t old, uint64_t v, uint64_t c, uint64_t mask) {
    uint64_t r = old;
    switch (op) {
        case AmoOp::fetch: break;
        case AmoOp::set: case AmoOp::swap: r = v; break;
        case AmoOp::cswap: r = (old & mask) == c ? v : old; break;
        case AmoOp::add: case AmoOp::fetch_add: r = old + v; break;
        case AmoOp::and_: case AmoOp::fetch_and: r = old & v; break;
        case AmoOp::or_: case AmoOp::fetch_or: r = old | v; break;
        case AmoOp::xor_: case AmoOp::fetch_xor: r = old ^ v; break;
    }
    return r & mask;
}

// An AMO on the width-byte (4 or 8) value at byte `shift / 8` of a 64-bit word, done as a
// compare-swap loop over that word: word_cas(expected, desired) returns the word's old value
// (both backends have a 64-bit compare-swap; every other AMO and every 4-byte one is built on
// it). first: the word as last seen. Returns the value's old bit pattern.
template <class Cas>
KISHMEM_HD uint64_t amo_by_cas(AmoOp op, unsigned width, unsigned shift, uint64_t first, uint64_t v, uint64_t c,
                                      Cas word_cas) {
    const uint64_t mask = width == 8 ? ~uint64_t{0} : 0xffffffffull;
    uint64_t old = first;
    if (op == AmoOp::fetch) return (old >> shift) & mask;
    for (;;) {
        const uint64_t part = (old >> shift) & mask;
        const uint64_t next = amo_apply(op, part, v & mask, c & mask, mask);
        if (next == part) return part;  // nothing to write (a failed cswap, or an idempotent op)
        const uint64_t want = (old & ~(mask << shift)) | (next << shift);
        const uint64_t seen = word_cas(old, want);
        if (seen == old) return part;
        old = seen;
    }
}

#if defined(__CUDACC__)
// AMO `op` on the 4- or 8-byte word at t, by this GPU thread (kernels' load/store path and the
// host's atomics on a GPU heap): the old value (set returns it too, callers ignore it).
template <class W>
__device__ __forceinline__ W amo_word(W* t, AmoOp op, W v, W c) {
    switch (op) {
        case AmoOp::fetch: return atomicAdd(t, W(0));
        case AmoOp::set: case AmoOp::swap: return atomicExch(t, v);
        case AmoOp::cswap: return atomicCAS(t, c, v);
        case AmoOp::add: case AmoOp::fetch_add: return atomicAdd(t, v);
        case AmoOp::and_: case AmoOp::fetch_and: return atomicAnd(t, v);
        case AmoOp::or_: case AmoOp::fetch_or: return atomicOr(t, v);
        case AmoOp::xor_: case AmoOp::fetch_xor: return atomicXor(t, v);
    }
    return 0;
}
#endif

}  // namespace kishmem::device
