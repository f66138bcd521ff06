// The process state of one PE: who it is, its heap and its peers' mapped heaps, and the route
// table that says, once, which transport reaches each PE.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "bootstrap/bootstrap.h"
#include "kishmem/runtime.h"
#include "kishmem/team.h"
#include "kishmem/vocab.h"
#include "heap/allocator.h"
#include "heap/segment.h"
#include "routes.h"
#include "transport/shm/shm.h"
#include "transport/transport.h"
#if KISHMEM_HAVE_UCX
#include "transport/ucx/ucx.h"
#endif
#if KISHMEM_HAVE_CUDA && KISHMEM_HAVE_UCX
#include "transport/ucx_am/heap_transport.h"
#include "transport/ucx_am/ucx_am.h"
#endif
#if KISHMEM_HAVE_CUDA
#include "heap/device_heap.h"
#include "transport/cuda_ipc/cuda_ipc.h"
#endif

namespace kishmem {

class DeviceBackend;

// Symmetric heap map, as offsets from each PE's heap base (the same on every PE):
//   [0, kReserved)          kMaxTeams team regions of kTeamRegion bytes; team t's region at
//                           t * kTeamRegion holds
//                             [0, kSyncBytes)        dissemination slots: 2 parities x kMaxRounds
//                                                    rounds x kSlotBytes (2 x 32 x 64 B = 4 KiB)
//                             [kSyncBytes, +kScratchBytes) collective scratch: collect sizes
//                                                    from the start, this PE's CallRecord in the
//                                                    last kCallRecordBytes
//   [kReserved, heap_size)  user allocations (HeapAllocator), kAllocAlign-aligned
constexpr std::size_t kMaxRounds = 32;
constexpr std::size_t kSlotBytes = 64;
constexpr std::size_t kSyncBytes = 2 * kMaxRounds * kSlotBytes;
constexpr std::size_t kScratchBytes = 12 * 1024;
constexpr std::size_t kTeamRegion = kSyncBytes + kScratchBytes;
// kMaxTeams: kishmem/vocab.h (the device state has one Team per slot as well).
constexpr std::size_t kReserved = kMaxTeams * kTeamRegion;
constexpr std::size_t kAllocAlign = 64;
constexpr int kTeamSlotWorld = 0;
constexpr int kTeamSlotShared = 1;
constexpr int kTeamSlotActiveSets = kMaxTeams - 1;  // scratch of the deprecated active-set routines
// This PE's word about its own end (liveness::Mark: running, aborting, left without
// shmem_finalize), read by same-host peers whose wait finds this PE's process gone: the world
// team's dissemination slot of parity 1 and the last round, which only a job of more than 2^31
// PEs would use.
constexpr std::size_t kLifeMarkOffset = kTeamSlotWorld * kTeamRegion + (2 * kMaxRounds - 1) * kSlotBytes;
// Operations PEs completed at this PE (KISHMEM_PCNTR_TARGET), one word they add to: the world
// team's dissemination slot of parity 1 and round 28, which only a job of more than 2^28 PEs
// would use (rounds 29 and 30 hold arrivals.cpp's words, 31 the life mark above).
constexpr std::size_t kTargetCountOffset = kTeamSlotWorld * kTeamRegion + (2 * kMaxRounds - 4) * kSlotBytes;
constexpr std::size_t kCallRecordBytes = 128;

// One dissemination slot: the sender writes w[] and the tag of its call (call, a, b), then
// (ordered after) seq = epoch.
struct SyncSlot {
    uint64_t seq;
    uint64_t w[4];
    uint64_t call;  // CallTag::key(): which routine (and which meaning a and b have)
    uint64_t a, b;  // its arguments that every PE must pass alike (bytes, root, ...)
};
static_assert(sizeof(SyncSlot) == kSlotBytes, "sync slot layout");

enum class ReduceOp : uint8_t { min, max, bit_or, bit_and };

// What a collective call must agree on across its team: the routine (by name), and two
// arguments whose meaning `args` gives (it also tells apart two forms of one routine, e.g.
// shmem_realloc of NULL).  Every exchange of a collective carries it; a PE that receives
// another tag stops the job naming both PEs and both calls.
enum class CallArgs : uint8_t {
    none,           // no arguments to agree on (barriers, second phases)
    bytes,          // a: bytes per PE
    bytes_root,     // a: bytes, b: root (team PE)
    bytes_strides,  // a: bytes per PE, b: dst stride << 32 | src stride
    size_align,     // a: size, b: alignment (0: the default)
    count_size,     // a: count, b: element size
    offset_size,    // a: heap offset of the block, b: new size
    offset,         // a: heap offset of the block (0 for NULL)
    members,        // a: hash of the member list, b: number of members
};
struct CallTag {
    const char* call;
    uint64_t a = 0, b = 0;
    CallArgs args = CallArgs::none;
    uint64_t key() const;       // hash of (call name, args)
    uint64_t flag() const;      // key, a and b folded into one non-zero word
    // What world PE `pe` writes into a peer's pSync flag in this call (active-set barriers): the
    // flag and the sender folded into one non-zero word, so that a receiver tells its
    // predecessor's signal from any other word (a disagreeing call, another PE's signal in a
    // pSync reused too early, a pSync that was never SHMEM_SYNC_VALUE).
    uint64_t signal(int pe) const;
    mutable uint64_t key_ = 0, flag_ = 0;  // computed once (a barrier asks for them several times)
};

// A PE's current collective call, kept in the last kCallRecordBytes of the team region's
// scratch: a peer that receives a different tag reads it to name the call.
struct CallRecord {
    uint64_t call, a, b;
    uint8_t args;
    char name[kCallRecordBytes - 3 * sizeof(uint64_t) - 1];
};
static_assert(sizeof(CallRecord) == kCallRecordBytes, "call record layout");

constexpr int kThreadMultiple = 3;  // SHMEM_THREAD_MULTIPLE: the highest thread level

struct State {
    std::unique_ptr<Bootstrap> boot;
    int pe = 0;
    int npes = 1;
    int thread_level = 0;
    std::vector<bool> local;  // same host as this PE
    std::unique_ptr<Segment> own;  // this PE's host segment (every route: UCX only registers it)
    std::vector<std::unique_ptr<Segment>> peer_segments;
    // Two symmetric regions: the host segment (runtime sync regions; also the user heap when it
    // lives in host memory) and the user heap, which may be GPU memory.
    char* sync_base = nullptr;
    std::size_t sync_size = 0;
    char* base = nullptr;  // user heap
    std::size_t size = 0;
    bool device_heap = false;
    int gpu_pes = 1;  // PEs using this PE's GPU, this one included (device heaps; else 1)
    std::unique_ptr<HeapAllocator> alloc;

