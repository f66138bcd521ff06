// Node-limited top-k of one token, one code for the host (select_topk) and the device
// (select_topk_gpu), so that both pick the same experts for every input (ep/README.md, the tie rule):
//   1. rank: a higher score ranks first; -0.0 and +0.0 are equal; NaN ranks below every number
//      (-inf included); equal scores: the lower index first. Compared as integer keys, never as
//      floats (no flush-to-zero, no x87 excess precision can change an order).
//   2. a node's score: the sum of its two best scores (rule 1), widened to double exactly by
//      integer operations and added once in double, round to nearest (__dadd_rn on the device,
//      never contracted; on the host select_topk sets round-to-nearest and clears FTZ/DAZ);
//      one score when experts_per_node is 1. The max_nodes best nodes by rule 1 on these sums.
//   3. the K best experts of those nodes by rule 1, best first; weights are their scores, bit for bit.
#pragma once

#include <float.h>
#include <stdint.h>
#include <string.h>

#include "kishmem/device/hd.h"

#if !defined(__CUDA_ARCH__) && defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0
#error "topk_row.h: the host compiler evaluates floating point in excess precision (FLT_EVAL_METHOD != 0)"
#endif

namespace kishmem::ep {

constexpr int kMaxTopkNodes = 64;

namespace topk {

// The bits of a float or double (memcpy: a register move on either side).
template <class U, class F>
KISHMEM_HD U bits(F f) {
    static_assert(sizeof(U) == sizeof(F), "same size");
    U u;
    memcpy(&u, &f, sizeof u);
    return u;
}

// Rule 1 as an unsigned key (a larger key ranks first): NaN 0, -0.0 as +0.0, else the IEEE bits
// made monotonic (negative: all bits flipped; positive: the sign bit set). U: uint32_t for a
// float, uint64_t for a double.
template <class U, class F>
KISHMEM_HD U key(F f) {
    constexpr U sign = static_cast<U>(1) << (sizeof(U) * 8 - 1);
    constexpr U inf = sizeof(U) == 4 ? static_cast<U>(0x7f800000u) : static_cast<U>(0x7ff0000000000000ull);
    U u = bits<U>(f);
    if ((u & ~sign) > inf) return 0;
    if ((u & ~sign) == 0) u = 0;
    return u & sign ? ~u : u | sign;
}

// float -> double by integer operations (exact; subnormals kept whatever the FPU's mode).
KISHMEM_HD double widen(float f) {
    const uint32_t u = bits<uint32_t>(f), e = (u >> 23) & 0xffu, m = u & 0x7fffffu;
    uint64_t d = static_cast<uint64_t>(u >> 31) << 63;
    if (e == 0xffu) d |= 0x7ff0000000000000ull | static_cast<uint64_t>(m) << 29;  // inf, NaN
    else if (e) d |= static_cast<uint64_t>(e - 127 + 1023) << 52 | static_cast<uint64_t>(m) << 29;
    else if (m) {  // m * 2^-149 = 1.f * 2^(p - 149), p the highest bit of m
        int p = 22;
        while (!((m >> p) & 1u)) --p;
        d |= static_cast<uint64_t>(p - 149 + 1023) << 52 | (static_cast<uint64_t>(m) << (52 - p) & 0xfffffffffffffull);
    }
    return bits<double>(d);
}

KISHMEM_HD double add_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
}

// (k1, i1) ranks before (k2, i2): the higher key, then the lower index.
template <class Key>
KISHMEM_HD bool before(Key k1, int i1, Key k2, int i2) {
    return k1 > k2 || (k1 == k2 && i1 < i2);
}

// Rule 2: the key of node n's score.
KISHMEM_HD uint64_t node_key(const float* s, int n, int epn) {
    const float* v = s + static_cast<long>(n) * epn;
    int a = 0, b = -1;  // the best and the second best expert of the node (rule 1)
    for (int i = 1; i < epn; ++i) {
        const uint32_t ki = key<uint32_t>(v[i]);
        if (before(ki, i, key<uint32_t>(v[a]), a)) b = a, a = i;
        else if (b < 0 || before(ki, i, key<uint32_t>(v[b]), b)) b = i;
    }
    return key<uint64_t>(b < 0 ? widen(v[a]) : add_rn(widen(v[a]), widen(v[b])));
}

}  // namespace topk

// One token: s[E] scores -> idx[K] (best first), w[K] (may be null). The caller checked the
// arguments (topk_args_bad): K <= min(max_nodes, E / epn) * epn, max_nodes <= kMaxTopkNodes.
KISHMEM_HD void select_row(const float* s, int E, int K, int max_nodes, int epn, int32_t* idx, float* w) {
    using namespace topk;
    const int nodes = E / epn, take = max_nodes < nodes ? max_nodes : nodes;
    int chosen[kMaxTopkNodes];
    // each pick: the best node ranking after the one picked before (rule 1 on the node keys)
    uint64_t prev_key = 0;
    for (int c = 0; c < take; ++c) {
        int best = -1;
        uint64_t best_key = 0;
        for (int n = 0; n < nodes; ++n) {
            const uint64_t k = node_key(s, n, epn);
            if (c > 0 && !before(prev_key, chosen[c - 1], k, n)) continue;
            if (best < 0 || before(k, n, best_key, best)) best = n, best_key = k;
        }
        chosen[c] = best;
        prev_key = best_key;
    }
    // each pick: the best expert of the chosen nodes ranking after the one picked before
    uint32_t prev = 0;
    int prev_e = -1;
    for (int k = 0; k < K; ++k) {
        int best = -1;
        uint32_t best_key = 0;
        for (int c = 0; c < take; ++c)
            for (int e = chosen[c] * epn; e < (chosen[c] + 1) * epn; ++e) {
                const uint32_t ke = key<uint32_t>(s[e]);
                if (k > 0 && !before(prev, prev_e, ke, e)) continue;
                if (best < 0 || before(ke, e, best_key, best)) best = e, best_key = ke;
            }
        idx[k] = best;
        prev = best_key;
        prev_e = best;
        if (w) w[k] = s[best];
    }
}

}  // namespace kishmem::ep
