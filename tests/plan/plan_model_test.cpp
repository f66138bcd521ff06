// Every figure of the seed (kernel-initiated-rdma.md), computed by plan_model.h from the seed's
// parameters and compared with the value the seed prints, within half its last printed digit
// unless noted. DeepEP's published bandwidths are derived from its published latencies.
#include <cmath>
#include <cstdio>

#include "deepep_table.h"
#include "kishmem/ep/plan.h"

namespace {

int g_failures = 0;

// Prints the figure computed and the figure expected; counts a failure when they differ by
// more than tol.
#define CHECK_NEAR(what, computed, expected, tol)                                              \
  do {                                                                                         \
    const double c_ = (computed), e_ = (expected), t_ = (tol);                                 \
    const bool ok_ = std::fabs(c_ - e_) <= t_;                                                 \
    std::printf("%s %-52s computed %-12.6g expected %-10.6g (tol %g)\n", ok_ ? "PASS" : "FAIL", \
                what, c_, e_, t_);                                                             \
    if (!ok_) ++g_failures;                                                                    \
  } while (0)

using namespace kishmem::plan;

constexpr double kUs = 1e6, kMs = 1e3, kKiB = 1024;

// DeepSeek-V3 decode as the paper budgets it: 32 tokens/GPU, top-8 + 1 shared, FP8 dispatch +
// BF16 combine, 50 GB/s, 61 layers, 2 micro-batches; hidden "7K" read as 7000.
Params v3_paper() {
  Params p;
  p.ep = 256;
  p.tokens = 32;
  p.hidden = 7000;
  p.topk = 8;
  p.shared = 1;
  p.experts = 256;
  p.link_GBps = 50;
  p.layers = 61;
  p.micro_batches = 2;
  p.dispatch_bytes = 1;
  p.combine_bytes = 2;
  return p;
}

void check_budget() {
  Params p = v3_paper();
  CHECK_NEAR("step, hidden 7000, 50 GB/s [us]", step_time_s(p) * kUs, 120.96, 0.005);
  CHECK_NEAR("layer, 2 micro-batches [us]", layer_time_s(p) * kUs, 241.92, 0.005);
  CHECK_NEAR("TPOT, 61 layers [ms]", tpot_s(p) * kMs, 14.76, 0.005);
  // The seed's "~67 tokens/s": 1 / 14.757 ms = 67.76, which the paper truncates to 67.
  CHECK_NEAR("tokens/s (~67, truncated)", tokens_per_s(p), 67, 1.0);
  Params true_hidden = p;
  true_hidden.hidden = 7168;
  CHECK_NEAR("step, hidden 7168, 50 GB/s [us]", step_time_s(true_hidden) * kUs, 123.86, 0.005);
  Params nvl72 = p;
  nvl72.link_GBps = 900;
  CHECK_NEAR("step, 900 GB/s [us]", step_time_s(nvl72) * kUs, 6.72, 0.005);
  CHECK_NEAR("TPOT, 900 GB/s [ms]", tpot_s(nvl72) * kMs, 0.820, 0.0005);
  CHECK_NEAR("tokens/s, 900 GB/s (~1220)", tokens_per_s(nvl72), 1220, 0.5);
  // The ideal-time function alone, as an example would call it: 3 B x 32 x 9 x 7000 / 50 GB/s.
  CHECK_NEAR("alltoall_time_s, same step [us]", alltoall_time_s(32, 9, 7000, 3, 50) * kUs, 120.96, 0.005);
}

void check_proxy_round_trips() {
  const Params p = v3_paper();
  CHECK_NEAR("2 x 2.8 us share of the layer [%]", 100 * proxy_rtt_share(2.8e-6, layer_time_s(p)), 2.3, 0.05);
  const double per_token_s = p.layers * 2 * 2.8e-6;
  CHECK_NEAR("61 x 2 x 2.8 us per token [ms]", per_token_s * kMs, 0.34, 0.005);
  CHECK_NEAR("... share of TPOT [%]", 100 * per_token_s / tpot_s(p), 2.3, 0.05);
  CHECK_NEAR("RoCE 2 x 5.6 us share of the layer [%]", 100 * proxy_rtt_share(5.6e-6, layer_time_s(p)), 4.6, 0.05);
}

void check_payload_per_peer() {
  CHECK_NEAR("per peer, EP 8, 128 tokens [KiB]", payload_per_peer_bytes(128, 8, 7168, 1, 8) / kKiB, 896, 0.05);
  CHECK_NEAR("per peer, EP 64, 128 tokens [KiB]", payload_per_peer_bytes(128, 8, 7168, 1, 64) / kKiB, 112, 0.05);
  CHECK_NEAR("per peer, EP 256, 128 tokens [KiB]", payload_per_peer_bytes(128, 8, 7168, 1, 256) / kKiB, 28, 0.05);
  CHECK_NEAR("per peer, EP 256, 32 tokens [KiB]", payload_per_peer_bytes(32, 8, 7168, 1, 256) / kKiB, 7, 0.05);
}

void check_message_rate() {
  CHECK_NEAR("all-to-alls per token, 58 MoE layers", collectives_per_token(58), 116, 0);
  const double rate = message_rate_per_s(256, 58, 20e-3);
  CHECK_NEAR("message rate, EP 256, 20 ms TPOT [M msg/s]", rate / 1e6, 1.48, 0.005);
  CHECK_NEAR("... share of a 1.7 M msg/s proxy [%]", 100 * rate / 1.7e6, 87, 0.5);
  Params p = v3_paper();  // the Params overload at a given TPOT agrees
  p.moe_layers = 58;
  p.tpot_target_s = 20e-3;
  CHECK_NEAR("message_rate_per_s(Params) [M msg/s]", message_rate_per_s(p) / 1e6, 1.48, 0.005);
}

// comb(n, k) through lgamma: an independent route to the seed's E_nodes formula.
double comb(int n, int k) {
  return std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0));
}

