/* Init and finalize orders of MPI and kishmem (argv[1]):
 *   mpi_first     MPI_Init, shmem_init ... shmem_finalize, MPI still used, MPI_Finalize
 *   shmem_first   shmem_init, MPI_Init ... MPI_Finalize, SHMEM still used, shmem_finalize
 *   ext_late      MPI_Init, shmemx_init_mpi(MPI_COMM_WORLD) ... MPI_Finalize (which finalizes
 *                 kishmem first), then shmem_finalize does nothing
 * In each, PE == MPI_COMM_WORLD rank and both libraries move data while both are up. */
#include "mpi_check.h"

static int g_npes;

/* A ring of puts, read back with MPI: both libraries see the same ranks. */
static void both_work(void) {
    int me = shmem_my_pe(), npes = shmem_n_pes(), rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(me == rank && npes == size, "PE %d of %d, MPI_COMM_WORLD rank %d of %d", me, npes, rank, size);
    long *x = shmem_calloc(1, sizeof(long));
    shmem_long_p(x, 10 * me + 1, (me + 1) % npes);
    shmem_barrier_all();
    long left = (me + npes - 1) % npes;
    CHECK(*x == 10 * left + 1, "ring value %ld from PE %ld", *x, left);
    long sum = 0;
    CHECK_MPI(MPI_Allreduce(x, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    long expect = 10L * npes * (npes - 1) / 2 + npes;
    CHECK(sum == expect, "MPI sum of SHMEM-delivered values %ld, expected %ld", sum, expect);
    shmem_free(x);
    g_npes = npes;
}

static void mpi_only(void) {
    int one = 1, n = 0, up = 1;
    CHECK_MPI(MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(n == g_npes, "MPI count %d after shmem_finalize", n);
    shmem_query_initialized(&up);
    CHECK(up == 0, "kishmem still initialized after shmem_finalize");
}

static void shmem_only(void) {
    int me = shmem_my_pe(), npes = shmem_n_pes(), down = 1;
    MPI_Finalized(&down);
    CHECK(down == 1, "MPI not finalized");
    long *c = shmem_calloc(1, sizeof(long));
    shmem_long_atomic_add(c, me + 1, 0);
    shmem_barrier_all();
    if (me == 0) CHECK(*c == (long)npes * (npes + 1) / 2, "atomic sum %ld after MPI_Finalize", *c);
    shmem_free(c);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "mpi_first") == 0) {
        CHECK_MPI(MPI_Init(&argc, &argv));
        shmem_init();
        both_work();
        shmem_finalize();
        mpi_only();
        mpi_pass("mpi_order.mpi_first");
        MPI_Finalize();
    } else if (strcmp(mode, "shmem_first") == 0) {
        shmem_init();
        CHECK_MPI(MPI_Init(&argc, &argv));
        both_work();
        MPI_Finalize();
        shmem_only();
        shmem_barrier_all();
        if (shmem_my_pe() == 0) printf("PASS mpi_order.shmem_first on %d ranks\n", shmem_n_pes());
        fflush(stdout);
        shmem_finalize();
    } else if (strcmp(mode, "ext_late") == 0) {
        CHECK_MPI(MPI_Init(&argc, &argv));
        CHECK(shmemx_init_mpi(MPI_COMM_WORLD) == 0, "shmemx_init_mpi");
        both_work();
        int rank = world_rank();
        MPI_Finalize();
        int up = 1, down = 0;
        shmem_query_initialized(&up);
        shmem_query_finalized(&down);
        CHECK(up == 0 && down == 1, "after MPI_Finalize: initialized %d, finalized %d", up, down);
        shmem_finalize(); /* nothing left to do */
        /* No library is left to synchronize with: every rank that gets here says so. */
        printf("rank %d: kishmem finalized by MPI_Finalize\n", rank);
        if (rank == 0) printf("PASS mpi_order.ext_late on %d ranks\n", g_npes);
        fflush(stdout);
    } else {
        fprintf(stderr, "usage: mpi_order mpi_first|shmem_first|ext_late\n");
        return 2;
    }
    return 0;
}
