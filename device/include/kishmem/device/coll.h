// Team collectives in device code: alltoall, alltoalls, broadcast, fcollect (pushes),
// reductions and sum scans (pulls), for one thread, a warp or a block (Coop), over any mix of peers reached by
// load/store and remote ones (rma.h's put/get route each PE). shmem_device.h wraps them
// under the spec names (shmem_alltoallmem, shmem_int_sum_reduce, ...) and shmemx.h-style
// _warp/_block names.
//
// Every collective but a small reduction (reduce_push, below) starts and ends with the team's
// device barrier (sync_team): at the start every member has entered, so its dest may be written
// (and, for reductions, its source is ready); at the end every member's pushes have landed (the
// barrier quiets first) and no member still reads this PE's source. The calling group (thread,
// warp or block) of every member must make the same call with the same arguments, as on the host.
//
// Data movement, per member j (team index) and this PE's index i:
//   alltoall   source + j * n  ->  dest + i * n on member j   (starting at j = i + 1: the
//              members are visited in a rotated order so they are not all written at once)
//   fcollect   source          ->  dest + i * n on every member
//   broadcast  root's source    ->  dest on every member (the root's own dest included)
//   reduce     dest[k] = op over members of source[k], each PE reading every member's source;
//              in place (dest == source) it reads a round of elements into registers, passes a
//              barrier, then writes them, so no member reads a value already overwritten. A small
//              one (reduce_push) is pushed instead: each member's source to every member, then a
//              flag, no barrier.
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

// The pushes of alltoall and fcollect: bytes from source + j * stride to dest + i * bytes on
// every member j (i: this PE's index), members visited from i + 1 on.
template <class Coop>
__device__ __forceinline__ int push_to_members(const State& s, const void* team, void* dest, const void* source,
                                               size_t bytes, size_t stride, const char* call) {
    const int slot = team_slot_or_trap(s, team, call);
    const Team& t = s.teams[slot];
    sync_team<Coop>(s, slot, call);
    for (int k = 1; k <= t.size; ++k) {
        const int j = (t.my_index + k) % t.size;
        put<Coop, true>(s, static_cast<char*>(dest) + static_cast<size_t>(t.my_index) * bytes,
                        static_cast<const char*>(source) + static_cast<size_t>(j) * stride, bytes, t.members[j], call);
    }
    sync_team<Coop>(s, slot, call);
    return 0;
}

template <class Coop>
__device__ __forceinline__ int alltoall(const State& s, const void* team, void* dest, const void* source, size_t bytes,
                                        const char* call) {
    return push_to_members<Coop>(s, team, dest, source, bytes, bytes, call);
}

template <class Coop>
__device__ __forceinline__ int fcollect(const State& s, const void* team, void* dest, const void* source, size_t bytes,
                                        const char* call) {
    return push_to_members<Coop>(s, team, dest, source, bytes, 0, call);
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

// Where member j's source lives as this GPU loads it (nullptr: a remote member, read with g).
template <class T>
__device__ __forceinline__ const T* member_source(const State& s, const Team& t, int j, const T* source, size_t n,
                                                 const char* call) {
    const int pe = t.members[j];
    const T* first = peer(s, source, pe, call);
    if (n > 1) peer(s, source + (n - 1), pe, call);  // the whole range is in the heap
    return first;
}

template <class T>
__device__ __forceinline__ T load_member(const State& s, const T* mapped, const T* source, size_t i, int pe,
                                         const char* call) {
    return mapped ? load_l2(mapped + i) : g<T>(s, source + i, pe, call);
}

// dest[i] = op over members [0, upto) (in team order, the same on every PE, so floating-point
// results agree everywhere) of source[i]; T{} when upto is 0. Each of the group's k members
// takes kUnroll elements per round (i = base + u * k), loading them from one member before
// combining, so several loads per member are in flight. In place (dest == source) every round
// is read, then a barrier (no member reads these elements any more), then written.
template <class Coop, class T, class Op>
__device__ __forceinline__ void fold_members(const State& s, int slot, int upto, T* dest, const T* source, size_t n,
                                             const char* call) {
    constexpr int kUnroll = 4;
    const Team& t = s.teams[slot];
    const bool in_place = dest == source;
    const size_t r = Coop::rank(), k = Coop::size();
    for (size_t base = 0; base < n; base += k * kUnroll) {
        T acc[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) acc[u] = T{};
        for (int j = 0; j < upto; ++j) {
            const T* m = member_source(s, t, j, source, n, call);
            T v[kUnroll];
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                const size_t i = base + u * k + r;
                if (i < n) v[u] = load_member(s, m, source, i, t.members[j], call);
            }
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) acc[u] = j == 0 ? v[u] : Op::template f<T>(acc[u], v[u]);
        }
        if (in_place) sync_team<Coop>(s, slot, call);
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            const size_t i = base + u * k + r;
            if (i < n) dest[i] = acc[u];
        }
    }
}

