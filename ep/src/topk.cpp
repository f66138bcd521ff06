// select_topk, CPU form, and the argument checks both forms share.
#include <cstdio>

#include "internal.h"
#include "topk_row.h"

namespace kishmem::ep {

int topk_args_bad(const char* call, int T, int E, int K, int max_nodes, int epn) {
    char m[256] = "";
    if (T < 0) std::snprintf(m, sizeof m, "T = %d is negative", T);
    else if (E < 1) std::snprintf(m, sizeof m, "E = %d must be at least 1", E);
    else if (epn < 1 || E % epn) std::snprintf(m, sizeof m, "experts_per_node = %d does not divide E = %d", epn, E);
    else if (max_nodes < 1 || max_nodes > kMaxTopkNodes) std::snprintf(m, sizeof m, "max_nodes = %d must be in 1..%d", max_nodes, kMaxTopkNodes);
    else if (K < 1 || K > 16) std::snprintf(m, sizeof m, "K = %d must be in 1..16", K);
    else if (K > (max_nodes < E / epn ? max_nodes : E / epn) * epn)
        std::snprintf(m, sizeof m, "K = %d is more than the %d experts of %d nodes", K,
                      (max_nodes < E / epn ? max_nodes : E / epn) * epn, max_nodes < E / epn ? max_nodes : E / epn);
    if (!m[0]) return kOk;
    int up = 0;
    shmem_query_initialized(&up);
    std::fprintf(stderr, "kishmem: kishmem::ep::%s: PE %d: %s\n", call, up ? shmem_my_pe() : 0, m);
    std::fflush(stderr);
    return kBadArgument;
}

int select_topk(const float* scores, int T, int E, int K, int max_nodes, int epn, int32_t* idx, float* weights) {
    if (const int rc = topk_args_bad("select_topk", T, E, K, max_nodes, epn)) return rc;
    for (int t = 0; t < T; ++t)
        select_row(scores + static_cast<size_t>(t) * E, E, K, max_nodes, epn, idx + static_cast<size_t>(t) * K,
                   weights ? weights + static_cast<size_t>(t) * K : nullptr);
    return kOk;
}

}  // namespace kishmem::ep
