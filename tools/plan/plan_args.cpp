#include "plan_args.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace kishmem::plan {
namespace {

// One flag: either an int field or a double field of Params (scale converts the unit the user
// writes into the unit Params stores, e.g. microseconds -> seconds). min_int: 0 or 1.
struct Flag {
  const char* name;
  int Params::*int_field;
  double Params::*dbl_field;
  double scale;
  int min_int;
  const char* help;
};

const Flag kFlags[] = {
    {"--ep", &Params::ep, nullptr, 1, 1, "expert-parallel size (PEs in the all-to-all)"},
    {"--tokens", &Params::tokens, nullptr, 1, 1, "tokens per PE per step (batch per GPU)"},
    {"--hidden", &Params::hidden, nullptr, 1, 1, "hidden size (elements per token)"},
    {"--topk", &Params::topk, nullptr, 1, 1, "routed experts per token"},
    {"--shared", &Params::shared, nullptr, 1, 0, "shared experts counted in the time budget"},
    {"--experts", &Params::experts, nullptr, 1, 1, "routed experts in all"},
    {"--nodes", &Params::nodes, nullptr, 1, 1, "nodes the EP group spans (default EP / GPUs per node)"},
    {"--gpus-per-node", nullptr, nullptr, 1, 1, "GPUs per node, giving --nodes = EP / this (default 8)"},
    {"--link-gbps", nullptr, &Params::link_GBps, 1, 0, "link bandwidth of one GPU, GB/s"},
    {"--layers", &Params::layers, nullptr, 1, 1, "layers paying the all-to-all in TPOT"},
    {"--moe-layers", &Params::moe_layers, nullptr, 1, 1, "layers issuing dispatch + combine (default --layers)"},
    {"--micro-batches", &Params::micro_batches, nullptr, 1, 1, "overlapped micro-batches per layer"},
    {"--proxy-msgs", nullptr, &Params::proxy_msgs_per_s, 1, 0, "CPU proxy message ceiling, msg/s"},
    {"--dispatch-bytes", nullptr, &Params::dispatch_bytes, 1, 0, "bytes per element, dispatch"},
    {"--combine-bytes", nullptr, &Params::combine_bytes, 1, 0, "bytes per element, combine"},
    {"--tpot-ms", nullptr, &Params::tpot_target_s, 1e-3, 0, "TPOT for the message rate (default: modelled)"},
    {"--proxy-rtt-us", nullptr, &Params::proxy_rtt_s, 1e-6, 0, "one proxy round trip, us"},
    {"--node-cap", &Params::node_cap, nullptr, 1, 1, "node-limited routing cap (nodes per token)"},
};

const Flag* find_flag(const std::string& name) {
  for (const Flag& f : kFlags)
    if (name == f.name) return &f;
  return nullptr;
}

std::string bad(const std::string& flag, const std::string& value, const std::string& why) {
  return flag + " '" + value + "': " + why;
}

bool parse_int(const std::string& s, long* v) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  *v = std::strtol(s.c_str(), &end, 10);
  return errno == 0 && *end == '\0' && *v >= INT_MIN && *v <= INT_MAX;
}

bool parse_double(const std::string& s, double* v) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  *v = std::strtod(s.c_str(), &end);
  return errno == 0 && *end == '\0' && std::isfinite(*v);
}

// The checks between flags; each names the flags and values involved.
std::string check_params(const Params& p) {
  const auto n = [](long v) { return std::to_string(v); };
  if (p.topk > p.experts)
    return "--topk " + n(p.topk) + " is larger than --experts " + n(p.experts);
  if (p.experts % p.ep != 0)
    return "--experts " + n(p.experts) + " is not a multiple of --ep " + n(p.ep);
  if (p.experts % p.nodes != 0)
    return "--experts " + n(p.experts) + " is not a multiple of --nodes " + n(p.nodes) +
           " (experts are spread evenly over the nodes)";
  if (p.nodes > p.ep) return "--nodes " + n(p.nodes) + " is larger than --ep " + n(p.ep);
  return "";
}

}  // namespace

std::string parse_args(int argc, const char* const* argv, Options* out) {
  Options o;
  bool nodes_given = false, moe_layers_given = false;
  long gpus_per_node = 8;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    if (arg == "--help" || arg == "-h") { o.help = true; continue; }
    if (arg == "--seed") continue;
    o.seed = false;
    const size_t eq = arg.find('=');
    const bool inline_value = arg.rfind("--", 0) == 0 && eq != std::string::npos;
    if (inline_value) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    const Flag* f = find_flag(arg);
    if (!f) return "unknown flag '" + arg + "' (see --help)";
    if (!inline_value) {
      if (i + 1 >= argc) return arg + ": a value is missing";
      value = argv[++i];
    }
    if (f->dbl_field) {
      double v;
      if (!parse_double(value, &v)) return bad(arg, value, "not a number");
      if (v <= 0) return bad(arg, value, "must be greater than 0");
      o.params.*(f->dbl_field) = v * f->scale;
      continue;
    }
    long v;
    if (!parse_int(value, &v)) return bad(arg, value, "not an integer");
    if (v < f->min_int)
      return bad(arg, value, f->min_int ? "must be at least 1" : "must not be negative");
    if (!f->int_field) {
      gpus_per_node = v;
      continue;
    }
    o.params.*(f->int_field) = static_cast<int>(v);
    nodes_given |= f->int_field == &Params::nodes;
    moe_layers_given |= f->int_field == &Params::moe_layers;
  }
  Params& p = o.params;
  if (!moe_layers_given) p.moe_layers = p.layers;
  if (!nodes_given) {
    // An EP group within one node spans 1 node; a larger one fills whole nodes.
    if (p.ep > gpus_per_node && p.ep % gpus_per_node != 0)
      return "--ep " + std::to_string(p.ep) + " is not a multiple of --gpus-per-node " +
             std::to_string(gpus_per_node);
    p.nodes = p.ep > gpus_per_node ? static_cast<int>(p.ep / gpus_per_node) : 1;
  }
  const std::string err = check_params(p);
  if (!err.empty()) return err;
  *out = o;
  return "";
}

std::string usage() {
  std::string s =
      "usage: kishmem-plan [--seed] [--FLAG VALUE | --FLAG=VALUE]...\n"
      "The seed's model of expert-parallel (MoE) all-to-all during decode: communication\n"
      "time per layer, TPOT, payload per peer, message rate against a CPU proxy, node spread.\n"
      "No arguments (or --seed): the seed's own scenarios. Flags not given keep the\n"
      "DeepSeek-V3 decode defaults (EP 256, 32 tokens, hidden 7168, top-8 + 1 shared of 256\n"
      "experts, 8 GPUs per node, 50 GB/s, 61 layers, 2 micro-batches, 1.7 M msg/s, FP8/BF16).\n\n";
  for (const Flag& f : kFlags) {
    std::string name = f.name;
    name.resize(18, ' ');
    s += "  " + name + f.help + "\n";
  }
  return s;
}

}  // namespace kishmem::plan
