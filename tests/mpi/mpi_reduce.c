/* MPI_Allreduce and the SHMEM reductions agree: sum, max, min, prod and bitwise ops over
 * SHMEM_TEAM_WORLD vs MPI_COMM_WORLD and over a split_strided team vs its communicator, on
 * integer-valued data whose results are exact (also in double).  Each result is checked against
 * a value computed here from the formula as well.  MPI waits with wait_serving, so the test also
 * holds where RMA is done in software (UCX over TCP).
 * argv[1]: pmix (shmem_init through the launcher) or mpi (shmemx_init_mpi(MPI_COMM_WORLD)). */
#include "mpi_check.h"

#define N 1031

static long *g_poll; /* for wait_serving */

/* MPI_Allreduce that keeps serving SHMEM peers while it waits (see wait_serving). */
static void allreduce(const void *src, void *dst, int n, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    MPI_Request req;
    CHECK_MPI(MPI_Iallreduce(src, dst, n, type, op, comm, &req));
    wait_serving(&req, g_poll);
}

static void compare(const char *what, shmem_team_t team, MPI_Comm comm, const int *world_of, int n) {
    int me = shmem_my_pe();
    long *ls = shmem_malloc(N * sizeof(long)), *ld = shmem_malloc(N * sizeof(long));
    double *ds = shmem_malloc(N * sizeof(double)), *dd = shmem_malloc(N * sizeof(double));
    unsigned *us = shmem_malloc(N * sizeof(unsigned)), *ud = shmem_malloc(N * sizeof(unsigned));
    static long lm[N];
    static double dm[N];
    static unsigned um[N];
    for (int i = 0; i < N; ++i) {
        ls[i] = (long)(me + 1) * (i + 1) - 7 * me;
        ds[i] = (double)((me % 5) + 1) * ((i % 3) + 1); /* products stay exact */
        us[i] = 1u << ((me + i) % 32);
    }
    if (team != SHMEM_TEAM_INVALID) {
        struct {
            const char *op;
            MPI_Op mop;
        } ops[] = {{"sum", MPI_SUM}, {"max", MPI_MAX}, {"min", MPI_MIN}, {"prod", MPI_PROD}};
        for (int k = 0; k < 4; ++k) {
            int rc = -1;
            switch (k) {
                case 0: rc = shmem_long_sum_reduce(team, ld, ls, N) | shmem_double_sum_reduce(team, dd, ds, N); break;
                case 1: rc = shmem_long_max_reduce(team, ld, ls, N) | shmem_double_max_reduce(team, dd, ds, N); break;
                case 2: rc = shmem_long_min_reduce(team, ld, ls, N) | shmem_double_min_reduce(team, dd, ds, N); break;
                case 3: rc = shmem_long_prod_reduce(team, ld, ls, 4) | shmem_double_prod_reduce(team, dd, ds, N); break;
            }
            CHECK(rc == 0, "%s: shmem %s reduce", what, ops[k].op);
            int nl = k == 3 ? 4 : N; /* long products of many PEs overflow: only the first few */
            allreduce(ls, lm, nl, MPI_LONG, ops[k].mop, comm);
            allreduce(ds, dm, N, MPI_DOUBLE, ops[k].mop, comm);
            for (int i = 0; i < nl; ++i) CHECK(ld[i] == lm[i], "%s: long %s [%d]: shmem %ld, MPI %ld", what, ops[k].op, i, ld[i], lm[i]);
            for (int i = 0; i < N; ++i)
                CHECK(dd[i] == dm[i], "%s: double %s [%d]: shmem %g, MPI %g", what, ops[k].op, i, dd[i], dm[i]);
            if (k == 0) { /* and against the formula */
                for (int i = 0; i < N; ++i) {
                    long e = 0;
                    for (int j = 0; j < n; ++j) e += (long)(world_of[j] + 1) * (i + 1) - 7 * world_of[j];
                    CHECK(ld[i] == e, "%s: long sum [%d] = %ld, expected %ld", what, i, ld[i], e);
                }
            }
        }
        CHECK(shmem_uint_or_reduce(team, ud, us, N) == 0, "%s: or reduce", what);
        allreduce(us, um, N, MPI_UNSIGNED, MPI_BOR, comm);
        for (int i = 0; i < N; ++i) CHECK(ud[i] == um[i], "%s: or [%d]: shmem %#x, MPI %#x", what, i, ud[i], um[i]);
        CHECK(shmem_uint_xor_reduce(team, ud, us, N) == 0, "%s: xor reduce", what);
        allreduce(us, um, N, MPI_UNSIGNED, MPI_BXOR, comm);
        for (int i = 0; i < N; ++i) CHECK(ud[i] == um[i], "%s: xor [%d]: shmem %#x, MPI %#x", what, i, ud[i], um[i]);
    }
    shmem_free(ud);
    shmem_free(us);
    shmem_free(dd);
    shmem_free(ds);
    shmem_free(ld);
    shmem_free(ls);
}

int main(int argc, char **argv) {
    CHECK_MPI(MPI_Init(&argc, &argv));
    const char *how = argc > 1 ? argv[1] : "pmix";
    init_shmem(how, SHMEM_THREAD_SINGLE);
    int npes = shmem_n_pes(), world_of[64];
    g_poll = shmem_calloc(1, sizeof(long));
    CHECK(npes <= 64, "too many PEs");
    for (int i = 0; i < npes; ++i) world_of[i] = i;
    compare("world", SHMEM_TEAM_WORLD, MPI_COMM_WORLD, world_of, npes);

    /* Even PEs: a split_strided team and the communicator made from it. */
    int n = (npes + 1) / 2;
    shmem_team_t even;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, n, NULL, 0, &even) == 0, "split");
    MPI_Comm ec = MPI_COMM_NULL;
    if (even != SHMEM_TEAM_INVALID) CHECK(shmemx_team_get_mpi_comm(even, &ec) == 0, "team_get_mpi_comm");
    for (int i = 0; i < n; ++i) world_of[i] = 2 * i;
    compare("even PEs", even, ec, world_of, n);
    if (ec != MPI_COMM_NULL) MPI_Comm_free(&ec);
    shmem_team_destroy(even);

    shmem_free(g_poll);
    shmem_finalize();
    mpi_pass("mpi_reduce");
    MPI_Finalize();
    return 0;
}
