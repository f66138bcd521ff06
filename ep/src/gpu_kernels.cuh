// The GPU form's kernels (buffer on a GPU heap). Peers are reached with the device API
// (shmem_ptr / shmemx_putmem_nbi_warp / atomics), so each one by the path the runtime chose.
//
// Dispatch: rows are reserved by one fetch-add per (block, expert) at the expert's PE, issued
// before the top-k check so that the round trips overlap; a block reads each of its tokens once
// (16 channels per thread), quantizes it once and stores it to each of its rows (mapped peers; a
// block takes whole tokens, or with fewer tokens than blocks a share of a token's K rows)
// or stages it once and puts it (peers reached by IBGDA or the proxy): per remote entry the
// row, its scales (FP8) and its SrcInfo, three work requests (docs/ep-protocol.md says why not fewer).
// Arrival: a receiver's arrive[kind][sender] grows by kArriveUnit per round once everything the
// sender sent is visible: every block adds 1 to mapped receivers after its own rows (block 0
// adds 1 + kArriveUnit - blocks, after the round's flag word), and the last block adds
// kArriveUnit to receivers reached remotely after every block's quiet.
// Combine: where expert_out lies in the symmetric heap and the token's PE maps the expert's PE,
// nothing moves at send time: the sender publishes where its expert_out is (comb_off) and the
// token's PE reads the rows itself while it reduces (pull); otherwise rows are pushed to
// comb_recv as in the CPU form.
#pragma once

#include <cuda_runtime.h>
#include <shmem.h>
#include <shmemx.h>

#include <climits>

#include "clock.cuh"
#include "internal.h"
#include "kishmem/ep/numerics.h"
#include "prof.cuh"
#include "signal.cuh"

namespace kishmem::ep::gpu {

constexpr int kThreads = 512;      // send blocks
constexpr int kWarps = kThreads / 32;
constexpr int kMaxEntries = 1024;  // (token, k) entries one send block handles
constexpr int kMaxExperts = 4096;
constexpr int kMaxK = 16;
constexpr int kRecvThreads = 512;  // combine receive block
constexpr int kDispatch = kArriveDispatch, kCombine = kArriveCombine, kRead = kArriveRead;

struct Args {
    Layout l;
    char* base;         // this PE's block
    ErrorRecord* err;   // host-mapped
    unsigned long long* clock;  // this call's two kernel clock stamps (clock.cuh), or null: off
};

// The first error of the buffer wins; the code is written last.
__device__ inline void record_error(ErrorRecord* e, int code, int token, int k, int from_pe, long long value) {
    if (atomicCAS(&e->code, 0, -1) != 0) return;
    e->token = token;
    e->k = k;
    e->from_pe = from_pe;
    e->value = value;
    __threadfence_system();
    *reinterpret_cast<volatile int*>(&e->code) = code;
}

__device__ inline uint32_t pack_e4m3x4(const float* f, float inv) {
    return float_to_e4m3(f[0] * inv) | float_to_e4m3(f[1] * inv) << 8 | float_to_e4m3(f[2] * inv) << 16 |
           static_cast<uint32_t>(float_to_e4m3(f[3] * inv)) << 24;
}

// n16 16-byte words from src to dst by one warp, kU words per lane in flight.
__device__ inline void copy_row(const uint4* src, uint4* dst, int n16) {
    constexpr int kU = 8;
    const int lane = threadIdx.x & 31;
    for (int b = 0; b < n16; b += kU * 32) {
        uint4 r[kU];
#pragma unroll
        for (int u = 0; u < kU; ++u) {
            const int i = b + u * 32 + lane;
            if (i < n16) r[u] = __ldg(src + i);
        }
#pragma unroll
        for (int u = 0; u < kU; ++u) {
            const int i = b + u * 32 + lane;
            if (i < n16) dst[i] = r[u];
        }
    }
}

// FP8 of 16 channels (two 16-byte words of bf16): the 16 bytes, and this lane's group's
// scale (the group is the 8 lanes of 128 channels; every lane of the warp must call it).
__device__ inline uint4 quantize16(uint4 lo, uint4 hi, float* scale) {
    const uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    float f[16];
    float amax = 0.0f;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        f[2 * i] = bf16_to_float(w[i] & 0xffff);
        f[2 * i + 1] = bf16_to_float(w[i] >> 16);
        amax = fmaxf(amax, fmaxf(fabsf(f[2 * i]), fabsf(f[2 * i + 1])));
    }
    amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, 1));
    amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, 2));
    amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, 4));
    const float inv = group_inv_scale(amax);
    *scale = group_scale(amax);
    return make_uint4(pack_e4m3x4(f, inv), pack_e4m3x4(f + 4, inv), pack_e4m3x4(f + 8, inv), pack_e4m3x4(f + 12, inv));
}

