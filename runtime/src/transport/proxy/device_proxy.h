// The proxy's channels as kernels see them (the ChannelTable in GPU memory), for the proxy
// device backend (device_backend/proxy.cpp) and benchmarks. Built only with CUDA.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "kishmem/log.h"

namespace kishmem::proxy {

class Proxy;

// The kernels' view of p's channels, in one GPU block (cudaFree it after the kernels): the
// ChannelTable at its start, the Channel array, and per channel the reservation counter, the
// `seen` copy of done and the `consumed` marks (channel.h). p's channels must be host-pinned
// memory mapped into the GPU at the same address.
Status make_device_channels(const Proxy& p, void** block, std::string* why);

}  // namespace kishmem::proxy
