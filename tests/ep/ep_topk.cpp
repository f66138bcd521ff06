// select_topk (CPU form) on inputs that break a tie rule (topk_cases.h) against a plain reference
// of the rule in ep/README.md and the expectations written by hand; every case again with the
// caller's FPU flushing subnormals and rounding toward zero (x86: MXCSR FTZ, DAZ, RZ), which
// select_topk must neither follow nor change; bad max_nodes and K refused.
#include <cstdio>
#include <vector>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "kishmem/ep/ep.h"
#include "topk_cases.h"

using namespace kishmem::ep;

namespace {

int run(const topktest::Case& c, const char* how, const std::vector<int32_t>& ref_idx, const std::vector<float>& ref_w) {
    std::vector<int32_t> idx(ref_idx.size(), -7), idx_nw(ref_idx.size(), -7);
    std::vector<float> w(ref_w.size(), -7.0f);
    if (select_topk(c.s.data(), c.T, c.E, c.K, c.max_nodes, c.epn, idx.data(), w.data()) != kOk ||
        select_topk(c.s.data(), c.T, c.E, c.K, c.max_nodes, c.epn, idx_nw.data(), nullptr) != kOk) {
        std::fprintf(stderr, "FAIL: case %s: select_topk refused it%s\n", c.name.c_str(), how);
        return 1;
    }
    const std::string what = std::string("select_topk") + how;
    return topktest::compare(c, what.c_str(), idx.data(), w.data(), "the reference", ref_idx.data(), ref_w.data()) ||
           topktest::compare(c, (what + " without weights").c_str(), idx_nw.data(), nullptr, "the reference", ref_idx.data(),
                             nullptr);
}

}  // namespace

int main() {
    int fails = 0, n = 0;
    for (const topktest::Case& c : topktest::cases()) {
        std::vector<int32_t> ref_idx;
        std::vector<float> ref_w;
        topktest::reference(c, &ref_idx, &ref_w);
        if (!c.want_idx.empty())
            fails += topktest::compare(c, "the reference", ref_idx.data(), nullptr, "the hand-written answer", c.want_idx.data(), nullptr);
        fails += run(c, "", ref_idx, ref_w);
#if defined(__SSE2__)
        {
            const unsigned saved = _mm_getcsr(), odd = saved | 0x8000u | 0x0040u | 0x6000u;  // FTZ, DAZ, toward zero
            _mm_setcsr(odd);
            fails += run(c, " (caller's MXCSR: FTZ, DAZ, toward zero)", ref_idx, ref_w);
            const unsigned after = _mm_getcsr();
            _mm_setcsr(saved);
            if (after != odd) {
                std::fprintf(stderr, "FAIL: case %s: select_topk left MXCSR %#x, the caller had %#x\n", c.name.c_str(), after, odd);
                ++fails;
            }
        }
#endif
        ++n;
    }
    // max_nodes and K at and past their bounds
    const std::vector<float> s(64 * 65, 1.0f);
    std::vector<int32_t> idx(16);
    struct Bad { int E, K, max_nodes, epn; } bad[] = {{64, 1, 0, 1}, {64 * 65, 1, 65, 64}, {64, 17, 8, 8}, {64, 9, 1, 8}, {64, 0, 1, 8}};
    for (const Bad& b : bad)
        if (select_topk(s.data(), 1, b.E, b.K, b.max_nodes, b.epn, idx.data(), nullptr) != kBadArgument) {
            std::fprintf(stderr, "FAIL: select_topk accepted E %d K %d max_nodes %d experts_per_node %d\n", b.E, b.K, b.max_nodes, b.epn);
            ++fails;
        }
    if (select_topk(s.data(), 1, 64 * 65, 16, 64, 65, idx.data(), nullptr) != kOk) {
        std::fprintf(stderr, "FAIL: select_topk refused max_nodes 64 of 64 nodes\n");
        ++fails;
    }
    if (fails) {
        std::fprintf(stderr, "FAIL: ep_topk: %d of the checks failed\n", fails);
        return 1;
    }
    std::printf("PASS ep_topk (%d cases)\n", n);
    return 0;
}
