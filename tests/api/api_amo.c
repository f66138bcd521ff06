/* AMO conformance (OpenSHMEM 1.5 "Atomic Memory Operations" and "Non-blocking Atomic Memory
 * Operations"): every standard, extended and bitwise AMO for every type of its table, blocking
 * and _nbi, from every PE at once.
 *
 * Rules exercised:
 *  - fetching AMOs return the value the target held just before the update;
 *  - concurrent AMOs on one object from all PEs are atomic: sums are exact, fetch_inc values
 *    are all distinct, compare_swap succeeds exactly when cond matched;
 *  - the _nbi forms write their fetched value to the local fetch object only at shmem_quiet,
 *    and many may be outstanding at once. */
#include "api_check.h"

#define ROUNDS 16

static int me, npes, right, left;

/* Standard AMO types: set, fetch, swap, compare_swap, fetch_inc, inc, fetch_add, add, and the
 * _nbi forms of fetch, swap, compare_swap, fetch_inc, fetch_add. */
#define AMO_STD(T, NAME)                                                                           \
    static void amo_std_##NAME(void) {                                                             \
        T *v = (T *)shmem_calloc(8, sizeof(T));                                                    \
        long *sum = (long *)shmem_calloc(2, sizeof(long));                                         \
        T got[ROUNDS], f[4];                                                                       \
        shmem_barrier_all();                                                                       \
        /* non-fetching inc and add from every PE to every PE */                                   \
        for (int pe = 0; pe < npes; ++pe) {                                                        \
            shmem_##NAME##_atomic_inc(&v[0], pe);                                                  \
            shmem_##NAME##_atomic_add(&v[0], (T)(me + 1), pe);                                     \
        }                                                                                          \
        /* fetch_inc and fetch_add on PE 0: each PE's values strictly increase */                  \
        for (int r = 0; r < ROUNDS; ++r) got[r] = shmem_##NAME##_atomic_fetch_inc(&v[1], 0);       \
        for (int r = 1; r < ROUNDS; ++r)                                                           \
            CHECK(got[r] > got[r - 1], "shmem_" #NAME "_atomic_fetch_inc: round %d not after %d", r, r - 1); \
        long mysum = 0;                                                                            \
        for (int r = 0; r < ROUNDS; ++r) {                                                         \
            CHECK((long long)got[r] >= 0 && got[r] < (T)(ROUNDS * npes), "shmem_" #NAME "_atomic_fetch_inc: %ld out of range", (long)got[r]); \
            mysum += (long)got[r];                                                                 \
        }                                                                                          \
        shmem_long_atomic_add(&sum[0], mysum, 0);                                                  \
        for (int r = 0; r < ROUNDS; ++r) {                                                         \
            T old = shmem_##NAME##_atomic_fetch_add(&v[2], (T)3, 0);                               \
            CHECK(old % 3 == 0 && old < (T)(3 * ROUNDS * npes), "shmem_" #NAME "_atomic_fetch_add returned %ld", (long)old); \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        CHECK(v[0] == (T)(npes + npes * (npes + 1) / 2), "shmem_" #NAME "_atomic_inc/add: %ld", (long)v[0]); \
        if (me == 0) {                                                                             \
            long n = (long)ROUNDS * npes;                                                          \
            CHECK(v[1] == (T)n, "fetch_inc total %ld, want %ld", (long)v[1], n);                   \
            CHECK(sum[0] == n * (n - 1) / 2, "fetch_inc values are not a permutation: sum %ld", sum[0]); \
            CHECK(v[2] == (T)(3 * n), "fetch_add total %ld", (long)v[2]);                          \
        }                                                                                          \
        /* set, fetch, swap, compare_swap on the right neighbour */                                \
        shmem_##NAME##_atomic_set(&v[3], (T)(me + 1), right);                                      \
        shmem_barrier_all();                                                                       \
        CHECK(v[3] == (T)(left + 1), "shmem_" #NAME "_atomic_set from PE %d: %ld", left, (long)v[3]); \
        CHECK(shmem_##NAME##_atomic_fetch(&v[3], right) == (T)(me + 1), "shmem_" #NAME "_atomic_fetch"); \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_##NAME##_atomic_swap(&v[3], (T)(me + 50), right) == (T)(me + 1), "shmem_" #NAME "_atomic_swap old value"); \
        CHECK(shmem_##NAME##_atomic_compare_swap(&v[3], (T)0, (T)7, right) == (T)(me + 50),       \
              "shmem_" #NAME "_atomic_compare_swap (no match) old value");                         \
        CHECK(shmem_##NAME##_atomic_compare_swap(&v[3], (T)(me + 50), (T)(me + 60), right) == (T)(me + 50), \
              "shmem_" #NAME "_atomic_compare_swap (match) old value");                            \
        shmem_barrier_all();                                                                       \
        CHECK(v[3] == (T)(left + 60), "compare_swap result %ld, want %d", (long)v[3], left + 60);  \
        /* non-blocking fetching AMOs: results land at quiet */                                    \
        for (int i = 0; i < 4; ++i) f[i] = (T)99;                                                  \
        shmem_##NAME##_atomic_fetch_nbi(&f[0], &v[3], right);                                      \
        shmem_##NAME##_atomic_fetch_inc_nbi(&f[1], &v[4], 0);                                      \
        shmem_##NAME##_atomic_fetch_add_nbi(&f[2], &v[5], (T)5, 0);                                \
        shmem_quiet();                                                                             \
        CHECK(f[0] == (T)(me + 60), "shmem_" #NAME "_atomic_fetch_nbi: %ld", (long)f[0]);          \
        CHECK((long long)f[1] >= 0 && f[1] < (T)npes, "shmem_" #NAME "_atomic_fetch_inc_nbi: %ld", (long)f[1]); \
        CHECK(f[2] % 5 == 0 && f[2] < (T)(5 * npes), "shmem_" #NAME "_atomic_fetch_add_nbi: %ld", (long)f[2]); \
        shmem_barrier_all();                                                                       \
        if (me == 0) CHECK(v[4] == (T)npes && v[5] == (T)(5 * npes), "nbi totals %ld %ld", (long)v[4], (long)v[5]); \
        shmem_##NAME##_atomic_swap_nbi(&f[0], &v[3], (T)(me + 70), right);                         \
        shmem_quiet();                                                                             \
        CHECK(f[0] == (T)(me + 60), "shmem_" #NAME "_atomic_swap_nbi old value %ld", (long)f[0]);  \
        shmem_##NAME##_atomic_compare_swap_nbi(&f[1], &v[3], (T)(me + 70), (T)(me + 80), right);   \
        shmem_##NAME##_atomic_compare_swap_nbi(&f[2], &v[6], (T)1, (T)2, right); /* no match */   \
        shmem_quiet();                                                                             \
        CHECK(f[1] == (T)(me + 70), "shmem_" #NAME "_atomic_compare_swap_nbi old value %ld", (long)f[1]); \
        CHECK(f[2] == (T)0, "shmem_" #NAME "_atomic_compare_swap_nbi (no match) old value %ld", (long)f[2]); \
        shmem_barrier_all();                                                                       \
        CHECK(v[3] == (T)(left + 80) && v[6] == (T)0, "after nbi swaps: %ld %ld", (long)v[3], (long)v[6]); \
        /* many outstanding: ROUNDS fetch_inc_nbi to PE 0, all values distinct after one quiet */  \
        for (int r = 0; r < ROUNDS; ++r) shmem_##NAME##_atomic_fetch_inc_nbi(&got[r], &v[7], 0);   \
        shmem_quiet();                                                                             \
        for (int r = 0; r < ROUNDS; ++r)                                                           \
            for (int s = 0; s < r; ++s)                                                            \
                CHECK(got[r] != got[s], "fetch_inc_nbi returned %ld twice", (long)got[r]);         \
        shmem_barrier_all();                                                                       \
        if (me == 0) CHECK(v[7] == (T)(ROUNDS * npes), "fetch_inc_nbi total %ld", (long)v[7]);     \
        shmem_barrier_all();                                                                       \
        shmem_free(sum);                                                                           \
        shmem_free(v);                                                                             \
    }
KISHMEM_AMO_STD_TYPES(AMO_STD)

/* Extended-only types (float, double): set, fetch, swap and their _nbi forms. */
#define AMO_EXT(T, NAME)                                                                           \
    static void amo_ext_##NAME(void) {                                                             \
        T *v = (T *)shmem_calloc(2, sizeof(T));                                                    \
        T f = (T)0;                                                                                \
        shmem_barrier_all();                                                                       \
        shmem_##NAME##_atomic_set(&v[0], (T)(me + 0.5), right);                                    \
        shmem_barrier_all();                                                                       \
        CHECK(v[0] == (T)(left + 0.5), "shmem_" #NAME "_atomic_set: %g", (double)v[0]);            \
        CHECK(shmem_##NAME##_atomic_fetch(&v[0], right) == (T)(me + 0.5), "shmem_" #NAME "_atomic_fetch"); \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_##NAME##_atomic_swap(&v[0], (T)(me - 2.25), right) == (T)(me + 0.5), "shmem_" #NAME "_atomic_swap"); \
        shmem_##NAME##_atomic_fetch_nbi(&f, &v[0], right);                                         \
        shmem_quiet();                                                                             \
        CHECK(f == (T)(me - 2.25), "shmem_" #NAME "_atomic_fetch_nbi: %g", (double)f);             \
        shmem_##NAME##_atomic_swap_nbi(&f, &v[0], (T)(me * 4.0), right);                           \
        shmem_quiet();                                                                             \
        CHECK(f == (T)(me - 2.25), "shmem_" #NAME "_atomic_swap_nbi old value: %g", (double)f);    \
        shmem_barrier_all();                                                                       \
        CHECK(v[0] == (T)(left * 4.0), "after swap_nbi: %g", (double)v[0]);                        \
        /* swap on one object from every PE: each old value is seen by exactly one PE, so the     \
         * values returned plus the final one are all the values ever written */                  \
        if (me == 0) v[1] = (T)-1;                                                                 \
        shmem_barrier_all();                                                                       \
        T old = shmem_##NAME##_atomic_swap(&v[1], (T)me, 0);                                       \
        double *seen = (double *)shmem_calloc((size_t)npes + 1, sizeof(double));                   \
        shmem_double_p(&seen[me], (double)old, 0);                                                 \
        shmem_barrier_all();                                                                       \
        if (me == 0) {                                                                             \
            seen[npes] = (double)v[1];                                                             \
            double total = 0;                                                                      \
            for (int i = 0; i <= npes; ++i) total += seen[i];                                      \
            CHECK(total == -1.0 + npes * (npes - 1) / 2.0, "swap chain lost a value: sum %g", total); \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        shmem_free(seen);                                                                          \
        shmem_free(v);                                                                             \
    }
KISHMEM_AMO_EXT_ONLY_TYPES(AMO_EXT)

/* Bitwise types: and, or, xor and the fetching and _nbi fetching forms; PE p owns bit p. */
#define AMO_BIT(T, NAME)                                                                           \
    static void amo_bit_##NAME(void) {                                                             \
        T *v = (T *)shmem_calloc(6, sizeof(T));                                                    \
        T mine = (T)((T)1 << (me % 31)), all = 0, f = 0, g = 0, h = 0;                             \
        for (int pe = 0; pe < npes; ++pe) all |= (T)((T)1 << (pe % 31));                           \
        if (me == 0) v[3] = (T)~(T)0;                                                              \
        shmem_barrier_all();                                                                       \
        shmem_##NAME##_atomic_or(&v[0], mine, 0);                                                  \
        T before = shmem_##NAME##_atomic_fetch_or(&v[1], mine, 0);                                 \
        CHECK(!(before & mine), "shmem_" #NAME "_atomic_fetch_or: my bit already set in %#llx", (unsigned long long)before); \
        shmem_##NAME##_atomic_xor(&v[2], mine, 0);                                                 \
        shmem_##NAME##_atomic_and(&v[3], (T)~mine, 0);                                             \
        shmem_barrier_all();                                                                       \
        if (me == 0) {                                                                             \
            CHECK(v[0] == all, "shmem_" #NAME "_atomic_or: %#llx want %#llx", (unsigned long long)v[0], (unsigned long long)all); \
            CHECK(v[1] == all, "shmem_" #NAME "_atomic_fetch_or: %#llx", (unsigned long long)v[1]); \
            CHECK(v[2] == all, "shmem_" #NAME "_atomic_xor: %#llx", (unsigned long long)v[2]);     \
            CHECK(v[3] == (T)~all, "shmem_" #NAME "_atomic_and: %#llx", (unsigned long long)v[3]); \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        before = shmem_##NAME##_atomic_fetch_and(&v[0], (T)~mine, 0);                              \
        CHECK(before & mine, "shmem_" #NAME "_atomic_fetch_and: my bit missing in %#llx", (unsigned long long)before); \
        before = shmem_##NAME##_atomic_fetch_xor(&v[2], mine, 0);                                  \
        CHECK(before & mine, "shmem_" #NAME "_atomic_fetch_xor: my bit missing in %#llx", (unsigned long long)before); \
        shmem_barrier_all();                                                                       \
        if (me == 0) CHECK(v[0] == 0 && v[2] == 0, "fetch_and/xor left %#llx %#llx", (unsigned long long)v[0], (unsigned long long)v[2]); \
        shmem_barrier_all();                                                                       \
        /* _nbi: or my bit into v[4] of the right PE, fetch; then and / xor it back out */         \
        shmem_##NAME##_atomic_fetch_or_nbi(&f, &v[4], mine, right);                                \
        shmem_quiet();                                                                             \
        CHECK(f == 0, "shmem_" #NAME "_atomic_fetch_or_nbi old value %#llx", (unsigned long long)f); \
        shmem_##NAME##_atomic_fetch_xor_nbi(&g, &v[4], (T)(mine << 1), right);                     \
        shmem_quiet();                                                                             \
        CHECK(g == mine, "shmem_" #NAME "_atomic_fetch_xor_nbi old value %#llx", (unsigned long long)g); \
        shmem_##NAME##_atomic_fetch_and_nbi(&h, &v[4], (T)(mine << 1), right);                     \
        shmem_quiet();                                                                             \
        CHECK(h == (T)(mine | (T)(mine << 1)), "shmem_" #NAME "_atomic_fetch_and_nbi old value %#llx", (unsigned long long)h); \
        shmem_barrier_all();                                                                       \
        CHECK(v[4] == (T)((T)1 << (left % 31) << 1), "after bitwise nbi: %#llx", (unsigned long long)v[4]); \
        shmem_barrier_all();                                                                       \
        shmem_free(v);                                                                             \
    }
KISHMEM_AMO_BIT_TYPES(AMO_BIT)

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    CHECK(npes <= 30, "this test gives each PE one bit of a 32-bit word");

#define CALL_STD(T, NAME) amo_std_##NAME();
#define CALL_EXT(T, NAME) amo_ext_##NAME();
#define CALL_BIT(T, NAME) amo_bit_##NAME();
    KISHMEM_AMO_STD_TYPES(CALL_STD)
    KISHMEM_AMO_EXT_ONLY_TYPES(CALL_EXT)
    KISHMEM_AMO_BIT_TYPES(CALL_BIT)

    mp_pass("api_amo");
    shmem_finalize();
    return 0;
}
