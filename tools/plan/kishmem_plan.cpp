// kishmem-plan: prints the seed's model of expert-parallel (MoE) all-to-all (see README.md).
#include <cstdio>
#include <string>

#include "plan_args.h"
#include "plan_report.h"

int main(int argc, char** argv) {
  using namespace kishmem::plan;
  Options opt;
  const std::string err = parse_args(argc, argv, &opt);
  if (!err.empty()) {
    std::fprintf(stderr, "kishmem-plan: %s\n", err.c_str());
    return 2;
  }
  if (opt.help) {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  if (opt.seed)
    print_seed(stdout);
  else
    print_plan(stdout, opt.params);
  return 0;
}