// A small reduction (at most kPushBytes in a team of at most kPushMembers) pushes instead of
// pulling: each member puts its source into its slot of every other member's data region of this
// team slot (by the call's parity) and then a flag there, and folds its own region in team order
// once every member's flag has come: one message each way instead of two barriers and a read of
// every member's source. The parity's reuse is safe without a barrier at the end: a member
// writes parity p again two calls later only after it has this member's data of the call
// between, which this member sends after its fold of this call returned. What the spec asks of a
// reduction holds (on return dest is complete and source may be reused: no member reads it), but
// unlike the pull it does not synchronize the team: when it returns here, other members may still
// be folding into their dest, so a put into another member's dest or source after it needs a
// barrier first (as the spec says of every reduction).
template <class Coop, class T, class Op>
__device__ __forceinline__ void reduce_push(const State& s, int slot, T* dest, const T* source, size_t n, const char* call) {
    const Team& t = s.teams[slot];
    const int me = t.my_index;
    if (n) {  // (the source's range is checked as the pull checks every member's)
        peer(s, source, s.my_pe, call);
        peer(s, source + (n - 1), s.my_pe, call);
    }
    auto* epoch_p = reinterpret_cast<unsigned long long*>(s.heap_base + dev_push_epoch_off(slot));
    Coop::sync();  // (after the group's last call: lane 0 wrote the epoch there)
    const unsigned long long epoch = *reinterpret_cast<volatile unsigned long long*>(epoch_p) + 1;
    Coop::sync();  // every lane has read the epoch before lane 0 moves it (below)
    const size_t half = static_cast<size_t>(epoch & 1);
    char* data = s.heap_base + dev_push_data_off(slot) + half * kPushMembers * kPushBytes;
    auto* flags = reinterpret_cast<unsigned long long*>(s.heap_base + dev_push_flag_off(slot)) + half * kPushMembers;
    for (int k = 1; k < t.size; ++k)
        put<Coop, true>(s, data + static_cast<size_t>(me) * kPushBytes, source, n * sizeof(T), t.members[(me + k) % t.size], call);
    Coop::sync();
    if (Coop::rank() == 0) {
        *epoch_p = epoch;
        fence(s);  // the data before the flags (remote puts completed)
        for (int k = 1; k < t.size; ++k) {
            const int to = t.members[(me + k) % t.size];
            if (unsigned long long* f = peer(s, flags + me, to, call)) *reinterpret_cast<volatile unsigned long long*>(f) = epoch;
            else remote::put_value(s, to, heap_off(s, flags + me), epoch, 8);
        }
        for (int k = 1; k < t.size; ++k) {
            const int j = (me + k) % t.size;
            Patience p;
            while (*reinterpret_cast<volatile unsigned long long*>(flags + j) < epoch)
                p.tick(s, [&](const char* what, double sec) {
                    printf("kishmem: PE %d: %s (device, block %d thread %d): %s after %.1f s for PE %d's part (team slot %d, "
                           "reduction %llu): has it reached the same reduction?\n",
                           s.my_pe, call, blockIdx.x, threadIdx.x, what, sec, t.members[j], slot, epoch);
                });
        }
        fence(s);  // the flags before the data's loads
    }
    Coop::sync();
    for (size_t i = Coop::rank(); i < n; i += Coop::size()) {
        T acc = T{};
        for (int j = 0; j < t.size; ++j) {
            const T v = j == me ? source[i] : load_l2(reinterpret_cast<const T*>(data + static_cast<size_t>(j) * kPushBytes) + i);
            acc = j == 0 ? v : Op::template f<T>(acc, v);
        }
        dest[i] = acc;
    }
    Coop::sync();
}

template <class Coop, class T, class Op>
__device__ __forceinline__ int reduce(const State& s, const void* team, T* dest, const T* source, size_t n,
                                      const char* call) {
    const int slot = team_slot_or_trap(s, team, call);
    if (n <= kPushBytes / sizeof(T) && s.teams[slot].size <= kPushMembers) {
        reduce_push<Coop, T, Op>(s, slot, dest, source, n, call);
        return 0;
    }
    sync_team<Coop>(s, slot, call);
    fold_members<Coop, T, Op>(s, slot, s.teams[slot].size, dest, source, n, call);
    sync_team<Coop>(s, slot, call);
    return 0;
}

// Sum scans: dest[i] = the sum of source[i] over members 0..me (inclusive) or 0..me-1
// (exclusive; 0 on member 0).
template <class Coop, class T>
__device__ __forceinline__ int sum_scan(const State& s, const void* team, T* dest, const T* source, size_t n,
                                        bool inclusive, const char* call) {
    const int slot = team_slot_or_trap(s, team, call);
    sync_team<Coop>(s, slot, call);
    fold_members<Coop, T, OpSum>(s, slot, s.teams[slot].my_index + (inclusive ? 1 : 0), dest, source, n, call);
    sync_team<Coop>(s, slot, call);
    return 0;
}

// Strided alltoall: element e of the block for member j, source[sst * (j * n + e)], lands at
// dest[dst * (i * n + e)] on member j (i: this PE's index); the group's members take elements
// in turn.
template <class Coop, class T>
__device__ __forceinline__ int alltoalls(const State& s, const void* team, T* dest, const T* source, ptrdiff_t dst,
                                         ptrdiff_t sst, size_t n, const char* call) {
    const int slot = team_slot_or_trap(s, team, call);
    const Team& t = s.teams[slot];
    sync_team<Coop>(s, slot, call);
    for (int kk = 1; kk <= t.size; ++kk) {
        const int j = (t.my_index + kk) % t.size;
        for (size_t e = Coop::rank(); e < n; e += Coop::size())
            p<T>(s, dest + dst * static_cast<ptrdiff_t>(static_cast<size_t>(t.my_index) * n + e),
                 source[sst * static_cast<ptrdiff_t>(static_cast<size_t>(j) * n + e)], t.members[j], call);
    }
    sync_team<Coop>(s, slot, call);
    return 0;
}

}  // namespace kishmem::device

#endif  // __CUDACC__
