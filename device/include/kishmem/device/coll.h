// Team collectives in device code: alltoall, broadcast, fcollect (pushes) and reductions
// (pulls), for one thread, a warp or a block (Coop), over any mix of peers reached by
// load/store and remote ones (rma.h's put/get route each PE). shmem_device.h wraps them
// under the spec names (shmem_alltoallmem, shmem_int_sum_reduce, ...) and shmemx.h-style
// _warp/_block names.
//
// Every collective starts and ends with the team's device barrier (sync_team): at the start
// every member has entered, so its dest may be written (and, for reductions, its source is
// ready); at the end every member's pushes have landed (the barrier quiets first) and no
// member still reads this PE's source. The calling group (thread, warp or block) of every
// member must make the same call with the same arguments, as on the host.
//
// Data movement, per member j (team index) and this PE's index i:
//   alltoall   source + j * n  ->  dest + i * n on member j   (starting at j = i + 1: the
//              members are visited in a rotated order so they are not all written at once)
//   fcollect   source          ->  dest + i * n on every member
//   broadcast  root's source    ->  dest on every member (the root's own dest included)
//   reduce     dest[k] = op over members of source[k], each PE reading every member's source;
//              in place (dest == source) it reads a block of elements into registers, passes a
//              barrier, then writes them, so no member reads a value already overwritten.
#pragma once
#if defined(__CUDACC__)
#include <stddef.h>
#include <stdint.h>

#include "rma.h"

namespace kishmem::device {

static __device__ __noinline__ void trap_team(const State& s, const char* call, const void* team) {
    printf("kishmem: PE %d: %s (device, block %d thread %d): team %p is not a team kernels know (destroyed, "
           "SHMEM_TEAM_INVALID, or created after the kernel was launched)\n",
           s.my_pe, call, blockIdx.x, threadIdx.x, team);
    __trap();
}

__device__ __forceinline__ int team_slot_or_trap(const State& s, const void* team, const char* call) {
    const int slot = team_slot(s, team);
    if (slot < 0) trap_team(s, call, team);
    return slot;
}

template <class Coop>
__device__ __forceinline__ int alltoall(const State& s, const void* team, void* dest, const void* source, size_t bytes,
                                        const char* call) {
    const int slot = team_slot_or_trap(s, team, call);
    const Team& t = s.teams[slot];
    sync_team<Coop>(s, slot, call);
    for (int k = 1; k <= t.size; ++k) {
        const int j = (t.my_index + k) % t.size;
        put<Coop, true>(s, static_cast<char*>(dest) + static_cast<size_t>(t.my_index) * bytes,
                        static_cast<const char*>(source) + static_cast<size_t>(j) * bytes, bytes, t.members[j], call);
    }
    sync_team<Coop>(s, slot, call);
    return 0;
}

template <class Coop>
__device__ __forceinline__ int fcollect(const State& s, const void* team, void* dest, const void* source, size_t bytes,
                                        const char* call) {
    const int slot = team_slot_or_trap(s, team, call);
    const Team& t = s.teams[slot];
    sync_team<Coop>(s, slot, call);
    for (int k = 1; k <= t.size; ++k) {
        const int j = (t.my_index + k) % t.size;
        put<Coop, true>(s, static_cast<char*>(dest) + static_cast<size_t>(t.my_index) * bytes, source, bytes,
                        t.members[j], call);
    }
    sync_team<Coop>(s, slot, call);
    return 0;
}

template <class Coop>
__device__ __forceinline__ int broadcast(const State& s, const void* team, void* dest, const void* source, size_t bytes,
                                         int root, const char* call) {
    const int slot = team_slot_or_trap(s, team, call);
    const Team& t = s.teams[slot];
    if (root < 0 || root >= t.size) trap_bad(s, call, root, dest);
    sync_team<Coop>(s, slot, call);
    if (t.my_index == root)
        for (int k = 1; k <= t.size; ++k) {
            const int j = (root + k) % t.size;
            put<Coop, true>(s, dest, source, bytes, t.members[j], call);
        }
    sync_team<Coop>(s, slot, call);
    return 0;
}

// Reduction operators (the spec's and/or/xor/max/min/sum/prod).
struct OpAnd { template <class T> __device__ static T f(T a, T b) { return a & b; } };
struct OpOr { template <class T> __device__ static T f(T a, T b) { return a | b; } };
struct OpXor { template <class T> __device__ static T f(T a, T b) { return a ^ b; } };
struct OpMax { template <class T> __device__ static T f(T a, T b) { return a < b ? b : a; } };
struct OpMin { template <class T> __device__ static T f(T a, T b) { return b < a ? b : a; } };
struct OpSum { template <class T> __device__ static T f(T a, T b) { return a + b; } };
struct OpProd { template <class T> __device__ static T f(T a, T b) { return a * b; } };

// Element k folded over the team, in team order (the same order on every PE, so floating-point
// results agree everywhere).
template <class T, class Op>
__device__ __forceinline__ T fold(const State& s, const Team& t, const T* source, size_t k, const char* call) {
    T acc = g<T>(s, source + k, t.members[0], call);
    for (int j = 1; j < t.size; ++j) acc = Op::template f<T>(acc, g<T>(s, source + k, t.members[j], call));
    return acc;
}

template <class Coop, class T, class Op>
__device__ __forceinline__ int reduce(const State& s, const void* team, T* dest, const T* source, size_t n,
                                      const char* call) {
    const int slot = team_slot_or_trap(s, team, call);
    const Team& t = s.teams[slot];
    sync_team<Coop>(s, slot, call);
    const size_t r = Coop::rank(), k = Coop::size();
    if (dest != source) {
        for (size_t i = r; i < n; i += k) dest[i] = fold<T, Op>(s, t, source, i, call);
    } else {
        // In place: a round of k elements (one per member of the group) read, a barrier (no
        // member reads them any more), written; the next round reads other elements.
        for (size_t base = 0; base < n; base += k) {
            const size_t i = base + r;
            T v{};
            if (i < n) v = fold<T, Op>(s, t, source, i, call);
            sync_team<Coop>(s, slot, call);
            if (i < n) dest[i] = v;
        }
    }
    sync_team<Coop>(s, slot, call);
    return 0;
}

}  // namespace kishmem::device

#endif  // __CUDACC__
