// See device_proxy.h. The channels' rings, result slots and done words are host memory the
// GPU writes and reads across PCIe; each channel's reservation counter and `seen` copy of done
// live in GPU memory, where posters' atomics and most polls stay on the GPU.
#include "device_proxy.h"

#include <cuda_runtime_api.h>

#include <cstring>
#include <memory>

#include "../../state.h"
#include "../ibgda/ipc_heap_access.h"
#include "kishmem/device/proxy/channel.h"
#include "kishmem/device/state.h"
#include "proxy.h"

namespace kishmem::proxy {

namespace {

constexpr int kChannels = 8;       // CTA b posts to channel b % 8
constexpr uint32_t kLogSlots = 10; // 1024 descriptors per channel

struct DeviceProxy {
    std::unique_ptr<ibgda::HeapAccess> heap;
    std::unique_ptr<Proxy> proxy;
    void* table = nullptr;  // GPU memory: make_device_channels' block
    ~DeviceProxy() {
        if (proxy) proxy->stop();
        proxy.reset();
        heap.reset();
        if (table) cudaFree(table);
    }
};

std::unique_ptr<DeviceProxy>& g_proxy() {
    static std::unique_ptr<DeviceProxy> p;
    return p;
}

}  // namespace

Status make_device_channels(const Proxy& p, void** block, std::string* why) {
    // Layout: [0, 64) table, [64, +n * sizeof(Channel)) channels, then per channel resv and
    // seen (zeroed), then per channel `size` consumed marks.
    const int n = p.channels();
    const uint32_t size = 1u << p.channel(0).log_slots;
    const std::size_t o_ch = 64, o_ctr = o_ch + n * sizeof(Channel), o_mark = o_ctr + 2 * n * sizeof(uint32_t);
    const std::size_t bytes = o_mark + static_cast<std::size_t>(n) * size * sizeof(uint32_t);
    void* mem = nullptr;
    cudaError_t e = cudaMalloc(&mem, bytes);
    if (e != cudaSuccess) return *why = ibgda::cuda_error_text("proxy table in GPU memory", e), Status::no_memory;
    std::vector<uint8_t> host(bytes, 0);
    char* dev = static_cast<char*>(mem);
    for (int i = 0; i < n; ++i) {
        Channel c = p.channel(i);
        if (!ibgda::queue_memory_gpu_mapped(c.ring)) {
            cudaFree(mem);
            return *why = "proxy channels are not host-pinned memory mapped at the same address into the GPU",
                   Status::unsupported;
        }
        c.resv = reinterpret_cast<uint32_t*>(dev + o_ctr + (2 * i) * sizeof(uint32_t));
        c.seen = reinterpret_cast<uint32_t*>(dev + o_ctr + (2 * i + 1) * sizeof(uint32_t));
        const std::size_t o_c = o_mark + static_cast<std::size_t>(i) * size * sizeof(uint32_t);
        c.consumed = reinterpret_cast<uint32_t*>(dev + o_c);
        uint32_t* marks = reinterpret_cast<uint32_t*>(host.data() + o_c);
        for (uint32_t k = 0; k < size; ++k) marks[k] = k + 1 - size;  // as if slot k - size was consumed
        std::memcpy(host.data() + o_ch + i * sizeof(Channel), &c, sizeof c);
    }
    const ChannelTable t{n, 0, reinterpret_cast<const Channel*>(dev + o_ch)};
    std::memcpy(host.data(), &t, sizeof t);
    if ((e = cudaMemcpy(mem, host.data(), bytes, cudaMemcpyHostToDevice)) != cudaSuccess) {
        cudaFree(mem);
        return *why = ibgda::cuda_error_text("copying the proxy table", e), Status::transport_error;
    }
    *block = mem;
    return Status::ok;
}

Status open_device_proxy(char* heap, std::size_t heap_bytes, int gpu, const std::vector<char*>& bases,
                         device::State* st, std::string* why) {
    auto p = std::make_unique<DeviceProxy>();
    Status s = ibgda::make_ipc_heap_access(bases, heap, heap_bytes, gpu, &p->heap, why);
    if (s != Status::ok) return s;
    p->proxy = std::make_unique<Proxy>(p->heap.get(), state().npes, heap_bytes);
    if ((s = p->proxy->open(kChannels, kLogSlots)) != Status::ok)
        return *why = std::string("proxy channels: ") + status_name(s), s;
    if ((s = make_device_channels(*p->proxy, &p->table, why)) != Status::ok) return s;
    p->proxy->start();
    st->proxy = static_cast<const ChannelTable*>(p->table);
    debug("CPU proxy for kernels: %d channels of %u descriptors", kChannels, 1u << kLogSlots);
    g_proxy() = std::move(p);
    return Status::ok;
}

void drain_device_proxy() {
    auto& p = g_proxy();
    if (!p) return;
    while (p->proxy->poll() != 0) {
    }
}

void close_device_proxy() { g_proxy().reset(); }

}  // namespace kishmem::proxy
