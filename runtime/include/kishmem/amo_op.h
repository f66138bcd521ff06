// The atomic operations the runtime carries (host API, transports, the GPU heap's host atomics):
// a base-layer vocabulary, so the layers below the runtime core need not include runtime.h.
#pragma once
#include <cstdint>

namespace kishmem::rt {

enum class AmoOp : uint8_t { fetch, set, swap, cswap, add, fetch_add, and_, fetch_and, or_, fetch_or, xor_, fetch_xor };

}  // namespace kishmem::rt
