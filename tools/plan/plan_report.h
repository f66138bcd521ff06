// kishmem-plan's output: one configuration in full, or the seed's own scenarios.
#pragma once
#include <cstdio>

#include "kishmem/ep/plan.h"

namespace kishmem::plan {

// Every figure of the model for one configuration.
void print_plan(std::FILE* out, const Params& p);

// The seed's scenarios: decode budget, proxy round trips, payload per peer, message rate,
// node spread, and DeepEP's published low-latency table checked against the model.
void print_seed(std::FILE* out);

}  // namespace kishmem::plan