// Exhaustive count for a small case: every k-subset of e experts (node of expert x = x / (e/n)).
void enumerate(int e, int n, int k, double* mean_nodes, double* p_distinct) {
  long subsets = 0, nodes_sum = 0, distinct = 0;
  for (unsigned mask = 0; mask < (1u << e); ++mask) {
    if (__builtin_popcount(mask) != k) continue;
    unsigned node_mask = 0;
    for (int x = 0; x < e; ++x)
      if (mask >> x & 1) node_mask |= 1u << (x / (e / n));
    const int touched = __builtin_popcount(node_mask);
    ++subsets;
    nodes_sum += touched;
    distinct += touched == k;
  }
  *mean_nodes = double(nodes_sum) / subsets;
  *p_distinct = double(distinct) / subsets;
}

void check_node_spread() {
  CHECK_NEAR("E_nodes, 256 experts, 8 nodes, top-8", expected_nodes(256, 8, 8), 5.295, 0.0005);
  CHECK_NEAR("P(all distinct), 256/8/8", prob_all_distinct_nodes(256, 8, 8), 0.0027, 0.00005);
  CHECK_NEAR("gain of the 4-node cap (E_nodes / 4)", expected_nodes(256, 8, 8) / 4, 1.32, 0.005);
  // The same figures through comb(): the seed's formula as written.
  CHECK_NEAR("E_nodes via comb()", 8 * (1 - comb(256 - 32, 8) / comb(256, 8)), expected_nodes(256, 8, 8), 1e-9);
  CHECK_NEAR("P(all distinct) via comb()", comb(8, 8) * std::pow(32, 8) / comb(256, 8),
             prob_all_distinct_nodes(256, 8, 8), 1e-9);
  double mean = 0, distinct = 0;
  enumerate(20, 5, 4, &mean, &distinct);
  CHECK_NEAR("E_nodes, 20/5/4 against enumeration", expected_nodes(20, 5, 4), mean, 1e-12);
  CHECK_NEAR("P(all distinct), 20/5/4 against enumeration", prob_all_distinct_nodes(20, 5, 4), distinct, 1e-12);
  CHECK_NEAR("P(all distinct) is 0 when top-k > nodes", prob_all_distinct_nodes(20, 5, 6), 0, 0);
}

