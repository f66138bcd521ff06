/* Many small mixed operations between PEs that share a host while every PE is busy issuing its
 * own: puts, gets, atomic adds and fetch-adds to random PEs (OpenSHMEM 1.5 RMA and AMO), checked
 * exactly, within a time bound.  Over UCX on one host (KISHMEM_REMOTE=ucx UCX_TLS=shm,self) the
 * heaps must be reached natively: if UCX emulated RMA and atomics in software at the target,
 * every fetching operation would wait for its target to be scheduled and the run would take
 * seconds instead of milliseconds on an oversubscribed host.
 *
 * Usage: mp_mixed [ops per PE] [time bound in seconds] */
#include "mp_check.h"

#include <time.h>

#define SLOTS 1024

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    const long ops = argc > 1 ? atol(argv[1]) : 12500;
    const double bound = argc > 2 ? atof(argv[2]) : 0;
    long *counter = shmem_calloc(SLOTS, sizeof(long)); /* atomic targets */
    long *cells = shmem_calloc(SLOTS, sizeof(long));   /* put/get targets: cell k holds k or -k */
    long *added = shmem_calloc((size_t)npes * SLOTS, sizeof(long));
    CHECK(counter && cells && added, "shmem_calloc returned NULL");
    long *mine = calloc((size_t)npes * SLOTS, sizeof(long)); /* what this PE added where */
    for (int k = 0; k < SLOTS; ++k) cells[k] = k;
    shmem_barrier_all();
    unsigned seed = 12345u + 7919u * (unsigned)me;
    double t0 = now_s();
    for (long i = 0; i < ops; ++i) {
        seed = seed * 1103515245u + 12345u;
        const int pe = (int)((seed >> 8) % (unsigned)npes), k = (int)((seed >> 16) % SLOTS);
        switch ((seed >> 28) & 3) {
            case 0: {
                long v = (seed & 1) ? k : -k;
                shmem_long_put(&cells[k], &v, 1, pe);
                break;
            }
            case 1: {
                long v = 0;
                shmem_long_get(&v, &cells[k], 1, pe);
                CHECK(v == k || v == -k, "get of cell %d on PE %d returned %ld", k, pe, v);
                break;
            }
            case 2:
                shmem_long_atomic_add(&counter[k], 1, pe);
                ++mine[(size_t)pe * SLOTS + k];
                break;
            default: {
                long before = shmem_long_atomic_fetch_add(&counter[k], 1, pe);
                CHECK(before >= 0, "fetch_add on PE %d slot %d returned %ld", pe, k, before);
                ++mine[(size_t)pe * SLOTS + k];
            }
        }
    }
    shmem_quiet();
    shmem_barrier_all();
    const double took = now_s() - t0;
    /* every PE's contributions to every counter, summed where they landed */
    for (int pe = 0; pe < npes; ++pe) shmem_long_put(&added[(size_t)me * SLOTS], &mine[(size_t)pe * SLOTS], SLOTS, pe);
    shmem_barrier_all();
    for (int k = 0; k < SLOTS; ++k) {
        long want = 0;
        for (int from = 0; from < npes; ++from) want += added[(size_t)from * SLOTS + k];
        CHECK(counter[k] == want, "counter %d is %ld, the PEs added %ld", k, counter[k], want);
    }
    if (me == 0) printf("mp_mixed: %d PEs x %ld operations in %.3f s\n", npes, ops, took);
    CHECK(bound <= 0 || took <= bound, "%d PEs x %ld mixed operations took %.3f s, more than %.1f s", npes, ops, took,
          bound);
    free(mine);
    mp_pass("mp_mixed");
    shmem_finalize();
    return 0;
}
