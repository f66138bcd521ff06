// shmemx_nic_stats: the device backend's counters (rt::device_counters) in the C API's words.
#include "check.h"
#include "shmemx.h"

using namespace kishmem;

extern "C" int shmemx_nic_stats(shmemx_nic_stats_t* stats) {
    constexpr const char* kCall = "shmemx_nic_stats";
    api::check_init(kCall);
    if (!stats) fatal(kCall, "stats is NULL: pass the address of a shmemx_nic_stats_t to fill");
    rt::DeviceCounters c;
    const bool running = rt::device_counters(&c);
    *stats = shmemx_nic_stats_t{};
    stats->work_requests = c.work_requests;
    stats->bytes = c.bytes;
    stats->doorbells = c.doorbells;
    stats->errors = c.errors;
    stats->source = c.source == rt::CounterSource::nic     ? SHMEMX_NIC_SOURCE_NIC
                    : c.source == rt::CounterSource::proxy ? SHMEMX_NIC_SOURCE_PROXY
                                                           : SHMEMX_NIC_SOURCE_NONE;
    return running ? 0 : SHMEMX_NIC_STATS_NONE;
}
