// The CPU proxy for kernels (KISHMEM_REMOTE=proxy with a device heap): kChannels channels in
// host-pinned memory mapped into the GPU, their reservation counters in GPU memory, the
// proxy thread executing through the CUDA IPC mappings of the peers' GPU heaps, and the
// ChannelTable published in the device state. Built only with CUDA.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "kishmem/log.h"

namespace kishmem::device {
struct State;
}

namespace kishmem::proxy {

// This PE's part (no collective step: the proxy addresses peers by PE and heap offset).
// heap/heap_bytes: this PE's device heap on GPU `gpu`; bases[pe]: pe's heap as mapped here.
// On success the proxy runs and st->proxy is set.
Status open_device_proxy(char* heap, std::size_t heap_bytes, int gpu, const std::vector<char*>& bases,
                         device::State* st, std::string* why);

class Proxy;

// The kernels' view of p's channels, in one GPU block (cudaFree it after the kernels): the
// ChannelTable at its start, the Channel array, and per channel the reservation counter, the
// `seen` copy of done and the `consumed` marks (channel.h). p's channels must be host-pinned
// memory mapped into the GPU at the same address.
Status make_device_channels(const Proxy& p, void** block, std::string* why);

// Executes whatever kernels posted and is still pending (before the PEs' last barrier).
void drain_device_proxy();

// Stops the proxy and frees the channels.
void close_device_proxy();

}  // namespace kishmem::proxy
