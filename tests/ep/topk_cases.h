// select_topk's inputs chosen to break a tie rule (equal scores, equal node scores, -0.0 and
// +0.0, NaN, infinities, subnormals, the most nodes and experts, max_nodes at and past its
// bounds), a plain reference of the tie rule in ep/README.md, and a comparison naming the
// first differing value. Shared by ep_topk (CPU) and ep_topk_gpu (GPU against CPU).
#pragma once

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ep_common.h"  // eptest::mix

namespace topktest {

using eptest::mix;

struct Case {
    std::string name;
    int T, E, K, max_nodes, epn;
    std::vector<float> s;             // [T][E]
    std::vector<int32_t> want_idx;    // [T][K] written by hand (empty: the reference only)
};

inline uint32_t bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
inline float from_bits(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

// The rule, plainly: a number ranks above NaN, a higher value first (-0.0 == +0.0), then the
// lower index. Doubles hold node sums and (exactly) the scores.
inline bool ranks_before(double a, int ia, double b, int ib) {
    const bool na = std::isnan(a), nb = std::isnan(b);
    if (na != nb) return nb;
    if (!na && a != b) return a > b;
    return ia < ib;
}

// The reference: idx[T][K], w[T][K] by sorting, node sums (v0 + v1) in double.
inline void reference(const Case& c, std::vector<int32_t>* idx, std::vector<float>* w) {
    idx->assign(static_cast<size_t>(c.T) * c.K, -1);
    w->assign(idx->size(), 0.0f);
    const int nodes = c.E / c.epn;
    for (int t = 0; t < c.T; ++t) {
        const float* r = &c.s[static_cast<size_t>(t) * c.E];
        std::vector<std::pair<double, int>> node(nodes);
        for (int n = 0; n < nodes; ++n) {
            std::vector<int> e(c.epn);
            for (int i = 0; i < c.epn; ++i) e[i] = n * c.epn + i;
            std::sort(e.begin(), e.end(), [&](int a, int b) { return ranks_before(r[a], a, r[b], b); });
            node[n] = {c.epn == 1 ? static_cast<double>(r[e[0]]) : static_cast<double>(r[e[0]]) + static_cast<double>(r[e[1]]), n};
        }
        std::sort(node.begin(), node.end(), [](auto a, auto b) { return ranks_before(a.first, a.second, b.first, b.second); });
        std::vector<int> ex;
        for (int i = 0; i < std::min(c.max_nodes, nodes); ++i)
            for (int e = node[i].second * c.epn; e < (node[i].second + 1) * c.epn; ++e) ex.push_back(e);
        std::sort(ex.begin(), ex.end(), [&](int a, int b) { return ranks_before(r[a], a, r[b], b); });
        for (int k = 0; k < c.K; ++k) {
            (*idx)[static_cast<size_t>(t) * c.K + k] = ex[k];
            (*w)[static_cast<size_t>(t) * c.K + k] = r[ex[k]];
        }
    }
}

// 0 when equal (weights bit for bit); else 1 after one line naming the case, the first
// differing token and k and both values.
inline int compare(const Case& c, const char* what, const int32_t* got_idx, const float* got_w, const char* against,
                   const int32_t* want_idx, const float* want_w) {
    for (int t = 0; t < c.T; ++t)
        for (int k = 0; k < c.K; ++k) {
            const size_t j = static_cast<size_t>(t) * c.K + k;
            if (got_idx[j] == want_idx[j] && (!want_w || bits(got_w[j]) == bits(want_w[j]))) continue;
            std::fprintf(stderr,
                         "FAIL: case %s (E %d, K %d, max_nodes %d, experts_per_node %d): %s differs from %s at token %d k %d: "
                         "expert %d weight %a (bits %08x), expected expert %d weight %a (bits %08x)\n",
                         c.name.c_str(), c.E, c.K, c.max_nodes, c.epn, what, against, t, k, got_idx[j], got_w ? got_w[j] : 0.0f,
                         got_w ? bits(got_w[j]) : 0u, want_idx[j], want_w ? want_w[j] : 0.0f, want_w ? bits(want_w[j]) : 0u);
            std::fflush(stderr);
            return 1;
        }
    return 0;
}

// Every case.
inline std::vector<Case> cases() {
    std::vector<Case> v;
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    const float den = from_bits(1), neg0 = from_bits(0x80000000u);
    auto fill = [](Case c, auto fn) {
        c.s.resize(static_cast<size_t>(c.T) * c.E);
        for (int t = 0; t < c.T; ++t)
            for (int e = 0; e < c.E; ++e) c.s[static_cast<size_t>(t) * c.E + e] = fn(t, e);
        return c;
    };
    // Written by hand (the reference must agree with them too).
    // nodes {.5,.5} {.75,.25} tie at 1.0; {.9,0} 0.9; {NaN,1} NaN, last
    v.push_back(Case{"hand_node_tie", 1, 8, 3, 2, 2, {.5f, .5f, .75f, .25f, .9f, 0.f, nan, 1.f}, {2, 0, 1}});
    v.push_back(Case{"hand_node_tie_lower", 1, 8, 2, 1, 2, {.5f, .5f, .75f, .25f, .9f, 0.f, nan, 1.f}, {0, 1}});
    v.push_back(Case{"hand_signed_zero", 1, 4, 4, 4, 1, {neg0, 0.f, neg0, 0.f}, {0, 1, 2, 3}});
    v.push_back(Case{"hand_nan_last", 1, 4, 4, 4, 1, {nan, -inf, nan, -1.f}, {3, 1, 0, 2}});
    v.push_back(Case{"hand_inf_minus_inf", 1, 4, 2, 1, 2, {inf, -inf, -2.f, -3.f}, {2, 3}});  // inf + -inf: NaN, last
    v.push_back(Case{"hand_subnormal_node", 1, 4, 1, 1, 2, {0.f, 0.f, den, 0.f}, {2}});
    v.push_back(Case{"hand_subnormal_expert", 1, 2, 2, 1, 2, {0.f, den}, {1, 0}});
    // 1 + 2^-31 < 1 + 2^-30 in double (in float both are 1: the lower node would win)
    v.push_back(Case{"hand_sum_in_double", 1, 4, 1, 1, 2, {1.f, from_bits(0x30000000u), 1.f, from_bits(0x30800000u)}, {2}});
    // 1 + 0.75 ulp rounds to 1 + 2^-52 (nearest): a tie with the second node, the lower wins
    // (toward zero it would be 1, and the second node would)
    v.push_back(Case{"hand_rounding", 1, 4, 1, 1, 2, {1.f, from_bits(0x25400000u), 1.f, from_bits(0x25800000u)}, {0}});
    // inf + -FLT_MAX = inf ranks above 2 FLT_MAX (finite in double; in float both are inf)
    v.push_back(Case{"hand_overflow", 1, 4, 1, 1, 2, {FLT_MAX, FLT_MAX, inf, -FLT_MAX}, {2}});
    {
        Case c{"hand_all_equal", 4, 64, 16, 4, 8, {}, {}};
        c = fill(c, [](int, int) { return 0.5f; });
        for (int t = 0; t < c.T; ++t)
            for (int k = 0; k < c.K; ++k) c.want_idx.push_back(k);
        v.push_back(c);
    }
    // Reference only.
    for (int mn : {1, 2, 3, 4, 8, 9, 64})  // scores from 5 values: ties everywhere, nodes too
        v.push_back(fill(Case{"coarse_mn" + std::to_string(mn), 96, 64, std::min(16, std::min(mn, 8) * 8), mn, 8, {}, {}},
                         [](int t, int e) { return static_cast<float>(mix(t * 977u + e * 31u + 5u) % 5u) * 0.25f; }));
    v.push_back(fill(Case{"signed_zeros", 64, 64, 12, 3, 4, {}, {}}, [&](int t, int e) {
        const uint32_t m = mix(t * 131u + e * 7u) % 4u;
        return m == 0 ? neg0 : m == 1 ? 0.f : m == 2 ? -1.f : 1.f;
    }));
    v.push_back(fill(Case{"special", 128, 64, 16, 4, 8, {}, {}}, [&](int t, int e) {
        const float vals[] = {nan, -nan, inf, -inf, den, -den, from_bits(0x007fffffu), FLT_MAX, -FLT_MAX, neg0, 0.f, 1.f, FLT_MIN};
        return vals[mix(t * 2654435761u + e * 40503u) % 13u];
    }));
    v.push_back(fill(Case{"subnormals", 128, 64, 8, 2, 8, {}, {}},
                     [](int t, int e) { return from_bits(mix(t * 7u + e * 13u) % 64u); }));  // 0 and 63 subnormals
    // The flagship's shape and scores (a grid of 1e-5: ties among 256 experts are common).
    for (int mn : {1, 4, 8})
        v.push_back(fill(Case{"flagship_mn" + std::to_string(mn), 300, 256, 8, mn, 32, {}, {}}, [](int t, int e) {
            return static_cast<float>(mix(3u * 1000003u + t * 7717u + e * 131u) % 100000u) / 100000.0f;
        }));
    // The most nodes a token may pick (64), K at its most (16), K = every expert of the nodes.
    v.push_back(fill(Case{"nodes64_epn16", 40, 1024, 16, 64, 16, {}, {}},
                     [](int t, int e) { return static_cast<float>(mix(t * 3u + e * 5u) % 1000u) / 1000.0f - 0.5f; }));
    v.push_back(fill(Case{"epn1_nodes512_take64", 40, 512, 16, 64, 1, {}, {}},
                     [](int t, int e) { return static_cast<float>(mix(t * 11u + e * 17u) % 300u); }));
    v.push_back(fill(Case{"max_nodes_past_nodes", 40, 64, 16, 64, 8, {}, {}},
                     [](int t, int e) { return static_cast<float>(mix(t * 19u + e * 23u) % 7u); }));
    v.push_back(fill(Case{"k_all_of_one_node", 40, 64, 8, 1, 8, {}, {}},
                     [](int t, int e) { return static_cast<float>(mix(t * 29u + e * 37u) % 3u); }));
    v.push_back(fill(Case{"k_all_of_nodes", 40, 64, 16, 8, 2, {}, {}},
                     [](int t, int e) { return static_cast<float>(mix(t * 41u + e * 43u) % 4u) - 1.5f; }));
    v.push_back(fill(Case{"one_node", 40, 16, 16, 1, 16, {}, {}},
                     [](int t, int e) { return static_cast<float>(mix(t * 47u + e * 53u) % 6u); }));
    return v;
}

}  // namespace topktest
