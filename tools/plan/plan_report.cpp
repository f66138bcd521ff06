#include "plan_report.h"

#include <cmath>

#include "deepep_table.h"

namespace kishmem::plan {
namespace {

constexpr double kUs = 1e6, kMs = 1e3, kKiB = 1024;

void print_budget_row(std::FILE* out, const Params& p) {
  std::fprintf(out, "  %6.0f GB/s  %6d  %9.2f us  %9.2f us  %7.2f ms  %8.1f\n", p.link_GBps,
               p.hidden, step_time_s(p) * kUs, layer_time_s(p) * kUs, tpot_s(p) * kMs,
               tokens_per_s(p));
}

void print_proxy_rtt_row(std::FILE* out, const char* what, const Params& p) {
  const double per_token_s = p.layers * 2 * p.proxy_rtt_s;  // two all-to-alls per layer
  std::fprintf(out, "  %-14s %.1f us: %5.1f us per layer = %.1f%%, %.2f ms per token = %.1f%% of TPOT\n",
               what, p.proxy_rtt_s * kUs, 2 * p.proxy_rtt_s * kUs,
               100 * proxy_rtt_share(p.proxy_rtt_s, layer_time_s(p)), per_token_s * kMs,
               100 * per_token_s / tpot_s(p));
}

void print_node_spread(std::FILE* out, const Params& p) {
  const double e_nodes = expected_nodes(p.experts, p.nodes, p.topk);
  std::fprintf(out, "  E_nodes %.3f of %d nodes (%d experts, top-%d); P(all %d on distinct nodes) %.4f\n",
               e_nodes, p.nodes, p.experts, p.topk, p.topk,
               prob_all_distinct_nodes(p.experts, p.nodes, p.topk));
  if (e_nodes > p.node_cap)
    std::fprintf(out, "  node cap %d: expected IB traffic shrinks %.2fx (E_nodes / cap), not %.0fx\n",
                 p.node_cap, e_nodes / p.node_cap, double(p.topk < p.nodes ? p.topk : p.nodes) / p.node_cap);
}

void print_deepep_check(std::FILE* out) {
  const DeepEpSetup s;
  std::fprintf(out, "\n6. DeepEP V1 low-latency kernels (%d tokens, hidden %d, top-%d, FP8 / BF16):\n"
               "   bandwidth = tokens x topk x hidden x bytes / latency\n"
               "  EP   dispatch  published  model        diff  combine  published  model        diff\n",
               s.tokens, s.hidden, s.topk);
  for (const DeepEpRow& r : kDeepEpLowLatency) {
    const double d = deepep_bandwidth_GBps(s.tokens, s.topk, s.hidden, s.dispatch_bytes, r.dispatch_us / kUs);
    const double c = deepep_bandwidth_GBps(s.tokens, s.topk, s.hidden, s.combine_bytes, r.combine_us / kUs);
    std::fprintf(out, "  %-4d %4.0f us  %4.0f GB/s  %5.1f GB/s %+5.1f%%  %4.0f us  %4.0f GB/s  %5.1f GB/s %+5.1f%%\n",
                 r.ep, r.dispatch_us, r.dispatch_GBps, d, 100 * (d / r.dispatch_GBps - 1), r.combine_us,
                 r.combine_GBps, c, 100 * (c / r.combine_GBps - 1));
  }
  // The paper's "effective" 40 GB/s NIC bandwidth as a bound on combine at EP 256.
  const DeepEpRow& last = kDeepEpLowLatency[sizeof(kDeepEpLowLatency) / sizeof(DeepEpRow) - 1];
  const double bound_s = alltoall_time_s(s.tokens, s.topk, s.hidden, s.combine_bytes, 40);
  std::fprintf(out, "  combine at EP %d bound by 40 GB/s: %.1f us; measured %.0f us = %.0f%% of the bound's rate\n",
               last.ep, bound_s * kUs, last.combine_us, 100 * bound_s / (last.combine_us / kUs));
}

}  // namespace

// Starts one line of print_plan: its label, padded so the values line up.
static void label(std::FILE* out, const char* fmt, int value = 0) {
  char text[64];
  std::snprintf(text, sizeof text, fmt, value);
  std::fprintf(out, "  %-30s", text);
}

void print_plan(std::FILE* out, const Params& p) {
  std::fprintf(out, "EP %d, %d tokens/PE, hidden %d, top-%d + %d shared of %d experts, %d node%s, %g GB/s\n",
               p.ep, p.tokens, p.hidden, p.topk, p.shared, p.experts, p.nodes, p.nodes > 1 ? "s" : "",
               p.link_GBps);
  std::fprintf(out, "  dispatch %g B + combine %g B per element, %d layers (%d MoE), %d micro-batches\n",
               p.dispatch_bytes, p.combine_bytes, p.layers, p.moe_layers, p.micro_batches);
  label(out, "step (dispatch + combine)");
  std::fprintf(out, "%.2f us\n", step_time_s(p) * kUs);
  label(out, "layer (%d micro-batches)", p.micro_batches);
  std::fprintf(out, "%.2f us\n", layer_time_s(p) * kUs);
  label(out, "TPOT (%d layers)", p.layers);
  std::fprintf(out, "%.2f ms = %.1f tokens/s\n", tpot_s(p) * kMs, tokens_per_s(p));
  label(out, "payload per peer (dispatch)");
  std::fprintf(out, "%.2f KiB\n", payload_per_peer_bytes(p) / kKiB);
  const double collectives = collectives_per_token(p.moe_layers);
  label(out, "messages per token");
  std::fprintf(out, "%d peers x %.0f all-to-alls = %.0f\n", p.ep, collectives, p.ep * collectives);
  const double rate = message_rate_per_s(p);
  std::fprintf(out, "  message rate at TPOT %.2f ms (%s): %.2f M msg/s = %.0f%% of the proxy's %.2f M msg/s\n",
               rate_tpot_s(p) * kMs, p.tpot_target_s > 0 ? "given" : "modelled", rate / 1e6,
               100 * rate / p.proxy_msgs_per_s, p.proxy_msgs_per_s / 1e6);
  print_proxy_rtt_row(out, "proxy round trip", p);
  print_node_spread(out, p);
}

void print_seed(std::FILE* out) {
  // DeepSeek-V3 decode as the paper budgets it: 32 tokens per GPU, top-8 + 1 shared, FP8
  // dispatch + BF16 combine, 61 layers, dual micro-batch overlap; "hidden ~7K" read as 7000.
  Params v3;
  v3.tokens = 32;
  v3.hidden = 7000;
  std::fprintf(out, "kishmem-plan: the seed's scenarios (DeepSeek-V3 decode, 32 tokens/GPU, top-8 + 1 shared,\n"
               "FP8 dispatch + BF16 combine, %d layers, %d micro-batches)\n\n", v3.layers, v3.micro_batches);
  std::fprintf(out, "1. Decode budget: (1 B + 2 B) x tokens x 9 experts x hidden / link\n"
               "  %11s  %6s  %12s  %12s  %10s  %8s\n", "link", "hidden", "step", "layer", "TPOT",
               "tokens/s");
  print_budget_row(out, v3);              // the paper's 120.96 us
  Params v3_true = v3;
  v3_true.hidden = 7168;                  // V3's real hidden size
  print_budget_row(out, v3_true);
  Params nvl72 = v3;
  nvl72.link_GBps = 900;                  // GB200 NVL72
  print_budget_row(out, nvl72);

  std::fprintf(out, "\n2. One proxy round trip per all-to-all, two per layer (%.2f us layer, %d layers):\n",
               layer_time_s(v3) * kUs, v3.layers);
  const struct { const char* what; double rtt_us; } rtts[] = {
      {"IB, one leaf", 2.8}, {"IB, two leaves", 3.7}, {"RoCE", 5.6}};
  for (const auto& r : rtts) {
    Params q = v3;
    q.proxy_rtt_s = r.rtt_us / kUs;
    print_proxy_rtt_row(out, r.what, q);
  }

  std::fprintf(out, "\n3. Dispatch payload per peer (hidden 7168, top-8, FP8): tokens x topk x hidden / EP\n"
               "  EP    tokens/rank  per peer\n");
  const struct { int ep, tokens; } peers[] = {{8, 128}, {64, 128}, {256, 128}, {256, 32}};
  for (const auto& r : peers)
    std::fprintf(out, "  %-5d %-12d %6.1f KiB\n", r.ep, r.tokens,
                 payload_per_peer_bytes(r.tokens, 8, 7168, 1, r.ep) / kKiB);

  // Message rate: EP 256, the 58 MoE layers of V3, at a modest 20 ms TPOT.
  Params rate = v3_true;
  rate.moe_layers = 58;
  rate.tpot_target_s = 20e-3;
  const double msgs = message_rate_per_s(rate);
  std::fprintf(out, "\n4. Message rate: %d peers x %.0f all-to-alls / %.0f ms = %.2f M msg/s"
               " = %.0f%% of a %.1f M msg/s proxy\n", rate.ep, collectives_per_token(rate.moe_layers),
               rate.tpot_target_s * kMs, msgs / 1e6, 100 * msgs / rate.proxy_msgs_per_s,
               rate.proxy_msgs_per_s / 1e6);

  // Node spread: 256 experts, 32 per node over 8 nodes, unconstrained top-8, cap M = 4.
  Params spread = v3_true;
  spread.nodes = 8;
  std::fprintf(out, "\n5. Node spread of one token's experts:\n");
  print_node_spread(out, spread);

  print_deepep_check(out);
}

}  // namespace kishmem::plan
