// Whether kernel-initiated RDMA (IBGDA) can run in this process, for kishmem-info and logs.
#pragma once
#include <string>

namespace kishmem {

// One line: which NIC executes IBGDA work queues here (an mlx5 device or the software NIC),
// or exactly why the hardware path is unavailable ("no RDMA devices: ibv_get_device_list
// failed: Function not implemented", "no mlx5 device", "DEVX not permitted on mlx5_0: ...").
// Opens the device briefly when one exists; does not need shmem_init.
std::string ibgda_status();

}  // namespace kishmem
