/* Teams <-> communicators, round trips with sizes and rank order checked:
 *   split_strided team -> communicator -> team (odd PEs; every PE; every PE in reverse order);
 *   communicators from MPI_Comm_split (by parity, one per PE, reversed keys) -> teams;
 *   each team made is used (team_sync, a reduction) and destroyed.
 * MPI calls that follow SHMEM traffic either come after shmem_barrier_all or wait with
 * wait_serving, so that the test also holds where RMA is done in software (UCX over TCP).
 * argv[1]: pmix (shmem_init through the launcher) or mpi (shmemx_init_mpi(MPI_COMM_WORLD)). */
#include "mpi_check.h"

static long *g_src, *g_dst;

/* Checks that team t has exactly the world PEs world_of[0..n-1] in this order and that the
 * communicator c (when not MPI_COMM_NULL) has them rank for rank; then uses the team. */
static void check_team(const char *what, shmem_team_t t, MPI_Comm c, const int *world_of, int n) {
    int me = shmem_my_pe(), idx = -1;
    for (int i = 0; i < n; ++i)
        if (world_of[i] == me) idx = i;
    if (idx < 0) {
        CHECK(t == SHMEM_TEAM_INVALID, "%s: not a member but got a team", what);
        return;
    }
    CHECK(t != SHMEM_TEAM_INVALID, "%s: member %d got no team", what, idx);
    CHECK(shmem_team_n_pes(t) == n, "%s: team of %d PEs, expected %d", what, shmem_team_n_pes(t), n);
    CHECK(shmem_team_my_pe(t) == idx, "%s: team PE %d, expected %d", what, shmem_team_my_pe(t), idx);
    for (int i = 0; i < n; ++i) {
        int w = shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD);
        CHECK(w == world_of[i], "%s: team PE %d is world PE %d, expected %d", what, i, w, world_of[i]);
    }
    if (c != MPI_COMM_NULL) {
        int size, rank;
        MPI_Comm_size(c, &size);
        MPI_Comm_rank(c, &rank);
        CHECK(size == n && rank == idx, "%s: communicator rank %d of %d, expected %d of %d", what, rank, size, idx, n);
        int pes[64];
        CHECK(n <= 64, "too many PEs");
        MPI_Request req;
        CHECK_MPI(MPI_Iallgather(&me, 1, MPI_INT, pes, 1, MPI_INT, c, &req));
        wait_serving(&req, g_src);
        for (int i = 0; i < n; ++i)
            CHECK(pes[i] == world_of[i], "%s: communicator rank %d is PE %d, expected %d", what, i, pes[i], world_of[i]);
    }
    CHECK(shmem_team_sync(t) == 0, "%s: shmem_team_sync", what);
    *g_src = 100 + me;
    CHECK(shmem_long_sum_reduce(t, g_dst, g_src, 1) == 0, "%s: shmem_long_sum_reduce", what);
    long expect = 0;
    for (int i = 0; i < n; ++i) expect += 100 + world_of[i];
    CHECK(*g_dst == expect, "%s: team sum %ld, expected %ld", what, *g_dst, expect);
}

/* team -> communicator -> team, for the PEs world_of[0..n-1] of a split_strided team. */
static void round_trip(const char *what, int start, int stride, int n) {
    int npes = shmem_n_pes(), world_of[64];
    for (int i = 0; i < n; ++i) world_of[i] = start + i * stride;
    shmem_team_t t = SHMEM_TEAM_INVALID;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, n, NULL, 0, &t) == 0, "%s: split", what);
    MPI_Comm c = MPI_COMM_NULL;
    if (t != SHMEM_TEAM_INVALID) {
        CHECK(shmemx_team_get_mpi_comm(t, &c) == 0, "%s: shmemx_team_get_mpi_comm", what);
        CHECK(c != MPI_COMM_NULL, "%s: no communicator", what);
    }
    check_team(what, t, c, world_of, n);
    shmem_team_t back = SHMEM_TEAM_INVALID;
    CHECK(shmemx_team_from_mpi_comm(c, SHMEM_TEAM_WORLD, &back) == 0, "%s: shmemx_team_from_mpi_comm", what);
    check_team(what, back, c, world_of, n);
    /* And the new team to a communicator once more: the same processes in the same order. */
    if (back != SHMEM_TEAM_INVALID) {
        MPI_Comm c2;
        CHECK(shmemx_team_get_mpi_comm(back, &c2) == 0, "%s: second shmemx_team_get_mpi_comm", what);
        int cmp;
        MPI_Comm_compare(c, c2, &cmp);
        CHECK(cmp == MPI_CONGRUENT, "%s: the communicators compare %d", what, cmp);
        MPI_Comm_free(&c2);
        MPI_Comm_free(&c);
    }
    shmem_team_destroy(back);
    shmem_team_destroy(t);
    (void)npes;
}

