// The hardware work queues this library asked of CUDA when it loaded (cuda_connections.cpp).
#pragma once

namespace kishmem {

// What CUDA_DEVICE_MAX_CONNECTIONS was set to by KISHMEM_CUDA_CONNECTIONS (or its automatic
// choice); 0 where the library left it to CUDA or to the application.
long cuda_connections_asked();

}  // namespace kishmem
