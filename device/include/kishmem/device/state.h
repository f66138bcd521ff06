// The plain-data state a kernel needs to reach other PEs.  The runtime fills one copy per
// translation unit that includes shmem.h under nvcc (a static __constant__ object each; see
// shmem_api/include/kishmem/shmem_device.h), so no -rdc is needed.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "hd.h"
#include "kishmem/vocab.h"

namespace kishmem::device {

namespace ibgda {
struct DeviceQpTable;  // kishmem/device/ibgda/qp_table.h
}
}  // namespace kishmem::device
namespace kishmem::proxy {
struct ChannelTable;  // kishmem/device/proxy/channel.h
}
namespace kishmem::device {

constexpr int kMaxPes = 128;  // PEs whose heaps one device state can name

// kMaxTeams (team slots, as the runtime numbers them): kishmem/vocab.h.

// Device heap map, offsets from each PE's device heap base (the same on every PE):
//   [t * 512, +512)           team slot t's barrier flags: 2 parities x 32 rounds x 8 B
//                             (written by peers); t < kMaxTeams, so [0, 32 KiB)
//   [32 KiB + t * 8, +8)      this PE's device barrier epoch of team slot t (this PE only)
//   [33 KiB + t * 8, +8)      this PE's pushed-reduction epoch of team slot t (this PE only)
//   [34 KiB + t * 256, +256)  team slot t's pushed-reduction flags: 2 parities x kPushMembers x
//                             8 B (written by peers): [34 KiB, 50 KiB)
//   [64 KiB + t * 16 KiB, +16 KiB)  team slot t's pushed-reduction data: 2 parities x
//                             kPushMembers x kPushBytes (written by peers): [64 KiB, 1088 KiB)
//   [kDevReserved, size)      user allocations
// (coll.h's reduce pushes a reduction of at most kPushBytes in a team of at most kPushMembers.)
constexpr int kPushMembers = 16;
constexpr size_t kPushBytes = 512;
constexpr size_t kDevBarrierBytes = 2 * 32 * 8;
constexpr size_t kDevEpochBase = 32 * 1024;
constexpr size_t kDevPushEpochBase = 33 * 1024;
constexpr size_t kDevPushFlagBase = 34 * 1024, kDevPushFlagBytes = 2 * kPushMembers * 8;
constexpr size_t kDevPushDataBase = 64 * 1024, kDevPushDataBytes = 2 * kPushMembers * kPushBytes;
constexpr size_t kDevReserved = kDevPushDataBase + kMaxTeams * kDevPushDataBytes;
static_assert(kDevEpochBase + kMaxTeams * 8 <= kDevPushEpochBase && kDevPushEpochBase + kMaxTeams * 8 <= kDevPushFlagBase &&
                  kDevPushFlagBase + kMaxTeams * kDevPushFlagBytes <= kDevPushDataBase,
              "the device heap map's regions overlap");
KISHMEM_HD constexpr size_t dev_barrier_off(int slot) { return static_cast<size_t>(slot) * kDevBarrierBytes; }
KISHMEM_HD constexpr size_t dev_epoch_off(int slot) { return kDevEpochBase + static_cast<size_t>(slot) * 8; }
KISHMEM_HD constexpr size_t dev_push_epoch_off(int slot) { return kDevPushEpochBase + static_cast<size_t>(slot) * 8; }
KISHMEM_HD constexpr size_t dev_push_flag_off(int slot) { return kDevPushFlagBase + static_cast<size_t>(slot) * kDevPushFlagBytes; }
KISHMEM_HD constexpr size_t dev_push_data_off(int slot) { return kDevPushDataBase + static_cast<size_t>(slot) * kDevPushDataBytes; }

// A team as kernels see it: the host handle (shmem_team_t) as a key, and the members.
struct Team {
    const void* key;     // the host's shmem_team_t; nullptr: slot unused
    const int* members;  // world PE of each team PE (GPU memory)
    int size;
    int my_index;
};

struct State {
    int my_pe;
    int n_pes;
    int initialized;
    int sys_scope;                 // some peer is on another GPU: fences and waits use system scope
    char* heap_base;               // this PE's device heap
    size_t heap_size;
    char* peer_base[kMaxPes];      // each PE's device heap as mapped here; nullptr: not mapped
    // IBGDA (device/include/kishmem/device/ibgda/backend.h): a PE whose peer_base is null (heap
    // not mapped here; with KISHMEM_REMOTE=ibgda or proxy every PE but this one) is reached by posting
    // WQEs to the QPs of this table (GPU memory); nullptr: no IBGDA.
    const ibgda::DeviceQpTable* ibgda;
    int ibgda_qps_per_pe;          // QPs per PE in the table (a CTA uses block % this)
    // CPU proxy (device/include/kishmem/device/proxy/backend.h): with no IBGDA table, a PE whose
    // peer_base is null is reached through descriptors to the host's proxy thread (GPU memory;
    // nullptr: no proxy).
    const ::kishmem::proxy::ChannelTable* proxy;
    Team teams[kMaxTeams];         // by runtime team slot
    // Waiting in kernels (KISHMEM_HANG_WARN / KISHMEM_HANG_ABORT, in ns; 0: off): a wait that
    // lasts this long prints what it waits for (once), or prints it and traps.
    unsigned long long hang_warn_ns;
    unsigned long long hang_abort_ns;
    const void* ctx_default;       // SHMEM_CTX_DEFAULT's handle (kernels treat every context as it)
};

}  // namespace kishmem::device

extern "C" {
// What each translation unit registers: a function that copies the state into its own
// __constant__ object.  The runtime calls every registered one at init.
typedef void (*kishmem_device_state_fill_fn)(const kishmem::device::State* state);
void kishmem_register_device_state(kishmem_device_state_fill_fn fill);
// Kernels of the library's own translation units (stream-ordered calls, kishmem::ep) that the
// runtime loads at init, not at their first launch: under CUDA's lazy loading, a first launch
// waits, holding the context's lock, for every running kernel to end, and a kernel that waits
// for a host thread of the library (the software NIC, the CPU proxy, the active-message
// service: each makes CUDA calls) never ends.  A translation unit registers a function that
// loads its kernels (through its own library's CUDA runtime: each shared library links its
// own) and returns NULL, or what failed; one registered after init runs at once.
typedef const char* (*kishmem_kernel_loader_fn)(void);
void kishmem_register_kernels(kishmem_kernel_loader_fn load);
}

#ifdef __CUDACC__
namespace kishmem::device {
// A translation unit's registration of its kernels, as a static object:
//   const kishmem::device::PreloadKernels<k_one, k_two<int>> g_preload;
template <auto... Kernel>
struct PreloadKernels {
    PreloadKernels() { kishmem_register_kernels(&load); }
    static const char* load() {
        const void* list[] = {reinterpret_cast<const void*>(Kernel)...};
        for (const void* k : list) {
            cudaFuncAttributes a{};
            if (cudaFuncGetAttributes(&a, k) != cudaSuccess) return cudaGetErrorString(cudaGetLastError());
        }
        return nullptr;
    }
};
}  // namespace kishmem::device
#endif
