// Argument checks of the collective routines, beyond check.h's: counts (a negative count that
// became a huge size_t, a size that overflows or exceeds the symmetric heap), dest and source
// overlapping, and the pWrk of the deprecated active-set reductions.  What the spec says of
// overlap, routine by routine (openshmem-org/specification, content/shmem_*.tex):
//   reductions, to_all, scans: source and dest "must either be the same symmetric address, or
//     two different symmetric addresses corresponding to buffers that do not overlap": any
//     other overlap is an error (check_in_place);
//   broadcast, collect, fcollect, alltoall(s): nothing is said, so the call is allowed; where
//     the result then depends on timing (other PEs' blocks land in this PE's source before it
//     was sent) or on the order of a copy, a warning, once per routine (warn_overlap).
#pragma once
#include <cstddef>

#include "kishmem/runtime.h"

namespace kishmem::api {

// Bytes of `blocks` blocks of nelems elements of elem bytes (`what` names the count: "nelems",
// "nreduce").  A count that is negative as a signed number, a size that overflows, or a block
// larger than the symmetric heap (and the static data) ends the job naming the count.
std::size_t coll_bytes(const char* call, const char* what, std::size_t nelems, std::size_t elem,
                       std::size_t blocks = 1);

// Bytes spanned by `count` elements of elem bytes at `stride` elements apart (alltoalls);
// an overflow ends the job.
std::size_t span_bytes(const char* call, std::size_t count, std::ptrdiff_t stride, std::size_t elem);

using rt::overlap;  // whether two byte ranges share a byte (kishmem/runtime.h)

// Reductions and scans: dest and source are the same array or disjoint (KISHMEM_CHECK).
void check_in_place(const char* call, const void* dest, const void* source, std::size_t bytes);

// The routines whose spec is silent on overlap: a warning once per routine when dest and
// source overlap (KISHMEM_CHECK); `effect` says what this implementation then does.
void warn_overlap(const char* call, const void* dest, std::size_t dbytes, const void* source, std::size_t sbytes,
                  const char* effect);

// pWrk of the active-set reductions: symmetric, with room in its allocation for
// max(nreduce / 2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE) elements of elem bytes (KISHMEM_CHECK).
void check_pwrk(const char* call, const void* pwrk, int nreduce, std::size_t elem);

}  // namespace kishmem::api
