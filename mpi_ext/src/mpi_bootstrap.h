// The MPI bootstrap: kishmem's PEs are the ranks of a communicator.
#pragma once
#include <mpi.h>

#include <memory>

#include "bootstrap/bootstrap.h"

namespace kishmem::mpi_ext {

// Takes ownership of `comm` (a private duplicate of the user's communicator; freed by
// finalize()).  Collective over `comm` (it finds the ranks sharing this host).
std::unique_ptr<Bootstrap> bootstrap_mpi(MPI_Comm comm);

// The message of an MPI error code, for warnings.
const char* mpi_error_text(int code);

}  // namespace kishmem::mpi_ext
