// kishmem::plan: the seed's model of expert-parallel (MoE) all-to-all during decode, as plain
// inline functions (standard library only; installed with kishmem::ep). kishmem-plan prints
// it; a program can include this header to print the ideal time of a transfer on a given link
// next to the time it measured (examples/04_moe_ep does).
//
// Units are in the names: _s seconds, _GBps 1e9 bytes per second, _bytes bytes.
// Seed: the design note "kernel-initiated RDMA" the project started from (kept outside this
// repository); tools/plan/README.md gives each formula with the figure it reproduces, and
// tests/plan checks every figure.
#pragma once

namespace kishmem::plan {

// One decode configuration, seen from one GPU (PE). Defaults: DeepSeek-V3 decode on H800 + CX7.
struct Params {
  int ep = 256;                // expert-parallel size: PEs taking part in the all-to-all
  int tokens = 32;             // tokens per PE per step (the decode batch of one GPU)
  int hidden = 7168;           // elements per token
  int topk = 8;                // routed experts per token
  int shared = 1;              // shared experts the time budget also counts (the paper's 9 = 8 + 1)
  int experts = 256;           // routed experts in all, spread evenly over the PEs and nodes
  int nodes = 32;              // nodes the EP group spans (EP / GPUs per node)
  double link_GBps = 50;       // network bandwidth of one GPU (CX7 400 Gb/s: 50 GB/s)
  int layers = 61;             // layers that pay the all-to-all time in TPOT
  int moe_layers = 61;         // layers that issue one dispatch and one combine (message count)
  int micro_batches = 2;       // overlapped micro-batches: a layer costs this many steps
  double proxy_msgs_per_s = 1.7e6;  // message ceiling of a CPU proxy (IBRC on ConnectX-6)
  double dispatch_bytes = 1;   // bytes per element sent by dispatch (FP8)
  double combine_bytes = 2;    // bytes per element sent back by combine (BF16)
  double tpot_target_s = 0;    // TPOT the message rate is computed at; 0: the modelled TPOT
  double proxy_rtt_s = 2.8e-6; // one proxy round trip (64 B, InfiniBand within a leaf)
  int node_cap = 4;            // node-limited routing: at most this many nodes per token
};

// Time to move tokens x experts_per_token x hidden elements of bytes_per_element bytes over a
// link of link_GBps: bytes / bandwidth, with no latency term (the ideal a kernel can approach).
inline double alltoall_time_s(double tokens, double experts_per_token, double hidden,
                              double bytes_per_element, double link_GBps) {
  return tokens * experts_per_token * hidden * bytes_per_element / (link_GBps * 1e9);
}

// One step of one micro-batch: dispatch (dispatch_bytes) plus combine (combine_bytes) of every
// token to its topk + shared experts: (1 B + 2 B) x 32 x 9 x 7000 / 50 GB/s = 120.96 us.
inline double step_time_s(const Params& p) {
  return alltoall_time_s(p.tokens, p.topk + p.shared, p.hidden,
                         p.dispatch_bytes + p.combine_bytes, p.link_GBps);
}

// Under micro-batch overlap each micro-batch pays its own step: 2 x 120.96 = 241.92 us.
inline double layer_time_s(const Params& p) { return p.micro_batches * step_time_s(p); }

// Time per output token: every layer pays its communication (61 x 241.92 us = 14.76 ms).
inline double tpot_s(const Params& p) { return p.layers * layer_time_s(p); }

// Output tokens per second of one sequence: 1 / TPOT (14.76 ms -> 67.8; the paper says ~67).
inline double tokens_per_s(const Params& p) { return 1.0 / tpot_s(p); }

// Dispatch payload one PE sends to each peer: its tokens x topk copies, spread evenly over the
// ep PEs (shared experts stay local): 128 x 8 x 7168 x 1 B / 8 = 896 KiB.
inline double payload_per_peer_bytes(double tokens, double topk, double hidden,
                                     double bytes_per_element, double ep) {
  return tokens * topk * hidden * bytes_per_element / ep;
}
inline double payload_per_peer_bytes(const Params& p) {
  return payload_per_peer_bytes(p.tokens, p.topk, p.hidden, p.dispatch_bytes, p.ep);
}

// All-to-alls per token step: one dispatch and one combine per MoE layer (58 x 2 = 116).
inline double collectives_per_token(int moe_layers) { return 2.0 * moe_layers; }

// Messages one PE must issue per second: one message to each of ep peers per all-to-all (the
// seed counts all ep PEs as peers),
// collectives_per_token all-to-alls every TPOT: 256 x 116 / 20 ms = 1.48 M msg/s.
inline double message_rate_per_s(double ep, int moe_layers, double tpot_s) {
  return ep * collectives_per_token(moe_layers) / tpot_s;
}
// At p.tpot_target_s when set, else at the modelled TPOT.
inline double rate_tpot_s(const Params& p) {
  return p.tpot_target_s > 0 ? p.tpot_target_s : tpot_s(p);
}
inline double message_rate_per_s(const Params& p) {
  return message_rate_per_s(p.ep, p.moe_layers, rate_tpot_s(p));
}

// Share of a layer's budget spent on proxy round trips if a proxy cost one round trip per
// all-to-all (two per layer): 2 x 2.8 us / 241.92 us = 2.3%.
inline double proxy_rtt_share(double rtt_s, double layer_s) { return 2.0 * rtt_s / layer_s; }

// P(a given node holds none of a token's k experts), experts spread e/n per node, the k chosen
// uniformly without replacement: comb(e - e/n, k) / comb(e, k), as the product over i < k of
// (e - e/n - i) / (e - i), which stays exact in doubles.
inline double prob_node_untouched(int e, int n, int k) {
  const double others = e - e / n;
  double p = 1.0;
  for (int i = 0; i < k; ++i) {
    if (others - i <= 0) return 0.0;
    p *= (others - i) / (e - i);
  }
  return p;
}

// Expected distinct nodes a token's k experts touch: n x (1 - comb(e - e/n, k) / comb(e, k))
// (linearity over nodes): 256 experts, 8 nodes, top-8 -> 5.295.
inline double expected_nodes(int e, int n, int k) { return n * (1.0 - prob_node_untouched(e, n, k)); }

// P(all k experts on k distinct nodes): comb(n, k) x (e/n)^k / comb(e, k), as the product over
// i < k of (n - i) x (e/n) / (e - i) (the i-th pick avoids the i nodes used): 256/8/8 -> 0.0027.
inline double prob_all_distinct_nodes(int e, int n, int k) {
  const double per_node = e / n;
  double p = 1.0;
  for (int i = 0; i < k; ++i) {
    if (n - i <= 0) return 0.0;
    p *= (n - i) * per_node / (e - i);
  }
  return p;
}

// Time a NIC needs to execute `work_requests` work requests moving `bytes` payload bytes: the
// larger of the bandwidth term and the message-rate term (whichever limit binds). A 400 Gb/s
// ConnectX-7: 50 GB/s and about 200 M msg/s, so 8,000 work requests of 7,340,032 bytes take
// max(146.8 us, 40 us) = 146.8 us, and 100,000 of 1 MiB take max(21.0 us, 500 us) = 500 us.
inline double nic_time_s(double work_requests, double bytes, double link_GBps = 50,
                         double msgs_per_s = 200e6) {
  const double by_bytes = bytes / (link_GBps * 1e9), by_rate = work_requests / msgs_per_s;
  return by_bytes > by_rate ? by_bytes : by_rate;
}

// DeepEP-style bandwidth: payload of one PE over the wall-clock time,
// tokens x topk x hidden x bytes / time (128 x 8 x 7168 x 1 B / 77 us = 95.3 GB/s).
inline double deepep_bandwidth_GBps(double tokens, double topk, double hidden,
                                    double bytes_per_element, double time_s) {
  return tokens * topk * hidden * bytes_per_element / time_s / 1e9;
}

}  // namespace kishmem::plan
