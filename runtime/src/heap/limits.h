// What this host can back with memory, read before any heap is made: shmem_init refuses a
// symmetric heap above it (naming SHMEM_SYMMETRIC_SIZE and the limit) instead of letting a
// heap that something touches whole (UCX's shared-memory allocation does) wake the OOM killer.
#pragma once
#include <cstddef>
#include <string>

namespace kishmem::limits {

struct Limit {
    std::size_t bytes = 0;  // 0: unknown (no limit applied)
    std::string what;       // "this host's memory (MemTotal)", "the memory cgroup /a/b (memory.max)"
};

// The smaller of the machine's memory and this process's memory cgroup limit (v1 or v2,
// through every ancestor).
Limit host_memory();
// "64.0 GiB"
std::string bytes_text(std::size_t bytes);

}  // namespace kishmem::limits