// Tell every receiver that this block's part of the round is visible (warp 0, after the block's
// __syncthreads; every lane returns the same). Mapped receivers, a lane each: add 1 (block 0:
// 1 + kArriveUnit - blocks, after `word` = value). Receivers reached remotely: the last block,
// after every block's quiet, writes `word` and adds kArriveUnit. Returns whether this block was
// the last one.
__device__ inline bool arrive_all(const Args& a, int kind, uint64_t* word, uint64_t value, uint32_t* done) {
    const Layout& l = a.l;
    const bool first = blockIdx.x == 0;
    uint32_t count = 0;
    const bool remote =
        arrive_mapped(l, a.base, kind, first ? word : nullptr, value, first ? 1 + kArriveUnit - gridDim.x : 1, done, &count);
    if (count != gridDim.x - 1) return false;
    if ((threadIdx.x & 31u) == 0) {
        *done = 0;
        if (remote) {  // after every block's quiet (each counted itself after its own)
            const int* pe_of = View{a.base}.pe_of(l);
            for (int r = 0; r < l.npes; ++r)
                if (!shmem_ptr(a.base, pe_of[r])) arrive_at(l, a.base, kind, word, value, kArriveUnit, pe_of[r]);
            shmem_quiet();
        }
    }
    __syncwarp();
    return true;
}

// Wait (whole block) until every sender's arrive[kind] reached round * kArriveUnit.
__device__ inline void wait_arrivals(const Args& a, int kind, uint64_t round) {
    const View v{a.base};
    uint64_t* arrive = v.arrive(a.l) + kind * a.l.npes;
    for (int r = threadIdx.x; r < a.l.npes; r += blockDim.x) shmem_uint64_wait_until(arrive + r, SHMEM_CMP_GE, round * kArriveUnit);
    __syncthreads();
}

// After wait_arrivals (whole block): the world PE of the first sender (in team rank order)
// whose flag word carries kBadInputBit, or -1.
__device__ inline int first_bad_sender(const Args& a, const uint64_t* flags) {
    __shared__ int s_first;
    if (threadIdx.x == 0) s_first = INT_MAX;
    __syncthreads();
    for (int r = threadIdx.x; r < a.l.npes; r += blockDim.x)
        if (*reinterpret_cast<const volatile uint64_t*>(flags + r) & kBadInputBit) atomicMin(&s_first, r);
    __syncthreads();
    return s_first == INT_MAX ? -1 : View{a.base}.pe_of(a.l)[s_first];
}

// The receive of dispatch, by one block: waits for every sender, then takes the row counts
// (resetting the counter of this round's parity) and advances the round.
__device__ inline void dispatch_finish(const Args& a) {
    const Layout& l = a.l;
    const View v{a.base};
    LocalState* st = v.local(l);
    const uint64_t round = *reinterpret_cast<volatile uint64_t*>(&st->round) + 1;
    const int parity = static_cast<int>(round & 1);
    wait_arrivals(a, kDispatch, round);
    KISHMEM_EP_PROF(kProfDispatch, round, 6);
    // A thread's first count is taken (and reset) while the senders' flags are read: one round
    // trip to memory for both, not one after the other.
    int* counter = v.counter(l) + parity * l.L;
    const int le0 = static_cast<int>(threadIdx.x);
    const int c0 = le0 < l.L ? atomicExch(counter + le0, 0) : 0;
    const int bad_from = first_bad_sender(a, v.disp_flag(l));
    for (int le = le0; le < l.L; le += blockDim.x) {
        const int c = le == le0 ? c0 : atomicExch(counter + le, 0);
        v.recv_count(l)[le] = bad_from >= 0 ? 0 : c;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        if (bad_from >= 0) record_error(a.err, kErrPeerBad, -1, -1, bad_from, static_cast<long long>(round));
        KISHMEM_EP_PROF(kProfDispatch, round, 7);
        *reinterpret_cast<volatile uint64_t*>(&st->round) = round;
    }
}

// The first 32 bytes of bf16 this thread reads of token row xt (what send_token's first pass
// takes): loaded before anything else, so that the loads are in flight during the check.
struct Prefetch {
    uint4 w[2];
};
__device__ inline Prefetch prefetch_row(const Layout& l, const uint16_t* xt) {
    const uint4* r = reinterpret_cast<const uint4*>(xt);
    const int c = threadIdx.x;
    Prefetch p{};
    if (l.G) {
        if (c < l.H / 16) p.w[0] = __ldg(r + 2 * c), p.w[1] = __ldg(r + 2 * c + 1);
    } else {
        if (c < l.H / 8) p.w[0] = __ldg(r + c);
        if (c + static_cast<int>(blockDim.x) < l.H / 8) p.w[1] = __ldg(r + c + blockDim.x);
    }
    return p;
}

