// Device-side posting into an mlx5 send queue: reservation, WQE build, doorbell record,
// doorbell, and the CQ polling that gives slots back and implements quiet.
//
// A queue pair as a kernel sees it is a plain DeviceQp (below), filled by the host from a
// ConnectX QP (DEVX umems + UAR) or from the software NIC's views (SimQpView / SimCqView).
// Every WQE posted here is one 64-byte basic block (8-byte inline write, write/read with one
// data segment, NOP), so a slot, a BB and a WQE are the same thing and indices count all three.
//
// ---- the posting sequence ---------------------------------------------------------------------
//   1. reserve:  idx = atomicAdd(&ctr->resv, n)               (thread: n = 1; warp: lane 0, n = lanes)
//   2. room:     wait until idx + n - ctr->cons <= ring size   (cons: slots the NIC has finished;
//                the Credit policy: CqCredit polls the CQ, InstantNic is for posting benchmarks)
//   3. build:    each thread writes its WQE into slot idx (+ rank)
//   4. fence:    fence.acq_rel.sys  WQE bytes before the doorbell record (the NIC reads them
//                from GPU or host memory, outside the GPU's coherence domain)
//   5. turn:     wait until ctr->ready == idx (only when several posters share the QP, below)
//   6. dbrec:    doorbell record send word = (idx + n) & 0xffff, big-endian
//   7. fence:    fence.acq_rel.sys  doorbell record before the doorbell
//   8. doorbell: one 8-byte store of the last WQE's first ctrl qword to the UAR register
//   9. publish:  ctr->ready = idx + n (release), handing the turn to the next poster
// Warp-cooperative posting does 1, 2 and 5..9 once per warp: one reservation, one doorbell
// record update and one doorbell for up to 32 WQEs. Measured rates: docs/ibgda.md (per QP,
// about 0.8 us per warp batch and 1.6 us per single post, both bound by steps 6..8).
//
// ---- the ordering rule (why step 5 exists, and why it is never a global lock) ----------------
// The NIC trusts the doorbell record as its producer index: when it says X, every WQE below X
// must already be written, and it must never move backwards (a smaller 16-bit value reads as
// "65 000 new WQEs"). Reservation order is slot order, but posters finish building in any
// order, so a poster may only publish its end once every earlier reservation is published:
//   - exclusive: one poster at a time per QP (a QP per warp, posted warp-cooperatively, or one
//     posting thread). Step 5 is skipped; the record is monotone by construction.
//   - cta: the QP's posters all belong to one CTA (a QP per CTA, or a QP per warp whose lanes
//     post singly). Step 5 is an in-order
//     hand-off among those warps only, at CTA scope; ctr may live in shared memory (a CTA that
//     owns the QP for a whole kernel can lease the counters there, see lease_counters).
//   - gpu: posters in several CTAs (QPs shared by CTAs). Correct, but every hand-off crosses
//     L2; use it only when QPs are fewer than CTAs.
// One shared QP with an in-order hand-off across the whole GPU serialises every post (about
// 7 M posts/s measured on an H200): map QPs per CTA or per warp so a hand-off only ever waits
// on a few neighbours. The doorbell is written inside the turn, so doorbells reach the NIC in
// producer order too.
//
// ---- completions ------------------------------------------------------------------------------
// Only WQEs flagged kCtrlCqUpdate produce a CQE (plus errors, which hardware always reports).
// RC completes in order, so the CQE of WQE i means every WQE up to i is done: posters flag
// only the last WQE of a warp batch (or every 2^k-th WQE of single posts), and quiet() adds a
// signalled NOP when the last posted WQE was unsignalled. The CQ must hold at least as many
// entries as the send ring has slots (at most one CQE per outstanding slot), and the ring must
// be larger than the slots that can be reserved but unpublished at once (the QP's concurrent
// posters) plus the signalling period, or a poster could wait for credits that only a
// signalled WQE still unpublished behind it would bring.
// Polling (poll_cq) consumes CQEs, advances ctr->cons from each CQE's wqe_counter, and writes
// the CQ doorbell record so the NIC may reuse the entries; one poller per QP at a time
// (a try-lock in ctr->poll_lock). An error CQE sets ctr->error (first one wins) and still
// advances cons, so a QP in the error state drains instead of hanging its posters.
#pragma once
#if defined(__CUDACC__)
#include <stdint.h>

