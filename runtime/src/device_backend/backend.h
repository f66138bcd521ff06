// Device backends: what carries kernels' operations to PEs they cannot load/store (IBGDA work
// queues on a NIC, the CPU proxy; a hardware ConnectX backend would be a third).  Each one is a
// DeviceBackend made from the one table in registry.cpp; init opens the one the route builder
// chose (routes::DeviceBackendKind), finalize drains and closes it.  What kernels use of a
// backend is a plain-data handle it writes into the device state (device/include/kishmem/
// device/state.h: `ibgda`, `proxy`).  Built only with CUDA.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "../routes.h"
#include "kishmem/log.h"
#include "kishmem/runtime.h"

namespace kishmem {
class Bootstrap;
class UcxAm;
}
namespace kishmem::ibgda {
class HeapAccess;
struct SimNicStats;
}
namespace kishmem::proxy {
struct ProxyStats;
}
namespace kishmem::device {
struct State;
}

namespace kishmem {

// What a backend is opened with: this PE's device heap and everyone's as mapped here.
struct DeviceBackendArgs {
    char* heap = nullptr;           // this PE's device heap
    std::size_t heap_bytes = 0;
    int gpu = 0;                    // the CUDA device it lives on
    std::vector<char*> bases;       // bases[pe]: pe's device heap as mapped here (bases[pe] = heap for this PE;
                                    // nullptr for PEs on other hosts)
    int pe = 0, npes = 1;
    Bootstrap* boot = nullptr;      // for backends that exchange keys (their open is collective)
    UcxAm* am = nullptr;            // reaches the GPU heaps of PEs on other hosts (nullptr: all on this host)
};

// What a backend moves bytes with: same-host GPU heaps through their CUDA IPC mappings, the
// others through a client of args.am (its copies staged through host memory).  heap.cpp.
Status make_backend_heap(const DeviceBackendArgs& args, std::unique_ptr<ibgda::HeapAccess>* out, std::string* why);

class DeviceBackend {
public:
    virtual ~DeviceBackend() = default;
    virtual const char* name() const = 0;
    // Sets the backend up and writes its device handle into *st; on failure, *why says why.
    // Collective where the backend exchanges data (every PE calls it, and every PE fails when
    // one does).
    virtual Status open(const DeviceBackendArgs& args, device::State* st, std::string* why) = 0;
    // Executes whatever kernels posted and lands its data (once kernels are done, before the
    // PEs' last barrier: the targets' heaps must still exist).
    virtual void drain() = 0;
    // Stops the backend and frees its queues (after every PE drained).
    virtual void close() = 0;
    // The first operation of a kernel that the NIC or the proxy failed, in words naming the
    // target PE, the queue, the operation and the address ("" while none failed). Cheap: the
    // runtime asks at every host quiet and barrier and ends the job with it (rt::check_device).
    virtual std::string failure() const { return {}; }
    // What the backend executed so far (monotonic; shmemx_nic_stats). False: it counts nothing.
    virtual bool counters(rt::DeviceCounters* out) const {
        (void)out;
        return false;
    }
};

// The two counter sets, in the runtime's words (device_counters.cpp; tests wrap NICs they drive).
rt::DeviceCounters counters_of(const ibgda::SimNicStats& s);
rt::DeviceCounters counters_of(const proxy::ProxyStats& s);
// Puts b in place of this PE's device backend and returns the one there (for a NIC that host
// code drives, in tests: the runtime then counts, reports and finalizes it as its own).
std::unique_ptr<DeviceBackend> swap_device_backend(std::unique_ptr<DeviceBackend> b);

// The one table of backends; nullptr for DeviceBackendKind::none.
std::unique_ptr<DeviceBackend> make_device_backend(routes::DeviceBackendKind kind);

// The registered implementations (each in its own file of this folder).
std::unique_ptr<DeviceBackend> make_ibgda_backend();
std::unique_ptr<DeviceBackend> make_proxy_backend();

}  // namespace kishmem
