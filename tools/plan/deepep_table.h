// DeepEP V1's published low-latency kernel figures (docs/legacy.md of deepseek-ai/DeepEP,
// "Low-latency kernels with pure RDMA"): H800 + CX7 400 Gb/s, 128 tokens per rank, hidden 7168,
// top-8, FP8 dispatch, BF16 combine. Published facts, used as inputs (latencies) and as the
// values the model's bandwidth must match (bandwidths).
#pragma once

namespace kishmem::plan {

struct DeepEpRow {
  int ep;
  double dispatch_us, dispatch_GBps;  // published latency, published RDMA bandwidth
  double combine_us, combine_GBps;
};

struct DeepEpSetup {
  int tokens = 128, hidden = 7168, topk = 8;
  double dispatch_bytes = 1, combine_bytes = 2;
};

inline constexpr DeepEpRow kDeepEpLowLatency[] = {
    {8, 77, 98, 114, 127},   {16, 118, 63, 195, 74},  {32, 155, 48, 273, 53},
    {64, 173, 43, 314, 46},  {128, 192, 39, 369, 39}, {256, 194, 39, 360, 40},
};

}  // namespace kishmem::plan
