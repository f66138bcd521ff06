// shmemx_gpu_pes: how many PEs share this PE's GPU, which bounds the grids of kernels that wait
// on other PEs' kernels (shmemx_collective_launch_query_gridsize in shmemx.h).
#include "check.h"
#include "shmemx.h"

using namespace kishmem;

extern "C" int shmemx_gpu_pes(void) {
    api::check_init("shmemx_gpu_pes");
    return rt::gpu_pes();
}
