/* Helpers for the MPI interoperability tests: a failed check names the MPI_COMM_WORLD rank, the
 * place and the values, and ends the whole job (MPI_Abort) with a non-zero status; some ranks of
 * these tests are not PEs, so the job is ended through MPI, not through shmem_global_exit. */
#ifndef MPI_CHECK_H
#define MPI_CHECK_H
#include <mpi.h>
#include <shmem.h>
#include <shmemx_mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline int world_rank(void) {
    int r = -1, up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (up && !down) MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

static inline void fail_now(void) {
    int up = 0, down = 0, shmem_up = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    shmem_query_initialized(&shmem_up);
    if (up && !down) MPI_Abort(MPI_COMM_WORLD, 1);
    if (shmem_up) shmem_global_exit(1);
    exit(1);
}

#define CHECK(cond, ...)                                                                        \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            fprintf(stderr, "FAIL: rank %d: %s:%d: %s: ", world_rank(), __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                       \
            fputc('\n', stderr);                                                                \
            fflush(stderr);                                                                     \
            fail_now();                                                                         \
        }                                                                                       \
    } while (0)

#define CHECK_MPI(call) CHECK((call) == MPI_SUCCESS, "%s", #call)

/* "pmix": shmem_init(_thread) through the launcher; "mpi": shmemx_init(_thread)_mpi over
 * MPI_COMM_WORLD.  Returns the thread level provided. */
static inline int init_shmem(const char *how, int level) {
    int provided = -1;
    if (strcmp(how, "mpi") == 0) {
        CHECK(shmemx_init_thread_mpi(MPI_COMM_WORLD, level, &provided) == 0, "shmemx_init_thread_mpi");
    } else {
        CHECK(strcmp(how, "pmix") == 0, "init mode '%s': expected pmix or mpi", how);
        CHECK(shmem_init_thread(level, &provided) == 0, "shmem_init_thread");
    }
    return provided;
}

/* Completes an MPI request while this PE keeps serving its peers' SHMEM operations: where RMA
 * is done in software (UCX over TCP), a PE blocked in MPI serves nobody, and a peer waiting for
 * it in SHMEM may be the one this PE's MPI call waits for.  `sym` is any symmetric long:
 * testing it drives kishmem's progress. */
static inline void wait_serving(MPI_Request *req, long *sym) {
    int done = 0;
    for (;;) {
        CHECK_MPI(MPI_Test(req, &done, MPI_STATUS_IGNORE));
        if (done) return;
        shmem_long_test(sym, SHMEM_CMP_EQ, -12345);
    }
}

/* MPI_COMM_WORLD rank 0 prints the closing line once every rank got here. */
static inline void mpi_pass(const char *name) {
    int size = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (world_rank() == 0) printf("PASS %s on %d ranks\n", name, size);
    fflush(stdout);
}
#endif
