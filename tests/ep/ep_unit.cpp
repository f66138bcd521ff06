// kishmem::ep, one process: the E4M3 conversion (every code, every rounding midpoint), bf16
// rounding, the FP8 group quantization, and select_topk (CPU form) against a brute force.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "kishmem/ep/ep.h"
#include "kishmem/ep/numerics.h"

using namespace kishmem::ep;

static int fails = 0;
#define EXPECT(c, ...)                                                      \
    do {                                                                    \
        if (!(c)) {                                                         \
            std::fprintf(stderr, "FAIL: %s:%d: %s: ", __FILE__, __LINE__, #c); \
            std::fprintf(stderr, __VA_ARGS__);                              \
            std::fprintf(stderr, "\n");                                     \
            ++fails;                                                        \
        }                                                                   \
    } while (0)

// E4M3 values from the definition: code -> value, independent of numerics.h.
static double e4m3_def(int c) {
    const int s = c >> 7, e = (c >> 3) & 15, m = c & 7;
    const double v = e == 0 ? m / 8.0 * std::ldexp(1.0, -6) : (1 + m / 8.0) * std::ldexp(1.0, e - 7);
    return s ? -v : v;
}

static void fp8() {
    for (int c = 0; c < 256; ++c) {
        if ((c & 0x7f) == 0x7f) {
            EXPECT(std::isnan(e4m3_to_float(static_cast<uint8_t>(c))), "code %#x", c);
            continue;
        }
        EXPECT(e4m3_to_float(static_cast<uint8_t>(c)) == static_cast<float>(e4m3_def(c)), "code %#x", c);
        EXPECT(float_to_e4m3(static_cast<float>(e4m3_def(c))) == (c == 0x80 ? 0x80 : c), "round trip %#x -> %#x", c,
               float_to_e4m3(static_cast<float>(e4m3_def(c))));
    }
    // midpoints between neighbours round to the even code; just above goes up, just below down
    for (int c = 0; c < 0x7e; ++c) {
        const double lo = e4m3_def(c), hi = e4m3_def(c + 1), mid = (lo + hi) / 2;
        const int even = (c & 1) ? c + 1 : c;
        EXPECT(float_to_e4m3(static_cast<float>(mid)) == even, "midpoint of %#x,%#x -> %#x", c, c + 1,
               float_to_e4m3(static_cast<float>(mid)));
        EXPECT(float_to_e4m3(std::nextafter(static_cast<float>(mid), 1e9f)) == c + 1, "above midpoint %#x", c);
        EXPECT(float_to_e4m3(std::nextafter(static_cast<float>(mid), -1e9f)) == c, "below midpoint %#x", c);
        EXPECT(float_to_e4m3(static_cast<float>(-mid)) == (even | 0x80), "negative midpoint %#x", c);
    }
    EXPECT(float_to_e4m3(448.0f) == 0x7e, "448");
    EXPECT(float_to_e4m3(1e6f) == 0x7e, "saturates");
    EXPECT(float_to_e4m3(-1e6f) == 0xfe, "saturates negative");
    EXPECT(float_to_e4m3(INFINITY) == 0x7e, "inf saturates");
    // bf16: nearest even
    EXPECT(float_to_bf16(1.0f) == 0x3f80, "1.0");
    uint32_t u = 0x3f808000u;  // exactly halfway between 0x3f80 and 0x3f81: to even 0x3f80
    float f;
    std::memcpy(&f, &u, 4);
    EXPECT(float_to_bf16(f) == 0x3f80, "halfway to even");
    u = 0x3f818000u;
    std::memcpy(&f, &u, 4);
    EXPECT(float_to_bf16(f) == 0x3f82, "halfway to even (up)");
    // quantize_token: scale = amax / 448, the largest element maps to +-448
    std::vector<uint16_t> x(256);
    for (int i = 0; i < 256; ++i) x[i] = float_to_bf16((i - 100) * (i < 128 ? 0.01f : 3.0f));
    std::vector<uint8_t> q(256);
    float sc[2];
    quantize_token(x.data(), 256, q.data(), sc);
    EXPECT(sc[0] == 1.0f / 448.0f && sc[1] == bf16_to_float(x[255]) / 448.0f, "scales %g %g", sc[0], sc[1]);
    EXPECT(q[255] == 0x7e && q[0] == 0xfe, "extremes %#x %#x", q[255], q[0]);
}

static void topk() {
    const int T = 64, E = 64, epn = 8;
    std::vector<float> s(T * E);
    for (int i = 0; i < T * E; ++i) s[i] = static_cast<float>((i * 2654435761u) % 10007u) / 10007.0f;
    s[5 * E + 3] = s[5 * E + 4];  // a tie
    for (int max_nodes : {1, 2, 4, 8}) {
        const int K = max_nodes * epn < 8 ? max_nodes * epn : 8;
        std::vector<int32_t> idx(T * K);
        std::vector<float> w(T * K);
        EXPECT(select_topk(s.data(), T, E, K, max_nodes, epn, idx.data(), w.data()) == kOk, "select_topk");
        for (int t = 0; t < T; ++t) {
            const float* r = &s[t * E];
            // brute force: node scores (sum of the two best), best max_nodes nodes, best K experts there
            std::vector<std::pair<float, int>> nodes;
            for (int n = 0; n < E / epn; ++n) {
                std::vector<float> v(r + n * epn, r + (n + 1) * epn);
                std::sort(v.rbegin(), v.rend());
                nodes.push_back({v[0] + v[1], n});
            }
            std::stable_sort(nodes.begin(), nodes.end(), [](auto a, auto b) { return a.first > b.first; });
            std::vector<std::pair<float, int>> ex;
            for (int i = 0; i < max_nodes; ++i)
                for (int e = nodes[i].second * epn; e < (nodes[i].second + 1) * epn; ++e) ex.push_back({r[e], e});
            std::sort(ex.begin(), ex.end(), [](auto a, auto b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
            for (int k = 0; k < K; ++k) {
                EXPECT(idx[t * K + k] == ex[k].second, "token %d k %d max_nodes %d: %d, expected %d", t, k, max_nodes,
                       idx[t * K + k], ex[k].second);
                EXPECT(w[t * K + k] == ex[k].first, "weight");
            }
        }
    }
    std::vector<int32_t> idx(8);
    EXPECT(select_topk(s.data(), 1, E, 9, 1, epn, idx.data(), nullptr) == kBadArgument, "K above max_nodes * experts_per_node");
    EXPECT(select_topk(s.data(), 1, E, 4, 1, 7, idx.data(), nullptr) == kBadArgument, "experts_per_node not dividing E");
}

int main() {
    fp8();
    topk();
    if (fails) return 1;
    std::printf("PASS ep_unit\n");
    return 0;
}
