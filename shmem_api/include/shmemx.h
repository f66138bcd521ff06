/* kishmem extensions to OpenSHMEM (shmemx_ prefix).
 *
 * Device code (nvcc): warp- and block-cooperative forms of the device routines, from the same
 * templates as the thread forms (kishmem/shmem_device.h):
 *   shmemx_putmem_warp / _block, shmemx_getmem_warp / _block, shmemx_putmem_nbi_warp / _block,
 *   shmemx_putmem_signal_warp / _block, shmemx_barrier_all_warp / _block, shmemx_sync_all_warp / _block.
 * Every thread of the warp (block) must call the routine with the same arguments.
 * Device barriers and collectives synchronize PEs, not blocks: each PE calls one at a time, from
 * one group (a thread, a warp or a block, as the form says); a kernel whose blocks must all be done
 * first syncs its grid itself (cooperative_groups' grid.sync() under shmemx_collective_launch),
 * then one block calls the barrier. */
#ifndef KISHMEM_SHMEMX_H
#define KISHMEM_SHMEMX_H
#include "shmem.h"
#include "kishmem/shmemx_sos.h" /* Sandia OpenSHMEM's shmemx_ names */

/* Counters of what carried this PE's kernel-initiated operations to PEs they cannot load/store:
 * the software NIC (KISHMEM_REMOTE=ibgda: the IBGDA work queues kernels post to) or the CPU
 * proxy (KISHMEM_REMOTE=proxy).  They only grow, from shmem_init on: the difference around a
 * call (after synchronizing its stream) is what the call posted.  Work requests and bytes are
 * counted once executed, so every one posted before a completed shmem_quiet is in. */
typedef struct {
    uint64_t work_requests; /* executed successfully: WQEs (NOPs included) or proxy descriptors */
    uint64_t bytes;         /* payload moved: a write's or read's length, 8 per atomic */
    uint64_t doorbells;     /* doorbell changes the NIC saw (rings between two of its passes over
                               a queue count once); 0 for the proxy */
    uint64_t errors;        /* work requests that failed (their followers' flushes not counted) */
    int source;             /* SHMEMX_NIC_SOURCE_NONE, _NIC or _PROXY */
} shmemx_nic_stats_t;
#define SHMEMX_NIC_SOURCE_NONE 0
#define SHMEMX_NIC_SOURCE_NIC 1
#define SHMEMX_NIC_SOURCE_PROXY 2
/* Fills *stats and returns 0; returns SHMEMX_NIC_STATS_NONE with every field zero where neither
 * runs for this PE (a host heap, or every peer reached by load/store).  A NULL stats ends the
 * job with a message, as a bad argument of any routine. */
#define SHMEMX_NIC_STATS_NONE 1

KISHMEM_BEGIN_DECLS
int shmemx_nic_stats(shmemx_nic_stats_t *stats);

/* PEs of this job whose kernels run on this PE's GPU, this PE included (several PEs share one GPU
 * under MPS, whatever their host groups); 1 where the symmetric heap is not in GPU memory. */
int shmemx_gpu_pes(void);

/* Host calls ordered on a CUDA stream (a small kernel each, so they can be captured into a CUDA
 * graph).  The heap must be in GPU memory (KISHMEM_HEAP=auto on a GPU machine).  Return 0, or
 * the CUDA error of the launch. */
#if defined(__CUDACC__) || defined(CUDART_VERSION)
int shmemx_putmem_on_stream(void *dest, const void *source, size_t nelems, int pe, cudaStream_t stream);
int shmemx_putmem_signal_on_stream(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                                   uint64_t signal, int sig_op, int pe, cudaStream_t stream);
int shmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value, cudaStream_t stream);
int shmemx_quiet_on_stream(cudaStream_t stream);
int shmemx_barrier_all_on_stream(cudaStream_t stream);
#endif
KISHMEM_END_DECLS

#if defined(__CUDACC__)
/* Forward progress.  A kernel whose blocks wait (wait_until, signal waits, device barriers) for
 * what other blocks do, of its own grid or of another PE's kernel on the same GPU, only finishes
 * if those blocks get an SM: every waiting block must fit on the GPU beside the waiting blocks of
 * every other PE using it.  shmemx_collective_launch_query_gridsize gives the largest such grid:
 * the blocks of `func` that fit on one SM (occupancy, for this block size and dynamic shared
 * memory) times the SMs this process may use (MPS shares included), less one block (room for the
 * library's own kernels, e.g. the software NIC's atomics), divided by shmemx_gpu_pes().  It assumes the other PEs bound their waiting kernels the same way.  args is not read (the
 * signature is NVSHMEM's).  Returns 0, or the CUDA error (cudaErrorInvalidValue for a NULL
 * gridsize). */
static inline int shmemx_collective_launch_query_gridsize(const void *func, dim3 block, void **args, size_t shared_mem,
                                                          int *gridsize) {
    int dev = 0, sms = 0, per_sm = 0;
    cudaError_t e;
    (void)args;
    if (!gridsize) return (int)cudaErrorInvalidValue;
    *gridsize = 0;
    e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, (int)(block.x * block.y * block.z), shared_mem);
    if (e != cudaSuccess) return (int)e;
    *gridsize = (int)(((long long)per_sm * sms - 1) / shmemx_gpu_pes());
    return 0;
}

/* Launches a kernel whose blocks sync across the grid (grid.sync()) or wait on other PEs'
 * kernels: every block must be resident at once, beside the same launch of every other PE on
 * this GPU, so it is a cooperative launch, refused with cudaErrorCooperativeLaunchTooLarge when
 * the grid is larger than shmemx_collective_launch_query_gridsize allows. */
static inline cudaError_t shmemx_collective_launch(const void *func, dim3 grid, dim3 block, void **args,
                                                   size_t shared_mem, cudaStream_t stream) {
    int most = 0;
    int e = shmemx_collective_launch_query_gridsize(func, block, args, shared_mem, &most);
    if (e != 0) return (cudaError_t)e;
    if ((long long)grid.x * grid.y * grid.z > (long long)most) return cudaErrorCooperativeLaunchTooLarge;
    return cudaLaunchCooperativeKernel(func, grid, block, args, shared_mem, stream);
}
#endif

#endif
