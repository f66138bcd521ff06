/* shmem_quiet under SHMEM_THREAD_MULTIPLE (OpenSHMEM 1.5, shmem_quiet: "ensures completion of
 * all operations on symmetric data objects issued by the calling PE"; Thread Support: with
 * MULTIPLE, any thread may call any routine).  What a thread put before its quiet must be
 * visible before anything it puts after the quiet, whatever the PE's other threads do at the
 * same moment (another thread's quiet on the same channel included).
 *
 * Every thread t of PE p puts a block of ROUNDS-stamped words into its own slot on PE p+1,
 * calls shmem_quiet, then puts the round number into its flag there.  Thread t of PE p+1 waits
 * for that flag, checks every word of the block (stale data behind the flag is the defect),
 * then acknowledges, so the sender never overwrites a block that is still being checked. */
#include "api_check.h"

#include <pthread.h>

#define NT 2
#define ROUNDS 300
#define WORDS 32768 /* 256 KiB per block in four puts: large puts take the zero-copy lanes over UCX */

static int me, npes, right, left;
static long *blocks, *flags, *acks;

static void *worker(void *p) {
    int t = (int)(long)p;
    static __thread long buf[WORDS];
    for (long r = 1; r <= ROUNDS; ++r) {
        for (int i = 0; i < WORDS; ++i) buf[i] = ((long)me << 40) + ((long)t << 32) + (r << 12) + i;
        /* several puts, so the channel has much in flight when the other thread flushes it */
        for (int c = 0; c < 4; ++c)
            shmem_long_put_nbi(&blocks[(size_t)t * WORDS + c * (WORDS / 4)], &buf[c * (WORDS / 4)], WORDS / 4,
                               right);
        shmem_quiet();
        shmem_long_atomic_set(&flags[t], r, right);
        /* receive the left PE's round r and check it before anything else touches the block */
        shmem_long_wait_until(&flags[t], SHMEM_CMP_GE, r);
        long bad = -1, seen = 0, want = 0;
        for (int i = 0; i < WORDS; ++i) {
            want = ((long)left << 40) + ((long)t << 32) + (r << 12) + i;
            if (blocks[(size_t)t * WORDS + i] != want) {
                bad = i;
                seen = blocks[(size_t)t * WORDS + i];
                break;
            }
        }
        CHECK(bad < 0, "thread %d round %ld: word %ld from PE %d is 0x%lx, want 0x%lx (data behind the flag is stale)",
              t, r, bad, left, (unsigned long)seen, (unsigned long)want);
        shmem_long_atomic_set(&acks[t], r, left);
        /* the right PE has checked my round r: the block may be overwritten */
        shmem_long_wait_until(&acks[t], SHMEM_CMP_GE, r);
    }
    return NULL;
}

int main(void) {
    int provided = -1;
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0) {
        fprintf(stderr, "FAIL: shmem_init_thread failed\n");
        return 1;
    }
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "provided %d", provided);
    blocks = shmem_calloc((size_t)NT * WORDS, sizeof(long));
    flags = shmem_calloc(NT, sizeof(long));
    acks = shmem_calloc(NT, sizeof(long));
    CHECK(blocks && flags && acks, "shmem_calloc returned NULL");
    shmem_barrier_all();
    pthread_t th[NT];
    for (long t = 0; t < NT; ++t) CHECK(pthread_create(&th[t], NULL, worker, (void *)t) == 0, "pthread_create");
    for (int t = 0; t < NT; ++t) pthread_join(th[t], NULL);
    shmem_barrier_all();
    shmem_free(acks);
    shmem_free(flags);
    shmem_free(blocks);
    mp_pass("api_thread_quiet");
    shmem_finalize();
    return 0;
}
