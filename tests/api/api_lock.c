/* Distributed locks conformance (OpenSHMEM 1.5 "Distributed Locking Routines"):
 * shmem_set_lock, shmem_test_lock, shmem_clear_lock on symmetric long variables initialized to 0.
 *
 * Rules exercised:
 *  - mutual exclusion: a non-atomic read-modify-write (g, then p) of a counter on PE 0 inside the
 *    lock loses no update under contention from every PE;
 *  - shmem_clear_lock performs a quiet before releasing (the p in the critical section is not
 *    quieted by the test);
 *  - shmem_test_lock returns 0 when it acquired the lock and 1 (without waiting) when another PE
 *    holds it;
 *  - two lock variables are independent;
 *  - every PE gets the lock (no starvation) within the test's time. */
#include "api_check.h"

#define ROUNDS 300

static int me, npes;

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    long *lock = shmem_calloc(2, sizeof(long));
    long *counter = shmem_calloc(4, sizeof(long));
    int *flag = shmem_calloc(1, sizeof(int));
    shmem_barrier_all();

    /* contention: every PE increments PE 0's counter[0] non-atomically under lock[0], and PE
     * (npes-1)'s counter[1] under lock[1], interleaved */
    for (int r = 0; r < ROUNDS; ++r) {
        long *l = &lock[r % 2];
        int owner = (r % 2) ? npes - 1 : 0;
        shmem_set_lock(l);
        long v = shmem_long_g(&counter[r % 2], owner);
        if (r % 7 == 0) api_sleep_us(50); /* widen the window a lost update would need */
        shmem_long_p(&counter[r % 2], v + 1, owner);
        shmem_clear_lock(l); /* quiets the p first */
    }
    shmem_barrier_all();
    long total0 = shmem_long_g(&counter[0], 0), total1 = shmem_long_g(&counter[1], npes - 1);
    long want = (long)npes * (ROUNDS / 2);
    CHECK(total0 == want, "lock[0]: counter %ld, want %ld: an update was lost inside the lock", total0, want);
    CHECK(total1 == want, "lock[1]: counter %ld, want %ld: an update was lost inside the lock", total1, want);

    /* shmem_test_lock: the last PE holds lock[0]; the others see 1 without blocking */
    shmem_barrier_all();
    if (me == npes - 1) {
        CHECK(shmem_test_lock(&lock[0]) == 0, "test_lock on a free lock did not acquire it");
    }
    shmem_barrier_all();
    if (me != npes - 1) {
        for (int i = 0; i < 10; ++i)
            CHECK(shmem_test_lock(&lock[0]) == 1, "test_lock acquired a lock that PE %d holds", npes - 1);
        /* the other lock is independent of it */
        shmem_set_lock(&lock[1]);
        shmem_clear_lock(&lock[1]);
    }
    shmem_barrier_all();
    if (me == npes - 1) {
        shmem_long_p(&counter[2], 42, 0);
        shmem_clear_lock(&lock[0]); /* the p above is complete once the lock is released */
    }
    /* everyone else acquires it with test_lock in a loop, and sees the holder's p */
    if (me != npes - 1) {
        while (shmem_test_lock(&lock[0]) != 0) {}
        CHECK(shmem_long_g(&counter[2], 0) == 42, "the p before shmem_clear_lock was not complete");
        shmem_int_atomic_inc(flag, 0);
        shmem_clear_lock(&lock[0]);
    }
    shmem_barrier_all();
    if (me == 0) CHECK(*flag == npes - 1, "%d PEs got the lock with test_lock, want %d", *flag, npes - 1);

    /* the lock word itself after all this: free again for everyone */
    shmem_barrier_all();
    shmem_set_lock(&lock[0]);
    shmem_clear_lock(&lock[0]);
    shmem_barrier_all();

    shmem_free(flag);
    shmem_free(counter);
    shmem_free(lock);
    mp_pass("api_lock");
    shmem_finalize();
    return 0;
}
