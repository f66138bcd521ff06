// The device state every CUDA translation unit of the program keeps in its own __constant__
// object: registered fill functions, called with the state once the heaps are mapped.
#include <mutex>
#include <vector>
#if KISHMEM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "kishmem/device/state.h"
#include "state.h"

namespace kishmem {
namespace {
std::mutex g_mutex;
std::vector<kishmem_device_state_fill_fn>& fills() {
    static std::vector<kishmem_device_state_fill_fn> v;
    return v;
}
std::vector<kishmem_kernel_loader_fn>& loaders() {
    static std::vector<kishmem_kernel_loader_fn> v;
    return v;
}
device::State g_published{};
bool g_have = false;

// Runs a translation unit's loader (kishmem_register_kernels).
void preload(kishmem_kernel_loader_fn load) {
    if (const char* why = load()) warn("shmem_init", "cannot load the library's kernels ahead of their launch: %s", why);
}
}  // namespace

void publish_device_state(const device::State& st) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_published = st;
    const bool first = !g_have;
    g_have = true;
    for (auto fn : fills()) fn(&g_published);
    if (first)
        for (auto load : loaders()) preload(load);
}

// A team's members as kernels see them (slot `slot` of the device state), and republish.  No
// effect while no device state exists (host heaps).
void device_team_set(int slot, const void* key, const std::vector<int>& members, int my_index) {
#if KISHMEM_HAVE_CUDA
    std::lock_guard<std::mutex> lock(g_mutex);
    if (!g_have) return;
    device::Team& t = g_published.teams[slot];
    int* d = nullptr;
    if (cudaMalloc(reinterpret_cast<void**>(&d), members.size() * sizeof(int)) != cudaSuccess ||
        cudaMemcpy(d, members.data(), members.size() * sizeof(int), cudaMemcpyHostToDevice) != cudaSuccess)
        fatal("team", "cannot publish a team to the GPU: %s", cudaGetErrorString(cudaGetLastError()));
    t.key = key;
    t.members = d;
    t.size = static_cast<int>(members.size());
    t.my_index = my_index;
    for (auto fn : fills()) fn(&g_published);
#else
    (void)slot, (void)key, (void)members, (void)my_index;
#endif
}

// After every member left the team's last barrier: its device flags start clean for the next
// team in this slot.
void device_team_clear(int slot) {
#if KISHMEM_HAVE_CUDA
    std::lock_guard<std::mutex> lock(g_mutex);
    if (!g_have) return;
    device::Team& t = g_published.teams[slot];
    if (t.members) cudaFree(const_cast<int*>(t.members));
    t = device::Team{};
    cudaMemset(g_published.heap_base + device::dev_barrier_off(slot), 0, device::kDevBarrierBytes);
    cudaMemset(g_published.heap_base + device::dev_epoch_off(slot), 0, 8);
    cudaMemset(g_published.heap_base + device::dev_push_flag_off(slot), 0, device::kDevPushFlagBytes);
    cudaMemset(g_published.heap_base + device::dev_push_epoch_off(slot), 0, 8);
    cudaDeviceSynchronize();
    for (auto fn : fills()) fn(&g_published);
#else
    (void)slot;
#endif
}

}  // namespace kishmem

// Called by the static initializer of every CUDA translation unit that includes shmem.h:
// exported by libkishmem (shmem_api/kishmem.map).
extern "C" __attribute__((visibility("default"))) void kishmem_register_device_state(kishmem_device_state_fill_fn fill) {
    using namespace kishmem;
    std::lock_guard<std::mutex> lock(g_mutex);
    fills().push_back(fill);
    if (g_have) fill(&g_published);  // a module loaded after shmem_init
}

// Called by the static initializers of the library's CUDA translation units (stream_ops.cu,
// kishmem::ep's): exported by libkishmem (shmem_api/kishmem.map).
extern "C" __attribute__((visibility("default"))) void kishmem_register_kernels(kishmem_kernel_loader_fn load) {
    using namespace kishmem;
    std::lock_guard<std::mutex> lock(g_mutex);
    loaders().push_back(load);
    if (g_have) preload(load);
}
