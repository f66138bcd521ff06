/* MPI_THREAD_MULTIPLE with SHMEM_THREAD_MULTIPLE: two threads per PE at once do puts, gets and
 * atomics to every PE and MPI collectives on communicators of their own; then every value is
 * checked.  argv[1]: pmix (shmem_init_thread) or mpi (shmemx_init_thread_mpi(MPI_COMM_WORLD)).
 *
 * A thread waits for MPI with wait_serving, never in a blocking MPI call: where RMA is done in
 * software (UCX over TCP), a PE serves its peers' SHMEM operations only while one of its threads
 * is inside kishmem, and a PE whose threads all sat in MPI would stall the peers whose atomics
 * target it (and so their MPI calls, and so this PE). */
#include <pthread.h>

#include "mpi_check.h"

#define THREADS 2
#define ITERS 200

static int g_me, g_npes;
static long *g_slots;   /* [THREADS][npes][ITERS]: written by PE p's thread t at [t][p][i] */
static long *g_counter; /* fetch-adds from every thread of every PE */
static unsigned long *g_bits;
static MPI_Comm g_comm[THREADS];
static long *g_idle; /* for wait_serving */

static void *worker(void *arg) {
    int t = (int)(long)arg;
    for (int i = 0; i < ITERS; ++i) {
        int pe = (g_me + i) % g_npes;
        long v = (long)g_me * 1000000 + t * 100000 + i;
        shmem_long_put(&g_slots[((size_t)t * g_npes + g_me) * ITERS + i], &v, 1, pe);
        shmem_long_atomic_fetch_add(g_counter, 1, pe);
        shmem_ulong_atomic_or(&g_bits[t], 1ul << (g_me % 64), pe);
        if (i % 50 == 0) {
            long back = -1;
            shmem_quiet();
            shmem_long_get(&back, &g_slots[((size_t)t * g_npes + g_me) * ITERS + i], 1, pe);
            CHECK(back == v, "thread %d: get back %ld, put %ld", t, back, v);
            /* And MPI, from this thread, while the other thread does SHMEM or MPI. */
            long one = 1, sum = 0;
            MPI_Request req;
            CHECK_MPI(MPI_Iallreduce(&one, &sum, 1, MPI_LONG, MPI_SUM, g_comm[t], &req));
            wait_serving(&req, g_idle);
            CHECK(sum == g_npes, "thread %d: MPI sum %ld", t, sum);
        }
    }
    shmem_quiet();
    return NULL;
}

int main(int argc, char **argv) {
    int mpi_level = -1;
    CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &mpi_level));
    CHECK(mpi_level == MPI_THREAD_MULTIPLE, "MPI provides thread level %d, not MPI_THREAD_MULTIPLE", mpi_level);
    const char *how = argc > 1 ? argv[1] : "pmix";
    int level = init_shmem(how, SHMEM_THREAD_MULTIPLE);
    CHECK(level == SHMEM_THREAD_MULTIPLE, "SHMEM provides thread level %d", level);
    int q = -1;
    shmem_query_thread(&q);
    CHECK(q == SHMEM_THREAD_MULTIPLE, "shmem_query_thread %d", q);
    g_me = shmem_my_pe();
    g_npes = shmem_n_pes();
    g_slots = shmem_calloc((size_t)THREADS * g_npes * ITERS, sizeof(long));
    g_counter = shmem_calloc(1, sizeof(long));
    g_bits = shmem_calloc(THREADS, sizeof(unsigned long));
    g_idle = shmem_calloc(1, sizeof(long));
    for (int t = 0; t < THREADS; ++t) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &g_comm[t]));
    shmem_barrier_all();

    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; ++t) CHECK(pthread_create(&th[t], NULL, worker, (void *)(long)t) == 0, "pthread_create");
    for (int t = 0; t < THREADS; ++t) pthread_join(th[t], NULL);
    shmem_barrier_all();

    /* Iteration i of PE p's thread t wrote to PE (p + i) % npes. */
    for (int t = 0; t < THREADS; ++t)
        for (int p = 0; p < g_npes; ++p)
            for (int i = 0; i < ITERS; ++i) {
                long got = g_slots[((size_t)t * g_npes + p) * ITERS + i];
                long want = (p + i) % g_npes == g_me ? (long)p * 1000000 + t * 100000 + i : 0;
                CHECK(got == want, "slot thread %d PE %d iter %d: %ld, expected %ld", t, p, i, got, want);
            }
    long adds = 0;
    for (int p = 0; p < g_npes; ++p)
        for (int i = 0; i < ITERS; ++i) adds += (p + i) % g_npes == g_me;
    CHECK(*g_counter == THREADS * adds, "counter %ld, expected %ld", *g_counter, THREADS * adds);
    unsigned long bits = 0;
    for (int p = 0; p < g_npes; ++p) bits |= 1ul << (p % 64);
    for (int t = 0; t < THREADS; ++t) CHECK(g_bits[t] == bits, "bits of thread %d: %#lx, expected %#lx", t, g_bits[t], bits);

    /* The SHMEM and MPI views of the total agree. */
    long *total = shmem_malloc(sizeof(long));
    long mpi_total = 0;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, total, g_counter, 1);
    MPI_Request req;
    CHECK_MPI(MPI_Iallreduce(g_counter, &mpi_total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &req));
    wait_serving(&req, g_idle);
    CHECK(*total == mpi_total && mpi_total == (long)THREADS * ITERS * g_npes, "totals: shmem %ld, MPI %ld", *total,
          mpi_total);

    for (int t = 0; t < THREADS; ++t) MPI_Comm_free(&g_comm[t]);
    shmem_free(total);
    shmem_free(g_idle);
    shmem_free(g_bits);
    shmem_free(g_counter);
    shmem_free(g_slots);
    shmem_finalize();
    mpi_pass("mpi_threads");
    MPI_Finalize();
    return 0;
}
