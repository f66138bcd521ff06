// The GPU form's kernels (buffer on a GPU heap). Same protocol as the CPU form (host_path.cpp):
// rows reserved by one fetch-add per (block, expert) at the expert's PE, data written by warps,
// one flag per (sender, receiver) per round after every block's quiet. Peers are reached with
// the device API (shmem_ptr / shmemx_putmem_nbi_warp / atomics), so each one by the path the
// runtime chose for it.
//
// Where a peer is mapped (load/store), a warp moves one row at a time with 16-byte loads and
// stores, several in flight per lane, and dispatch quantizes straight into the peer's row (no
// staging copy, no block barrier per token). Where it is not, the row is staged in this PE's
// heap and put through the device API (IBGDA or the proxy).
#pragma once

#include <cuda_runtime.h>
#include <shmem.h>
#include <shmemx.h>

#include <climits>

#include "internal.h"
#include "kishmem/ep/numerics.h"

namespace kishmem::ep::gpu {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kMaxEntries = 1024;  // (token, k) entries one send block handles
constexpr int kMaxExperts = 4096;
constexpr int kCheckChunk = 1024;
constexpr int kRecvThreads = 512;  // combine receive block  // topk_idx entries checked per pass (shared memory)

struct Args {
    Layout l;
    char* base;         // this PE's block
    ErrorRecord* err;   // host-mapped
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

// FP8 row by one warp: token src[H] bf16 -> dst[H] E4M3 and scales[H/128] (may be null: none
// written). A lane takes 16 channels (two 16-byte loads, one 16-byte store); 8 lanes make a
// scale group; kU iterations' loads are in flight before their stores.
__device__ inline void quantize_row(const uint16_t* src, uint8_t* dst, float* scales, int H) {
    constexpr int kU = 7;
    const int lane = threadIdx.x & 31;
    for (int b = 0; b < H; b += kU * 512) {
        uint4 v[kU][2];
#pragma unroll
        for (int u = 0; u < kU; ++u) {
            const int h = b + u * 512 + lane * 16;
            if (h < H) {
                v[u][0] = __ldg(reinterpret_cast<const uint4*>(src + h));
                v[u][1] = __ldg(reinterpret_cast<const uint4*>(src + h + 8));
            } else {
                v[u][0] = v[u][1] = make_uint4(0, 0, 0, 0);
            }
        }
#pragma unroll
        for (int u = 0; u < kU; ++u) {
            const int h = b + u * 512 + lane * 16;
            const uint32_t w[8] = {v[u][0].x, v[u][0].y, v[u][0].z, v[u][0].w, v[u][1].x, v[u][1].y, v[u][1].z, v[u][1].w};
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
            if (h < H) {
                const float inv = group_inv_scale(amax);
                uint4 q;
                q.x = pack_e4m3x4(f, inv);
                q.y = pack_e4m3x4(f + 4, inv);
                q.z = pack_e4m3x4(f + 8, inv);
                q.w = pack_e4m3x4(f + 12, inv);
                *reinterpret_cast<uint4*>(dst + h) = q;
                if (scales && (lane & 7) == 0) scales[h / kScaleGroup] = group_scale(amax);
            }
        }
    }
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

// The receive of dispatch, by one block: waits for every sender, then takes the row counts
// (resetting the counter of this round's parity) and advances the round.
__device__ inline void dispatch_finish(const Args& a) {
    const Layout& l = a.l;
    const View v{a.base};
    LocalState* st = v.local(l);
    const uint64_t round = *reinterpret_cast<volatile uint64_t*>(&st->round) + 1;
    const int parity = static_cast<int>(round & 1);
    __shared__ int s_bad_from;
    if (threadIdx.x == 0) s_bad_from = -1;
    __syncthreads();
    for (int r = threadIdx.x; r < l.npes; r += blockDim.x) {
        uint64_t* f = v.disp_flag(l) + r;
        shmem_uint64_wait_until(f, SHMEM_CMP_GE, round);
        if (*reinterpret_cast<volatile uint64_t*>(f) & kBadInputBit) atomicMax(&s_bad_from, v.pe_of(l)[r]);
    }
    __syncthreads();
    for (int le = threadIdx.x; le < l.L; le += blockDim.x) {
        const int c = atomicExch(v.counter(l) + parity * l.L + le, 0);
        v.recv_count(l)[le] = s_bad_from >= 0 ? 0 : c;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        if (s_bad_from >= 0) record_error(a.err, kErrPeerBad, -1, -1, s_bad_from, static_cast<long long>(round));
        *reinterpret_cast<volatile uint64_t*>(&st->round) = round;
    }
}

// Dispatch send (and, with fuse_recv, its receive in the last block to finish).
template <class Idx>
__global__ void __launch_bounds__(kThreads) dispatch_send(Args a, const uint16_t* x, const Idx* idx, int T, int poison,
                                                          int fuse_recv) {
    const Layout& l = a.l;
    const View v{a.base};
    LocalState* st = v.local(l);
    const int* pe_of = v.pe_of(l);
    const uint64_t round = *reinterpret_cast<volatile uint64_t*>(&st->round) + 1;
    const int parity = static_cast<int>(round & 1);
    __shared__ int s_bad, s_last;
    __shared__ int s_cnt[kMaxExperts];
    __shared__ int s_base[kMaxExperts];
    __shared__ int s_ent[kMaxEntries];
    __shared__ int s_rank[kMaxEntries];
    __shared__ int s_idx[kCheckChunk];
    if (threadIdx.x == 0) s_bad = INT_MAX;
    __syncthreads();
    // 1. Every block checks every row (so that no block sends when any entry is bad): the
    //    first bad entry in row-major order, < -1, >= E, or a repeat within its row.
    const int K = l.K, nall = T * K, chunk = kCheckChunk / K * K;
    for (int c0 = 0; c0 < nall; c0 += chunk) {
        const int cn = min(chunk, nall - c0);
        for (int j = threadIdx.x; j < cn; j += 4 * kThreads) {
            long long e[4];
#pragma unroll
            for (int u = 0; u < 4; ++u) e[u] = j + u * kThreads < cn ? static_cast<long long>(idx[c0 + j + u * kThreads]) : -1;
#pragma unroll
            for (int u = 0; u < 4; ++u) {
                if (j + u * kThreads >= cn) break;
                const bool bad = e[u] < -1 || e[u] >= l.E;
                s_idx[j + u * kThreads] = bad ? -2 : static_cast<int>(e[u]);
                if (bad) atomicMin(&s_bad, c0 + j + u * kThreads);
            }
        }
        __syncthreads();
        for (int j = threadIdx.x; j < cn; j += kThreads) {
            const int e = s_idx[j];
            if (e < 0) continue;
            for (int i = j - j % K; i < j; ++i)
                if (s_idx[i] == e) {
                    atomicMin(&s_bad, c0 + j);
                    break;
                }
        }
        __syncthreads();
    }
    const bool bad = poison || s_bad != INT_MAX;
    const int per = (T + gridDim.x - 1) / gridDim.x, t0 = blockIdx.x * per, t1 = min(T, t0 + per);
    if (!bad && t0 < t1) {
        // 2. This block's entries: rank within its expert (shared atomics), one fetch-add per expert.
        const int n = (t1 - t0) * K;
        const Idx* my = idx + static_cast<size_t>(t0) * K;
        for (int j = threadIdx.x; j < n; j += kThreads) {
            const int e = static_cast<int>(my[j]);
            s_ent[j] = e;
            if (e >= 0) s_cnt[e] = 0;
        }
        __syncthreads();
        for (int j = threadIdx.x; j < n; j += kThreads)
            if (s_ent[j] >= 0) s_rank[j] = atomicAdd(&s_cnt[s_ent[j]], 1);
        __syncthreads();
        for (int j = threadIdx.x; j < n; j += kThreads) {
            const int e = s_ent[j];
            if (e >= 0 && s_rank[j] == 0)
                s_base[e] = shmem_int_atomic_fetch_add(v.counter(l) + parity * l.L + e % l.L, s_cnt[e], pe_of[e / l.L]);
        }
        __syncthreads();
        // 3. A warp per (token, k): the row (quantized on the way for FP8), its scales, its SrcInfo.
        const size_t row = static_cast<size_t>(l.H) * l.xb;
        const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
        for (int j = warp; j < n; j += kWarps) {
            const int t = t0 + j / K, k = j % K, e = s_ent[j];
            if (lane == 0) v.sent(l)[static_cast<size_t>(t) * K + k] = e >= 0;
            if (e < 0) continue;
            const int pe = pe_of[e / l.L];
            const size_t slot = static_cast<size_t>(e % l.L) * l.R + s_base[e] + s_rank[j];
            const uint16_t* xt = x + static_cast<size_t>(t) * l.H;
            if (char* pb = static_cast<char*>(shmem_ptr(a.base, pe))) {
                const View pv{pb};
                if (l.G) quantize_row(xt, pv.recv_x(l) + slot * row, pv.recv_scales(l) + slot * l.G, l.H);
                else copy_row(reinterpret_cast<const uint4*>(xt), reinterpret_cast<uint4*>(pv.recv_x(l) + slot * row), l.H / 8);
                if (lane == 0)
                    *reinterpret_cast<int4*>(pv.recv_src(l) + slot) = make_int4(l.me, t, k, static_cast<int>(round));
            } else {
                // Staged in this PE's heap (every warp of token t writes the same bytes), then put.
                uint8_t* sx = v.send_x(l) + t * row;
                float* ss = v.send_scales(l) + static_cast<size_t>(t) * l.G;
                if (l.G) quantize_row(xt, sx, ss, l.H);
                else copy_row(reinterpret_cast<const uint4*>(xt), reinterpret_cast<uint4*>(sx), l.H / 8);
                __syncwarp();
                shmemx_putmem_nbi_warp(v.recv_x(l) + slot * row, sx, row, pe);
                if (l.G) shmemx_putmem_nbi_warp(v.recv_scales(l) + slot * l.G, ss, l.G * sizeof(float), pe);
                if (lane == 0) {
                    int64_t* d = reinterpret_cast<int64_t*>(v.recv_src(l) + slot);
                    shmem_int64_p(d, static_cast<int64_t>(static_cast<uint32_t>(l.me)) | static_cast<int64_t>(t) << 32, pe);
                    shmem_int64_p(d + 1, static_cast<int64_t>(static_cast<uint32_t>(k)) | static_cast<int64_t>(round) << 32, pe);
                }
            }
        }
    }
    // 4. The last block to finish (after every block's quiet) sets disp_flag[me] on every PE.
    __syncthreads();
    if (threadIdx.x == 0) {
        if (blockIdx.x == 0 && s_bad != INT_MAX && !poison) {
            const long long e = static_cast<long long>(idx[s_bad]);
            record_error(a.err, e < -1 || e >= l.E ? kErrIndex : kErrDuplicate, s_bad / K, s_bad % K, -1, e);
        }
        shmem_quiet();
        __threadfence();
        s_last = atomicAdd(&st->done_dispatch, 1u) == gridDim.x - 1;
        if (s_last) {
            __threadfence();
            const uint64_t f = round | (bad ? kBadInputBit : 0);
            for (int r = 0; r < l.npes; ++r) shmem_uint64_p(v.disp_flag(l) + l.me, f, pe_of[r]);
            shmem_quiet();
            st->done_dispatch = 0;
        }
    }
    __syncthreads();
    if (fuse_recv && s_last) dispatch_finish(a);
}

// The receive hook of dispatch: one block.
__global__ void dispatch_recv(Args a) { dispatch_finish(a); }

// Combine send: a warp per received row, to its sender's comb_recv[t][k]. Rows whose PE is not
// mapped go through this warp's staging row (the put source must be in the heap there).
__global__ void __launch_bounds__(kThreads) combine_send(Args a, const uint16_t* eo) {
    const Layout& l = a.l;
    const View v{a.base};
    LocalState* st = v.local(l);
    const int* pe_of = v.pe_of(l);
    const uint64_t round = st->round;
    __shared__ int s_pre[kMaxExperts + 1];
    for (int le = threadIdx.x; le < l.L; le += kThreads) s_pre[le + 1] = v.recv_count(l)[le];
    __syncthreads();
    if (threadIdx.x == 0) {
        s_pre[0] = 0;
        for (int le = 0; le < l.L; ++le) s_pre[le + 1] += s_pre[le];
    }
    __syncthreads();
    const int n = s_pre[l.L], warp = threadIdx.x / 32;
    const int gw = blockIdx.x * kWarps + warp, nw = gridDim.x * kWarps;
    const size_t bytes = static_cast<size_t>(l.H) * 2;
    for (int item = gw; item < n; item += nw) {
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
        if (void* pd = shmem_ptr(dst, pe)) {
            copy_row(reinterpret_cast<const uint4*>(src), static_cast<uint4*>(pd), l.H / 8);
        } else {
            uint16_t* stage = v.stage(l) + static_cast<size_t>(gw % l.stage_rows) * l.H;
            copy_row(reinterpret_cast<const uint4*>(src), reinterpret_cast<uint4*>(stage), l.H / 8);
            __syncwarp();
            shmemx_putmem_warp(dst, stage, bytes, pe);  // blocking: the row is reused next
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        shmem_quiet();
        __threadfence();
        if (atomicAdd(&st->done_combine, 1u) == gridDim.x - 1) {
            __threadfence();
            for (int r = 0; r < l.npes; ++r) shmem_uint64_p(v.comb_flag(l) + l.me, round, pe_of[r]);
            shmem_quiet();
            st->done_combine = 0;
        }
    }
}

// The receive hook of combine: every block waits for every sender, then a thread per 8
// channels of a token: out[t] = sum_k w[t][k] * comb_recv[t][k] (fused multiply-adds in k
// order, as the CPU form), the token's K rows loaded together (8 at a time).
__global__ void __launch_bounds__(kRecvThreads) combine_recv(Args a, const float* w, uint16_t* out, int T) {
    const Layout& l = a.l;
    const View v{a.base};
    const uint64_t round = v.local(l)->round;
    for (int r = threadIdx.x; r < l.npes; r += blockDim.x)
        shmem_uint64_wait_until(v.comb_flag(l) + r, SHMEM_CMP_GE, round);
    __syncthreads();
    const int K = l.K, C = l.H / 8;
    const uint8_t* sent = v.sent(l);
    const uint16_t* in = v.comb_recv(l);
    const size_t items = static_cast<size_t>(T) * C;
    for (size_t it = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; it < items;
         it += static_cast<size_t>(gridDim.x) * blockDim.x) {
        const int t = static_cast<int>(it / C), c = static_cast<int>(it % C);
        const size_t j0 = static_cast<size_t>(t) * K;
        float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int k0 = 0; k0 < K; k0 += 8) {
            uint4 raw[8];
            float wk[8];
            bool on[8];
#pragma unroll
            for (int u = 0; u < 8; ++u) {
                const int k = k0 + u;
                on[u] = k < K && sent[j0 + k];
                wk[u] = on[u] ? w[j0 + k] : 0.0f;
                if (k < K) raw[u] = __ldcg(reinterpret_cast<const uint4*>(in + (j0 + k) * l.H) + c);
            }
#pragma unroll
            for (int u = 0; u < 8; ++u) {
                if (!on[u]) continue;
                const uint32_t wd[4] = {raw[u].x, raw[u].y, raw[u].z, raw[u].w};
#pragma unroll
                for (int i = 0; i < 4; ++i) {
                    acc[2 * i] = __fmaf_rn(wk[u], bf16_to_float(wd[i] & 0xffff), acc[2 * i]);
                    acc[2 * i + 1] = __fmaf_rn(wk[u], bf16_to_float(wd[i] >> 16), acc[2 * i + 1]);
                }
            }
        }
        uint4 o;
        o.x = float_to_bf16(acc[0]) | static_cast<uint32_t>(float_to_bf16(acc[1])) << 16;
        o.y = float_to_bf16(acc[2]) | static_cast<uint32_t>(float_to_bf16(acc[3])) << 16;
        o.z = float_to_bf16(acc[4]) | static_cast<uint32_t>(float_to_bf16(acc[5])) << 16;
        o.w = float_to_bf16(acc[6]) | static_cast<uint32_t>(float_to_bf16(acc[7])) << 16;
        reinterpret_cast<uint4*>(out + static_cast<size_t>(t) * l.H)[c] = o;
    }
}

}  // namespace kishmem::ep::gpu
