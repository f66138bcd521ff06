// How a PE tells another one that a step of its round is done, shared by the kernels
// (gpu_kernels.cuh) and the refusal of a bad combine (gpu_refuse.cu). One thread, except
// arrive_mapped (a warp).
#pragma once

#include <shmem.h>

#include "kishmem/ep/layout.h"

namespace kishmem::ep::gpu {

// At PE pe: `word` = value (when word is given), then arrive[kind][me] += add, in that order.
__device__ inline void arrive_at(const Layout& l, char* base, int kind, uint64_t* word, uint64_t value, uint64_t add,
                                 int pe) {
    if (word) {
        shmem_uint64_p(word, value, pe);
        shmem_fence();
    }
    shmem_uint64_atomic_add(View{base}.arrive(l) + kind * l.npes + l.me, add, pe);
}

// An add at a peer's word that this GPU maps (p: shmem_ptr's address), ordered after everything
// this thread wrote before it and what it saw the block write (after a __syncthreads): one
// reduction with release semantics, at system scope where some peer is on another GPU. It stands
// for shmem_quiet + shmem_uint64_atomic_add towards mapped peers without the fence's wait.
__device__ inline void release_add(uint64_t* p, uint64_t add) {
    if (kishmem_dstate.sys_scope) asm volatile("red.release.sys.global.add.u64 [%0], %1;" ::"l"(p), "l"(add) : "memory");
    else asm volatile("red.release.gpu.global.add.u64 [%0], %1;" ::"l"(p), "l"(add) : "memory");
}

// arrive_at at every mapped PE of the team at once, by a whole warp (lane i takes team ranks i,
// i + 32, ...): each lane writes `word` (when given) at its PEs, then adds at them with release
// semantics (release_add), which orders everything the block wrote before (rows, offsets, the
// word) ahead of each add; where some PE is reached remotely, one quiet first completes this
// block's remote puts (arrive_all's last block counts on every block's quiet). Lane 0 also
// counts the block in `done` (when given) while the adds go out.
// Returns, in every lane, whether some PE is not mapped (the caller reaches those with
// arrive_at); `count` (when given) receives done's value before this block's add.
__device__ inline bool arrive_mapped(const Layout& l, char* base, int kind, uint64_t* word, uint64_t value, uint64_t add,
                                     uint32_t* done = nullptr, uint32_t* count = nullptr) {
    const View v{base};
    const int lane = static_cast<int>(threadIdx.x & 31u);
    bool unmapped = false;
    for (int r = lane; r < l.npes; r += 32) {
        const int pe = v.pe_of(l)[r];
        if (!shmem_ptr(base, pe)) unmapped = true;
        else if (word) shmem_uint64_p(word, value, pe);
    }
    unmapped = __any_sync(0xffffffffu, unmapped);
    if (unmapped) shmem_quiet();
    uint32_t c = 0;
    if (done && lane == 0 && gridDim.x > 1) c = atomicAdd(done, 1u);  // (one block: the last, no count)
    for (int r = lane; r < l.npes; r += 32)
        if (void* p = shmem_ptr(v.arrive(l) + kind * l.npes + l.me, v.pe_of(l)[r])) release_add(static_cast<uint64_t*>(p), add);
    if (count) *count = __shfl_sync(0xffffffffu, c, 0);
    return unmapped;
}

// The end of a combine receive, as every PE's peers see it: arrive[kArriveRead][me] = round at
// a mapped PE (it reads no more of that PE's expert_out), which a sender whose caller's
// expert_out was read in place waits for before its call ends. A receive tells only the PEs
// that wait (their comb_off carries kWaitsReadBit); a refused combine or hook tells every
// mapped PE (`all`), so that no sender waits for a receive that will not run. A value, not a
// count: rounds told to nobody leave nothing owed. Team ranks first, first + step, ... (a lane
// each, or one thread).
__device__ inline void acknowledge_read(const Layout& l, char* base, uint64_t round, bool all, int first = 0, int step = 1) {
    const View v{base};
    for (int r = first; r < l.npes; r += step) {
        const int pe = v.pe_of(l)[r];
        if (!all && !(*reinterpret_cast<const volatile uint64_t*>(v.comb_off(l) + r) & kWaitsReadBit)) continue;
        if (shmem_ptr(base, pe)) shmem_uint64_p(v.arrive(l) + kArriveRead * l.npes + l.me, round, pe);
    }
}

// The other side: where this round's combine let the token PEs read the caller's expert_out in
// place (LocalState::wait_reads, or the kernel's own argument), until every mapped PE has
// acknowledged its reads of `round`; then expert_out may be overwritten. A receive that ends,
// and a refused hook, both end with this (the caller tests wait_reads). Ranks as acknowledge_read.
__device__ inline void wait_read_acknowledged(const Layout& l, char* base, uint64_t round, int first = 0, int step = 1) {
    const View v{base};
    const uint64_t* ack = v.arrive(l) + kArriveRead * l.npes;
    for (int r = first; r < l.npes; r += step)
        if (shmem_ptr(base, v.pe_of(l)[r]))
            shmem_uint64_wait_until(const_cast<uint64_t*>(ack + r), SHMEM_CMP_GE, round);
}

}  // namespace kishmem::ep::gpu
