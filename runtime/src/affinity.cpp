#include "affinity.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace kishmem {

Blob affinity_blob() {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        CPU_ZERO(&set);
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        for (long c = 0; c < (n > 0 ? n : 1) && c < CPU_SETSIZE; ++c) CPU_SET(c, &set);
    }
    const auto* p = reinterpret_cast<const uint8_t*>(&set);
    return Blob(p, p + sizeof set);
}

int cpus_shared_by_pes(const std::vector<Blob>& masks, const std::vector<bool>& local) {
    cpu_set_t all;
    CPU_ZERO(&all);
    int nlocal = 0;
    for (std::size_t r = 0; r < masks.size() && r < local.size(); ++r) {
        if (!local[r]) continue;
        ++nlocal;
        cpu_set_t m;
        CPU_ZERO(&m);
        std::memcpy(&m, masks[r].data(), std::min(masks[r].size(), sizeof m));
        CPU_OR(&all, &all, &m);
    }
    return CPU_COUNT(&all) - nlocal;
}

}  // namespace kishmem