// Dispatch of token t's entries kb..ke-1 by the whole block. ent/rank: this block's entries
// (expert or -1, rank within the expert among this block's entries), (t, k) at first + k; base:
// the block's first row per expert; pf: this thread's first words of the row when `have_pf`.
struct TokenPart {
    int t, kb, ke, first;
};
__device__ inline void send_token(const Args& a, const uint16_t* x, TokenPart tp, const int* ent, const int* rank, const int* base,
                                  uint64_t round, const Prefetch& pf, bool have_pf) {
    const Layout& l = a.l;
    const View v{a.base};
    const int K = l.K;
    const size_t row = static_cast<size_t>(l.H) * l.xb;
    __shared__ uint8_t* s_row[kMaxK];
    __shared__ float* s_sc[kMaxK];
    __shared__ int s_slot[kMaxK], s_pe[kMaxK];
    __shared__ int s_remote;
    if (threadIdx.x == 0) s_remote = 0;
    __syncthreads();
    const int t = tp.t;
    if (threadIdx.x < K) {
        const int k = threadIdx.x;
        const bool mine = k >= tp.kb && k < tp.ke;  // (another block stores the token's other rows)
        const int e = mine ? ent[tp.first + k] : -1;
        const int slot = e >= 0 ? (e % l.L) * l.R + base[e] + rank[tp.first + k] : -1;
        const int pe = e >= 0 ? v.pe_of(l)[e / l.L] : -1;
        if (mine) v.entry(l)[static_cast<size_t>(t) * K + k] = Entry{e >= 0 ? e / l.L : -1, slot};
        char* pb = e >= 0 ? static_cast<char*>(shmem_ptr(a.base, pe)) : nullptr;
        s_row[k] = pb ? View{pb}.recv_x(l) + slot * row : nullptr;
        s_sc[k] = pb && l.G ? View{pb}.recv_scales(l) + static_cast<size_t>(slot) * l.G : nullptr;
        s_slot[k] = slot;
        s_pe[k] = pe;
        if (pb) *reinterpret_cast<int4*>(View{pb}.recv_src(l) + slot) = make_int4(l.me, t, k, static_cast<int>(round));
        if (e >= 0 && !pb) atomicOr(&s_remote, 1);
    }
    __syncthreads();
    const bool stage = s_remote != 0;
    const uint4* xt = reinterpret_cast<const uint4*>(x + static_cast<size_t>(t) * l.H);
    uint4* sx = reinterpret_cast<uint4*>(v.send_x(l) + t * row);
    float* ss = v.send_scales(l) + static_cast<size_t>(t) * l.G;
    if (l.G) {
        const int n16 = l.H / 16;  // a thread per 16 channels; whole warps take part (the scale's shuffles)
        for (int c0 = 0; c0 < n16; c0 += blockDim.x) {
            const int c = c0 + threadIdx.x;
            const bool on = c < n16;
            const bool pre = have_pf && c0 == 0;
            const uint4 lo = pre ? pf.w[0] : on ? __ldg(xt + 2 * c) : make_uint4(0, 0, 0, 0);
            const uint4 hi = pre ? pf.w[1] : on ? __ldg(xt + 2 * c + 1) : make_uint4(0, 0, 0, 0);
            float scale;
            const uint4 q = quantize16(lo, hi, &scale);
            if (!on) continue;
            const bool lead = (threadIdx.x & 7) == 0;
#pragma unroll 4
            for (int k = 0; k < K; ++k) {
                if (uint8_t* d = s_row[k]) {
                    reinterpret_cast<uint4*>(d)[c] = q;
                    if (lead) s_sc[k][c / 8] = scale;
                }
            }
            if (stage) {
                sx[c] = q;
                if (lead) ss[c / 8] = scale;
            }
        }
    } else {
        const int n8 = l.H / 8;  // a thread per 8 channels (16 bytes)
        for (int c = threadIdx.x, i = 0; c < n8; c += blockDim.x, ++i) {
            // (pf's words by constant index only: an index known at run time would put pf in local
            // memory, whose store at the kernel's start waits for the prefetch's loads to return)
            const uint4 w = have_pf && i < 2 ? (i == 0 ? pf.w[0] : pf.w[1]) : __ldg(xt + c);
#pragma unroll 4
            for (int k = 0; k < K; ++k)
                if (uint8_t* d = s_row[k]) reinterpret_cast<uint4*>(d)[c] = w;
            if (stage) sx[c] = w;
        }
    }
    if (!stage) return;
    __syncthreads();  // (blocks that share the token stage the same bytes: each puts from its own stores)
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int k = warp; k < K; k += kWarps) {
        if (s_pe[k] < 0 || s_row[k]) continue;
        const int pe = s_pe[k];
        const size_t slot = static_cast<size_t>(s_slot[k]);
        shmemx_putmem_nbi_warp(v.recv_x(l) + slot * row, sx, row, pe);
        if (l.G) shmemx_putmem_nbi_warp(v.recv_scales(l) + slot * l.G, ss, l.G * sizeof(float), pe);
        if (lane == 0) {  // the SrcInfo as one 16-byte put (one work request), from its staged copy
            SrcInfo* info = v.send_src(l) + static_cast<size_t>(t) * K + k;
            *info = SrcInfo{l.me, t, k, static_cast<int32_t>(round)};
            shmem_putmem_nbi(v.recv_src(l) + slot, info, sizeof(SrcInfo), pe);
        }
    }
}

