// Global and static variables are symmetric data objects (OpenSHMEM memory model): every PE runs
// the same executable, so a variable sits at the same offset in each PE's writable segment.
#pragma once
#include <cstddef>

namespace kishmem {

// The main executable's writable data (.data and .bss, not the RELRO part that becomes
// read-only after relocation), page-aligned; false when none is found.
bool find_static_segment(char** base, std::size_t* bytes);

}  // namespace kishmem
