/* shmemx_init_mpi with a rank that comes late: the others wait for it with kishmem's hang
 * messages (KISHMEM_HANG_WARN), not silently inside a blocking MPI call; then both work. */
#include <unistd.h>

#include "mpi_check.h"

int main(int argc, char **argv) {
    CHECK_MPI(MPI_Init(&argc, &argv));
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == size - 1) sleep(3); /* past KISHMEM_HANG_WARN=1 of the test */
    CHECK(shmemx_init_mpi(MPI_COMM_WORLD) == 0, "shmemx_init_mpi");
    long *x = shmem_calloc(1, sizeof(long));
    shmem_long_atomic_add(x, 1, 0);
    shmem_barrier_all();
    if (rank == 0) CHECK(*x == size, "atomic sum %ld", *x);
    shmem_free(x);
    shmem_finalize();
    mpi_pass("mpi_late");
    MPI_Finalize();
    return 0;
}