// Dispatch send (and, with fuse_recv, its receive in the last block to finish).
template <class Idx>
__global__ void __launch_bounds__(kThreads, 1) dispatch_send(const __grid_constant__ Args a, const uint16_t* x, const Idx* idx,
                                                             int T, int per, int poison, int fuse_recv) {
    const Layout& l = a.l;
    const View v{a.base};
    LocalState* st = v.local(l);
    const int* pe_of = v.pe_of(l);
    const uint64_t round = *reinterpret_cast<volatile uint64_t*>(&st->round) + 1;
    const int parity = static_cast<int>(round & 1);
    __shared__ int s_bad, s_last;
    extern __shared__ int s_experts[];  // [2][E]: this block's entries per expert, its first row there
    int* s_cnt = s_experts;
    int* s_base = s_experts + l.E;
    __shared__ int s_ent[kMaxEntries];
    __shared__ int s_rank[kMaxEntries];
    clock_start(a.clock);
    KISHMEM_EP_PROF(kProfDispatch, round, 0);
    KISHMEM_EP_PROF(kProfDispatch, round, 5);
    // The team's PE table into this SM's L1 while the indices load: the fetch-adds' targets, the
    // rows' and the arrival's PEs are then looked up without a trip to memory each.
    for (int r = threadIdx.x * 32; r < l.npes; r += blockDim.x * 32) asm volatile("prefetch.global.L1 [%0];" ::"l"(pe_of + r));
    // This block's entries: [j0, j1) of the T x K (token, k) entries in row-major order, `per` a
    // block (GpuPath::send_blocks): whole tokens, or, with fewer tokens than blocks, a share of a
    // token's K rows, so that one token's rows are stored and announced by several SMs at once.
    const int K = l.K;
    const int j0 = min(T * K, static_cast<int>(blockIdx.x) * per), j1 = min(T * K, j0 + per), n = j1 - j0;
    const int t0 = j0 / K, t1 = n > 0 ? (j1 - 1) / K + 1 : t0;
    const bool have_pf = !poison && n > 0;
    const Prefetch pf = have_pf ? prefetch_row(l, x + static_cast<size_t>(t0) * l.H) : Prefetch{};
    if (threadIdx.x == 0) s_bad = INT_MAX;
    // 1. This block's entries, ranked within their expert, and one fetch-add per (block, expert)
    //    at the expert's PE. With few entries each thread scans them (no barrier before the
    //    fetch-adds, whose round trips then overlap the check); else shared atomics. Entries out
    //    of range are left out (the check reports them). A bad round sends no row, and every
    //    receiver drops its counts.
    const Idx* my = idx + j0;
    constexpr int kScan = 64;
    int fe = -1, fv = 0;
    if (n <= kScan) {
        if (threadIdx.x < n) {
            const int j = threadIdx.x;
            const long long ej = static_cast<long long>(my[j]);
            const int e = ej >= 0 && ej < l.E ? static_cast<int>(ej) : -1;
            int rank = 0, cnt = 0;
            for (int i = 0; i < n; ++i) {
                const bool same = static_cast<long long>(my[i]) == ej;
                rank += same && i < j;
                cnt += same;
            }
            s_ent[j] = e;
            s_rank[j] = rank;
            if (e >= 0 && rank == 0 && !poison) {
                fe = e;
                fv = shmem_int_atomic_fetch_add(v.counter(l) + parity * l.L + e % l.L, cnt, pe_of[e / l.L]);
            }
        }
    } else {
        for (int j = threadIdx.x; j < n; j += kThreads) {
            const long long e = static_cast<long long>(my[j]);
            s_ent[j] = e >= 0 && e < l.E ? static_cast<int>(e) : -1;
            if (s_ent[j] >= 0) s_cnt[s_ent[j]] = 0;
        }
        __syncthreads();
        for (int j = threadIdx.x; j < n; j += kThreads)
            if (s_ent[j] >= 0) s_rank[j] = atomicAdd(&s_cnt[s_ent[j]], 1);
        __syncthreads();
        for (int j = threadIdx.x; j < n; j += kThreads) {
            const int e = s_ent[j];
            if (e >= 0 && s_rank[j] == 0 && !poison)
                s_base[e] = shmem_int_atomic_fetch_add(v.counter(l) + parity * l.L + e % l.L, s_cnt[e], pe_of[e / l.L]);
        }
    }
    // 2. Every block checks every row (so that no block sends when any entry is bad), a thread
    //    per row: the first bad entry in row-major order.
    int bad_at = INT_MAX;
    for (int t = threadIdx.x; t < T; t += kThreads) {
        const int k = first_bad_in_row(idx + static_cast<size_t>(t) * K, K, l.E);
        if (k >= 0) bad_at = min(bad_at, t * K + k);
    }
    if (bad_at != INT_MAX) atomicMin(&s_bad, bad_at);
    __syncthreads();
    KISHMEM_EP_PROF(kProfDispatch, round, 1);
    if (fe >= 0) s_base[fe] = fv;
    __syncthreads();
    KISHMEM_EP_PROF(kProfDispatch, round, 2);
    const bool bad = poison || s_bad != INT_MAX;
    // 3. The rows, a token at a time.
    if (!bad)
        for (int t = t0; t < t1; ++t)
            send_token(a, x, TokenPart{t, max(j0 - t * K, 0), min(j1 - t * K, K), t * K - j0}, s_ent, s_rank, s_base, round, pf,
                       have_pf && t == t0);
    __syncthreads();
    KISHMEM_EP_PROF(kProfDispatch, round, 3);
    // 4. Arrival at every PE (the flag word carries the bad-input bit).
    if (threadIdx.x < 32) {
        if (threadIdx.x == 0 && blockIdx.x == 0 && s_bad != INT_MAX && !poison) {
            const long long e = static_cast<long long>(idx[s_bad]);
            record_error(a.err, e < -1 || e >= l.E ? kErrIndex : kErrDuplicate, s_bad / K, s_bad % K, -1, e);
        }
        const bool last = arrive_all(a, kDispatch, v.disp_flag(l) + l.me, round | (bad ? kBadInputBit : 0), &st->done_dispatch);
        if (threadIdx.x == 0) s_last = last;
        KISHMEM_EP_PROF(kProfDispatch, round, 4);
    }
    __syncthreads();
    if (fuse_recv && s_last) dispatch_finish(a);
    clock_end(a.clock);
}

