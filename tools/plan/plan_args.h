// kishmem-plan's command line: flags -> Params, with the checks that name the bad flag.
#pragma once
#include <string>

#include "kishmem/ep/plan.h"

namespace kishmem::plan {

struct Options {
  bool seed = true;   // no arguments (or --seed): print the seed's own scenarios
  bool help = false;
  Params params;      // the seed's V3 decode defaults, overridden by the flags given
};

// Fills *out from argv. Returns "" on success, else one line naming the flag and its value.
std::string parse_args(int argc, const char* const* argv, Options* out);

// The --help text.
std::string usage();

}  // namespace kishmem::plan
