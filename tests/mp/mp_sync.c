/* Point-to-point synchronization and barriers: a wait_until ping-pong between pairs, test,
 * every comparison operator, and barriers that nobody leaves early (one PE arrives late). */
#include <time.h>
#include <unistd.h>

#include "mp_check.h"

#define ROUNDS 500

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *ping = shmem_calloc(1, sizeof(long));
    int *flag = shmem_calloc(1, sizeof(int));
    long *arrivals = shmem_calloc(1, sizeof(long));

    /* ping-pong: PE 2k and 2k+1; an odd last PE plays with itself */
    int peer = (me % 2 == 0) ? me + 1 : me - 1;
    if (peer >= npes) peer = me;
    for (long r = 1; r <= ROUNDS; ++r) {
        if (me % 2 == 0) {
            shmem_long_p(ping, r, peer);
            if (peer == me) continue;
            shmem_long_wait_until(ping, SHMEM_CMP_EQ, -r); /* peer answers with -r */
            CHECK(*ping == -r, "round %ld got %ld", r, *ping);
        } else {
            shmem_long_wait_until(ping, SHMEM_CMP_EQ, r);
            shmem_long_p(ping, -r, peer);
        }
    }
    shmem_barrier_all();

    /* test: false until the left neighbour sets the flag; every comparison operator */
    int left = (me + npes - 1) % npes;
    *flag = 0;
    shmem_barrier_all();
    if (npes > 1) CHECK(!shmem_int_test(flag, SHMEM_CMP_EQ, left + 100), "test true too early");
    shmem_barrier_all();
    shmem_int_p(flag, me + 100, (me + 1) % npes);
    while (!shmem_int_test(flag, SHMEM_CMP_EQ, left + 100)) {}
    int v = left + 100;
    CHECK(shmem_int_test(flag, SHMEM_CMP_NE, v + 1) && !shmem_int_test(flag, SHMEM_CMP_NE, v), "NE");
    CHECK(shmem_int_test(flag, SHMEM_CMP_GT, v - 1) && !shmem_int_test(flag, SHMEM_CMP_GT, v), "GT");
    CHECK(shmem_int_test(flag, SHMEM_CMP_GE, v) && !shmem_int_test(flag, SHMEM_CMP_GE, v + 1), "GE");
    CHECK(shmem_int_test(flag, SHMEM_CMP_LT, v + 1) && !shmem_int_test(flag, SHMEM_CMP_LT, v), "LT");
    CHECK(shmem_int_test(flag, SHMEM_CMP_LE, v) && !shmem_int_test(flag, SHMEM_CMP_LE, v - 1), "LE");
    shmem_int_wait_until(flag, SHMEM_CMP_LE, v);
    shmem_barrier_all();

    /* barriers hold: in round k, PE k % npes sleeps before it increments everyone's counter;
     * after the barrier every PE must have seen all npes increments of that round. */
    for (int k = 0; k < 12; ++k) {
        if (me == k % npes) usleep(20000);
        for (int pe = 0; pe < npes; ++pe) shmem_long_atomic_inc(arrivals, pe);
        if (k % 2) shmem_barrier_all();
        else {
            shmem_quiet();
            shmem_sync_all();
        }
        long seen = shmem_long_atomic_fetch(arrivals, me);
        CHECK(seen >= (long)(k + 1) * npes, "round %d: left the barrier after %ld of %ld arrivals", k, seen,
              (long)(k + 1) * npes);
        shmem_barrier_all(); /* nobody starts round k+1 before everyone checked round k */
    }

    /* barrier latency sanity: 200 barriers in well under the test timeout */
    double t0 = now();
    for (int i = 0; i < 200; ++i) shmem_barrier_all();
    double us = (now() - t0) / 200 * 1e6;
    if (me == 0) printf("barrier_all: %.2f us on %d PEs\n", us, npes);

    shmem_free(arrivals);
    shmem_free(flag);
    shmem_free(ping);
    mp_pass("mp_sync");
    shmem_finalize();
    return 0;
}