// The receive hook of dispatch: one block.
__global__ void dispatch_recv(const __grid_constant__ Args a) {
    clock_start(a.clock);
    dispatch_finish(a);
    clock_end(a.clock);
}

// Combine's send part, by every block of the kernel. eo_off: expert_out - this PE's block
// (in the symmetric heap), or kNoOff: pushed. Mapped receivers of a symmetric expert_out are
// told where it is by block 0 at once (they pull); the rest get the rows in comb_recv.
constexpr long long kNoOff = LLONG_MIN;
__device__ inline void combine_push(const Args& a, const uint16_t* eo, long long eo_off, int wait_reads, uint64_t round) {
    const Layout& l = a.l;
    const View v{a.base};
    LocalState* st = v.local(l);
    const int* pe_of = v.pe_of(l);
    const bool pull = eo_off != kNoOff;
    __shared__ int s_pre[kMaxExperts + 1];
    __shared__ int s_unmapped;
    KISHMEM_EP_PROF(kProfCombineSend, round, 0);
    KISHMEM_EP_PROF(kProfCombineSend, round, 4);
    if (threadIdx.x < 32) {  // warp 0: a lane per PE
        bool unmapped = false;
        for (int r = threadIdx.x; r < l.npes; r += 32) unmapped |= shmem_ptr(a.base, pe_of[r]) == nullptr;
        unmapped = __any_sync(0xffffffffu, unmapped);
        if (threadIdx.x == 0) s_unmapped = unmapped;
        KISHMEM_EP_PROF(kProfCombineSend, round, 5);
        if (blockIdx.x == 0) {
            if (threadIdx.x == 0) st->wait_reads = wait_reads;
            // Where this round's expert_out is for every mapped PE (0: pushed), ordered before
            // block 0's arrival by arrive_mapped's release adds (each lane writes both at its PEs).
            // With every PE mapped and expert_out symmetric nothing moves: the arrival follows at
            // once (expert_out is complete in stream order). Otherwise the arrivals wait for every
            // block's rows, so that no PE starts its next dispatch (which rewrites recv_src) while
            // a block still reads it.
            // This relies on mapping being mutual (A maps B exactly when B maps A: routes.cpp decides
            // load/store per pair, and init refuses PEs whose KISHMEM_REMOTE differ: reliability.gone.remote_init): a PE that this one
            // maps but that does not map it back would find an offset it cannot use and read
            // comb_recv, which nobody filled for it.
            const uint64_t off = pull ? (static_cast<uint64_t>(eo_off) + kOffBias) | (wait_reads ? kWaitsReadBit : 0) : 0;
            for (int r = threadIdx.x; r < l.npes; r += 32)
                if (shmem_ptr(a.base, pe_of[r])) shmem_uint64_p(v.comb_off(l) + l.me, off, pe_of[r]);
            KISHMEM_EP_PROF(kProfCombineSend, round, 6);
            if (pull && !unmapped) arrive_mapped(l, a.base, kCombine, v.comb_flag(l) + l.me, round, kArriveUnit);
            KISHMEM_EP_PROF(kProfCombineSend, round, 7);
        }
    }
    for (int le = threadIdx.x; le < l.L; le += blockDim.x) s_pre[le + 1] = v.recv_count(l)[le];
    __syncthreads();
    const bool rows = !pull || s_unmapped;
    if (rows) {
        if (threadIdx.x == 0) {
            s_pre[0] = 0;
            for (int le = 0; le < l.L; ++le) s_pre[le + 1] += s_pre[le];
        }
        __syncthreads();
        KISHMEM_EP_PROF(kProfCombineSend, round, 1);
        const int n = s_pre[l.L], warp = threadIdx.x / 32;
        const int gw = blockIdx.x * (blockDim.x / 32) + warp, nw = gridDim.x * (blockDim.x / 32);
        // Mapped receivers by every warp (none when they pull); the others through the staging
        // rows, one per warp, by the first stage_rows warps.
        const int step_remote = nw < l.stage_rows ? nw : l.stage_rows;
        for (int pass = 0; pass < 2; ++pass) {
            const bool remote = pass == 1;
            if (remote && (!s_unmapped || gw >= step_remote)) break;
            if (!remote && pull) continue;
            for (int item = gw; item < n; item += remote ? step_remote : nw) {
                int lo = 0, hi = l.L - 1;  // the expert whose rows hold item: s_pre[lo] <= item < s_pre[lo + 1]
                while (lo < hi) {
                    const int mid = (lo + hi + 1) / 2;
                    if (s_pre[mid] <= item) lo = mid;
                    else hi = mid - 1;
                }
                const size_t slot = static_cast<size_t>(lo) * l.R + (item - s_pre[lo]);
                const SrcInfo s = v.recv_src(l)[slot];
                const int pe = pe_of[s.pe];
                uint16_t* dst = v.comb_recv(l) + (static_cast<size_t>(s.token) * l.K + s.k) * l.H;
                const uint16_t* src = eo + slot * l.H;
                void* pd = shmem_ptr(dst, pe);
                if (!remote && pd) {
                    copy_row(reinterpret_cast<const uint4*>(src), static_cast<uint4*>(pd), l.H / 8);
                } else if (remote && !pd) {
                    uint16_t* stage = v.stage(l) + static_cast<size_t>(gw) * l.H;
                    copy_row(reinterpret_cast<const uint4*>(src), reinterpret_cast<uint4*>(stage), l.H / 8);
                    __syncwarp();
                    shmemx_putmem_warp(dst, stage, static_cast<size_t>(l.H) * 2, pe);  // blocking: the row is reused next
                }
            }
        }
    }
    __syncthreads();
    KISHMEM_EP_PROF(kProfCombineSend, round, 2);
    if (threadIdx.x < 32 && rows) arrive_all(a, kCombine, v.comb_flag(l) + l.me, round, &st->done_combine);
    KISHMEM_EP_PROF(kProfCombineSend, round, 3);
}

