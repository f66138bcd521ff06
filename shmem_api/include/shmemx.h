/* kishmem extensions to OpenSHMEM (shmemx_ prefix).
 *
 * Device code (nvcc): warp- and block-cooperative forms of the device routines, from the same
 * templates as the thread forms (kishmem/shmem_device.h):
 *   shmemx_putmem_warp / _block, shmemx_getmem_warp / _block, shmemx_putmem_nbi_warp / _block,
 *   shmemx_putmem_signal_warp / _block, shmemx_barrier_all_warp / _block, shmemx_sync_all_warp / _block.
 * Every thread of the warp (block) must call the routine with the same arguments. */
#ifndef KISHMEM_SHMEMX_H
#define KISHMEM_SHMEMX_H
#include "shmem.h"
#endif
