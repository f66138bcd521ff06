// Which NIC executes IBGDA work queues: KISHMEM_IBGDA_NIC (auto | hw | sim) against what the
// machine offers.
#pragma once
#include <string>

#include "kishmem/log.h"

namespace kishmem::ibgda {

enum class NicKind { hw, sim };

// ok with *kind set and *why saying why (e.g. "auto: no mlx5 device; software NIC"); an error
// status when KISHMEM_IBGDA_NIC is malformed or asks for hw and none is usable.
Status choose_nic(NicKind* kind, std::string* why);

}  // namespace kishmem::ibgda