void check_deepep() {
  const DeepEpSetup s;
  char what[96];
  for (const DeepEpRow& r : kDeepEpLowLatency) {
    const double d = deepep_bandwidth_GBps(s.tokens, s.topk, s.hidden, s.dispatch_bytes, r.dispatch_us / kUs);
    const double c = deepep_bandwidth_GBps(s.tokens, s.topk, s.hidden, s.combine_bytes, r.combine_us / kUs);
    std::snprintf(what, sizeof what, "DeepEP dispatch EP %d, %.0f us [GB/s] (3%%)", r.ep, r.dispatch_us);
    CHECK_NEAR(what, d, r.dispatch_GBps, 0.03 * r.dispatch_GBps);
    std::snprintf(what, sizeof what, "DeepEP combine EP %d, %.0f us [GB/s] (3%%)", r.ep, r.combine_us);
    CHECK_NEAR(what, c, r.combine_GBps, 0.03 * r.combine_GBps);
  }
  // The seed's own "mine" column, to its printed digit.
  CHECK_NEAR("seed's dispatch EP 8 [GB/s]", deepep_bandwidth_GBps(128, 8, 7168, 1, 77e-6), 95.3, 0.05);
  CHECK_NEAR("seed's combine EP 8 [GB/s]", deepep_bandwidth_GBps(128, 8, 7168, 2, 114e-6), 128.8, 0.05);
  CHECK_NEAR("seed's dispatch EP 32 [GB/s]", deepep_bandwidth_GBps(128, 8, 7168, 1, 155e-6), 47.4, 0.05);
  CHECK_NEAR("seed's combine EP 32 [GB/s]", deepep_bandwidth_GBps(128, 8, 7168, 2, 273e-6), 53.8, 0.05);
  CHECK_NEAR("seed's dispatch EP 128 [GB/s]", deepep_bandwidth_GBps(128, 8, 7168, 1, 192e-6), 38.2, 0.05);
  CHECK_NEAR("seed's combine EP 128 [GB/s]", deepep_bandwidth_GBps(128, 8, 7168, 2, 369e-6), 39.8, 0.05);
  CHECK_NEAR("seed's dispatch EP 256 [GB/s]", deepep_bandwidth_GBps(128, 8, 7168, 1, 194e-6), 37.8, 0.05);
  CHECK_NEAR("seed's combine EP 256 [GB/s]", deepep_bandwidth_GBps(128, 8, 7168, 2, 360e-6), 40.8, 0.05);
  // Combine at EP 256 against the paper's "effective" 40 GB/s: 367 us needed, 360 us measured.
  const double bound_s = alltoall_time_s(128, 8, 7168, 2, 40);
  CHECK_NEAR("combine EP 256 at 40 GB/s [us]", bound_s * kUs, 367, 0.5);
  CHECK_NEAR("... measured rate against that bound [%]", 100 * bound_s / 360e-6, 102, 0.5);
}

// The NIC model: max(bytes / bandwidth, work requests / message rate), by hand.
void check_nic_time() {
  // 7,340,032 B / 50e9 B/s = 146.80064 us; 8,000 / 200e6 = 40 us: bandwidth-bound.
  CHECK_NEAR("8,000 WRs, 7 MiB on a 400 Gb/s NIC [us]", nic_time_s(8000, 7340032) * kUs, 146.80064, 1e-9);
  // 1,048,576 B / 50e9 = 20.97152 us; 100,000 / 200e6 = 500 us: message-rate-bound.
  CHECK_NEAR("100,000 WRs, 1 MiB on a 400 Gb/s NIC [us]", nic_time_s(100000, 1048576) * kUs, 500, 1e-9);
  // Other limits: 1,000 WRs of 2.5e6 B at 25 GB/s and 10 M msg/s: max(100 us, 100 us) = 100 us.
  CHECK_NEAR("1,000 WRs, 2.5 MB at 25 GB/s, 10 M msg/s [us]", nic_time_s(1000, 2.5e6, 25, 1e7) * kUs, 100, 1e-9);
}

}  // namespace

int main() {
  check_budget();
  check_proxy_round_trips();
  check_payload_per_peer();
  check_message_rate();
  check_node_spread();
  check_deepep();
  check_nic_time();
  std::printf("%s: %d failure(s)\n", g_failures ? "FAILED" : "ALL PASSED", g_failures);
  return g_failures ? 1 : 0;
}
