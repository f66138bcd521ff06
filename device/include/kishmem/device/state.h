// The plain-data state a kernel needs to reach other PEs.  The runtime fills one copy per
// translation unit that includes shmem.h under nvcc (a static __constant__ object each; see
// shmem_api/include/kishmem/shmem_device.h), so no -rdc is needed.
#pragma once
#include <stddef.h>
#include <stdint.h>

namespace kishmem::device {

namespace ibgda {
struct DeviceQpTable;  // kishmem/device/ibgda/qp_table.h
}

constexpr int kMaxPes = 128;  // PEs whose heaps one device state can name

// Device heap map, offsets from each PE's device heap base (the same on every PE):
//   [0, 512)          barrier flags: 2 parities x 32 rounds x 8 B (written by peers)
//   [4096, 4104)      this PE's device barrier epoch (written by this PE only)
//   [kDevReserved, size)  user allocations
constexpr size_t kDevBarrierOff = 0;
constexpr size_t kDevEpochOff = 4096;
constexpr size_t kDevReserved = 64 * 1024;

struct State {
    int my_pe;
    int n_pes;
    int initialized;
    int sys_scope;                 // some peer is on another GPU: fences and waits use system scope
    char* heap_base;               // this PE's device heap
    size_t heap_size;
    char* peer_base[kMaxPes];      // each PE's device heap as mapped here; nullptr: not mapped
    // IBGDA (device/include/kishmem/device/ibgda/backend.h): a PE whose heap is not mapped, or
    // with ibgda_forced (KISHMEM_REMOTE=ibgda) every PE but this one, is reached by posting
    // WQEs to the QPs of this table (GPU memory); nullptr: no IBGDA.
    const ibgda::DeviceQpTable* ibgda;
    int ibgda_qps_per_pe;          // QPs per PE in the table (a CTA uses block % this)
    int ibgda_forced;
};

}  // namespace kishmem::device

extern "C" {
// What each translation unit registers: a function that copies the state into its own
// __constant__ object.  The runtime calls every registered one at init.
typedef void (*kishmem_device_state_fill_fn)(const kishmem::device::State* state);
void kishmem_register_device_state(kishmem_device_state_fill_fn fill);
}
