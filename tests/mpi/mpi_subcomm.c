/* kishmem over a sub-communicator: MPI_COMM_WORLD is split by rank parity (keys reverse the
 * world order, so that PE numbers differ from world ranks); only the even ranks call
 * shmemx_init_mpi and become PEs, numbered by their rank in the split communicator.  RMA, AMO
 * and collectives work in that world; the odd ranks do MPI only and never see kishmem. */
#include "mpi_check.h"

int main(int argc, char **argv) {
    CHECK_MPI(MPI_Init(&argc, &argv));
    int wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    int color = wrank % 2;
    MPI_Comm half;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, wsize - wrank, &half));
    int hrank, hsize;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    int evens = (wsize + 1) / 2;

    if (color == 0) {
        CHECK(shmemx_init_mpi(half) == 0, "shmemx_init_mpi");
        int me = shmem_my_pe(), npes = shmem_n_pes();
        CHECK(npes == hsize && npes == evens, "n_pes %d, communicator size %d, even ranks %d", npes, hsize, evens);
        CHECK(me == hrank, "PE %d but rank %d in the communicator", me, hrank);
        CHECK(me == evens - 1 - wrank / 2, "PE %d for world rank %d (keys reverse the order)", me, wrank);
        int right = (me + 1) % npes, left = (me + npes - 1) % npes;

        /* The world rank of every PE, by a ring of puts and a get from each PE. */
        long *ring = shmem_calloc(4, sizeof(long));
        long mine[4] = {wrank, me, 1000 + wrank, -me};
        shmem_long_put(ring, mine, 4, right);
        shmem_barrier_all();
        int left_world = 2 * (evens - 1 - left);
        CHECK(ring[0] == left_world && ring[1] == left && ring[2] == 1000 + left_world && ring[3] == -left,
              "ring from PE %d: %ld %ld %ld %ld", left, ring[0], ring[1], ring[2], ring[3]);
        for (int pe = 0; pe < npes; ++pe) {
            long got = shmem_long_g(&ring[1], pe);
            CHECK(got == (pe + npes - 1) % npes, "shmem_long_g(PE %d) = %ld", pe, got);
        }
        shmem_barrier_all();

        /* Atomics from every PE on PE 0; then a SHMEM reduction checked against the sum. */
        long *counter = shmem_calloc(1, sizeof(long));
        shmem_barrier_all();
        shmem_long_atomic_add(counter, wrank + 1, 0);
        shmem_barrier_all();
        long expect = 0;
        for (int r = 0; r < wsize; r += 2) expect += r + 1;
        if (me == 0) CHECK(*counter == expect, "atomic sum %ld, expected %ld", *counter, expect);
        long *src = shmem_malloc(sizeof(long)), *dst = shmem_malloc(sizeof(long));
        *src = wrank;
        shmem_barrier_all();
        CHECK(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 1) == 0, "shmem_long_sum_reduce");
        CHECK(*dst == expect - evens, "reduce sum %ld, expected %ld", *dst, expect - evens);

        /* SHMEM_TEAM_WORLD as a communicator is the split communicator, rank for rank. */
        MPI_Comm wc;
        CHECK(shmemx_team_get_mpi_comm(SHMEM_TEAM_WORLD, &wc) == 0, "shmemx_team_get_mpi_comm(WORLD)");
        int cmp;
        MPI_Comm_compare(wc, half, &cmp);
        CHECK(cmp == MPI_CONGRUENT, "SHMEM_TEAM_WORLD's communicator compares %d with the split one", cmp);
        MPI_Comm_free(&wc);

        /* A second init over the same processes is harmless; over others it is refused. */
        CHECK(shmemx_init_mpi(half) == 0, "second shmemx_init_mpi over the same communicator");
        if (wsize > 1) CHECK(shmemx_init_mpi(MPI_COMM_WORLD) != 0, "shmemx_init_mpi over other processes");

        shmem_free(dst);
        shmem_free(src);
        shmem_free(counter);
        shmem_free(ring);
        shmem_finalize();
    } else {
        /* MPI only: kishmem is never initialized here. */
        int up = 1;
        shmem_query_initialized(&up);
        CHECK(up == 0, "kishmem initialized on an odd rank");
        int sum = 0, one = wrank;
        CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, half));
        int expect = 0;
        for (int r = 1; r < wsize; r += 2) expect += r;
        CHECK(sum == expect, "odd ranks' sum %d, expected %d", sum, expect);
    }
    /* Everybody, PEs or not, still talks MPI. */
    int total = 0, one = 1;
    CHECK_MPI(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(total == wsize, "world count %d", total);
    MPI_Comm_free(&half);
    mpi_pass("mpi_subcomm");
    MPI_Finalize();
    return 0;
}
