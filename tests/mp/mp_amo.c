/* Atomics from every PE to every PE: sums exact, fetch values a permutation, compare-swap
 * claims each slot exactly once, swap/set/fetch and bitwise forms. */
#include "mp_check.h"

#define ROUNDS 200

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();

    long *counter = shmem_calloc(1, sizeof(long));
    uint64_t *u = shmem_calloc(1, sizeof(uint64_t));
    int *owner = shmem_calloc(64, sizeof(int));
    unsigned int *bits = shmem_calloc(1, sizeof(unsigned int));
    double *d = shmem_calloc(1, sizeof(double));
    char *seen = calloc((size_t)ROUNDS * npes, 1);

    /* fetch_inc on PE 0 from every PE: each value 0..ROUNDS*npes-1 is returned exactly once */
    long mine[ROUNDS];
    for (int r = 0; r < ROUNDS; ++r) mine[r] = shmem_long_atomic_fetch_inc(counter, 0);
    long *all = shmem_malloc(sizeof(long) * ROUNDS * (size_t)npes);
    for (int pe = 0; pe < npes; ++pe) shmem_long_put(all + (size_t)me * ROUNDS, mine, ROUNDS, pe);
    shmem_barrier_all();
    for (long i = 0; i < (long)ROUNDS * npes; ++i) {
        CHECK(all[i] >= 0 && all[i] < (long)ROUNDS * npes, "fetch_inc value %ld out of range", all[i]);
        CHECK(!seen[all[i]], "fetch_inc value %ld returned twice", all[i]);
        seen[all[i]] = 1;
    }
    if (me == 0) CHECK(*counter == (long)ROUNDS * npes, "counter %ld", *counter);
    shmem_barrier_all();

    /* add / fetch_add to every PE's u */
    for (int pe = 0; pe < npes; ++pe) {
        shmem_uint64_atomic_add(u, (uint64_t)(me + 1), pe);
        (void)shmem_uint64_atomic_fetch_add(u, (uint64_t)1 << 32, pe);
    }
    shmem_barrier_all();
    uint64_t expect = (uint64_t)npes * (npes + 1) / 2 + ((uint64_t)npes << 32);
    CHECK(*u == expect, "add sum %llu, expected %llu", (unsigned long long)*u, (unsigned long long)expect);
    CHECK(shmem_uint64_atomic_fetch(u, (me + 1) % npes) == expect, "atomic_fetch");

    /* compare_swap: every PE tries to claim each of 64 slots on PE 0; one winner per slot */
    int wins = 0;
    for (int s = 0; s < 64; ++s)
        if (shmem_int_atomic_compare_swap(&owner[s], 0, me + 1, 0) == 0) ++wins;
    int *wins_all = shmem_calloc((size_t)npes, sizeof(int));
    shmem_int_p(&wins_all[me], wins, 0);
    shmem_barrier_all();
    if (me == 0) {
        int total = 0;
        for (int pe = 0; pe < npes; ++pe) total += wins_all[pe];
        CHECK(total == 64, "compare_swap winners %d", total);
        for (int s = 0; s < 64; ++s) CHECK(owner[s] >= 1 && owner[s] <= npes, "slot %d owner %d", s, owner[s]);
    }
    shmem_barrier_all();

    /* bitwise: each PE sets its own bit on PE 0 with or, then clears bit 31 with and; xor twice */
    shmem_uint_atomic_or(bits, 1u << (me % 31), 0);
    shmem_barrier_all();
    if (me == 0) {
        unsigned want = 0;
        for (int pe = 0; pe < npes; ++pe) want |= 1u << (pe % 31);
        CHECK(*bits == want, "or bits %#x want %#x", *bits, want);
    }
    shmem_barrier_all();
    unsigned before = shmem_uint_atomic_fetch_xor(bits, 0xF0F0u, 0);
    {
        unsigned orbits = 0;
        for (int pe = 0; pe < npes; ++pe) orbits |= 1u << (pe % 31);
        CHECK((before & ~0xF0F0u) == (orbits & ~0xF0F0u), "fetch_xor returned %#x, bits %#x", before, orbits);
    }
    shmem_barrier_all();
    shmem_uint_atomic_xor(bits, 0xF0F0u, 0);
    shmem_barrier_all();
    if (me == 0) {
        unsigned want = 0;
        for (int pe = 0; pe < npes; ++pe) want |= 1u << (pe % 31);
        /* 2 * npes xors of the same mask cancel out */
        CHECK(*bits == want, "xor bits %#x want %#x", *bits, want);
    }
    shmem_barrier_all();
    shmem_uint_atomic_and(bits, 0u, 0);
    shmem_barrier_all();
    CHECK(shmem_uint_atomic_fetch(bits, 0) == 0u, "and to zero");

    /* extended types: set / swap / fetch on double */
    shmem_barrier_all();
    if (me == 0) shmem_double_atomic_set(d, 2.5, npes - 1);
    shmem_barrier_all();
    if (me == npes - 1) CHECK(*d == 2.5, "double set %g", *d);
    shmem_barrier_all();
    if (me == 0) {
        double old = shmem_double_atomic_swap(d, -1.25, npes - 1);
        CHECK(old == 2.5, "double swap returned %g", old);
        CHECK(shmem_double_atomic_fetch(d, npes - 1) == -1.25, "double fetch");
    }
    shmem_barrier_all();
    free(seen);
    shmem_free(wins_all);
    shmem_free(all);
    shmem_free(d);
    shmem_free(bits);
    shmem_free(owner);
    shmem_free(u);
    shmem_free(counter);
    mp_pass("mp_amo");
    shmem_finalize();
    return 0;
}
