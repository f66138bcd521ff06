// GPU test: a kernel's put that the NIC fails ends the job with words, never a hang. Run on
// 2 PEs with KISHMEM_REMOTE=ibgda and KISHMEM_SIM_NIC_FAIL=<kind>:1:0: the first work request
// of PE 0's software NIC (PE 0's put to PE 1) completes with an error CQE. With
// KISHMEM_REMOTE=proxy the same variable makes PE 0's CPU proxy fail that put's descriptor
// (gpu.proxy_error.*), with the same two outcomes.
//   gpu_nic_error            the kernel traps in shmem_putmem naming PE, QP, operation and
//                            address; the host's next shmem_quiet names the failure too
//   gpu_nic_error_unchecked  (KISHMEM_DEVICE_UNCHECKED) the kernel returns; the host's next
//                            shmem_quiet names the failure
// The job must end non-zero: PE 0 never prints its pass line, PE 1 waits in the last barrier
// until the launcher takes the job down. The messages are checked by tests/gpu/CMakeLists.txt.
// Exits 77 (CTest's skip) where no GPU is usable.
#include <cuda_runtime.h>
#include <shmem.h>

#include <cstdio>

#include "gpu_check.h"

__global__ void k_put(char* dst, const char* src, int pe) {
    if (threadIdx.x == 0) shmem_putmem(dst, src, 64, pe);  // heap source over 28 bytes: a signalled RDMA write, waited for
}

int main() {
    GPU_TEST_INIT();
    const int me = shmem_my_pe(), np = shmem_n_pes();
    if (np != 2) {
        std::printf("FAIL: gpu_nic_error runs on 2 PEs (got %d)\n", np);
        return 1;
    }
    char* buf = static_cast<char*>(shmem_calloc(2, 256));
    shmem_barrier_all();
    if (me == 0) {
        std::printf("PE 0: putting 64 bytes to %p on PE 1\n", static_cast<void*>(buf + 136));
        std::fflush(stdout);
        k_put<<<1, 32>>>(buf + 136, buf + 256, 1);
        const cudaError_t e = cudaDeviceSynchronize();
        std::printf("PE 0: the kernel ended: %s\n", cudaGetErrorString(e));
        std::fflush(stdout);
        shmem_quiet();  // must not return: the NIC failed a put of this PE
        std::printf("FAIL: shmem_quiet returned after a failed put\n");
        return 1;
    }
    shmem_barrier_all();
    std::printf("FAIL: PE %d left the barrier although PE 0 failed\n", me);
    shmem_finalize();
    return 1;
}
