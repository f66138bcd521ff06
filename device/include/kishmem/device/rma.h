// Device-side RMA, atomics, ordering and waiting: load/store on mapped peer heaps (CUDA IPC),
// or, where peer() says a PE is not reached that way, WQEs posted over IBGDA or descriptors to
// the CPU proxy (remote.h chooses).
// Every routine takes the translation unit's State; shmem_device.h wraps them under spec names.
#pragma once
#if defined(__CUDACC__)
#include <stdint.h>

#include <cstdio>
#include <cstring>
#include <type_traits>

#include "amo_code.h"
#include "coop.h"
#include "patience.h"
#include "remote.h"
#include "state.h"

namespace kishmem::device {

static __device__ __noinline__ void trap_bad(const State& s, const char* call, int pe, const void* addr) {
    printf("kishmem: PE %d: %s (device, block %d thread %d): PE %d is out of range (0..%d) or address %p is "
           "outside the symmetric heap [%p, %p)\n",
           s.my_pe, call, blockIdx.x, threadIdx.x, pe, s.n_pes - 1, addr, s.heap_base, s.heap_base + s.heap_size);
    __trap();
}

// The one decision of how the device path reaches `pe`: the address of symmetric `sym` in
// `pe`'s heap as this GPU can load and store it, or nullptr when `pe` is reached remotely
// (remote.h). The host leaves peer_base[pe] null for every PE that is not reached by load/store
// (heap not mapped here, or KISHMEM_REMOTE=ibgda/proxy), so the load/store path costs one table
// load and one bounds check (peer_mapped, inline); everything else is decided out of line
// (peer_other: a remote PE, or a bad PE or address, which traps).
template <class T>
static __device__ __noinline__ T* peer_other(const State& s, T* sym, int pe, const char* call) {
    const bool in_range = pe >= 0 && pe < s.n_pes && pe < kMaxPes;
    const size_t off = reinterpret_cast<const char*>(sym) - s.heap_base;
    if (remote::any(s) && in_range && pe != s.my_pe && off < s.heap_size) return nullptr;
    trap_bad(s, call, pe, sym);
    return nullptr;
}

// peer's inline half: the mapped address, or nullptr for every other case (peer_other's).
template <class T>
__device__ __forceinline__ T* peer_mapped(const State& s, T* sym, int pe) {
    const char* b = (pe >= 0 && pe < s.n_pes && pe < kMaxPes) ? s.peer_base[pe] : nullptr;
    const size_t off = reinterpret_cast<const char*>(sym) - s.heap_base;
#if defined(KISHMEM_DEVICE_UNCHECKED)
    if (b != nullptr) return reinterpret_cast<T*>(const_cast<char*>(b) + off);
#else
    if (b != nullptr && off < s.heap_size) return reinterpret_cast<T*>(const_cast<char*>(b) + off);
#endif
    return nullptr;
}

template <class T>
__device__ __forceinline__ T* peer(const State& s, T* sym, int pe, const char* call) {
    if (T* p = peer_mapped(s, sym, pe)) return p;
    return peer_other(s, sym, pe, call);
}

__device__ __forceinline__ size_t heap_off(const State& s, const void* sym) {
    return static_cast<const char*>(sym) - s.heap_base;
}

// Ordering for peers reached by load/store: acquire-release at GPU scope when every peer heap
// is on this GPU, at system scope when some are on other GPUs (a sequentially consistent fence,
// __threadfence, costs several times more and buys nothing here). With remote PEs it also
// completes what was posted to them (remote::quiet): shmem_fence and shmem_quiet both come here.
__device__ __forceinline__ void fence(const State& s) {
    if (remote::any(s)) remote::quiet(s);
    if (s.sys_scope) asm volatile("fence.acq_rel.sys;" ::: "memory");
    else asm volatile("fence.acq_rel.gpu;" ::: "memory");
}

__device__ __forceinline__ void quiet(const State& s) { fence(s); }

// Four 16-byte words a lane at most (both ends 16-byte aligned, more than one word a lane), with
// no loop over words: each lane loads its words (every k-th) before it stores them; the last lane
// takes the tail (an 8-byte word, then at most 7 bytes).
__device__ __forceinline__ void copy_four(char* d, const char* s, size_t n, unsigned r, unsigned k) {
    const unsigned nw = static_cast<unsigned>(n / 16);
    int4 w[4];
#pragma unroll
    for (unsigned j = 0; j < 4; ++j)
        if (r + j * k < nw) w[j] = reinterpret_cast<const int4*>(s)[r + j * k];
#pragma unroll
    for (unsigned j = 0; j < 4; ++j)
        if (r + j * k < nw) reinterpret_cast<int4*>(d)[r + j * k] = w[j];
    if (n % 16 != 0 && r == k - 1) {
        unsigned at = nw * 16;
        if (n & 8) {
            *reinterpret_cast<uint64_t*>(d + at) = *reinterpret_cast<const uint64_t*>(s + at);
            at += 8;
        }
        for (; at < n; ++at) d[at] = s[at];
    }
}

// Copy n bytes with the group: 16-byte words while both ends allow, then 8-byte words, then
// bytes; the alignment is looked at once, and each lane takes every size()-th word. A message of
// at most one 16-byte word per lane (both ends 16-byte aligned) takes a path with no loop over
// words: each lane moves its word, one lane the tail (an 8-byte word, then at most 7 bytes); up
// to four words a lane, copy_four; a small put then costs its loads and stores, not the loops'
// set-up and reconvergence (which doubled a warp's put of 8-512 bytes, and made a thread's
// 32-byte put and a warp's 2 KiB put four and two times longer). The one-word path stays apart:
// with both paths in copy_four's form a warp's puts of 32-512 bytes lost ~20% on an H100; in this
// form they are 1.09-1.31x NVSHMEM's (H100, 2026-12-06; docs/gpu.md). Its tail is written out
// rather than shared with copy_four's: one shared helper cost the put kernels up to 8 registers.
template <class Coop>
__device__ __forceinline__ void copy(void* dst, const void* src, size_t n) {
    char* d = static_cast<char*>(dst);
    const char* s = static_cast<const char*>(src);
    const unsigned r = Coop::rank(), k = Coop::size();
    const uintptr_t a = reinterpret_cast<uintptr_t>(d) | reinterpret_cast<uintptr_t>(s);
    if ((a & 15) == 0 && n <= 16 * static_cast<size_t>(k)) {
        const unsigned nw = static_cast<unsigned>(n / 16), tail = static_cast<unsigned>(n % 16);
        if (r < nw) {
            reinterpret_cast<int4*>(d)[r] = reinterpret_cast<const int4*>(s)[r];
        } else if (r == nw && tail != 0) {  // nw < k here: that lane exists
            unsigned at = nw * 16;
            if (tail & 8) {
                *reinterpret_cast<uint64_t*>(d + at) = *reinterpret_cast<const uint64_t*>(s + at);
                at += 8;
            }
            for (; at < n; ++at) d[at] = s[at];
        }
        return;
    }
    if ((a & 15) == 0 && n <= 64 * static_cast<size_t>(k)) {
        copy_four(d, s, n, r, k);
        return;
    }
    size_t done = 0;
    if ((a & 15) == 0) {
        const size_t nw = n / 16;
        int4* dw = reinterpret_cast<int4*>(d);
        const int4* sw = reinterpret_cast<const int4*>(s);
        size_t i = r;
        // Four loads in flight before their stores (a load-store pair at a time waits out the
        // load latency once per word).
        for (; i + 3 * k < nw; i += 4 * k) {
            const int4 w0 = sw[i], w1 = sw[i + k], w2 = sw[i + 2 * k], w3 = sw[i + 3 * k];
            dw[i] = w0;
            dw[i + k] = w1;
            dw[i + 2 * k] = w2;
            dw[i + 3 * k] = w3;
        }
        for (; i < nw; i += k) dw[i] = sw[i];
        done = nw * 16;
    }
    if ((a & 7) == 0) {
        const size_t nw = (n - done) / 8;
        for (size_t i = r; i < nw; i += k)
            reinterpret_cast<uint64_t*>(d + done)[i] = reinterpret_cast<const uint64_t*>(s + done)[i];
        done += nw * 8;
    }
    for (size_t i = done + r; i < n; i += k) d[i] = s[i];
}

// A put or get to a PE peer_mapped does not map, by one thread: the check (a bad PE or address
// traps) and the remote operation in one out-of-line call, so that a loop of puts to mapped PEs
// carries one call site it does not take, not three (each costs such a loop time).
static __device__ __noinline__ void rma_unmapped(const State& s, bool is_put, void* local, const void* sym, size_t n,
                                                  int pe, const char* call, bool nbi) {
    peer_other(s, sym, pe, call);
    if (is_put) remote::put(s, pe, heap_off(s, sym), local, n, call, nbi);
    else remote::get(s, pe, heap_off(s, sym), local, n, call);
}

// Nbi: a remote put returns once posted (the source may change only after quiet).
template <class Coop, bool Nbi = false>
__device__ __forceinline__ void put(const State& s, void* dst, const void* src, size_t n, int pe, const char* call) {
    if (char* d = peer_mapped(s, static_cast<char*>(dst), pe)) copy<Coop>(d, src, n);
    else if (Coop::rank() == 0) rma_unmapped(s, true, const_cast<void*>(src), dst, n, pe, call, Nbi);
    Coop::sync();
}

template <class Coop>
__device__ __forceinline__ void put_nbi(const State& s, void* dst, const void* src, size_t n, int pe, const char* call) {
    put<Coop, true>(s, dst, src, n, pe, call);
}

template <class Coop>
__device__ __forceinline__ void get(const State& s, void* dst, const void* src, size_t n, int pe, const char* call) {
    if (const char* sp = peer_mapped(s, static_cast<const char*>(src), pe)) copy<Coop>(dst, sp, n);
    else if (Coop::rank() == 0) rma_unmapped(s, false, dst, src, n, pe, call, false);
    Coop::sync();
}

template <class T>
__device__ __forceinline__ void p(const State& s, T* dst, T v, int pe, const char* call) {
    if (T* d = peer(s, dst, pe, call)) {
        *reinterpret_cast<volatile T*>(d) = v;
    } else if constexpr (sizeof(T) <= 8) {
        uint64_t bits = 0;
        memcpy(&bits, &v, sizeof(T));
        remote::put_value(s, pe, heap_off(s, dst), bits, sizeof(T));
    } else {
        remote::put(s, pe, heap_off(s, dst), &v, sizeof(T), call, false);
    }
}

// A load that bypasses L1 (another process may have written the peer heap) but, unlike a
// volatile one, can overlap with the loads around it.
template <class T>
__device__ __forceinline__ T load_l2(const T* p) {
    T r;
    if constexpr (sizeof(T) == 8) {
        unsigned long long v = __ldcg(reinterpret_cast<const unsigned long long*>(p));
        memcpy(&r, &v, 8);
    } else if constexpr (sizeof(T) == 4) {
        unsigned int v = __ldcg(reinterpret_cast<const unsigned int*>(p));
        memcpy(&r, &v, 4);
    } else if constexpr (sizeof(T) == 2) {
        unsigned short v = __ldcg(reinterpret_cast<const unsigned short*>(p));
        memcpy(&r, &v, 2);
    } else if constexpr (sizeof(T) == 1) {
        unsigned char v = __ldcg(reinterpret_cast<const unsigned char*>(p));
        memcpy(&r, &v, 1);
    } else if constexpr (sizeof(T) == 16 && alignof(T) == 16) {
        uint4 v = __ldcg(reinterpret_cast<const uint4*>(p));
        memcpy(&r, &v, 16);
    } else {
        r = *reinterpret_cast<const volatile T*>(p);
    }
    return r;
}

template <class T>
__device__ __forceinline__ T g(const State& s, const T* src, int pe, const char* call) {
    if (const T* sp = peer(s, src, pe, call)) return load_l2(sp);
    T r;
    remote::get(s, pe, heap_off(s, src), &r, sizeof(T), call);
    return r;
}

// Signal after data: the data stores are ordered before the signal update.
template <class Coop, bool Nbi = false>
__device__ __forceinline__ void put_signal(const State& s, void* dst, const void* src, size_t n, uint64_t* sig,
                                           uint64_t v, int op, int pe, const char* call) {
    char* d = peer(s, static_cast<char*>(dst), pe, call);
    if (d == nullptr) {
        if (Coop::rank() == 0) remote::put_signal(s, pe, heap_off(s, dst), src, n, heap_off(s, sig), v, op, call, Nbi);
        Coop::sync();
        return;
    }
    copy<Coop>(d, src, n);
    fence(s);
    Coop::sync();
    if (Coop::rank() == 0) {
        unsigned long long* t = reinterpret_cast<unsigned long long*>(peer(s, sig, pe, call));
        if (op == 0) atomicExch(t, static_cast<unsigned long long>(v));
        else atomicAdd(t, static_cast<unsigned long long>(v));
    }
    Coop::sync();
}

template <class Coop>
__device__ __forceinline__ void put_signal_nbi(const State& s, void* dst, const void* src, size_t n, uint64_t* sig,
                                               uint64_t v, int op, int pe, const char* call) {
    put_signal<Coop, true>(s, dst, src, n, sig, v, op, pe, call);
}

// ---- atomics: 4- and 8-byte words through their unsigned representation ------------------
// AmoOp: kishmem/vocab.h, the numbering the host, both remote backends and the proxy share.

template <class T>
__device__ __forceinline__ T amo(const State& s, AmoOp op, T* target, T v, T c, int pe, const char* call) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "AMO types are 4 or 8 bytes");
    using W = typename std::conditional<sizeof(T) == 4, unsigned int, unsigned long long>::type;
    T* mapped = peer(s, target, pe, call);
    W wv, wc;
    memcpy(&wv, &v, sizeof(T));
    memcpy(&wc, &c, sizeof(T));
    W r;
    if (mapped) r = amo_word<W>(reinterpret_cast<W*>(mapped), op, wv, wc);
    else r = static_cast<W>(remote::amo(s, pe, heap_off(s, target), op, sizeof(T), wv, wc, call));
    T out;
    memcpy(&out, &r, sizeof(T));
    return out;
}