#include "kishmem/device/ibgda/mlx5_cqe.h"
#include "kishmem/device/ibgda/mlx5_defs.h"
#include "kishmem/device/ibgda/mlx5_wqe.h"

namespace kishmem::device::ibgda {

namespace mlx5 = kishmem::mlx5;

// Per-QP software state shared by the QP's posters. Global memory, or shared memory when the
// QP is owned by one CTA for the duration of a kernel (Share::cta). Free-running 32-bit slot
// indices; the NIC sees their low 16 bits.
struct QpCounters {
    uint32_t resv;       // next slot to reserve
    uint32_t ready;      // slots below it are in the doorbell record and the doorbell rang
    uint32_t cons;       // slots below it are completed by the NIC (reusable)
    uint32_t cq_ci;      // CQ consumer index
    uint32_t poll_lock;  // 0 free, 1 a poller is in poll_cq
    uint32_t error;      // 0, or 0x100 | syndrome of the first error CQE seen
    uint32_t error_wqe;  // that CQE's WQE: opcode << 16 | wqe_counter (written before error)
    uint64_t error_raddr;  // the remote address that WQE named (0 for a NOP)
};

// Everything a kernel needs to post to one QP (plain data; a host object's device handle).
struct DeviceQp {
    uint8_t* sq;                // send ring, 64 << log_bbs bytes, 64-byte aligned
    uint32_t log_bbs;           // ring size = 1 << log_bbs slots
    uint32_t qpn;
    volatile uint32_t* dbrec;   // QP doorbell record (word mlx5::kSndDbr is the send counter)
    volatile uint64_t* db;      // UAR / BlueFlame doorbell register (8-byte store)
    QpCounters* ctr;            // producer counter for reservation, hand-off, credits
    uint32_t lkey;              // local key for write/read data segments
    uint32_t rkey;              // target's heap key
    uint64_t remote_base;       // target heap base as the NIC addresses it
    uint8_t* cq;                // CQ buffer, 64 << log_cq bytes
    uint32_t log_cq;
    volatile uint32_t* cq_dbrec;  // CQ doorbell record (word mlx5::kCqSetCi)
};

enum class Share { exclusive, cta, gpu };

namespace detail {

__device__ __forceinline__ void fence_sys() { asm volatile("fence.acq_rel.sys;" ::: "memory"); }

template <Share S>
__device__ __forceinline__ uint32_t ld_acquire(const uint32_t* p) {
    uint32_t v;
    if constexpr (S == Share::gpu)
        asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    else
        asm volatile("ld.acquire.cta.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

template <Share S>
__device__ __forceinline__ void st_release(uint32_t* p, uint32_t v) {
    if constexpr (S == Share::gpu)
        asm volatile("st.release.gpu.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
    else
        asm volatile("st.release.cta.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

template <Share S>
__device__ __forceinline__ uint32_t fetch_add(uint32_t* p, uint32_t n) {
    if constexpr (S == Share::gpu) return atomicAdd(p, n);
    else return atomicAdd_block(p, n);
}

template <Share S>
__device__ __forceinline__ bool try_lock(uint32_t* p) {
    uint32_t old;
    if constexpr (S == Share::gpu) old = atomicCAS(p, 0u, 1u);
    else old = atomicCAS_block(p, 0u, 1u);
    if (old != 0) return false;
    if constexpr (S == Share::gpu) asm volatile("fence.acq_rel.gpu;" ::: "memory");
    else asm volatile("fence.acq_rel.cta;" ::: "memory");
    return true;
}

template <Share S>
__device__ __forceinline__ void unlock(uint32_t* p) { st_release<S>(p, 0u); }

// The 32-bit index a 16-bit wqe_counter stands for, given a lower bound within 2^16.
__device__ __forceinline__ uint32_t widen(uint32_t lower, uint16_t wc) {
    return lower + static_cast<uint16_t>(wc - static_cast<uint16_t>(lower));
}

__device__ __forceinline__ uint32_t lane_id() {
    uint32_t l;
    asm("mov.u32 %0, %%laneid;" : "=r"(l));
    return l;
}

}  // namespace detail

// ---- completions ----------------------------------------------------------------------------------

// Consume every CQE the NIC has written; advance ctr->cons past the WQEs they complete and
// release the entries through the CQ doorbell record. Caller holds ctr->poll_lock (or is
// the QP's only poller). Returns the CQEs consumed.
template <Share S>
__device__ inline uint32_t poll_cq_locked(const DeviceQp& qp) {
    QpCounters* c = qp.ctr;
    uint32_t ci = c->cq_ci;
    const uint32_t cons0 = detail::ld_acquire<S>(&c->cons);
    uint32_t cons = cons0;
    uint32_t n = 0;
    mlx5::CqeInfo e;
    while (mlx5::poll_cqe(qp.cq, qp.log_cq, ci, &e)) {
        const uint32_t done = detail::widen(cons, static_cast<uint16_t>(e.wqe_counter + 1));
        if (static_cast<int32_t>(done - cons) > 0) cons = done;
        if (mlx5::cqe_is_error(e.opcode) && *reinterpret_cast<volatile uint32_t*>(&c->error) == 0) {
            // The first error (RC completes in order: flushes come after it). Its WQE is still
            // in the ring: the slot is reused only after cons passes it, published below.
            const uint8_t* w = qp.sq + (static_cast<size_t>(e.wqe_counter & ((1u << qp.log_bbs) - 1)) << mlx5::kSendWqeShift);
            const bool has_raddr = e.wqe_opcode != mlx5::kOpNop && e.wqe_opcode != mlx5::kOpSend &&
                                   e.wqe_opcode != mlx5::kOpSendImm;
            c->error_raddr = has_raddr ? mlx5::be64(*reinterpret_cast<const volatile uint64_t*>(w + 16)) : 0;
            c->error_wqe = static_cast<uint32_t>(e.wqe_opcode) << 16 | e.wqe_counter;
            detail::st_release<S>(&c->error, 0x100u | e.syndrome);  // one poller at a time: no race
        }
        ++ci;
        ++n;
    }
    if (n != 0) {
        c->cq_ci = ci;
        mlx5::update_cq_dbrec(qp.cq_dbrec, ci);  // entries read above may now be overwritten
        if (cons != cons0) detail::st_release<S>(&c->cons, cons);
    }
    return n;
}

// One polling attempt if no other thread is polling this QP's CQ; returns ctr->cons after it.
template <Share S>
__device__ inline uint32_t poll_cq(const DeviceQp& qp) {
    if (S == Share::exclusive) {
        poll_cq_locked<S>(qp);
    } else if (detail::try_lock<S>(&qp.ctr->poll_lock)) {
        poll_cq_locked<S>(qp);
        detail::unlock<S>(&qp.ctr->poll_lock);
    }
    return detail::ld_acquire<S>(&qp.ctr->cons);
}

// Step 2: wait until slots [.., end) are free (the NIC finished what was in them before).
template <Share S>
__device__ __forceinline__ void wait_room(const DeviceQp& qp, uint32_t end) {
    const uint32_t size = 1u << qp.log_bbs;
    uint32_t cons = detail::ld_acquire<S>(&qp.ctr->cons);
    while (end - cons > size) cons = poll_cq<S>(qp);
}

// Credit policies for step 2 (a template argument of the posting functions).
// CqCredit: a real (or software) NIC; slots come back through CQ polling.
struct CqCredit {
    template <Share S>
    __device__ __forceinline__ static void room(const DeviceQp& qp, uint32_t end) {
        wait_room<S>(qp, end);
    }
};
// InstantNic: benchmarks of the posting side alone. An emulated NIC that consumes every WQE
// the moment its doorbell rings: the consumed index is ctr->ready. The check is still made
// (one acquire load and a compare per post) but never waits unless more than a ring's worth
// of slots is reserved and unpublished.
struct InstantNic {
    template <Share S>
    __device__ __forceinline__ static void room(const DeviceQp& qp, uint32_t end) {
        const uint32_t size = 1u << qp.log_bbs;
        while (end - detail::ld_acquire<S>(&qp.ctr->ready) > size) {
        }
    }
};

// ---- the post itself ------------------------------------------------------------------------------

// Steps 5..9 for WQEs [idx, idx + n) already built and fenced; dbv is the doorbell value of
// the last of them (mlx5::make_doorbell_value or mlx5::doorbell_value of its ctrl segment).
template <Share S>
__device__ __forceinline__ void publish(const DeviceQp& qp, uint32_t idx, uint32_t n, uint64_t dbv) {
    // The record/doorbell section sits inside the turn loop: a lane whose turn has come does
    // its part before leaving the loop, so lanes of one warp waiting on each other (single
    // posts) never wait at a reconvergence point for a lane that still has to publish.
    for (;;) {
        if (S == Share::exclusive || detail::ld_acquire<S>(&qp.ctr->ready) == idx) {
            mlx5::update_sq_dbrec(qp.dbrec, idx + n);
            detail::fence_sys();
            mlx5::ring_doorbell(qp.db, dbv);
            if constexpr (S == Share::exclusive) qp.ctr->ready = idx + n;
            else detail::st_release<S>(&qp.ctr->ready, idx + n);
            break;
        }
    }
}

// One WQE by the calling thread. build(void* slot, const mlx5::WqeHeader&, uint32_t idx)
// writes a one-BB WQE and returns its doorbell value. fm_ce_se goes into its header; with
// signal_every = 2^k > 0, the WQEs whose index is k-aligned minus one (every 2^k-th slot) are
// also flagged kCtrlCqUpdate, so CQ credits keep coming without a CQE per post.
template <Share S, class Credit = CqCredit, class Build>
__device__ __forceinline__ uint32_t post_thread(const DeviceQp& qp, uint8_t fm_ce_se, uint32_t signal_every,
                                                Build build) {
    const uint32_t idx = detail::fetch_add<S>(&qp.ctr->resv, 1u);
    Credit::template room<S>(qp, idx + 1);
    if (signal_every != 0 && ((idx + 1) & (signal_every - 1)) == 0) fm_ce_se |= mlx5::kCtrlCqUpdate;
    const mlx5::WqeHeader h{static_cast<uint16_t>(idx), qp.qpn, fm_ce_se};
    void* slot = qp.sq + (static_cast<size_t>(idx & ((1u << qp.log_bbs) - 1)) << mlx5::kSendWqeShift);
    const uint64_t dbv = build(slot, h, idx);
    detail::fence_sys();
    publish<S>(qp, idx, 1, dbv);
    return idx;
}

// One WQE per lane of `mask` (every lane of it calls, converged), one reservation, one doorbell
// record update and one doorbell for all of them. The last lane's WQE carries last_flags, the
// others flags; with signal_every = 2^k > 0 the last one is also signalled when the batch
// covers a slot post_thread would have signalled (CQ credits keep coming). Returns this lane's
// slot index.
template <Share S, class Credit = CqCredit, class Build>
__device__ __forceinline__ uint32_t post_group(const DeviceQp& qp, uint32_t mask, uint8_t flags, uint8_t last_flags,
                                               uint32_t signal_every, Build build) {
    const uint32_t lane = detail::lane_id();
    const uint32_t leader = __ffs(mask) - 1;
    const uint32_t last = 31 - __clz(mask);
    const uint32_t n = __popc(mask);
    const uint32_t rank = __popc(mask & ((1u << lane) - 1));
    uint32_t base = 0;
    if (lane == leader) {
        base = detail::fetch_add<S>(&qp.ctr->resv, n);
        Credit::template room<S>(qp, base + n);
    }
    base = __shfl_sync(mask, base, leader);
    const uint32_t idx = base + rank;
    uint8_t f = lane == last ? last_flags : flags;
    if (lane == last && signal_every != 0 && ((base + n) / signal_every) != (base / signal_every))
        f |= mlx5::kCtrlCqUpdate;
    const mlx5::WqeHeader h{static_cast<uint16_t>(idx), qp.qpn, f};
    void* slot = qp.sq + (static_cast<size_t>(idx & ((1u << qp.log_bbs) - 1)) << mlx5::kSendWqeShift);
    const uint64_t mine = build(slot, h, idx);
    detail::fence_sys();  // one warp-wide instruction: every lane's WQE before the record
    const uint64_t dbv = __shfl_sync(mask, mine, last);
    if (lane == leader) publish<S>(qp, base, n, dbv);
    __syncwarp(mask);
    return idx;
}

// post_group over the active lanes (the warp-cooperative post of the benchmarks).
template <Share S, class Credit = CqCredit, class Build>
__device__ __forceinline__ uint32_t post_warp(const DeviceQp& qp, uint8_t flags, uint8_t last_flags, Build build) {
    return post_group<S, Credit>(qp, __activemask(), flags, last_flags, 0, build);
}

// ---- builders for the common WQEs (pass to post_thread / post_warp) -------------------------------

// Inline RDMA write of the low n (1..8) bytes of value to remote_base + roff (shmem_p).
struct InlineValue {
    const DeviceQp& qp;
    uint64_t roff;
    uint64_t value;
    uint32_t n;
    __device__ __forceinline__ uint64_t operator()(void* slot, const mlx5::WqeHeader& h, uint32_t) const {
        mlx5::build_rdma_write_inline_value(slot, h, mlx5::RemoteRef{qp.remote_base + roff, qp.rkey}, value, n);
        return mlx5::make_doorbell_value(mlx5::kOpRdmaWrite, h.wqe_idx, h.qpn, 3);
    }
};

// RDMA write of len bytes from registered local memory (laddr, qp.lkey) to remote_base + roff.
struct WriteData {
    const DeviceQp& qp;
    uint64_t roff;
    uint64_t laddr;
    uint32_t len;
    __device__ __forceinline__ uint64_t operator()(void* slot, const mlx5::WqeHeader& h, uint32_t) const {
        mlx5::build_rdma_write(slot, h, mlx5::RemoteRef{qp.remote_base + roff, qp.rkey},
                               mlx5::LocalRef{laddr, qp.lkey}, len);
        return mlx5::make_doorbell_value(mlx5::kOpRdmaWrite, h.wqe_idx, h.qpn, len != 0 ? 3 : 2);
    }
};

struct Nop {
    __device__ __forceinline__ uint64_t operator()(void* slot, const mlx5::WqeHeader& h, uint32_t) const {
        mlx5::build_nop(slot, h);
        return mlx5::make_doorbell_value(mlx5::kOpNop, h.wqe_idx, h.qpn, 1);
    }
};

// Convenience wrappers: 8-byte put of value to remote_base + roff.
template <Share S, class Credit = CqCredit>
__device__ __forceinline__ uint32_t put8_thread(const DeviceQp& qp, uint64_t roff, uint64_t value,
                                                uint32_t signal_every) {
    return post_thread<S, Credit>(qp, 0, signal_every, InlineValue{qp, roff, value, 8});
}

template <Share S, class Credit = CqCredit>
__device__ __forceinline__ uint32_t put8_warp(const DeviceQp& qp, uint64_t roff, uint64_t value) {
    return post_warp<S, Credit>(qp, 0, mlx5::kCtrlCqUpdate, InlineValue{qp, roff, value, 8});
}

// ---- quiet ----------------------------------------------------------------------------------------

// Wait until every WQE published to this QP so far is completed. Called by one thread after
// the QP's posters are done (e.g. after __syncthreads for a per-CTA QP). If the last published
// WQE was not signalled, a signalled NOP is posted so that a CQE covers it. Returns
// ctr->error (0 when every completion was a success).
// on_spin(completed) runs on each unsuccessful poll (the device backend says there what it waits
// for when it takes too long: kishmem/device/patience.h).
struct NoSpin {
    __device__ __forceinline__ void operator()(uint32_t) const {}
};
template <Share S, class OnSpin = NoSpin>
__device__ inline uint32_t quiet(const DeviceQp& qp, OnSpin on_spin = {}) {
    uint32_t target = detail::ld_acquire<S>(&qp.ctr->ready);
    if (static_cast<int32_t>(target - detail::ld_acquire<S>(&qp.ctr->cons)) > 0) {
        const uint8_t* ctrl = qp.sq + (static_cast<size_t>((target - 1) & ((1u << qp.log_bbs) - 1)) << mlx5::kSendWqeShift);
        const uint8_t fm_ce_se = *reinterpret_cast<const volatile uint8_t*>(ctrl + 11);
        if ((fm_ce_se & mlx5::kCtrlCqUpdate) == 0) target = post_thread<S>(qp, mlx5::kCtrlCqUpdate, 0, Nop{}) + 1;
    }
    for (uint32_t cons; static_cast<int32_t>(target - (cons = poll_cq<S>(qp))) > 0;) on_spin(cons);
    return *reinterpret_cast<volatile uint32_t*>(&qp.ctr->error);
}

// ---- counters in shared memory --------------------------------------------------------------------

// For a CTA that owns its QP for a whole kernel: thread 0 copies the counters into `local`
// (a __shared__ QpCounters), and every thread gets a DeviceQp pointing at them (post with
// Share::cta). release_counters writes them back; both include __syncthreads.
__device__ inline DeviceQp lease_counters(const DeviceQp& qp, QpCounters* local) {
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) *local = *qp.ctr;
    __syncthreads();
    DeviceQp q = qp;
    q.ctr = local;
    return q;
}

__device__ inline void release_counters(const DeviceQp& global, const QpCounters* local) {
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) *global.ctr = *local;
}

}  // namespace kishmem::device::ibgda

#endif  // __CUDACC__
