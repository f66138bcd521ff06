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

// Completes `req`, calling `progress(arg)` (when not null) or yielding between tests; past
// KISHMEM_HANG_WARN seconds it says that it waits for `what` of the MPI communicator of `ranks`
// ranks, past KISHMEM_HANG_ABORT it ends the job, as kishmem's own waits do.  For the waits
// before and during init, where kishmem_ext_wait cannot serve.
int wait_request(MPI_Request* req, kishmem_ext_progress_fn progress, void* arg, const char* what, int ranks);

// The message of an MPI error code, for warnings.
const char* mpi_error_text(int code);

}  // namespace kishmem::mpi_ext
