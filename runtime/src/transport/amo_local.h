// An atomic operation on memory this process can address (own heap, a mapped peer heap).
// Returns the value before the operation (for every op; callers ignore it where unneeded).
#pragma once
#include <cstdint>

#include "kishmem/vocab.h"

namespace kishmem {

template <class W>
inline W amo_on(W* p, AmoOp op, W v, W cmp) {
    constexpr int mo = __ATOMIC_SEQ_CST;
    switch (op) {
        case AmoOp::fetch: return __atomic_load_n(p, mo);
        case AmoOp::set: __atomic_store_n(p, v, mo); return 0;
        case AmoOp::swap: return __atomic_exchange_n(p, v, mo);
        case AmoOp::cswap: __atomic_compare_exchange_n(p, &cmp, v, false, mo, mo); return cmp;
        case AmoOp::add: case AmoOp::fetch_add: return __atomic_fetch_add(p, v, mo);
        case AmoOp::and_: case AmoOp::fetch_and: return __atomic_fetch_and(p, v, mo);
        case AmoOp::or_: case AmoOp::fetch_or: return __atomic_fetch_or(p, v, mo);
        case AmoOp::xor_: case AmoOp::fetch_xor: return __atomic_fetch_xor(p, v, mo);
    }
    return 0;
}

inline uint64_t amo_local(void* addr, AmoOp op, unsigned width, uint64_t operand, uint64_t compare) {
    if (width == 4)
        return amo_on(static_cast<uint32_t*>(addr), op, static_cast<uint32_t>(operand), static_cast<uint32_t>(compare));
    return amo_on(static_cast<uint64_t*>(addr), op, operand, compare);
}

}  // namespace kishmem
