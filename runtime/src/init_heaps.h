// The steps of shmem_init that make the symmetric regions and carry out the route decision
// (routes.h) for them: UCX over the host segment, global variables, the GPU heap and the
// device paths.  Called from init.cpp in that order; each is collective.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "routes.h"

namespace kishmem {

// UCX over the host segment this PE made (registered, not allocated by UCX): connected to the
// PEs routes.heap or routes.sync reach through UCX (built with UCX only).
void open_ucx_registered(int nchan);

// Global and static variables as a second symmetric region, reached as routes.statics says.
void open_statics(char* base, std::size_t bytes, const routes::Routes& routes, bool share);

// What a GPU heap made by open_device_heap maps.
struct DeviceHeapMap {
    std::vector<char*> bases;  // bases[pe]: pe's GPU heap as mapped here
    bool sys_scope = false;    // some peer's heap is on another GPU (system-scope fences)
};

// A GPU heap per host group, when setup allows one and every PE made one and mapped its
// same-host peers' through CUDA IPC (else, with KISHMEM_HEAP=auto, the host segment stays the
// user heap and *why_not says why).  On success the heap is the user heap (s.base, s.dheap,
// s.cuda_ipc), PEs on other hosts are reached through the UCX active-message service (s.am,
// s.am_transport) and true is returned.
bool open_device_heap(std::size_t heap_bytes, const routes::Setup& setup, const routes::Config& cfg,
                      DeviceHeapMap* map, std::string* why_not);

// Kernels' paths (routes.device), the device backend routes.backend names, and the device
// state every CUDA translation unit receives.
void start_device_paths(const routes::Routes& routes, const DeviceHeapMap& map);

}  // namespace kishmem
