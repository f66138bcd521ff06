// Shared by the kishmem::ep tests: deterministic inputs every PE can compute for every PE, and
// a checker that recomputes what each PE must receive and what combine must return.
#pragma once

#include <shmem.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <tuple>
#include <vector>

#include "kishmem/ep/ep.h"
#include "kishmem/ep/numerics.h"

namespace eptest {

using kishmem::ep::Format;

inline uint32_t mix(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

struct Shape {
    int T, H, K, E, npes;
};

// The buffer configuration of a test shape.
inline kishmem::ep::Config config(const Shape& s, Format f) {
    kishmem::ep::Config c;
    c.max_tokens_per_pe = s.T;
    c.hidden = s.H;
    c.topk = s.K;
    c.num_experts = s.E;
    c.format = f;
    return c;
}

// Token values: bf16 of a value in [-2, 2) with a few large ones (exercise the FP8 scale).
inline uint16_t token(int round, int pe, int t, int h) {
    const uint32_t r = mix(static_cast<uint32_t>(round * 7919 + pe * 1000003 + t * 65537 + h * 3));
    float v = static_cast<float>(static_cast<int>(r % 4001u) - 2000) / 1000.0f;
    if (r % 97u == 0) v *= 37.0f;
    return kishmem::ep::float_to_bf16(v);
}

// Routing of (round, pe, t): K distinct experts or -1; token t % 7 == 3 goes nowhere; entry 1 of
// odd tokens is -1.
inline void route(const Shape& s, int round, int pe, int t, long long* out) {
    int n = 0;
    for (uint32_t salt = 0; n < s.K; ++salt) {
        const int e = static_cast<int>(mix(static_cast<uint32_t>(round * 131 + pe * 7717 + t * 31 + salt * 977)) % s.E);
        bool seen = false;
        for (int i = 0; i < n; ++i) seen |= out[i] == e;
        if (!seen) out[n++] = e;
    }
    if (t % 7 == 3)
        for (int k = 0; k < s.K; ++k) out[k] = -1;
    if (t % 2 == 1 && s.K > 1) out[1] = -1;
}

inline float weight(int round, int pe, int t, int k) {
    return static_cast<float>(static_cast<int>(mix(round * 3 + pe * 5 + t * 11 + k * 13) % 1000u) + 1) / 1000.0f;
}

// The stand-in expert: row value times (1 + (e % 5) / 4), as bf16 (host and device).
KISHMEM_HD uint16_t expert(int e, float v) { return kishmem::ep::float_to_bf16(v * (1.0f + static_cast<float>(e % 5) * 0.25f)); }

// Host copies of what one PE received (all arrays as the buffer lays them out).
struct Got {
    std::vector<uint8_t> x;       // [L][R][H*xb]
    std::vector<float> scales;    // [L][R][G]
    std::vector<int> count;       // [L]
    std::vector<kishmem::ep::SrcInfo> src;  // [L][R]
};

inline int fail(const char* what, int me, int a, int b, double got, double want) {
    std::fprintf(stderr, "FAIL: PE %d: %s [%d][%d]: got %.9g, expected %.9g\n", me, what, a, b, got, want);
    std::fflush(stderr);
    return 1;
}

// A call of the library that returned rc != kOk (its own "kishmem: ..." line says why): one
// FAIL line naming the call, the PE and the round, then 1.
inline int call_failed(const char* call, int me, int round, int rc) {
    std::fprintf(stderr, "FAIL: PE %d: %s returned status %d in round %d\n", me, call, rc, round);
    std::fflush(stderr);
    return 1;
}
// The same, ending the job (where nothing can be returned: a body captured into a graph).
inline void must_ok(const char* call, int me, int round, int rc) {
    if (rc != kishmem::ep::kOk) call_failed(call, me, round, rc), shmem_global_exit(1);
}

// Value of row element h as received (dequantized for FP8).
inline float row_value(const Got& g, Format f, int H, int G, size_t slot, int h) {
    if (f == Format::fp8_e4m3) return kishmem::ep::e4m3_to_float(g.x[slot * H + h]) * g.scales[slot * G + h / 128];
    uint16_t b;
    std::memcpy(&b, &g.x[(slot * H + h) * 2], 2);
    return kishmem::ep::bf16_to_float(b);
}

// Checks what PE `me` received in `round` when every PE p dispatched Ts[p] tokens. Returns
// 0 when every row is present once, byte-exact, with its source; else 1 after a FAIL line.
inline int check_received(const Shape& s, Format f, int round, int me, const std::vector<int>& Ts, const Got& g,
                          int src_round = -1) {
    if (src_round < 0) src_round = round;
    const int L = s.E / s.npes, R = s.npes * s.T, G = f == Format::fp8_e4m3 ? s.H / 128 : 0;
    // expected (expert, src pe, token) -> k
    std::map<std::tuple<int, int, int>, int> want;
    std::vector<long long> r(s.K);
    for (int p = 0; p < s.npes; ++p)
        for (int t = 0; t < Ts[p]; ++t) {
            route(s, round, p, t, r.data());
            for (int k = 0; k < s.K; ++k)
                if (r[k] >= 0 && r[k] / L == me) want[{static_cast<int>(r[k] % L), p, t}] = k;
        }
    std::vector<uint16_t> tok(s.H);
    std::vector<uint8_t> q(s.H);
    std::vector<float> sc(G > 0 ? G : 1);
    for (int le = 0; le < L; ++le) {
        int expect = 0;
        for (auto& w : want) expect += std::get<0>(w.first) == le;
        if (g.count[le] != expect) return fail("count of local expert", me, le, 0, g.count[le], expect);
        for (int i = 0; i < g.count[le]; ++i) {
            const size_t slot = static_cast<size_t>(le) * R + i;
            const kishmem::ep::SrcInfo si = g.src[slot];
            auto it = want.find({le, si.pe, si.token});
            if (it == want.end()) return fail("unexpected row (src pe, token)", me, si.pe, si.token, le, -1);
            if (it->second != si.k) return fail("row k", me, le, i, si.k, it->second);
            if (si.round != src_round) return fail("row round", me, le, i, si.round, src_round);
            want.erase(it);
            for (int h = 0; h < s.H; ++h) tok[h] = token(round, si.pe, si.token, h);
            if (f == Format::fp8_e4m3) {
                kishmem::ep::quantize_token(tok.data(), s.H, q.data(), sc.data());
                for (int gi = 0; gi < G; ++gi)
                    if (g.scales[slot * G + gi] != sc[gi]) return fail("scale", me, i, gi, g.scales[slot * G + gi], sc[gi]);
                for (int h = 0; h < s.H; ++h) {
                    if (g.x[slot * s.H + h] != q[h]) return fail("fp8 byte", me, i, h, g.x[slot * s.H + h], q[h]);
                    // independent bound: E4M3 keeps 3 mantissa bits (relative error <= 1/16), steps of scale/512 near 0
                    const float x = kishmem::ep::bf16_to_float(tok[h]), d = row_value(g, f, s.H, G, slot, h);
                    if (std::fabs(d - x) > std::fabs(x) / 16 + sc[h / 128] / 512 * 1.0001f) return fail("fp8 value", me, i, h, d, x);
                }
            } else {
                for (int h = 0; h < s.H; ++h)
                    if (row_value(g, f, s.H, G, slot, h) != kishmem::ep::bf16_to_float(tok[h]))
                        return fail("bf16 value", me, i, h, row_value(g, f, s.H, G, slot, h), kishmem::ep::bf16_to_float(tok[h]));
            }
        }
    }
    if (!want.empty()) return fail("rows never received", me, static_cast<int>(want.size()), 0, 0, 0);
    return 0;
}

// Buffer::received_bf16's output `got` ([L][R][H] bf16) against the received rows g: rows
// [0, count[e]) of expert e each value rounded to bf16, every other row still `untouched` (the
// value the test filled it with). Returns 0, or 1 after a FAIL line.
inline int check_bf16(const Shape& s, Format f, int me, const Got& g, const uint16_t* got, uint16_t untouched) {
    const int L = s.E / s.npes, R = s.npes * s.T, G = f == Format::fp8_e4m3 ? s.H / 128 : 0;
    for (int le = 0; le < L; ++le)
        for (int i = 0; i < R; ++i) {
            const size_t slot = static_cast<size_t>(le) * R + i;
            for (int h = 0; h < s.H; ++h) {
                const uint16_t want =
                    i < g.count[le] ? kishmem::ep::float_to_bf16(row_value(g, f, s.H, G, slot, h)) : untouched;
                if (got[slot * s.H + h] != want)
                    return fail("received_bf16 (expert's row, element)", me, static_cast<int>(slot), h,
                                kishmem::ep::bf16_to_float(got[slot * s.H + h]), kishmem::ep::bf16_to_float(want));
            }
        }
    return 0;
}

// The stand-in expert applied to every received row: expert_out[L][R][H] bf16.
inline void run_experts(const Shape& s, Format f, int me, const Got& g, std::vector<uint16_t>* eo) {
    const int L = s.E / s.npes, R = s.npes * s.T, G = f == Format::fp8_e4m3 ? s.H / 128 : 0;
    eo->assign(static_cast<size_t>(L) * R * s.H, 0);
    for (int le = 0; le < L; ++le)
        for (int i = 0; i < g.count[le]; ++i) {
            const size_t slot = static_cast<size_t>(le) * R + i;
            for (int h = 0; h < s.H; ++h) (*eo)[slot * s.H + h] = expert(me * L + le, row_value(g, f, s.H, G, slot, h));
        }
}

// out[t][h] of PE me: sum over its entries, in k order, of weight * expert(dequantized token).
inline int check_combined(const Shape& s, Format f, int round, int me, int T, const uint16_t* out) {
    std::vector<long long> r(s.K);
    std::vector<uint16_t> tok(s.H);
    std::vector<uint8_t> q(s.H);
    std::vector<float> sc(s.H / 128 + 1);
    for (int t = 0; t < T; ++t) {
        route(s, round, me, t, r.data());
        for (int h = 0; h < s.H; ++h) tok[h] = token(round, me, t, h);
        if (f == Format::fp8_e4m3) kishmem::ep::quantize_token(tok.data(), s.H, q.data(), sc.data());
        for (int h = 0; h < s.H; ++h) {
            const float v = f == Format::fp8_e4m3 ? kishmem::ep::e4m3_to_float(q[h]) * sc[h / 128] : kishmem::ep::bf16_to_float(tok[h]);
            float acc = 0.0f;
            for (int k = 0; k < s.K; ++k)
                if (r[k] >= 0) acc = std::fma(weight(round, me, t, k), kishmem::ep::bf16_to_float(expert(static_cast<int>(r[k]), v)), acc);
            const uint16_t want = kishmem::ep::float_to_bf16(acc);
            if (out[static_cast<size_t>(t) * s.H + h] != want)
                return fail("combined out", me, t, h, kishmem::ep::bf16_to_float(out[static_cast<size_t>(t) * s.H + h]),
                            kishmem::ep::bf16_to_float(want));
        }
    }
    return 0;
}

// This PE's inputs for a round: x[T][H], idx[T][K] (as Idx), weights[T][K].
template <class Idx>
inline void inputs(const Shape& s, int round, int me, int T, std::vector<uint16_t>* x, std::vector<Idx>* idx,
                   std::vector<float>* w) {
    x->resize(static_cast<size_t>(s.T) * s.H);
    idx->assign(static_cast<size_t>(s.T) * s.K, static_cast<Idx>(-1));
    w->assign(static_cast<size_t>(s.T) * s.K, 0.0f);
    std::vector<long long> r(s.K);
    for (int t = 0; t < T; ++t) {
        for (int h = 0; h < s.H; ++h) (*x)[static_cast<size_t>(t) * s.H + h] = token(round, me, t, h);
        route(s, round, me, t, r.data());
        for (int k = 0; k < s.K; ++k) {
            (*idx)[static_cast<size_t>(t) * s.K + k] = static_cast<Idx>(r[k]);
            (*w)[static_cast<size_t>(t) * s.K + k] = weight(round, me, t, k);
        }
    }
}

// Tokens PE p dispatches in round `round` (varies: full, partial, none).
inline int tokens_of(const Shape& s, int round, int p) {
    switch ((round + p) % 4) {
        case 0: return s.T;
        case 1: return s.T / 2 + 1;
        case 2: return 1;
        default: return round % 3 == 0 ? 0 : s.T - 1;
    }
}

}  // namespace eptest
