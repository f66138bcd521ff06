// The MPI bootstrap: kishmem's PEs are the ranks of a communicator.
#pragma once
#include <mpi.h>

#include "kishmem_ext.h"

namespace kishmem::mpi_ext {

// Fills `out` with a bootstrap over `comm`, a private duplicate of the user's communicator that
// it takes over (freed by the bootstrap's finalize).  Collective over `comm` (it finds the ranks
// sharing this host).  The struct is what kishmem_ext_init takes; its `self` is freed by its
// `destroy`.
void bootstrap_mpi(MPI_Comm comm, kishmem_ext_bootstrap* out);

// The message of an MPI error code, for warnings.
const char* mpi_error_text(int code);

}  // namespace kishmem::mpi_ext
