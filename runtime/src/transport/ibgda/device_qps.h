// IBGDA for kernels (KISHMEM_REMOTE=ibgda with a device heap): a NIC with, per other PE,
// kQpsPerPe RC QPs (a CTA uses block % kQpsPerPe) and a CQ each, this PE's device heap
// registered, heap keys and bases exchanged through the bootstrap, and the plain
// device::ibgda::DeviceQpTable (device/include/kishmem/device/ibgda/qp_table.h) in GPU memory
// for the device state. Built only with CUDA.
//
// The NIC is the software NIC (SimNic) whatever KISHMEM_IBGDA_NIC says until the DEVX QPs are
// wired here ("auto" picks it; "hw" is refused). It reaches the target PEs' GPU heaps through
// this process's CUDA IPC mappings, on a CUDA stream of its own (see device_qps.cpp).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "kishmem/log.h"

namespace kishmem::device {
struct State;
}

namespace kishmem::ibgda {

// Collective: every PE of the job calls it once, with its device heap (heap, heap_bytes) on
// GPU `gpu` and bases[pe] = pe's device heap as mapped here (bases[this PE] = heap; nullptr where
// not mapped). On success the QPs run and st->ibgda and ibgda_qps_per_pe are set;
// on failure (on any PE) every PE gets an error status and *why.
Status open_device_qps(char* heap, std::size_t heap_bytes, int gpu, const std::vector<char*>& bases,
                       device::State* st, std::string* why);

// Executes every WQE kernels have posted and lands its data (call once kernels are done and
// before the PEs' last barrier: the targets' heaps must still exist).
void drain_device_qps();

// Stops the NIC and frees the queues and the table (after every PE drained).
void close_device_qps();

}  // namespace kishmem::ibgda
