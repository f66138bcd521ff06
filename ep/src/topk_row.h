// Node-limited top-k of one token (host and device): the max_nodes best nodes (a node's score:
// the sum of its two best expert scores), then the K best experts among them.
#pragma once

#include <stdint.h>

#include "kishmem/device/hd.h"

namespace kishmem::ep {

constexpr int kMaxTopkNodes = 64;

KISHMEM_HD float node_score(const float* s, int node, int epn) {
    float a = s[node * epn], b = -3.402823466e38f;
    for (int i = 1; i < epn; ++i) {
        const float v = s[node * epn + i];
        if (v > a) b = a, a = v;
        else if (v > b) b = v;
    }
    return epn == 1 ? a : a + b;
}

KISHMEM_HD void select_row(const float* s, int E, int K, int max_nodes, int epn, int32_t* idx, float* w) {
    const int nodes = E / epn, take = max_nodes < nodes ? max_nodes : nodes;
    int chosen[kMaxTopkNodes];
    for (int c = 0; c < take; ++c) {
        int best = -1;
        float bs = 0;
        for (int n = 0; n < nodes; ++n) {
            bool used = false;
            for (int i = 0; i < c; ++i) used |= chosen[i] == n;
            if (used) continue;
            const float sc = node_score(s, n, epn);
            if (best < 0 || sc > bs) best = n, bs = sc;
        }
        chosen[c] = best;
    }
    for (int k = 0; k < K; ++k) {
        int best = -1;
        for (int c = 0; c < take; ++c)
            for (int e = chosen[c] * epn; e < (chosen[c] + 1) * epn; ++e) {
                bool used = false;
                for (int i = 0; i < k; ++i) used |= idx[i] == e;
                if (used) continue;
                if (best < 0 || s[e] > s[best] || (s[e] == s[best] && e < best)) best = e;
            }
        idx[k] = best;
        if (w) w[k] = s[best];
    }
}

}  // namespace kishmem::ep