// Combine's receive, by every block of the kernel: waits for every sender, then out[t] = sum_k
// w[t][k] * row(t, k) (fused multiply-adds in k order, as the CPU form), row (t, k) read from the
// expert's PE (pull) or from comb_recv. A block takes tokens blockIdx.x, + gridDim.x, ..., up to
// kReduceChunk at a time (with fewer tokens than blocks, a share of one token's channels: the
// blocks of a token then read its rows in one round of loads a thread): first where each of their
// rows is (a thread per (token, k); the first chunk's entries before the wait), then a thread per
// (token, 8 channels) of them all, with no barrier between tokens (a setup, a barrier and two
// passes per token reduced 128 tokens at 4 PEs in ~27 us on one H200, this in ~25; two items per
// thread in flight read no faster than one).
constexpr int kReduceChunk = 8;
static_assert(kReduceChunk * kMaxK <= kRecvThreads, "combine_reduce sets up a chunk with a thread per (token, k)");
__device__ inline void combine_reduce(const Args& a, const float* w, uint16_t* out, int T, bool wait_reads) {
    const Layout& l = a.l;
    const View v{a.base};
    const uint64_t round = v.local(l)->round;
    __shared__ const uint4* s_src[kReduceChunk][kMaxK];
    __shared__ float s_w[kReduceChunk][kMaxK];
    KISHMEM_EP_PROF(kProfCombineRecv, round, 0);
    KISHMEM_EP_PROF(kProfCombineRecv, round, 3);
    const int K = l.K, C = l.H / 8;
    // With fewer tokens than blocks (GpuPath::combine_blocks) `parts` blocks share each token:
    // block b sums channels [c0, c0 + nc) (8 a thread) of tokens bt = b % tb, bt + tb, ...
    const int parts = T > 0 && static_cast<int>(gridDim.x) >= 2 * T ? static_cast<int>(gridDim.x) / T : 1;
    const int tb = static_cast<int>(gridDim.x) / parts, bt = static_cast<int>(blockIdx.x) % tb, part = static_cast<int>(blockIdx.x) / tb;
    const int c0 = part * C / parts, nc = (part + 1) * C / parts - c0;
    // The first chunk's entries, weights and expert PEs are this PE's own (its dispatch wrote the
    // entries): loaded before the wait, so that after it only the peers' offsets and rows are read.
    // A thread per (token, k) of a chunk: kReduceChunk * kMaxK <= kRecvThreads.
    const int mine_any = bt >= T ? 0 : (T - 1 - bt) / tb + 1;
    Entry en0{-1, 0};
    float w0 = 0.0f;
    int pe0 = -1;
    if (static_cast<int>(threadIdx.x) < min(kReduceChunk, mine_any) * K) {
        const int jt = threadIdx.x / K, k = threadIdx.x - jt * K;
        const size_t j = static_cast<size_t>(bt + jt * tb) * K + k;
        en0 = v.entry(l)[j];
        if (en0.rank >= 0) w0 = w[j], pe0 = v.pe_of(l)[en0.rank];
    }
    wait_arrivals(a, kCombine, round);
    KISHMEM_EP_PROF(kProfCombineRecv, round, 1);
    // The first chunk's offsets of the peers' expert_out (their round's, published before their
    // arrival), loaded while the senders' flags are read below: one round trip for both.
    const uint64_t off0 = en0.rank >= 0 ? *reinterpret_cast<volatile uint64_t*>(v.comb_off(l) + en0.rank) : 0;
    // Warp 0 loads now whether the first 32 PEs wait for this PE's reads (their comb_off, stable
    // for the round): used only at the end, so the load overlaps the sums.
    const uint64_t off_first =
        threadIdx.x < 32 && static_cast<int>(threadIdx.x) < l.npes ? *reinterpret_cast<volatile uint64_t*>(v.comb_off(l) + threadIdx.x) : 0;
    const int bad_from = first_bad_sender(a, v.comb_flag(l));  // a PE that refused its combine (gpu_refuse.cu)
    if (bad_from >= 0 && blockIdx.x == 0 && threadIdx.x == 0)
        record_error(a.err, kErrPeerBadCombine, -1, -1, bad_from, static_cast<long long>(round));
    const int mine = bad_from >= 0 ? 0 : mine_any;  // this block's tokens
    for (int j0 = 0; j0 < mine; j0 += kReduceChunk) {
        const int nt = min(kReduceChunk, mine - j0);
        if (static_cast<int>(threadIdx.x) < nt * K) {
            const int jt = threadIdx.x / K, k = threadIdx.x - jt * K;
            const size_t j = static_cast<size_t>(bt + (j0 + jt) * tb) * K + k;
            const Entry en = j0 == 0 ? en0 : v.entry(l)[j];
            const uint4* src = nullptr;
            if (en.rank >= 0) {
                const uint64_t off = j0 == 0 ? off0 : *reinterpret_cast<volatile uint64_t*>(v.comb_off(l) + en.rank);
                const int pe = j0 == 0 ? pe0 : v.pe_of(l)[en.rank];
                char* peer_eo = off ? static_cast<char*>(shmem_ptr(a.base + static_cast<long long>((off & ~kWaitsReadBit) - kOffBias), pe))
                                    : nullptr;
                src = peer_eo ? reinterpret_cast<const uint4*>(peer_eo) + static_cast<size_t>(en.slot) * C
                              : reinterpret_cast<const uint4*>(v.comb_recv(l) + j * l.H);
            }
            s_src[jt][k] = src;
            s_w[jt][k] = src ? (j0 == 0 ? w0 : w[j]) : 0.0f;
        }
        __syncthreads();
        for (int item = threadIdx.x; item < nt * nc; item += blockDim.x) {
            const int jt = item / nc, c = c0 + item - jt * nc;
            float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            for (int k0 = 0; k0 < K; k0 += 8) {
                uint4 raw[8];
#pragma unroll
                for (int u = 0; u < 8; ++u)
                    if (k0 + u < K && s_src[jt][k0 + u]) raw[u] = __ldcg(s_src[jt][k0 + u] + c);
#pragma unroll
                for (int u = 0; u < 8; ++u) {
                    if (k0 + u >= K || !s_src[jt][k0 + u]) continue;
                    const float wk = s_w[jt][k0 + u];
                    const uint32_t wd[4] = {raw[u].x, raw[u].y, raw[u].z, raw[u].w};
#pragma unroll
                    for (int i = 0; i < 4; ++i) {
                        acc[2 * i] = __fmaf_rn(wk, bf16_to_float(wd[i] & 0xffff), acc[2 * i]);
                        acc[2 * i + 1] = __fmaf_rn(wk, bf16_to_float(wd[i] >> 16), acc[2 * i + 1]);
                    }
                }
            }
            uint4 o;
            o.x = float_to_bf16(acc[0]) | static_cast<uint32_t>(float_to_bf16(acc[1])) << 16;
            o.y = float_to_bf16(acc[2]) | static_cast<uint32_t>(float_to_bf16(acc[3])) << 16;
            o.z = float_to_bf16(acc[4]) | static_cast<uint32_t>(float_to_bf16(acc[5])) << 16;
            o.w = float_to_bf16(acc[6]) | static_cast<uint32_t>(float_to_bf16(acc[7])) << 16;
            const size_t t = static_cast<size_t>(bt + (j0 + jt) * tb);
            reinterpret_cast<uint4*>(out + t * l.H)[c] = o;
        }
        __syncthreads();
    }
    KISHMEM_EP_PROF(kProfCombineRecv, round, 2);
    // Reading is over. Only where some PE waits for this PE's reads (its comb_off carries
    // kWaitsReadBit: the caller's expert_out, read in place) do the blocks count themselves, and
    // the last one's warp 0 acknowledges to those PEs (a lane per PE); every block sees the same
    // offsets, so all count or none does (a combine of the buffer's combine_buffer: no count, no
    // acknowledgement; the count and the loads behind it cost ~2 us at the end at 4 PEs).
    // Where this PE's own expert_out was read in place and is the caller's (wait_reads), block 0
    // waits for every PE's acknowledgement (the caller may overwrite expert_out once the call is
    // done on the stream; every block is resident, so the one waiting holds nobody up).
    // No fence before the count: every load of this block has returned (its sums are stored),
    // and nothing this block wrote is for the peers (a fence here waited ~1 us for out's stores).
    if (threadIdx.x < 32) {
        LocalState* st = v.local(l);
        const int lane = static_cast<int>(threadIdx.x);
        bool waits = (off_first & kWaitsReadBit) != 0;
        for (int r = lane + 32; r < l.npes; r += 32)
            waits |= (*reinterpret_cast<const volatile uint64_t*>(v.comb_off(l) + r) & kWaitsReadBit) != 0;
        if (__any_sync(0xffffffffu, waits)) {
            unsigned last = 0;
            if (lane == 0) last = atomicAdd(&st->done_read, 1u) == gridDim.x - 1;
            if (__shfl_sync(0xffffffffu, last, 0)) {
                if (lane == 0) st->done_read = 0;
                acknowledge_read(l, a.base, round, false, lane, 32);
                KISHMEM_EP_PROF(kProfCombineRecv, round, 4);
            }
        }
        if (wait_reads && blockIdx.x == 0) {
            wait_read_acknowledged(l, a.base, round, lane, 32);
            __syncwarp();
            KISHMEM_EP_PROF(kProfCombineRecv, round, 5);
        }
    }
    KISHMEM_EP_PROF(kProfCombineRecv, round, 6);
}

