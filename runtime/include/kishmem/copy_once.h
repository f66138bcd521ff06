// Copies into memory another process may be reading (a peer's mapped heap or variables): a
// word of 1, 2, 4 or 8 bytes with one store.  glibc's memcpy writes 2 to 16 bytes as two
// overlapping stores (of 2, 4, 8 or 16 bytes: the same bytes twice); where the target had
// consumed a flag and cleared it between the two (a preempted sender), the second store brought
// the old flag back: an active-set barrier over a pSync in a global variable then took a stale
// signal for a new one.
#pragma once
#include <cstddef>

namespace kishmem {

__attribute__((always_inline)) inline void copy_once(void* dst, const void* src, std::size_t n) {
    switch (n) {
        case 8: __builtin_memcpy(dst, src, 8); return;
        case 4: __builtin_memcpy(dst, src, 4); return;
        case 2: __builtin_memcpy(dst, src, 2); return;
        default: __builtin_memcpy(dst, src, n); return;
    }
}

}  // namespace kishmem
