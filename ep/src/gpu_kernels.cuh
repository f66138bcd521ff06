// The GPU form's kernels (buffer on a GPU heap). Same protocol as the CPU form (host_path.cpp):
// rows reserved by one fetch-add per (block, expert) at the expert's PE, data put by warps,
// one flag per (sender, receiver) per round after every block's quiet. Peers are reached with
// the device API (shmem_ptr / shmemx_putmem_nbi_warp / atomics), so each one by the path the
// runtime chose for it.
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

// Quantize token t of x into send_x[t] / send_scales[t] (FP8), or copy it (bf16), by the block.
__device__ inline void stage_token(const Layout& l, const View& v, const uint16_t* x, int t) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (l.fmt == Format::fp8_e4m3) {
        for (int g = warp; g < l.G; g += kWarps) {
            const size_t at = static_cast<size_t>(t) * l.H + g * kScaleGroup + lane * 4;
            const uint2 raw = *reinterpret_cast<const uint2*>(x + at);
            float f[4] = {bf16_to_float(raw.x & 0xffff), bf16_to_float(raw.x >> 16), bf16_to_float(raw.y & 0xffff),
                          bf16_to_float(raw.y >> 16)};
            float amax = fmaxf(fmaxf(fabsf(f[0]), fabsf(f[1])), fmaxf(fabsf(f[2]), fabsf(f[3])));
            for (int o = 16; o; o >>= 1) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
            const float inv = group_inv_scale(amax);
            const uint32_t q = float_to_e4m3(f[0] * inv) | float_to_e4m3(f[1] * inv) << 8 |
                               float_to_e4m3(f[2] * inv) << 16 | static_cast<uint32_t>(float_to_e4m3(f[3] * inv)) << 24;
            *reinterpret_cast<uint32_t*>(v.send_x(l) + at) = q;
            if (lane == 0) v.send_scales(l)[static_cast<size_t>(t) * l.G + g] = group_scale(amax);
        }
    } else {
        const int4* src = reinterpret_cast<const int4*>(x + static_cast<size_t>(t) * l.H);
        int4* dst = reinterpret_cast<int4*>(v.send_x(l) + static_cast<size_t>(t) * l.H * 2);
        for (int i = threadIdx.x; i < l.H / 8; i += blockDim.x) dst[i] = src[i];
    }
}

template <class Idx>
__global__ void __launch_bounds__(kThreads) dispatch_send(Args a, const uint16_t* x, const Idx* idx, int T, int poison) {
    const Layout& l = a.l;
    const View v{a.base};
    LocalState* st = v.local(l);
    const int* pe_of = v.pe_of(l);
    const uint64_t round = *reinterpret_cast<volatile uint64_t*>(&st->round) + 1;
    const int parity = static_cast<int>(round & 1);
    __shared__ int s_bad;
    __shared__ int s_cnt[kMaxExperts];
    __shared__ int s_base[kMaxExperts];
    __shared__ int s_rank[kMaxEntries];
    if (threadIdx.x == 0) s_bad = INT_MAX;
    __syncthreads();
    // 1. Every block checks every row, so that no block sends when any entry is bad.
    for (int t = threadIdx.x; t < T; t += blockDim.x) {
        long long row[16];
        for (int k = 0; k < l.K; ++k) {
            const long long e = static_cast<long long>(idx[static_cast<size_t>(t) * l.K + k]);
            row[k] = e;
            bool bad = e < -1 || e >= l.E;
            for (int i = 0; i < k && !bad; ++i) bad = e >= 0 && row[i] == e;
            if (bad) {
                atomicMin(&s_bad, t * l.K + k);
                break;
            }
        }
    }
    __syncthreads();
    const bool bad = poison || s_bad != INT_MAX;
    const int per = (T + gridDim.x - 1) / gridDim.x, t0 = blockIdx.x * per, t1 = min(T, t0 + per);
    if (!bad && t0 < t1) {
        // 2. This block's entries: rank within its expert, count per expert, one fetch-add per expert.
        for (int e = threadIdx.x; e < l.E; e += blockDim.x) s_cnt[e] = 0;
        __syncthreads();
        const int n = (t1 - t0) * l.K;
        const Idx* my = idx + static_cast<size_t>(t0) * l.K;
        if (threadIdx.x == 0)
            for (int j = 0; j < n; ++j) {
                const int e = static_cast<int>(my[j]);
                if (e >= 0) s_rank[j] = s_cnt[e]++;
            }
        __syncthreads();
        for (int j = threadIdx.x; j < n; j += blockDim.x) {
            const int e = static_cast<int>(my[j]);
            if (e >= 0 && s_rank[j] == 0)
                s_base[e] = shmem_int_atomic_fetch_add(v.counter(l) + parity * l.L + e % l.L, s_cnt[e], pe_of[e / l.L]);
        }
        __syncthreads();
        // 3. Each token once into send_x, then a warp per (token, k): data, scales, SrcInfo.
        const size_t row = static_cast<size_t>(l.H) * l.xb;
        const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
        for (int t = t0; t < t1; ++t) {
            stage_token(l, v, x, t);
            __syncthreads();
            for (int k = warp; k < l.K; k += kWarps) {
                const int j = (t - t0) * l.K + k;
                const int e = static_cast<int>(my[j]);
                if (lane == 0) v.sent(l)[static_cast<size_t>(t) * l.K + k] = e >= 0;
                if (e < 0) continue;
                const int pe = pe_of[e / l.L];
                const size_t slot = static_cast<size_t>(e % l.L) * l.R + s_base[e] + s_rank[j];
                shmemx_putmem_nbi_warp(v.recv_x(l) + slot * row, v.send_x(l) + t * row, row, pe);
                if (l.G)
                    shmemx_putmem_nbi_warp(v.recv_scales(l) + slot * l.G, v.send_scales(l) + static_cast<size_t>(t) * l.G,
                                           l.G * sizeof(float), pe);
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
            record_error(a.err, e < -1 || e >= l.E ? kErrIndex : kErrDuplicate, s_bad / l.K, s_bad % l.K, -1, e);
        }
        shmem_quiet();
        __threadfence();
        if (atomicAdd(&st->done_dispatch, 1u) == gridDim.x - 1) {
            __threadfence();
            const uint64_t f = round | (bad ? kBadInputBit : 0);
            for (int r = 0; r < l.npes; ++r) shmem_uint64_p(v.disp_flag(l) + l.me, f, pe_of[r]);
            shmem_quiet();
            st->done_dispatch = 0;
        }
    }
}

// The receive hook of dispatch: one block. Waits for every sender, then takes the row counts.
__global__ void dispatch_recv(Args a) {
    const Layout& l = a.l;
    const View v{a.base};
    LocalState* st = v.local(l);
    const uint64_t round = st->round + 1;
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
        st->round = round;
    }
}