// Combine send only (a send_only call; its hook is combine_recv).
__global__ void __launch_bounds__(kThreads, 1) combine_send(const __grid_constant__ Args a, const uint16_t* eo,
                                                            long long eo_off, int wait_reads) {
    clock_start(a.clock);
    combine_push(a, eo, eo_off, wait_reads, View{a.base}.local(a.l)->round);
    clock_end(a.clock);
}

// The receive hook of combine.
__global__ void __launch_bounds__(kRecvThreads) combine_recv(const __grid_constant__ Args a, const float* w, uint16_t* out,
                                                             int T) {
    clock_start(a.clock);
    combine_reduce(a, w, out, T, View{a.base}.local(a.l)->wait_reads);  // set by the send kernel
    clock_end(a.clock);
}

// Combine in one kernel: send, then receive. Every block waits for every sender, so the blocks
// stay within SMs / PEs (PEs may share the GPU): the other PEs' blocks keep room.
__global__ void __launch_bounds__(kRecvThreads) combine_all(const __grid_constant__ Args a, const uint16_t* eo,
                                                            long long eo_off, int wait_reads, const float* w, uint16_t* out,
                                                            int T) {
    clock_start(a.clock);
    combine_push(a, eo, eo_off, wait_reads, View{a.base}.local(a.l)->round);
    combine_reduce(a, w, out, T, wait_reads);
    clock_end(a.clock);
}

}  // namespace kishmem::ep::gpu
