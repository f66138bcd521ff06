// The device state every CUDA translation unit of the program keeps in its own __constant__
// object: registered fill functions, called with the state once the heaps are mapped.
#include <mutex>
#include <vector>

#include "kishmem/device/state.h"
#include "state.h"

namespace kishmem {
namespace {
std::mutex g_mutex;
std::vector<kishmem_device_state_fill_fn>& fills() {
    static std::vector<kishmem_device_state_fill_fn> v;
    return v;
}
device::State g_published{};
bool g_have = false;
}  // namespace

void publish_device_state(const device::State& st) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_published = st;
    g_have = true;
    for (auto fn : fills()) fn(&g_published);
}

}  // namespace kishmem

extern "C" void kishmem_register_device_state(kishmem_device_state_fill_fn fill) {
    using namespace kishmem;
    std::lock_guard<std::mutex> lock(g_mutex);
    fills().push_back(fill);
    if (g_have) fill(&g_published);  // a module loaded after shmem_init
}
