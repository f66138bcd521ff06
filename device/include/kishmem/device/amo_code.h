// The atomic operations of the device API as numbers both remote backends share (ibgda/
// backend.h posts them as NIC atomics or compare-swap loops, the CPU proxy carries them in a
// descriptor and runs them on the host), and what each makes of the old value. rma.h's Amo
// enumerates the same list in the same order.
#pragma once
#include <stdint.h>

#include "kishmem/device/hd.h"

namespace kishmem::device {

enum AmoCode : int { kFetch = 0, kSet, kSwap, kCswap, kAdd, kFetchAdd, kAnd, kOr, kXor };

// The new value of a word of `mask` bits that held `old`, for AMO `op` with operand v and
// comparand c.
KISHMEM_HD uint64_t amo_apply(int op, uint64_t old, uint64_t v, uint64_t c, uint64_t mask) {
    uint64_t r = old;
    switch (op) {
        case kSet: case kSwap: r = v; break;
        case kCswap: r = (old & mask) == c ? v : old; break;
        case kAdd: case kFetchAdd: r = old + v; break;
        case kAnd: r = old & v; break;
        case kOr: r = old | v; break;
        case kXor: r = old ^ v; break;
        default: break;
    }
    return r & mask;
}

// An AMO on the width-byte (4 or 8) value at byte `shift / 8` of a 64-bit word, done as a
// compare-swap loop over that word: word_cas(expected, desired) returns the word's old value
// (both backends have a 64-bit compare-swap; every other AMO and every 4-byte one is built on
// it). first: the word as last seen. Returns the value's old bit pattern.
template <class Cas>
KISHMEM_HD uint64_t amo_by_cas(int op, unsigned width, unsigned shift, uint64_t first, uint64_t v, uint64_t c,
                                      Cas word_cas) {
    const uint64_t mask = width == 8 ? ~uint64_t{0} : 0xffffffffull;
    uint64_t old = first;
    if (op == kFetch) return (old >> shift) & mask;
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

}  // namespace kishmem::device
