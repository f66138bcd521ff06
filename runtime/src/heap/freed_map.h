// Which parts of the symmetric heap were freed and not allocated again: one bit per granule of
// kGranuleBytes (the allocator's smallest alignment), set when the last live byte of the granule
// is freed and cleared when an allocation covers any byte of it.  So a set bit means "nothing
// live here, something was freed here".  The argument checks read the bit of an RMA's first
// symmetric byte (rt::is_live, runtime.h): one load and no branch of their own.
// Bytes: heap_size / kGranuleBytes / 8 (+1), from calloc (1 MiB per 512 MiB of heap; a large
// calloc is fresh zero pages, backed only where the program frees).  bits() is nullptr when
// that memory could not be had.
// Beside it, the block bounds: one bit per granule, set where a live block starts and at the first
// granule wholly after a live block's end (blocks start on granules, so no block shares one with
// the previous block's data).  A range of one block has no bound after its first granule: the
// checks read the bits only of a range that spans granules (rt::is_live).
#pragma once
#include <cstddef>
#include <cstdint>

namespace kishmem {

class FreedMap {
public:
    static constexpr unsigned kGranuleShift = 6;  // 64 bytes: kAllocAlign (state.h)
    static constexpr std::size_t kGranuleBytes = std::size_t{1} << kGranuleShift;

    explicit FreedMap(std::size_t heap_bytes);
    ~FreedMap();
    FreedMap(const FreedMap&) = delete;
    FreedMap& operator=(const FreedMap&) = delete;

    // Granules [first, last] become freed / live.
    void mark(std::size_t first, std::size_t last, bool freed);
    bool freed(std::size_t offset) const;
    const uint8_t* bits() const { return bits_; }
    // Granule g's bound bit.
    void set_bound(std::size_t g, bool on);
    const uint8_t* bounds() const { return bounds_; }

private:
    uint8_t* bits_ = nullptr;
    uint8_t* bounds_ = nullptr;
    std::size_t bytes_ = 0;
};

}  // namespace kishmem