// ---- waiting on this PE's own memory -------------------------------------------------------
// op is a SHMEM_CMP_* value, kishmem/vocab.h's Cmp.
template <class T>
__device__ __forceinline__ bool cmp(T v, int op, T ref) {
    return compare(v, static_cast<Cmp>(op), ref);
}

// An acquiring load: what was written before the value is visible after it, without a fence.
template <class T>
__device__ __forceinline__ T load_acquire(const State& s, const T* p) {
    T r;
    if constexpr (sizeof(T) == 8) {
        unsigned long long v;
        if (s.sys_scope) asm volatile("ld.acquire.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
        else asm volatile("ld.acquire.gpu.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
        memcpy(&r, &v, 8);
    } else if constexpr (sizeof(T) == 4) {
        unsigned int v;
        if (s.sys_scope) asm volatile("ld.acquire.sys.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
        else asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
        memcpy(&r, &v, 4);
    } else {
        r = *reinterpret_cast<const volatile T*>(p);
        fence(s);
    }
    return r;
}

__device__ __forceinline__ const char* cmp_name(int op) { return cmp_symbol(static_cast<Cmp>(op)); }

template <class T>
__device__ __forceinline__ T wait_until(const State& s, T* ivar, int op, T ref, const char* call) {
    T v;
    Patience p;
    while (!cmp(v = load_acquire(s, ivar), op, ref))
        p.tick(s, [&](const char* what, double sec) {
            printf("kishmem: PE %d: %s (device, block %d thread %d): %s after %.1f s for %p %s %lld (it holds %lld)\n",
                   s.my_pe, call, blockIdx.x, threadIdx.x, what, sec, static_cast<void*>(ivar),
                   cmp_name(op), static_cast<long long>(ref), static_cast<long long>(v));
        });
    return v;
}

// ---- strided RMA (one thread; element strides dst and sst) ----------------------------------
template <class T>
__device__ __forceinline__ void iput(const State& s, T* dst, const T* src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
                                     size_t n, int pe, const char* call) {
    if (n == 0) return;
    T* base = peer(s, dst, pe, call);
    peer(s, dst + (n - 1) * dst_stride, pe, call);  // the last element is in the heap too
    if (base == nullptr) {  // remote: a write per element
        for (size_t i = 0; i < n; ++i)
            remote::put(s, pe, heap_off(s, dst + i * dst_stride), src + i * src_stride, sizeof(T), call, false);
        return;
    }
    for (size_t i = 0; i < n; ++i) base[i * dst_stride] = src[i * src_stride];
}

template <class T>
__device__ __forceinline__ void iget(const State& s, T* dst, const T* src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
                                     size_t n, int pe, const char* call) {
    if (n == 0) return;
    const T* base = peer(s, src, pe, call);
    peer(s, src + (n - 1) * src_stride, pe, call);
    if (base == nullptr) {  // remote: a read per element
        for (size_t i = 0; i < n; ++i)
            remote::get(s, pe, heap_off(s, src + i * src_stride), dst + i * dst_stride, sizeof(T), call);
        return;
    }
    for (size_t i = 0; i < n; ++i) dst[i * dst_stride] = load_l2(base + i * src_stride);
}

// Blocked strided RMA (ibput/ibget): nblocks blocks of bsize elements, block b at dst + b * dst_stride
// and src + b * src_stride (strides in elements).
template <class T>
__device__ __forceinline__ void ibput(const State& s, T* dst, const T* src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
                                      size_t bsize, size_t nblocks, int pe, const char* call) {
    for (size_t b = 0; b < nblocks; ++b) put<Thread>(s, dst + b * dst_stride, src + b * src_stride, bsize * sizeof(T), pe, call);
}

template <class T>
__device__ __forceinline__ void ibget(const State& s, T* dst, const T* src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
                                      size_t bsize, size_t nblocks, int pe, const char* call) {
    for (size_t b = 0; b < nblocks; ++b) get<Thread>(s, dst + b * dst_stride, src + b * src_stride, bsize * sizeof(T), pe, call);
}

// The element type of the sized routines (iput32, ibget128, ...): B bits.
template <int B> struct Sized;
template <> struct Sized<8> { using type = uint8_t; };
template <> struct Sized<16> { using type = uint16_t; };
template <> struct Sized<32> { using type = uint32_t; };
template <> struct Sized<64> { using type = uint64_t; };
template <> struct Sized<128> { struct alignas(16) type { uint64_t w[2]; }; };

// ---- waiting on arrays of this PE (the _all/_any/_some and _vector forms) ---------------------
// Element i takes part unless status[i] is nonzero; refs: one value per element, or nullptr to
// compare every element with ref.
template <class T>
struct Conds {
    const State& s;
    T* v;
    size_t n;
    const int* status;
    int op;
    const T* refs;
    T ref;
    __device__ bool active(size_t i) const { return !status || !status[i]; }
    __device__ bool met(size_t i) const { return cmp(load_acquire(s, v + i), op, refs ? refs[i] : ref); }
    __device__ int all() const {
        for (size_t i = 0; i < n; ++i)
            if (active(i) && !met(i)) return 0;
        return 1;
    }
    __device__ size_t any() const {
        for (size_t i = 0; i < n; ++i)
            if (active(i) && met(i)) return i;
        return SIZE_MAX;
    }
    __device__ size_t some(size_t* idx) const {
        size_t k = 0;
        for (size_t i = 0; i < n; ++i)
            if (active(i) && met(i)) idx[k++] = i;
        return k;
    }
    __device__ bool none_active() const {
        for (size_t i = 0; i < n; ++i)
            if (active(i)) return false;
        return true;
    }
};

template <class T>
__device__ __forceinline__ void conds_patience(const Conds<T>& c, Patience& p, const char* call) {
    p.tick(c.s, [&](const char* what, double sec) {
        printf("kishmem: PE %d: %s (device, block %d thread %d): %s after %.1f s for %zu variables at %p %s %s\n",
               c.s.my_pe, call, blockIdx.x, threadIdx.x, what, sec, c.n, static_cast<void*>(c.v),
               cmp_name(c.op), c.refs ? "their values" : "the value");
    });
}

template <class T>
__device__ __forceinline__ void wait_all(const Conds<T>& c, const char* call) {
    Patience p;
    while (!c.all()) conds_patience(c, p, call);
}

template <class T>
__device__ __forceinline__ size_t wait_any(const Conds<T>& c, const char* call) {
    if (c.none_active()) return SIZE_MAX;
    size_t r;
    Patience p;
    while ((r = c.any()) == SIZE_MAX) conds_patience(c, p, call);
    return r;
}

template <class T>
__device__ __forceinline__ size_t wait_some(const Conds<T>& c, size_t* idx, const char* call) {
    if (c.none_active()) return 0;
    size_t r;
    Patience p;
    while ((r = c.some(idx)) == 0) conds_patience(c, p, call);
    return r;
}

// ---- barriers over a team (dissemination on the team slot's flags in the device heaps) -------
// The slot of a team handle, -1 when kernels do not know it.
__device__ __forceinline__ int team_slot(const State& s, const void* team) {
    for (int t = 0; t < kMaxTeams; ++t)
        if (team != nullptr && s.teams[t].key == team) return t;
    return -1;
}

template <class Coop>
__device__ __forceinline__ void sync_team(const State& s, int slot, const char* call) {
    Coop::sync();
    if (Coop::rank() == 0) {
        const Team& tm = s.teams[slot];
        // (no fence here: round 0's fence below releases this PE's earlier stores and quiets
        // its remote operations before the first flag leaves)
        unsigned long long* epoch_p = reinterpret_cast<unsigned long long*>(s.heap_base + dev_epoch_off(slot));
        const unsigned long long epoch = *epoch_p + 1;
        *epoch_p = epoch;
        unsigned long long* flags =
            reinterpret_cast<unsigned long long*>(s.heap_base + dev_barrier_off(slot)) + (epoch & 1) * 32;
        int round = 0;
        for (int dist = 1; dist < tm.size; dist <<= 1, ++round) {
            const int to = tm.members[(tm.my_index + dist) % tm.size];
            unsigned long long* remote = peer(s, flags + round, to, call);
            fence(s);  // what this PE saw in earlier rounds travels with this round's flag
            if (remote) *reinterpret_cast<volatile unsigned long long*>(remote) = epoch;
            else remote::put_value(s, to, heap_off(s, flags + round), epoch, 8);
            Patience p;
            while (*reinterpret_cast<volatile unsigned long long*>(flags + round) < epoch)
                p.tick(s, [&](const char* what, double sec) {
                    printf("kishmem: PE %d: %s (device, block %d thread %d): %s after %.1f s for PE %d (team slot %d, "
                           "barrier round %d): has it reached the same barrier?\n",
                           s.my_pe, call, blockIdx.x, threadIdx.x, what, sec,
                           tm.members[(tm.my_index - dist + tm.size) % tm.size], slot, round);
                });
        }
        fence(s);
    }
    Coop::sync();
}

template <class Coop>
__device__ __forceinline__ void sync_all(const State& s) {
    sync_team<Coop>(s, 0, "shmem_barrier_all");
}

}  // namespace kishmem::device

#endif
