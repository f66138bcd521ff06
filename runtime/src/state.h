// The process state of one PE: who it is, its heap and its peers' mapped heaps, and the route
// table that says, once, which transport reaches each PE.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "bootstrap/bootstrap.h"
#include "heap/allocator.h"
#include "heap/segment.h"
#include "transport/shm/shm.h"
#include "transport/transport.h"
#if KISHMEM_HAVE_UCX
#include "transport/ucx/ucx.h"
#endif

namespace kishmem {

// Symmetric heap map, as offsets from each PE's heap base (the same on every PE):
//   [0, kSyncBytes)          sync slots: 2 parities x kMaxRounds rounds x kSlotBytes
//                            (= 2 x 64 x 64 B = 8 KiB) for the dissemination barrier / min-max
//   [kSyncBytes, kReserved)  reserved for the runtime (locks, team pSync) - currently unused
//   [kReserved, heap_size)   user allocations (HeapAllocator), kAllocAlign-aligned
constexpr std::size_t kMaxRounds = 64;
constexpr std::size_t kSlotBytes = 64;
constexpr std::size_t kSyncBytes = 2 * kMaxRounds * kSlotBytes;
constexpr std::size_t kReserved = 64 * 1024;
constexpr std::size_t kAllocAlign = 64;

// One dissemination slot: the sender writes vmin/vmax, then (ordered after) seq = epoch.
struct SyncSlot {
    uint64_t seq;
    uint64_t vmin[2];
    uint64_t vmax[2];
    uint64_t pad[3];
};
static_assert(sizeof(SyncSlot) == kSlotBytes, "sync slot layout");

struct State {
    std::unique_ptr<Bootstrap> boot;
    int pe = 0;
    int npes = 1;
    int thread_level = 0;
    std::vector<bool> local;  // same host as this PE
    Segment own;
    std::vector<std::unique_ptr<Segment>> peer_segments;
    char* base = nullptr;
    std::size_t size = 0;
    std::unique_ptr<HeapAllocator> alloc;

    std::unique_ptr<ShmTransport> shm;
#if KISHMEM_HAVE_UCX
    std::unique_ptr<UcxTransport> ucx;
#endif
    std::vector<Transport*> route;       // route[pe]: the one transport that reaches pe
    std::vector<Transport*> transports;  // each transport in use once (quiet, fence, progress)
    bool needs_progress = false;

    uint64_t sync_epoch = 0;
    bool yield = false;
    double hang_warn = 0;
    double hang_abort = 0;
    bool initialized = false;
    bool finalized = false;
};

State& state();

// Collective: every PE contributes v[2]; each gets the element-wise min and max over all PEs.
// A barrier as a side effect (nobody returns before everyone entered).
void sync_minmax(const char* call, const uint64_t v[2], uint64_t vmin[2], uint64_t vmax[2]);

// Maps a status from a transport to a fatal error naming the call.
void check_status(Status s, const char* call, int pe);

}  // namespace kishmem
