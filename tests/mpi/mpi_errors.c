/* Wrong calls of shmemx_mpi.h return non-zero (each with a message) and leave both libraries
 * usable: before MPI_Init, MPI_COMM_NULL, a bad thread level, teams before init, invalid teams,
 * NULL outputs, inter-communicators (every PE of the parent returns non-zero alike), and team
 * conversions after shmem_finalize. */
#include "mpi_check.h"

int main(int argc, char **argv) {
    /* Before MPI_Init: nothing to build on. */
    CHECK(shmemx_init_mpi(MPI_COMM_WORLD) != 0, "shmemx_init_mpi before MPI_Init");
    CHECK_MPI(MPI_Init(&argc, &argv));
    int rank, size, up = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(shmemx_init_mpi(MPI_COMM_NULL) != 0, "shmemx_init_mpi(MPI_COMM_NULL)");
    int provided = -7;
    CHECK(shmemx_init_thread_mpi(MPI_COMM_WORLD, 7, &provided) != 0 && provided == -7, "thread level 7");
    MPI_Comm c = MPI_COMM_NULL;
    shmem_team_t t = SHMEM_TEAM_WORLD;
    CHECK(shmemx_team_get_mpi_comm(SHMEM_TEAM_WORLD, &c) != 0 && c == MPI_COMM_NULL, "team_get_mpi_comm before init");
    CHECK(shmemx_team_from_mpi_comm(MPI_COMM_WORLD, SHMEM_TEAM_WORLD, &t) != 0 && t == SHMEM_TEAM_INVALID,
          "team_from_mpi_comm before init");
    shmem_query_initialized(&up);
    CHECK(up == 0, "kishmem initialized by a failed call");

    CHECK(shmemx_init_thread_mpi(MPI_COMM_WORLD, SHMEM_THREAD_FUNNELED, &provided) == 0, "shmemx_init_thread_mpi");
    CHECK(provided == SHMEM_THREAD_FUNNELED, "provided %d", provided);
    CHECK(shmemx_team_get_mpi_comm(SHMEM_TEAM_INVALID, &c) != 0 && c == MPI_COMM_NULL, "SHMEM_TEAM_INVALID");
    CHECK(shmemx_team_get_mpi_comm(SHMEM_TEAM_WORLD, NULL) != 0, "NULL communicator output");
    CHECK(shmemx_team_from_mpi_comm(MPI_COMM_WORLD, SHMEM_TEAM_INVALID, &t) != 0 && t == SHMEM_TEAM_INVALID,
          "invalid parent");
    CHECK(shmemx_team_from_mpi_comm(MPI_COMM_WORLD, SHMEM_TEAM_WORLD, NULL) != 0, "NULL team output");

    if (size >= 2) {
        /* An inter-communicator between the even and the odd ranks: no team, on every PE. */
        MPI_Comm half, inter;
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
        CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 77, &inter));
        t = SHMEM_TEAM_WORLD;
        CHECK(shmemx_team_from_mpi_comm(inter, SHMEM_TEAM_WORLD, &t) != 0 && t == SHMEM_TEAM_INVALID,
              "inter-communicator");
        MPI_Comm_free(&inter);
        /* Still fine afterwards: the halves as teams. */
        CHECK(shmemx_team_from_mpi_comm(half, SHMEM_TEAM_WORLD, &t) == 0 && t != SHMEM_TEAM_INVALID, "halves");
        CHECK(shmem_team_n_pes(t) == (size + 1 - rank % 2) / 2, "half of %d PEs", shmem_team_n_pes(t));
        shmem_team_destroy(t);
        /* The rule broken (each PE of the parent passes the communicator it belongs to, or
         * MPI_COMM_NULL): the last PE passes MPI_COMM_NULL while the others pass MPI_COMM_WORLD;
         * the last PE passes MPI_COMM_WORLD while the others pass their half; the even PEs pass
         * MPI_COMM_WORLD with the team of the even PEs as parent (the odd ones are not in it).
         * Every PE returns non-zero; none waits. */
        t = SHMEM_TEAM_WORLD;
        CHECK(shmemx_team_from_mpi_comm(rank == size - 1 ? MPI_COMM_NULL : MPI_COMM_WORLD, SHMEM_TEAM_WORLD, &t) != 0 &&
                  t == SHMEM_TEAM_INVALID, "the last PE passed MPI_COMM_NULL, the others MPI_COMM_WORLD");
        t = SHMEM_TEAM_WORLD;
        CHECK(shmemx_team_from_mpi_comm(rank == size - 1 ? MPI_COMM_WORLD : half, SHMEM_TEAM_WORLD, &t) != 0 &&
                  t == SHMEM_TEAM_INVALID, "the last PE passed MPI_COMM_WORLD, the others their half");
        shmem_team_t evens;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (size + 1) / 2, NULL, 0, &evens);
        if (rank % 2 == 0) {
            t = SHMEM_TEAM_WORLD;
            CHECK(shmemx_team_from_mpi_comm(MPI_COMM_WORLD, evens, &t) != 0 && t == SHMEM_TEAM_INVALID,
                  "MPI_COMM_WORLD with the even PEs' team as parent");
        }
        shmem_team_destroy(evens);
        MPI_Comm_free(&half);
    }
    /* No team slot left: every PE returns non-zero and keeps no team (as a split does). */
    {
        enum { kMost = 200 };
        static shmem_team_t made[kMost];
        int n = 0;
        while (n < kMost && shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, size, NULL, 0, &made[n]) == 0) ++n;
        t = SHMEM_TEAM_WORLD;
        CHECK(shmemx_team_from_mpi_comm(MPI_COMM_WORLD, SHMEM_TEAM_WORLD, &t) != 0 && t == SHMEM_TEAM_INVALID,
              "team_from_mpi_comm with no team slot left (%d teams made first)", n);
        if (size >= 2) { /* one slot free, two communicators: the first could have its team, not the second */
            shmem_team_destroy(made[--n]);
            MPI_Comm parity;
            CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &parity));
            t = SHMEM_TEAM_WORLD;
            CHECK(shmemx_team_from_mpi_comm(parity, SHMEM_TEAM_WORLD, &t) != 0 && t == SHMEM_TEAM_INVALID,
                  "team_from_mpi_comm of two communicators with one team slot left");
            MPI_Comm_free(&parity);
        }
        while (n > 0) shmem_team_destroy(made[--n]);
    }
    /* Both libraries still work. */
    long *x = shmem_calloc(1, sizeof(long));
    shmem_long_atomic_add(x, rank + 1, 0);
    shmem_barrier_all();
    if (rank == 0) CHECK(*x == (long)size * (size + 1) / 2, "atomic sum %ld", *x);
    shmem_free(x);
    shmem_finalize();
    CHECK(shmemx_team_get_mpi_comm(SHMEM_TEAM_WORLD, &c) != 0, "team_get_mpi_comm after shmem_finalize");
    CHECK(shmemx_init_mpi(MPI_COMM_WORLD) != 0, "shmemx_init_mpi after shmem_finalize");
    mpi_pass("mpi_errors");
    MPI_Finalize();
    return 0;
}
