// select_topk, CPU form, and the argument checks both forms share.
#include <cfenv>
#include <cstdio>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "internal.h"
#include "topk_row.h"

namespace kishmem::ep {

void topk_report(const char* call, const char* what) {
    int up = 0;
    shmem_query_initialized(&up);
    std::fprintf(stderr, "kishmem: kishmem::ep::%s: PE %d: %s\n", call, up ? shmem_my_pe() : 0, what);
    std::fflush(stderr);
}

int topk_args_bad(const char* call, int T, int E, int K, int max_nodes, int epn, const void* scores, const void* idx) {
    char m[256] = "";
    if (T < 0) std::snprintf(m, sizeof m, "T = %d is negative", T);
    else if (T > 0 && (!scores || !idx)) std::snprintf(m, sizeof m, "%s is null with T = %d", scores ? "idx" : "scores", T);
    else if (E < 1) std::snprintf(m, sizeof m, "E = %d must be at least 1", E);
    else if (epn < 1 || E % epn) std::snprintf(m, sizeof m, "experts_per_node = %d does not divide E = %d", epn, E);
    else if (max_nodes < 1 || max_nodes > kMaxTopkNodes) std::snprintf(m, sizeof m, "max_nodes = %d must be in 1..%d", max_nodes, kMaxTopkNodes);
    else if (K < 1 || K > 16) std::snprintf(m, sizeof m, "K = %d must be in 1..16", K);
    else if (K > (max_nodes < E / epn ? max_nodes : E / epn) * epn)
        std::snprintf(m, sizeof m, "K = %d is more than the %d experts of %d nodes", K,
                      (max_nodes < E / epn ? max_nodes : E / epn) * epn, max_nodes < E / epn ? max_nodes : E / epn);
    if (!m[0]) return kOk;
    topk_report(call, m);
    return kBadArgument;
}

namespace {
// The node sums of topk_row.h in the device's arithmetic: round to nearest, no flush of
// subnormals (a program built with -ffast-math sets FTZ/DAZ in MXCSR); the caller's state back after.
class NearestFloatEnv {
public:
    NearestFloatEnv() : round_(std::fegetround()) {
#if defined(__SSE2__)
        csr_ = _mm_getcsr();  // before fesetround, which on x86 also writes MXCSR's rounding
#endif
        std::fesetround(FE_TONEAREST);
#if defined(__SSE2__)
        _mm_setcsr(csr_ & ~(0x8000u | 0x0040u | 0x6000u));  // FTZ, DAZ, rounding control
#endif
    }
    ~NearestFloatEnv() {
        std::fesetround(round_);  // (on x86 also MXCSR's rounding: the saved MXCSR goes back last)
#if defined(__SSE2__)
        _mm_setcsr(csr_);
#endif
    }
    NearestFloatEnv(const NearestFloatEnv&) = delete;
    NearestFloatEnv& operator=(const NearestFloatEnv&) = delete;

private:
    int round_;
#if defined(__SSE2__)
    unsigned csr_ = 0;
#endif
};
}  // namespace

int select_topk(const float* scores, int T, int E, int K, int max_nodes, int epn, int32_t* idx, float* weights) {
    if (const int rc = topk_args_bad("select_topk", T, E, K, max_nodes, epn, scores, idx)) return rc;
    const NearestFloatEnv env;
    for (int t = 0; t < T; ++t)
        select_row(scores + static_cast<size_t>(t) * E, E, K, max_nodes, epn, idx + static_cast<size_t>(t) * K,
                   weights ? weights + static_cast<size_t>(t) * K : nullptr);
    return kOk;
}

}  // namespace kishmem::ep
