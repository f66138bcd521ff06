// The IBGDA backend of the device RMA/AMO/signal/quiet routines (rma.h calls it where peer()
// says a PE is not reached by load/store). Every operation is one or more mlx5 WQEs posted by
// the calling thread (post.h, Share::gpu) to QP (block % qps_per_pe) of the target PE, taken
// from the table the host published in State::ibgda (qp_table.h).
//
// What each routine posts:
//   put      n <= kMaxInline: one inline RDMA write (the bytes travel in the WQE).
//            source inside this PE's symmetric heap: RDMA writes with a data segment (heap
//            lkey), up to kMaxMessage bytes each; the last is signalled and waited for, so the
//            source is reusable on return (blocking put); the _nbi names return once posted.
//            any other source (private or non-heap memory): inline writes of kMaxInline bytes.
//   p        one inline write of the value (1..8 bytes), unsignalled: complete at quiet.
//   get / g  destination inside the heap: RDMA reads straight into it (heap lkey); otherwise
//            reads of up to kResultBytes into the WQE's result slot, each waited for and copied.
//   AMOs     the NIC's two 64-bit atomics: fetch-add (fetch, add, fetch_add, inc) and
//            compare-swap (cswap) on 8-byte words; swap/set/and/or/xor, and every 4-byte AMO
//            (on the 8-byte word that holds it), as a compare-swap loop. Each waits for its CQE;
//            the old value comes back through the result slot.
//   put_signal  the data as put (unsignalled), then the signal on the same QP: an 8-byte inline
//            write (SHMEM_SIGNAL_SET) or a fetch-add (SHMEM_SIGNAL_ADD). RC executes a QP's
//            WQEs in order, so the signal lands after the data.
//   quiet    quiet() of every QP to every PE (post.h: a signalled NOP when the last WQE was
//            unsignalled, then CQ polling up to the index published when the call began).
//   fence    the device fence calls quiet (rma.h): a thread's operations to one PE share one QP
//            and RC keeps them in order, but quiet is what shmem_quiet maps to as well.
// A failed WQE (error CQE) traps, naming the PE, the call, the QP, the operation, the address
// and the syndrome (trap_wqe); the host names it too, at its next quiet or barrier.
//
// Result slots: slot i of a QP's result buffer belongs to the WQE posted at index i (mod ring
// size). It is read right after that WQE completes; a WQE that reuses the slot can only be
// posted after its predecessor completed and executed only after a full ring of posts, so the
// window is a ring's worth of NIC work.
#pragma once
#if defined(__CUDACC__)
#include <stdint.h>

#include <cstdio>
#include <cstring>

#include "kishmem/device/amo_code.h"
#include "kishmem/device/patience.h"
#include "kishmem/device/ibgda/mlx5_defs.h"
#include "kishmem/device/ibgda/mlx5_wqe.h"
#include "kishmem/device/ibgda/post.h"
#include "kishmem/device/ibgda/qp_table.h"
#include "kishmem/device/state.h"

