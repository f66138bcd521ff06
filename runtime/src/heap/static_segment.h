// Global and static variables are symmetric data objects (OpenSHMEM memory model): every PE runs
// the same executable, so a variable sits at the same offset in each PE's writable segment.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kishmem {

// The main executable's writable data (.data and .bss, not the RELRO part that becomes
// read-only after relocation), page-aligned; false when none is found.
bool find_static_segment(char** base, std::size_t* bytes);

// The variables in that segment, from the executable's symbol table (a stripped one: its
// exported variables only), so that a transfer starting in one and running past its end is
// refused as one past a heap block's end is.  Offsets from the segment's base; variables that
// overlap (aliases) are one.
struct StaticObject {
    std::size_t start, end;
    std::string name;
};
class StaticObjects {
public:
    void load(const char* base, std::size_t bytes);
    void clear();
    // One bit per 64-byte granule of the segment: set where some variable ends (the byte after
    // its last) inside the granule.  nullptr when no variable is known.
    const uint8_t* end_bits() const { return objects_.empty() ? nullptr : bits_.data(); }
    // The variable that holds byte `off`, or nullptr.
    const StaticObject* holding(std::size_t off) const;

private:
    std::vector<StaticObject> objects_;  // sorted by start, disjoint
    std::vector<uint8_t> bits_;
};
StaticObjects& static_objects();

}  // namespace kishmem