    std::unique_ptr<ShmTransport> shm;
#if KISHMEM_HAVE_UCX
    std::unique_ptr<UcxTransport> ucx;
#endif
#if KISHMEM_HAVE_CUDA
    std::unique_ptr<DeviceHeap> dheap;
    std::unique_ptr<CudaIpcTransport> cuda_ipc;
    std::unique_ptr<DeviceBackend> device_backend;  // kernels' operations to non-mapped PEs (routes.backend)
#endif
#if KISHMEM_HAVE_CUDA && KISHMEM_HAVE_UCX
    // GPU heaps on other hosts (routes.ucx_am): the UCX active-message service, the heap access
    // it applies peers' requests to this PE's GPU heap with, and host calls' transport to theirs.
    std::unique_ptr<ibgda::HeapAccess> am_local;
    std::unique_ptr<UcxAm> am;
    std::unique_ptr<HeapAccessTransport> am_transport;
#endif
    routes::Routes routes;               // the route decision (routes.h); the tables below carry it out
    std::vector<std::string> route_why;  // ... in words (routes::explain)
    std::vector<Transport*> route;       // route[pe]: the one transport that reaches pe's user heap
    std::vector<Transport*> route_sync;  // ... and pe's host segment (runtime sync regions)
    // Global and static variables: the executable's writable segment, turned into shared memory
    // (static_own) that same-host peers map (static_peers): this PE's own and same-host peers'
    // variables by load/store (static_shm), other hosts' through UCX (a transport of its own
    // over that segment).
    char* static_base = nullptr;
    std::size_t static_size = 0;
    std::unique_ptr<Segment> static_own;
    std::vector<std::unique_ptr<Segment>> static_peers;
    std::unique_ptr<ShmTransport> static_shm;
#if KISHMEM_HAVE_UCX
    std::unique_ptr<UcxTransport> static_ucx;
#endif
    std::vector<Transport*> route_static;
    std::vector<Transport*> transports;  // each transport in use once (quiet, fence, progress)
    std::vector<char*> p2p;              // rt::g_hot.p2p: route[pe] is shm ? pe's heap : nullptr
    bool needs_progress = false;

