/* Started by shmem_init through the launcher (mpirun, srun --mpi=pmix) in an MPI program: PE
 * numbers equal MPI_COMM_WORLD ranks, the PE count the world size, and the PEs sharing a host
 * (SHMEM_TEAM_SHARED) are the ranks of MPI_Comm_split_type(MPI_COMM_TYPE_SHARED). */
#include "mpi_check.h"

int main(int argc, char **argv) {
    CHECK_MPI(MPI_Init(&argc, &argv));
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(me == rank, "PE %d but MPI_COMM_WORLD rank %d", me, rank);
    CHECK(npes == size, "%d PEs but MPI_COMM_WORLD has %d ranks", npes, size);

    /* Everybody's view of everybody: the PE each rank reports, gathered by MPI, and the MPI
     * rank each PE reports, gathered by SHMEM puts into PE 0. */
    int pes[64];
    CHECK(size <= 64, "too many ranks");
    CHECK_MPI(MPI_Allgather(&me, 1, MPI_INT, pes, 1, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < size; ++r) CHECK(pes[r] == r, "rank %d is PE %d", r, pes[r]);
    int *ranks = shmem_calloc(64, sizeof(int));
    shmem_int_p(&ranks[me], rank, 0);
    shmem_barrier_all();
    if (me == 0)
        for (int pe = 0; pe < npes; ++pe) CHECK(ranks[pe] == pe, "PE %d is MPI rank %d", pe, ranks[pe]);

    /* Same host, as each library sees it. */
    MPI_Comm node;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
    int nsize, nrank;
    MPI_Comm_size(node, &nsize);
    MPI_Comm_rank(node, &nrank);
    CHECK(shmem_team_n_pes(SHMEM_TEAM_SHARED) == nsize, "SHMEM_TEAM_SHARED has %d PEs, the MPI node %d",
          shmem_team_n_pes(SHMEM_TEAM_SHARED), nsize);
    int node_pes[64];
    CHECK_MPI(MPI_Allgather(&me, 1, MPI_INT, node_pes, 1, MPI_INT, node));
    for (int i = 0; i < nsize; ++i) {
        int w = shmem_team_translate_pe(SHMEM_TEAM_SHARED, i, SHMEM_TEAM_WORLD);
        CHECK(w == node_pes[i], "shared team PE %d is world PE %d, the MPI node's rank %d is PE %d", i, w, i,
              node_pes[i]);
    }
    MPI_Comm_free(&node);

    shmem_free(ranks);
    shmem_finalize();
    mpi_pass("mpi_world_rank");
    MPI_Finalize();
    return 0;
}
