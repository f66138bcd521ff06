#include "freed_map.h"

#include <cstdlib>

namespace kishmem {

FreedMap::FreedMap(std::size_t heap_bytes) {
    bytes_ = ((heap_bytes + kGranuleBytes - 1) >> kGranuleShift) / 8 + 1;
    bytes_ = (bytes_ + 7) & ~std::size_t{7};  // whole 64-bit words: the bounds are read a word at a time
    bits_ = static_cast<uint8_t*>(std::calloc(bytes_, 1));  // large: fresh zero pages, untouched
    bounds_ = static_cast<uint8_t*>(std::calloc(bytes_, 1));
    if (!bounds_) {
        std::free(bits_);
        bits_ = nullptr;
    }
}

FreedMap::~FreedMap() {
    std::free(bits_);
    std::free(bounds_);
}

void FreedMap::set_bound(std::size_t g, bool on) {
    if ((g >> 3) >= bytes_) return;
    const uint8_t bit = static_cast<uint8_t>(1u << (g & 7));
    if (on) __atomic_fetch_or(&bounds_[g >> 3], bit, __ATOMIC_RELAXED);
    else __atomic_fetch_and(&bounds_[g >> 3], static_cast<uint8_t>(~bit), __ATOMIC_RELAXED);
}

// Relaxed atomics: other threads' RMA checks read the bytes while an allocation changes them.
void FreedMap::mark(std::size_t first, std::size_t last, bool freed) {
    for (std::size_t g = first; g <= last; ++g) {
        const uint8_t bit = static_cast<uint8_t>(1u << (g & 7));
        if (freed) __atomic_fetch_or(&bits_[g >> 3], bit, __ATOMIC_RELAXED);
        else __atomic_fetch_and(&bits_[g >> 3], static_cast<uint8_t>(~bit), __ATOMIC_RELAXED);
    }
}

bool FreedMap::freed(std::size_t offset) const {
    const std::size_t g = offset >> kGranuleShift;
    return (__atomic_load_n(&bits_[g >> 3], __ATOMIC_RELAXED) >> (g & 7)) & 1;
}

}  // namespace kishmem
