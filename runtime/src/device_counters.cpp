// What carried this PE's kernels' operations to PEs they cannot load/store, counted: the one
// place that reads the device backend's counters (rt::device_counters, behind shmemx_nic_stats)
// and words the software NIC's and the CPU proxy's counters alike (counters_of).
#include <utility>

#include "device_backend/backend.h"
#include "state.h"
#include "transport/ibgda/sim_nic.h"
#include "transport/proxy/proxy.h"

namespace kishmem {

rt::DeviceCounters counters_of(const ibgda::SimNicStats& s) {
    rt::DeviceCounters c;
    c.source = rt::CounterSource::nic;
    c.work_requests = s.wqes;
    c.bytes = s.bytes;
    c.doorbells = s.doorbells;
    c.errors = s.errors;
    return c;
}

rt::DeviceCounters counters_of(const proxy::ProxyStats& s) {
    rt::DeviceCounters c;
    c.source = rt::CounterSource::proxy;
    c.work_requests = s.executed > s.errors ? s.executed - s.errors : 0;  // executed counts the failed ones too
    c.bytes = s.bytes;
    c.errors = s.errors;
    return c;
}

#if KISHMEM_HAVE_CUDA
std::unique_ptr<DeviceBackend> swap_device_backend(std::unique_ptr<DeviceBackend> b) {
    std::swap(state().device_backend, b);
    return b;
}
#endif

namespace rt {

bool device_counters(DeviceCounters* out) {
    *out = DeviceCounters{};
#if KISHMEM_HAVE_CUDA
    const State& s = state();
    if (s.device_backend && s.device_backend->counters(out)) return true;
    *out = DeviceCounters{};
#endif
    return false;
}

}  // namespace rt
}  // namespace kishmem