    uint64_t team_slots_used = 0;  // bit t: team region t belongs to a live team of this PE
    std::vector<int> chan_refs;    // live contexts on channel c (channel 0: the default context)
    int nchan = 1;
    bool initialized = false;
    bool finalized = false;
    State();   // both in init.cpp, where every member's type is complete
    ~State();
};

// Inline: collectives ask for it several times per call (a call each cost ~2 ns).
inline State& state() {
    static State s;
    return s;
}

// Collective over `team`: every member contributes w[4]; each gets w[k] combined with ops[k]
// over all members.  Nobody returns before every member entered (a barrier).
// Every member must pass the same tag (a disagreement is a fatal error naming both calls).
void team_allreduce(kishmem_team* team, const CallTag& tag, uint64_t w[4], const ReduceOp ops[4]);

// The same with a min/max pair: lo = element-wise min, hi = max of v[2] over the team.
void team_minmax(kishmem_team* team, const CallTag& tag, const uint64_t v[2], uint64_t lo[2], uint64_t hi[2]);

// A barrier of `team` that also checks that every member passed the same tag.
void team_agree(kishmem_team* team, const CallTag& tag);

namespace rt {
// shmem_finalize's barrier: quiet, then a world barrier under the tag shmem_finalize (a PE in
// another collective call meanwhile is a disagreement).
void finalize_barrier();
}  // namespace rt

// Where a group's CallRecord lives in every PE's host segment (a team's region, or the
// active-set region for groups without one), and writing this PE's.
std::size_t call_record_offset(const kishmem_team* group);
void call_record_write(const kishmem_team* group, const CallTag& tag);
// Ends the job: `from` (a world PE) is in another collective call than this PE's `mine`; it
// said so with (call, a, b).
[[noreturn]] void call_disagreement(const kishmem_team* group, const CallTag& mine, int from, uint64_t call,
                                    uint64_t a, uint64_t b);
// Ends the job: the pSync flag `flag` of an active-set barrier (this PE's call `mine`, waiting
// for world PE `from`) held `seen`, not from's signal: from's other call (a disagreement), another
// PE's signal (the pSync reused before every PE left its previous call) or no PE's (a pSync that
// was not SHMEM_SYNC_VALUE), each said in its own words.
[[noreturn]] void psync_mismatch(const kishmem_team* group, const CallTag& mine, int from, const long* psync,
                                 const long* flag, long seen);

// Start of `team`'s runtime region in this PE's heap, and as an offset.
inline std::size_t team_region_offset(const kishmem_team* t) { return static_cast<std::size_t>(t->slot) * kTeamRegion; }

// A put into `to`'s host segment at the place of `local` in this PE's host segment.
void sync_put(int to, const void* local, const void* src, std::size_t n, const char* call);

// Copies and stores where either side may be in a device heap.
void local_copy(void* dst, const void* src, std::size_t n);
void local_set(void* dst, int value, std::size_t n);

// Maps a status from a transport to a fatal error naming the call: the API routine this thread
// is in with its arguments (ApiCall), else `call`; `pe` the target (-1: a completion, no one PE).
void check_status(Status s, const char* call, int pe);

}  // namespace kishmem