// Combine send: a warp per received row, to its sender's comb_recv[t][k]. Rows whose PE is not
// mapped go through this warp's staging row (the put source must be in the heap there).
__global__ void __launch_bounds__(kThreads) combine_send(Args a, const uint16_t* eo) {
    const Layout& l = a.l;
    const View v{a.base};
    LocalState* st = v.local(l);
    const int* pe_of = v.pe_of(l);
    const uint64_t round = st->round;
    __shared__ int s_pre[kMaxExperts + 1];
    if (threadIdx.x == 0) {
        int s = 0;
        for (int le = 0; le < l.L; ++le) {
            s_pre[le] = s;
            s += v.recv_count(l)[le];
        }
        s_pre[l.L] = s;
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
        if (shmem_ptr(dst, pe)) {
            shmemx_putmem_nbi_warp(dst, src, bytes, pe);
        } else {
            uint16_t* stage = v.stage(l) + static_cast<size_t>(gw % l.stage_rows) * l.H;
            for (int i = threadIdx.x % 32; i < l.H / 8; i += 32)
                reinterpret_cast<int4*>(stage)[i] = reinterpret_cast<const int4*>(src)[i];
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

// The receive hook of combine: every block waits for every sender, then weighted sums of
// 8 channels per thread: out[t] = sum_k w[t][k] * comb_recv[t][k] (fused multiply-adds in k order).
__global__ void __launch_bounds__(kThreads) combine_recv(Args a, const float* w, uint16_t* out, int T) {
    const Layout& l = a.l;
    const View v{a.base};
    const uint64_t round = v.local(l)->round;
    for (int r = threadIdx.x; r < l.npes; r += blockDim.x)
        shmem_uint64_wait_until(v.comb_flag(l) + r, SHMEM_CMP_GE, round);
    __syncthreads();
    __shared__ float s_w[16];
    for (int t = blockIdx.x; t < T; t += gridDim.x) {
        if (threadIdx.x < l.K) {
            const size_t j = static_cast<size_t>(t) * l.K + threadIdx.x;
            s_w[threadIdx.x] = v.sent(l)[j] ? w[j] : 0.0f;
        }
        __syncthreads();
        for (int c = threadIdx.x; c < l.H / 8; c += blockDim.x) {
            float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            for (int k = 0; k < l.K; ++k) {
                if (!v.sent(l)[static_cast<size_t>(t) * l.K + k]) continue;
                const uint4 raw = __ldcg(reinterpret_cast<const uint4*>(v.comb_recv(l) + (static_cast<size_t>(t) * l.K + k) * l.H) + c);
                const uint32_t wd[4] = {raw.x, raw.y, raw.z, raw.w};
                for (int i = 0; i < 4; ++i) {
                    acc[2 * i] = __fmaf_rn(s_w[k], bf16_to_float(wd[i] & 0xffff), acc[2 * i]);
                    acc[2 * i + 1] = __fmaf_rn(s_w[k], bf16_to_float(wd[i] >> 16), acc[2 * i + 1]);
                }
            }
            uint4 o;
            o.x = float_to_bf16(acc[0]) | static_cast<uint32_t>(float_to_bf16(acc[1])) << 16;
            o.y = float_to_bf16(acc[2]) | static_cast<uint32_t>(float_to_bf16(acc[3])) << 16;
            o.z = float_to_bf16(acc[4]) | static_cast<uint32_t>(float_to_bf16(acc[5])) << 16;
            o.w = float_to_bf16(acc[6]) | static_cast<uint32_t>(float_to_bf16(acc[7])) << 16;
            reinterpret_cast<uint4*>(out + static_cast<size_t>(t) * l.H)[c] = o;
        }
        __syncthreads();
    }
}

}  // namespace kishmem::ep::gpu
