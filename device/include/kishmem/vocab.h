// The words every layer shares, one enum per idea: atomic operations (the host API, the
// runtime's transports and their UCX mapping, the GPU heap's host atomics, the device templates,
// both device backends and the CPU proxy's descriptors), comparisons of point-to-point waits
// (host, device and signal waits) and the number of team slots (the host segment's team
// regions, the device state's team table).  It sits in the device layer, the lowest, so that
// host and device code include the same definition; plain C++17, no CUDA header.
#pragma once
#include <stdint.h>

#include "kishmem/device/hd.h"

namespace kishmem {

// Atomic operations. The fetching forms return the old value; add/and_/or_/xor_ and set return
// nothing to the caller (transports may skip fetching). The numbers travel in the CPU proxy's
// descriptors (4 bits of aux: kishmem/device/proxy/channel.h), so every value stays below 16.
enum class AmoOp : uint8_t {
    fetch, set, swap, cswap, add, fetch_add, and_, fetch_and, or_, fetch_or, xor_, fetch_xor
};
constexpr unsigned kAmoOpCount = 12;
static_assert(static_cast<unsigned>(AmoOp::fetch_xor) + 1 == kAmoOpCount, "kAmoOpCount counts AmoOp");
static_assert(kAmoOpCount <= 16, "AmoOp travels in 4 bits of a proxy descriptor");

// Comparisons of the wait and test routines. The values are the specification's SHMEM_CMP_*
// (shmem.h defines those for C; shmem_api static_asserts that they agree).
enum class Cmp : int { eq = 0, ne = 1, gt = 2, ge = 3, lt = 4, le = 5 };

KISHMEM_HD constexpr bool cmp_valid(int op) { return op >= static_cast<int>(Cmp::eq) && op <= static_cast<int>(Cmp::le); }

// v `op` ref; false for a value outside Cmp.
template <class T>
KISHMEM_HD bool compare(T v, Cmp op, T ref) {
    switch (op) {
        case Cmp::eq: return v == ref;
        case Cmp::ne: return v != ref;
        case Cmp::gt: return v > ref;
        case Cmp::ge: return v >= ref;
        case Cmp::lt: return v < ref;
        case Cmp::le: return v <= ref;
    }
    return false;
}

// The operator as C writes it, for messages ("?" outside Cmp).
KISHMEM_HD const char* cmp_symbol(Cmp op) {
    switch (op) {
        case Cmp::eq: return "==";
        case Cmp::ne: return "!=";
        case Cmp::gt: return ">";
        case Cmp::ge: return ">=";
        case Cmp::lt: return "<";
        case Cmp::le: return "<=";
    }
    return "?";
}

// Team slots, as the runtime numbers them (0 WORLD, 1 SHARED, the last the deprecated active
// sets' scratch): the host segment has one team region per slot (runtime/src/state.h), the
// device state one Team per slot (kishmem/device/state.h).
constexpr int kMaxTeams = 64;

}  // namespace kishmem
