// Whether this host's PEs have a CPU each (KISHMEM_YIELD=auto): from the affinity masks they
// exchange at init, not from this PE's own mask (a PE bound to one core is not oversubscribed
// for that; PEs squeezed onto fewer cores than there are PEs are).
#pragma once
#include <vector>

#include "blob.h"

namespace kishmem {

// This process's affinity mask as bytes (all online CPUs when it cannot be read).
Blob affinity_blob();

// How many CPUs the union of the same-host PEs' masks (masks[pe] where local[pe]) leaves over
// after one per PE: negative when the PEs outnumber the CPUs they may run on together.
int cpus_shared_by_pes(const std::vector<Blob>& masks, const std::vector<bool>& local);

}  // namespace kishmem