namespace kishmem::device::ibgda {

static_assert(sizeof(QpCounters) <= 64, "the host allocates 64 bytes of counters per QP");

constexpr uint32_t kMaxInline = 28;              // inline bytes that fit one 64-byte WQE
constexpr uint64_t kMaxMessage = uint64_t{1} << 30;  // bytes per RDMA write/read WQE

// A target PE's QP for this CTA, plus what the builders need beyond post.h's DeviceQp.
struct Target {
    DeviceQp qp;
    uint8_t* result;
    uint32_t result_lkey;
    uint32_t signal_every;
};

__device__ __forceinline__ unsigned block_linear() {
    return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

// QP `slot` of `pe`; by default the one this CTA posts to.
__device__ __forceinline__ Target target(const State& s, int pe, int slot = -1) {
    const DeviceQpTable& t = *s.ibgda;
    if (slot < 0) slot = static_cast<int>(block_linear() % static_cast<unsigned>(s.ibgda_qps_per_pe));
    const QpDesc& d = t.qps[pe * s.ibgda_qps_per_pe + slot];
    Target r;
    r.qp.sq = d.sq;
    r.qp.log_bbs = d.log_bbs;
    r.qp.qpn = d.qpn;
    r.qp.dbrec = d.dbrec;
    r.qp.db = d.db;
    r.qp.ctr = reinterpret_cast<QpCounters*>(d.ctr);
    r.qp.lkey = t.lkey;
    r.qp.rkey = t.rkey[pe];
    r.qp.remote_base = t.remote_base[pe];
    r.qp.cq = d.cq;
    r.qp.log_cq = d.log_cq;
    r.qp.cq_dbrec = d.cq_dbrec;
    r.result = d.result;
    r.result_lkey = t.result_lkey;
    r.signal_every = t.signal_every;
    return r;
}

__device__ __forceinline__ uint8_t* result_slot(const Target& t, uint32_t idx) {
    return t.result + static_cast<size_t>(idx & ((1u << t.qp.log_bbs) - 1)) * kResultBytes;
}

// A WQE of this QP failed (error CQE; the QP's first error, recorded by poll_cq_locked): says
// which (PE, QP, operation, address, syndrome) and traps. KISHMEM_DEVICE_UNCHECKED builds go on
// (results of the failed operations are undefined) and the host names the failure at its next
// shmem_quiet / shmem_barrier_all.
static __device__ __noinline__ void trap_wqe(const State& s, const char* call, int pe, const Target& t) {
#if !defined(KISHMEM_DEVICE_UNCHECKED)
    const QpCounters* c = t.qp.ctr;
    const uint32_t err = *reinterpret_cast<const volatile uint32_t*>(&c->error);
    const uint32_t wqe = *reinterpret_cast<const volatile uint32_t*>(&c->error_wqe);
    const uint64_t raddr = *reinterpret_cast<const volatile uint64_t*>(&c->error_raddr);
    const uint8_t op = static_cast<uint8_t>(wqe >> 16), synd = static_cast<uint8_t>(err);
    const uint64_t off = raddr - t.qp.remote_base;
    const bool in = raddr != 0 && off < s.heap_size;
    printf("kishmem: PE %d: %s (device, block %d thread %d): IBGDA %s to PE %d failed on QP 0x%x (WQE %u): %s "
           "(syndrome 0x%02x), remote address 0x%llx (symmetric address %p, heap offset 0x%llx%s)\n",
           s.my_pe, call, blockIdx.x, threadIdx.x, mlx5::wqe_opcode_name(op), pe, t.qp.qpn, wqe & 0xffffu,
           mlx5::syndrome_name(synd), synd, static_cast<unsigned long long>(raddr), s.heap_base + off,
           static_cast<unsigned long long>(off), in ? "" : ": outside the heap");
    __trap();
#else
    (void)s, (void)call, (void)pe, (void)t;
#endif
}

// ---- builders (post.h calling convention: write one BB at slot, return the doorbell value) ----

// Inline RDMA write of n <= kMaxInline bytes from src (any memory this thread can read).
struct InlineBytes {
    const Target& t;
    uint64_t roff;
    const void* src;
    uint32_t n;
    __device__ __forceinline__ uint64_t operator()(void* slot, const mlx5::WqeHeader& h, uint32_t) const {
        alignas(16) uint8_t seg[32];
        const uint32_t ids = mlx5::write_inline_seg(seg, src, n);  // header + bytes + zero padding
        const uint8_t ds = static_cast<uint8_t>(2 + ids);
        uint8_t* p = static_cast<uint8_t*>(slot);
        mlx5::write_ctrl_seg(p, mlx5::kOpRdmaWrite, h.wqe_idx, h.qpn, ds, h.fm_ce_se);
        mlx5::write_raddr_seg(p + 16, t.qp.remote_base + roff, t.qp.rkey);
        for (uint32_t i = 0; i < ids; ++i)
            *reinterpret_cast<int4*>(p + 32 + 16 * i) = *reinterpret_cast<const int4*>(seg + 16 * i);
        return mlx5::make_doorbell_value(mlx5::kOpRdmaWrite, h.wqe_idx, h.qpn, ds);
    }
};

// RDMA read of len bytes into laddr (lkey), or into the WQE's result slot when to_result.
struct Read {
    const Target& t;
    uint64_t roff;
    uint64_t laddr;
    uint32_t lkey;
    uint32_t len;
    bool to_result;
    __device__ __forceinline__ uint64_t operator()(void* slot, const mlx5::WqeHeader& h, uint32_t idx) const {
        const mlx5::LocalRef local = to_result ? mlx5::LocalRef{reinterpret_cast<uint64_t>(result_slot(t, idx)), t.result_lkey}
                                               : mlx5::LocalRef{laddr, lkey};
        mlx5::build_rdma_read(slot, h, mlx5::RemoteRef{t.qp.remote_base + roff, t.qp.rkey}, local, len);
        return mlx5::make_doorbell_value(mlx5::kOpRdmaRead, h.wqe_idx, h.qpn, len != 0 ? 3 : 2);
    }
};

// 64-bit fetch-add (cas false) or compare-swap; the old value lands in the result slot.
struct Atomic {
    const Target& t;
    uint64_t roff;
    bool cas;
    uint64_t operand;  // addend, or the value to swap in
    uint64_t compare;
    __device__ __forceinline__ uint64_t operator()(void* slot, const mlx5::WqeHeader& h, uint32_t idx) const {
        const mlx5::RemoteRef remote{t.qp.remote_base + roff, t.qp.rkey};
        const mlx5::LocalRef fetch{reinterpret_cast<uint64_t>(result_slot(t, idx)), t.result_lkey};
        if (cas) mlx5::build_atomic_compare_swap(slot, h, remote, fetch, compare, operand);
        else mlx5::build_atomic_fetch_add(slot, h, remote, fetch, operand);
        return mlx5::make_doorbell_value(cas ? mlx5::kOpAtomicCs : mlx5::kOpAtomicFa, h.wqe_idx, h.qpn, 4);
    }
};

// ---- posting and completion -----------------------------------------------------------------

// One WQE for the calling thread. Lanes of a warp that post to the same QP at the same time
// (a warp of threads each putting to one PE) share one reservation, one doorbell record update
// and one doorbell (post.h's post_group); a lone thread posts by itself.
template <class Build>
__device__ __forceinline__ uint32_t post(const Target& t, bool signalled, Build b) {
    const uint8_t flags = signalled ? mlx5::kCtrlCqUpdate : uint8_t{0};
    const unsigned group = __match_any_sync(__activemask(), reinterpret_cast<unsigned long long>(t.qp.ctr));
    if (__popc(group) == 1) return post_thread<Share::gpu>(t.qp, flags, t.signal_every, b);
    return post_group<Share::gpu>(t.qp, group, flags, flags, t.signal_every, b);
}

// Wait until the WQE at idx (signalled) has completed.
__device__ __forceinline__ void wait(const State& s, const Target& t, uint32_t idx, int pe, const char* call) {
    Patience p;
    uint32_t cons;
    while (static_cast<int32_t>(idx + 1 - (cons = poll_cq<Share::gpu>(t.qp))) > 0)
        p.tick(s, [&](const char* what, double sec) {
            printf("kishmem: PE %d: %s (device, block %d thread %d): %s after %.1f s for the NIC to complete WQE %u to "
                   "PE %d (completed up to %u)\n",
                   s.my_pe, call, blockIdx.x, threadIdx.x, what, sec, idx, pe, cons);
        });
    const uint32_t e = *reinterpret_cast<volatile uint32_t*>(&t.qp.ctr->error);
    if (e != 0) trap_wqe(s, call, pe, t);
}

__device__ __forceinline__ bool in_heap(const State& s, const void* p, size_t n) {
    const size_t off = static_cast<const char*>(p) - s.heap_base;
    return off < s.heap_size && n <= s.heap_size - off;
}

// Posts the writes of a put; returns whether the last WQE reads its data from the heap (then it
// was posted signalled, at *last, and the caller waits before the source may change).
static __device__ __noinline__ bool post_put(const Target& t, const State& s, size_t roff, const void* src, size_t n, uint32_t* last) {
    const char* sp = static_cast<const char*>(src);
    if (n > kMaxInline && in_heap(s, src, n)) {
        for (size_t done = 0; done < n;) {
            const size_t len = n - done < kMaxMessage ? n - done : kMaxMessage;
            const bool final_chunk = done + len == n;
            *last = post(t, final_chunk, WriteData{t.qp, roff + done, reinterpret_cast<uint64_t>(sp + done),
                                                    static_cast<uint32_t>(len)});
            done += len;
        }
        return true;
    }
    for (size_t done = 0; done < n; done += kMaxInline) {
        const uint32_t len = static_cast<uint32_t>(n - done < kMaxInline ? n - done : kMaxInline);
        *last = post(t, false, InlineBytes{t, roff + done, sp + done, len});
    }
    return false;
}

// nbi: return once posted; a heap source may change only after quiet.
static __device__ __noinline__ void put(const State& s, int pe, size_t roff, const void* src, size_t n, const char* call,
                                        bool nbi) {
    if (n == 0) return;
    const Target t = target(s, pe);
    uint32_t last = 0;
    if (post_put(t, s, roff, src, n, &last) && !nbi) wait(s, t, last, pe, call);
}

// Inline write of a value of n = 1..8 bytes (shmem_p, barrier flags); completes at quiet.
static __device__ __noinline__ void put_value(const State& s, int pe, size_t roff, uint64_t value, uint32_t n) {
    const Target t = target(s, pe);
    post(t, false, InlineValue{t.qp, roff, value, n});
}

static __device__ __noinline__ void get(const State& s, int pe, size_t roff, void* dst, size_t n, const char* call) {
    if (n == 0) return;
    const Target t = target(s, pe);
    char* dp = static_cast<char*>(dst);
    if (in_heap(s, dst, n)) {
        uint32_t last = 0;
        for (size_t done = 0; done < n;) {
            const size_t len = n - done < kMaxMessage ? n - done : kMaxMessage;
            const bool final_chunk = done + len == n;
            last = post(t, final_chunk, Read{t, roff + done, reinterpret_cast<uint64_t>(dp + done), t.qp.lkey,
                                             static_cast<uint32_t>(len), false});
            done += len;
        }
        wait(s, t, last, pe, call);
        return;
    }
    for (size_t done = 0; done < n; done += kResultBytes) {
        const uint32_t len = static_cast<uint32_t>(n - done < kResultBytes ? n - done : kResultBytes);
        const uint32_t idx = post(t, true, Read{t, roff + done, 0, 0, len, true});
        wait(s, t, idx, pe, call);
        const volatile uint8_t* r = result_slot(t, idx);
        for (uint32_t i = 0; i < len; ++i) dp[done + i] = r[i];
    }
}

// One 64-bit NIC atomic on the word at roff (8-byte aligned); returns the old value.
static __device__ __noinline__ uint64_t atomic64(const State& s, const Target& t, int pe, size_t roff, bool cas, uint64_t operand,
                                    uint64_t compare, const char* call) {
    const uint32_t idx = post(t, true, Atomic{t, roff, cas, operand, compare});
    wait(s, t, idx, pe, call);
    return *reinterpret_cast<const volatile uint64_t*>(result_slot(t, idx));
}

// An AMO on the width-byte word (4 or 8) at roff; v and c hold its bit pattern. Returns the
// old value's bit pattern.
static __device__ __noinline__ uint64_t amo(const State& s, int pe, size_t roff, AmoOp op, unsigned width, uint64_t v, uint64_t c,
                               const char* call) {
    const Target t = target(s, pe);
    if (width == 8) {
        if (op == AmoOp::fetch) return atomic64(s, t, pe, roff, false, 0, 0, call);
        if (op == AmoOp::add || op == AmoOp::fetch_add) return atomic64(s, t, pe, roff, false, v, 0, call);
        if (op == AmoOp::cswap) return atomic64(s, t, pe, roff, true, v, c, call);
    }
    // A compare-swap loop on the 8-byte word holding the operand (little-endian: a 4-byte value
    // at offset 4 of the word is its high half).
    const size_t word = roff & ~size_t{7};
    const uint64_t first = atomic64(s, t, pe, word, false, 0, 0, call);
    return amo_by_cas(op, width, static_cast<unsigned>(roff - word) * 8, first, v, c,
                      [&](uint64_t expect, uint64_t want) { return atomic64(s, t, pe, word, true, want, expect, call); });
}

// Data, then the signal on the same QP (set: 8-byte inline write; add: fetch-add).
static __device__ __noinline__ void put_signal(const State& s, int pe, size_t roff, const void* src, size_t n, size_t sig_off,
                                  uint64_t value, int op, const char* call, bool nbi) {
    const Target t = target(s, pe);
    uint32_t last = 0;
    const bool wait_source = n != 0 && post_put(t, s, roff, src, n, &last) && !nbi;
    if (op == 0) last = post(t, wait_source, InlineValue{t.qp, sig_off, value, 8});
    else last = post(t, wait_source, Atomic{t, sig_off, false, value, 0});
    if (wait_source) wait(s, t, last, pe, call);  // the source is reusable on return
}

// Every WQE posted to any QP of this PE before the call is complete: the calling thread's own
// (its CTA's QPs), and those of other CTAs that it may have synchronized with (a grid sync, then
// one block's barrier, must find every block's puts delivered). An idle QP costs two loads.
static __device__ __noinline__ void quiet(const State& s) {
    for (int pe = 0; pe < s.n_pes; ++pe) {
        if (pe == s.my_pe) continue;
        for (int slot = 0; slot < s.ibgda_qps_per_pe; ++slot) {
            const Target t = target(s, pe, slot);
            if (t.qp.sq == nullptr) continue;
            Patience p;
            const uint32_t e = ::kishmem::device::ibgda::quiet<Share::gpu>(t.qp, [&](uint32_t cons) {
                p.tick(s, [&](const char* what, double sec) {
                    printf("kishmem: PE %d: shmem_quiet (device, block %d thread %d): %s after %.1f s for the NIC to "
                           "complete the WQEs to PE %d (QP %d: completed up to %u): is the NIC (or its host thread) "
                           "alive?\n",
                           s.my_pe, blockIdx.x, threadIdx.x, what, sec, pe, slot, cons);
                });
            });
            if (e != 0) trap_wqe(s, "shmem_quiet", pe, t);
        }
    }
}

}  // namespace kishmem::device::ibgda

#endif  // __CUDACC__