int main(int argc, char **argv) {
    CHECK_MPI(MPI_Init(&argc, &argv));
    const char *how = argc > 1 ? argv[1] : "pmix";
    init_shmem(how, SHMEM_THREAD_SINGLE);
    int me = shmem_my_pe(), npes = shmem_n_pes(), wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    CHECK(me == wrank && npes == wsize, "PE %d of %d, rank %d of %d", me, npes, wrank, wsize);
    g_src = shmem_malloc(sizeof(long));
    g_dst = shmem_malloc(sizeof(long));

    /* split_strided teams through communicators and back. */
    if (npes >= 2) round_trip("odd PEs", 1, 2, npes / 2);
    round_trip("every PE", 0, 1, npes);
    round_trip("every PE reversed", npes - 1, -1, npes);
    round_trip("last PE", npes - 1, 1, 1);

    /* SHMEM_TEAM_WORLD -> communicator: MPI_COMM_WORLD's processes in the same order. */
    MPI_Comm wc;
    CHECK(shmemx_team_get_mpi_comm(SHMEM_TEAM_WORLD, &wc) == 0, "team_get_mpi_comm(WORLD)");
    int cmp;
    MPI_Comm_compare(wc, MPI_COMM_WORLD, &cmp);
    CHECK(cmp == MPI_CONGRUENT, "SHMEM_TEAM_WORLD's communicator compares %d with MPI_COMM_WORLD", cmp);
    MPI_Comm_free(&wc);

    /* Communicators from MPI_Comm_split -> teams; each PE passes its own. */
    int world_of[64], n;
    MPI_Comm par;
    shmem_barrier_all();
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &par));
    shmem_team_t t;
    CHECK(shmemx_team_from_mpi_comm(par, SHMEM_TEAM_WORLD, &t) == 0, "parity teams");
    n = 0;
    for (int pe = me % 2; pe < npes; pe += 2) world_of[n++] = pe;
    check_team("parity team", t, par, world_of, n);
    shmem_team_destroy(t);
    MPI_Comm_free(&par);

    MPI_Comm rev; /* every PE, reversed by the keys: team PE numbers follow the ranks */
    shmem_barrier_all();
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, npes - me, &rev));
    CHECK(shmemx_team_from_mpi_comm(rev, SHMEM_TEAM_WORLD, &t) == 0, "reversed team");
    for (int i = 0; i < npes; ++i) world_of[i] = npes - 1 - i;
    check_team("reversed team", t, rev, world_of, npes);

    /* A team made from a sub-team: parent = the reversed team, communicator = its first half. */
    MPI_Comm firsthalf;
    int rrank = shmem_team_my_pe(t), half = (npes + 1) / 2;
    shmem_barrier_all();
    CHECK_MPI(MPI_Comm_split(rev, rrank < half ? 0 : MPI_UNDEFINED, rrank, &firsthalf));
    shmem_team_t sub;
    CHECK(shmemx_team_from_mpi_comm(firsthalf, t, &sub) == 0, "team from a sub-team");
    for (int i = 0; i < half; ++i) world_of[i] = npes - 1 - i;
    check_team("half of the reversed team", sub, firsthalf, world_of, half);
    if (firsthalf != MPI_COMM_NULL) MPI_Comm_free(&firsthalf);
    shmem_team_destroy(sub);
    shmem_team_destroy(t);
    MPI_Comm_free(&rev);

    /* One communicator per PE (MPI_COMM_SELF): one-PE teams. */
    CHECK(shmemx_team_from_mpi_comm(MPI_COMM_SELF, SHMEM_TEAM_WORLD, &t) == 0, "self teams");
    world_of[0] = me;
    check_team("self team", t, MPI_COMM_SELF, world_of, 1);
    shmem_team_destroy(t);

    /* Nobody passes a communicator: no team, no error. */
    CHECK(shmemx_team_from_mpi_comm(MPI_COMM_NULL, SHMEM_TEAM_WORLD, &t) == 0 && t == SHMEM_TEAM_INVALID,
          "all MPI_COMM_NULL");

    shmem_free(g_dst);
    shmem_free(g_src);
    shmem_finalize();
    mpi_pass("mpi_team_comm");
    MPI_Finalize();
    return 0;
}
