// The symmetric heap's allocator: first fit over [begin, end) with coalescing free blocks.
// Deterministic: the same sequence of calls gives the same offsets on every PE, which is what
// makes an allocation symmetric.  Offsets, not pointers: the heap sits at different addresses.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>

#include "freed_map.h"

namespace kishmem {

class HeapAllocator {
public:
    HeapAllocator(std::size_t begin, std::size_t end);

    // `align` is a power of two.  nullopt when no free block fits.
    std::optional<std::size_t> alloc(std::size_t bytes, std::size_t align);
    // Returns false for an offset that is not the start of a live block.
    bool free(std::size_t offset);
    // Grows or shrinks in place where the following space allows, else allocates anew; the
    // caller moves the data when the offset changes.  nullopt leaves the old block alone.
    std::optional<std::size_t> realloc(std::size_t offset, std::size_t bytes);
    // Size of the live block at `offset`, 0 when there is none.
    std::size_t size_of(std::size_t offset) const;
    // Bytes from `offset` to the end of the live block that holds it, 0 when none does.
    std::size_t room_at(std::size_t offset) const;
    // Freed and not allocated again: the granule of `offset` (FreedMap), and the map itself for
    // the argument checks (nullptr when it could not be allocated).
    bool was_freed(std::size_t offset) const { return freed_.bits() && freed_.freed(offset); }
    const uint8_t* freed_bits() const { return freed_.bits(); }
    const uint8_t* bound_bits() const { return freed_.bounds(); }

    std::size_t bytes_free() const;
    std::size_t largest_free() const;
    std::size_t live_blocks() const { return used_.size(); }
    std::size_t capacity() const { return end_ - begin_; }  // the program's bytes (SHMEM_SYMMETRIC_SIZE)
    std::size_t begin() const { return begin_; }            // below it: the runtime's own part of the heap

private:
    void insert_free(std::size_t off, std::size_t len);  // coalesces with neighbours
    // [off, off + len) became free / live: its granules in freed_ (a granule that still holds a
    // live byte stays unmarked).
    void note(std::size_t off, std::size_t len, bool freed);
    bool granule_live(std::size_t g) const;
    // Sets granule g's bound bit from the live blocks: one starts there, or one ends just before.
    void refresh_bound(std::size_t g);
    // The bounds of the block [off, off + len) (its first granule, the one after its end).
    void refresh_bounds(std::size_t off, std::size_t len) {
        refresh_bound(off >> FreedMap::kGranuleShift);
        refresh_bound((off + len + FreedMap::kGranuleBytes - 1) >> FreedMap::kGranuleShift);
    }
    std::size_t begin_, end_;
    std::map<std::size_t, std::size_t> free_;  // offset -> length
    std::map<std::size_t, std::size_t> used_;  // offset -> length
    FreedMap freed_;
};

}  // namespace kishmem
