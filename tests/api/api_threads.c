/* Thread support conformance (OpenSHMEM 1.5 "Thread Support"): shmem_init_thread with
 * SHMEM_THREAD_MULTIPLE, shmem_query_thread, and several threads per PE doing RMA, AMOs,
 * point-to-point waits and private contexts at the same time.
 *
 * Rules exercised:
 *  - shmem_init_thread returns 0 and provides the level asked for (MULTIPLE: the library must
 *    really support it); shmem_query_thread returns the same level; the levels are ordered
 *    SINGLE < FUNNELED < SERIALIZED < MULTIPLE;
 *  - with SHMEM_THREAD_MULTIPLE any thread may call any routine concurrently: puts into
 *    disjoint slices, atomic sums, compare_swap claims and wait_until between threads of
 *    different PEs all give exact results;
 *  - a SHMEM_CTX_PRIVATE context is used only by the thread that created it and is destroyed
 *    by it; shmem_quiet from one thread completes that thread's default-context puts. */
#include "api_check.h"

#include <pthread.h>

#define NT 4
#define ROUNDS 200
#define SLICE 64

static int me, npes, right, left;
static long *counter, *claims, *slices, *flags;
static long *ctx_slices;

struct arg {
    int tid;
};

static void *worker(void *p) {
    int tid = ((struct arg *)p)->tid;
    /* atomics from every thread of every PE on PE 0 */
    for (int r = 0; r < ROUNDS; ++r) {
        shmem_long_atomic_add(&counter[0], 1, 0);
        (void)shmem_long_atomic_fetch_inc(&counter[1], npes - 1);
    }
    /* compare_swap claims: each slot on PE 0 has exactly one winner among all threads */
    long wins = 0;
    for (int s = 0; s < 64; ++s)
        if (shmem_long_atomic_compare_swap(&claims[s], 0, me * NT + tid + 1, 0) == 0) ++wins;
    shmem_long_atomic_add(&counter[2], wins, 0);
    /* puts into my thread's slice of the right PE, then quiet */
    long buf[SLICE];
    for (int round = 0; round < 20; ++round) {
        for (int i = 0; i < SLICE; ++i) buf[i] = (long)me * 1000000 + tid * 10000 + round * 100 + i;
        shmem_long_put(&slices[(size_t)tid * SLICE], buf, SLICE, right);
        shmem_quiet();
    }
    /* a private context per thread */
    shmem_ctx_t ctx;
    int rc = shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx);
    CHECK(rc == 0, "thread %d: shmem_ctx_create(SHMEM_CTX_PRIVATE) returned %d", tid, rc);
    for (int i = 0; i < SLICE; ++i) buf[i] = (long)me * 7 + tid * 3 + i;
    shmem_ctx_long_put_nbi(ctx, &ctx_slices[(size_t)tid * SLICE], buf, SLICE, right);
    shmem_ctx_long_atomic_inc(ctx, &counter[3], 0);
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
    /* thread tid of PE p signals thread tid of PE p+1 and waits for the one of PE p-1 */
    shmem_long_atomic_set(&flags[tid], me + 1, right);
    shmem_long_wait_until(&flags[tid], SHMEM_CMP_EQ, left + 1);
    return NULL;
}

int main(void) {
    int provided = -1;
    CHECK(SHMEM_THREAD_SINGLE < SHMEM_THREAD_FUNNELED && SHMEM_THREAD_FUNNELED < SHMEM_THREAD_SERIALIZED &&
              SHMEM_THREAD_SERIALIZED < SHMEM_THREAD_MULTIPLE,
          "thread levels are not monotonic");
    int rc = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    if (rc != 0) {
        fprintf(stderr, "FAIL: shmem_init_thread returned %d\n", rc);
        return 1;
    }
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "shmem_init_thread provided %d, not SHMEM_THREAD_MULTIPLE", provided);
    int q = -1;
    shmem_query_thread(&q);
    CHECK(q == provided, "shmem_query_thread says %d, init_thread provided %d", q, provided);

    counter = shmem_calloc(4, sizeof(long));
    claims = shmem_calloc(64, sizeof(long));
    slices = shmem_calloc((size_t)NT * SLICE, sizeof(long));
    ctx_slices = shmem_calloc((size_t)NT * SLICE, sizeof(long));
    flags = shmem_calloc(NT, sizeof(long));
    shmem_barrier_all();

    pthread_t th[NT];
    struct arg args[NT];
    for (int t = 0; t < NT; ++t) {
        args[t].tid = t;
        CHECK(pthread_create(&th[t], NULL, worker, &args[t]) == 0, "pthread_create");
    }
    for (int t = 0; t < NT; ++t) pthread_join(th[t], NULL);
    shmem_barrier_all();

    long threads = (long)npes * NT;
    if (me == 0) {
        CHECK(counter[0] == threads * ROUNDS, "atomic_add from %ld threads: %ld", threads, counter[0]);
        CHECK(counter[2] == 64, "compare_swap winners: %ld, want 64", counter[2]);
        CHECK(counter[3] == threads, "private-context increments: %ld", counter[3]);
        for (int s = 0; s < 64; ++s) CHECK(claims[s] >= 1 && claims[s] <= threads, "slot %d claimed by %ld", s, claims[s]);
    }
    if (me == npes - 1) CHECK(counter[1] == threads * ROUNDS, "fetch_inc from %ld threads: %ld", threads, counter[1]);
    for (int t = 0; t < NT; ++t)
        for (int i = 0; i < SLICE; ++i) {
            CHECK(slices[t * SLICE + i] == (long)left * 1000000 + t * 10000 + 19 * 100 + i, "thread %d slice element %d", t, i);
            CHECK(ctx_slices[t * SLICE + i] == (long)left * 7 + t * 3 + i, "thread %d private-context slice element %d", t, i);
        }

    /* the main thread again, after the others: the library still works */
    shmem_barrier_all();
    shmem_free(flags);
    shmem_free(ctx_slices);
    shmem_free(slices);
    shmem_free(claims);
    shmem_free(counter);
    mp_pass("api_threads");
    shmem_finalize();
    return 0;
}
