// The route decision, in one place: pure functions from the facts about the PEs (who shares a
// host, what could be mapped) and the configuration (KISHMEM_REMOTE, KISHMEM_HEAP, global
// variables) to every per-peer table the runtime and the device state use.  init.cpp only
// gathers the facts and carries the result out (opening transports, filling State); nothing
// else decides a path.  tests/unit/test_routes.cpp runs them over every combination.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kishmem/env.h"

namespace kishmem::routes {

// KISHMEM_REMOTE and KISHMEM_HEAP as the env table types them (env.def lists their words;
// env::remote() and env::heap() read them, checked at init).
using Remote = env::Remote;      // auto_, ucx, ibgda, proxy
using HeapMode = env::HeapMode;  // auto_, device, host

// How this PE reaches a peer's memory from host code.
enum class Path : uint8_t {
    load_store,  // mapped here (this PE, a same-host peer's POSIX or UCX-mapped segment)
    cuda_ipc,    // a same-host GPU heap mapped through CUDA IPC (copies and atomics on the GPU)
    ucx,         // through UCX (another host, or KISHMEM_REMOTE=ucx)
    ucx_am,      // a GPU heap on another host: UCX active messages, the target writes its heap
};

// How kernels of this PE reach a peer's device heap.
enum class DevicePath : uint8_t { load_store, ibgda, proxy };

// Which device backend serves kernels' operations to peers they cannot load/store.
enum class DeviceBackendKind : uint8_t { none, ibgda, proxy };

struct Config {
    Remote remote = Remote::auto_;
    HeapMode heap = HeapMode::auto_;
};

const char* name(Path p);
const char* name(DeviceBackendKind k);

// Step 0, from what every PE said at init: which PEs share this PE's host.  name[pe] is pe's
// host name, machine[pe] what makes its memory mappable by another PE (the kernel's boot id and
// /dev/shm's device: machine_identity), launcher[pe] the PEs its launcher says run on pe's host
// (empty: it says nothing).  The rule: two PEs share a host when their host names and their
// machine identities are equal, as MPI libraries and NVSHMEM group by host name; the machine
// identity keeps apart machines that share a name ("localhost") or one /dev/shm.  The launcher's
// word is a hint only: where it differs, the disagreement (both views) is reported, never acted
// on (the launchers of one machine's simulated hosts deny or join PEs against what the PEs can
// map).  Built from data every PE has, so every PE finds the same host groups.
struct Hosts {
    std::vector<bool> local;    // local[pe]: pe shares this PE's host (local[me] is true)
    bool all_one_host = true;   // every PE of the job shares one host
    std::string disagreement;   // how the launcher's word differs from the groups ("" where it agrees)
};
Hosts find_hosts(int me, const std::vector<std::string>& name, const std::vector<std::string>& machine,
                 const std::vector<std::vector<int>>& launcher);
// This process's machine identity for find_hosts: the kernel's boot id and /dev/shm's device.
std::string machine_identity();

// "0-1, 4" for the PEs with set[pe] == true ("none" when there is none).
std::string pe_list(const std::vector<bool>& set);

// Step 1, from where the PEs run: what init sets up.
struct Setup {
    bool need_ucx = false;         // some PE is reached through UCX (another host, or remote=ucx)
    bool try_device_heap = false;  // try a GPU heap (KISHMEM_HEAP=auto or device)
    bool device_heap_possible = false;  // ... which can work: nobody sent through UCX for everything
    bool device_heap_off_host = false;  // ... and some PE is on another host (reached by UCX
                                        // active messages: this UCX cannot register GPU memory)
    bool share_statics = false;    // this PE shares its global variables with same-host PEs
};
// local[pe]: pe runs on this host; all_one_host: every PE of the job does (the same on all PEs).
Setup plan_setup(const std::vector<bool>& local, bool all_one_host, const Config& cfg);

// Step 2, once the heaps are made: the facts init found.
struct Facts {
    int me = 0;
    std::vector<bool> local;  // local[pe]: pe runs on this host (local[me] is true)
    bool device_heap = false;  // every PE made a GPU heap and mapped its same-host peers' (collective)
    std::string no_device_heap;  // why not, when it was tried and is not used ("" otherwise)
};

struct Routes {
    std::vector<Path> heap;     // the user heap of each PE
    std::vector<Path> sync;     // each PE's host segment (the runtime's barrier and scratch regions)
    std::vector<Path> statics;  // each PE's global and static variables
    std::vector<bool> p2p;      // host code may load/store pe's user heap (shmem_ptr, fast paths)
    std::vector<DevicePath> device;  // kernels' path to each PE (only with a device heap)
    DeviceBackendKind backend = DeviceBackendKind::none;
    bool ucx_heap = false;      // some heap or sync path is UCX (the UCX transport over the host segment)
    bool ucx_statics = false;   // some statics path is UCX (a UCX transport of their own)
    bool ucx_am = false;        // some heap path is ucx_am (the UCX active-message service)
};
Routes build_routes(const Facts& facts, const Config& cfg, const Setup& setup);

// The decisions in words, one line each naming its reason: where the heap is, how host calls
// and kernels reach same-host and off-host PEs (SHMEM_INFO prints them at init, kishmem-info
// --routes too).
std::vector<std::string> explain(const Facts& facts, const Config& cfg, const Setup& setup, const Routes& r);

}  // namespace kishmem::routes
