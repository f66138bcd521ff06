// See device_proxy.h (the device backend itself is device_backend/proxy.cpp).  The channels'
// rings, result slots and done words are host memory the GPU writes and reads across PCIe;
// each channel's reservation counter and `seen` copy of done live in GPU memory, where
// posters' atomics and most polls stay on the GPU.
#include "device_proxy.h"

#include <cuda_runtime_api.h>

#include <cstring>
#include <memory>

#include "../ibgda/ipc_heap_access.h"
#include "kishmem/device/proxy/channel.h"
#include "proxy.h"

namespace kishmem::proxy {

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

}  // namespace kishmem::proxy
