/* Point-to-point synchronization conformance (OpenSHMEM 1.5 "Point-To-Point Synchronization
 * Routines"): wait_until, test and the multi-element forms _all/_any/_some and their _vector
 * forms, for every point-to-point synchronization type.
 *
 * Rules exercised (from the spec text of each routine):
 *  - wait_until returns once the condition holds; test returns 1 if it holds, 0 if not;
 *  - status[i] != 0 excludes ivars[i]; a null status includes every element;
 *  - wait_until_all / test_all: every included element; an empty set (nelems == 0, or every
 *    element excluded) returns at once, test_all returns 1 (1.5 errata);
 *  - wait_until_any / test_any: the index of a satisfying included element; SIZE_MAX when the
 *    set is empty, and test_any gives SIZE_MAX when nothing satisfies;
 *  - wait_until_some / test_some: the number of unique satisfying included indices written to
 *    indices[]; 0 for an empty set, and test_some 0 when nothing satisfies;
 *  - the _vector forms compare element i with cmp_values[i];
 *  - test_any / wait_until_any (and _vector) called again and again on an array whose included
 *    elements all satisfy the condition return each of them in turn, not always the first
 *    (1.5 "SHMEM_TEST_ANY", "SHMEM_WAIT_UNTIL_ANY": the index of any one satisfying element is
 *    returned; a program that serves whichever element is ready by calling them repeatedly must
 *    reach every satisfying element).
 * The variables are updated from the left neighbour with atomic_set (p for short/ushort, which
 * have no AMOs); every phase uses fresh variables. */
#include "api_check.h"

#define K 8

static int me, npes, right, left;

/* remote update helpers: atomic_set where the type has AMOs */
#define SETTER_AMO(T, NAME) \
    static void set_##NAME(T *dest, T v, int pe) { shmem_##NAME##_atomic_set(dest, v, pe); }
KISHMEM_AMO_STD_TYPES(SETTER_AMO)
static void set_short(short *dest, short v, int pe) { shmem_short_p(dest, v, pe); }
static void set_ushort(unsigned short *dest, unsigned short v, int pe) { shmem_ushort_p(dest, v, pe); }

#define P2P(T, NAME)                                                                               \
    static void p2p_##NAME(void) {                                                                 \
        T *iv = (T *)shmem_calloc(8 * K, sizeof(T));                                               \
        T *one = iv, *all = iv + K, *any = iv + 2 * K, *some = iv + 3 * K;                         \
        T *vall = iv + 4 * K, *vany = iv + 5 * K, *vsome = iv + 6 * K;                             \
        int status[K] = {0, 0, 1, 0, 1, 0, 0, 0}; /* elements 2 and 4 excluded */                  \
        int none[K] = {1, 1, 1, 1, 1, 1, 1, 1};                                                    \
        size_t idx[K];                                                                             \
        T cmpv[K];                                                                                 \
        for (int i = 0; i < K; ++i) cmpv[i] = (T)(i + 1);                                          \
        shmem_barrier_all();                                                                       \
        /* nothing is set yet: tests are false, any gives SIZE_MAX, some gives 0 */               \
        CHECK(!shmem_##NAME##_test(&one[0], SHMEM_CMP_EQ, (T)(left + 1)), "shmem_" #NAME "_test true too early"); \
        CHECK(shmem_##NAME##_test_all(all, K, NULL, SHMEM_CMP_EQ, (T)5) == 0, "shmem_" #NAME "_test_all true too early"); \
        CHECK(shmem_##NAME##_test_any(any, K, NULL, SHMEM_CMP_EQ, (T)9) == SIZE_MAX, "shmem_" #NAME "_test_any found something too early"); \
        CHECK(shmem_##NAME##_test_some(some, K, idx, NULL, SHMEM_CMP_EQ, (T)11) == 0, "shmem_" #NAME "_test_some found something too early"); \
        CHECK(shmem_##NAME##_test_all_vector(vall, K, NULL, SHMEM_CMP_EQ, cmpv) == 0, "shmem_" #NAME "_test_all_vector true too early"); \
        CHECK(shmem_##NAME##_test_any_vector(vany, K, NULL, SHMEM_CMP_EQ, cmpv) == SIZE_MAX, "shmem_" #NAME "_test_any_vector too early"); \
        CHECK(shmem_##NAME##_test_some_vector(vsome, K, idx, NULL, SHMEM_CMP_EQ, cmpv) == 0, "shmem_" #NAME "_test_some_vector too early"); \
        /* empty sets */                                                                           \
        CHECK(shmem_##NAME##_test_all(all, 0, NULL, SHMEM_CMP_EQ, (T)5) == 1, "shmem_" #NAME "_test_all with nelems 0 must return 1"); \
        CHECK(shmem_##NAME##_test_all(all, K, none, SHMEM_CMP_EQ, (T)5) == 1, "shmem_" #NAME "_test_all with every element excluded must return 1"); \
        CHECK(shmem_##NAME##_test_all_vector(vall, 0, NULL, SHMEM_CMP_EQ, cmpv) == 1, "shmem_" #NAME "_test_all_vector with nelems 0 must return 1"); \
        CHECK(shmem_##NAME##_test_all_vector(vall, K, none, SHMEM_CMP_EQ, cmpv) == 1, "shmem_" #NAME "_test_all_vector, every element excluded, must return 1"); \
        CHECK(shmem_##NAME##_test_any(any, 0, NULL, SHMEM_CMP_EQ, (T)0) == SIZE_MAX, "shmem_" #NAME "_test_any with nelems 0"); \
        CHECK(shmem_##NAME##_test_any(any, K, none, SHMEM_CMP_EQ, (T)0) == SIZE_MAX, "shmem_" #NAME "_test_any, every element excluded"); \
        CHECK(shmem_##NAME##_test_any_vector(vany, K, none, SHMEM_CMP_GE, cmpv) == SIZE_MAX, "shmem_" #NAME "_test_any_vector, every element excluded"); \
        CHECK(shmem_##NAME##_test_some(some, 0, idx, NULL, SHMEM_CMP_EQ, (T)0) == 0, "shmem_" #NAME "_test_some with nelems 0"); \
        CHECK(shmem_##NAME##_test_some(some, K, idx, none, SHMEM_CMP_EQ, (T)0) == 0, "shmem_" #NAME "_test_some, every element excluded"); \
        CHECK(shmem_##NAME##_test_some_vector(vsome, K, idx, none, SHMEM_CMP_GE, cmpv) == 0, "shmem_" #NAME "_test_some_vector, every element excluded"); \
        shmem_##NAME##_wait_until_all(all, 0, NULL, SHMEM_CMP_EQ, (T)77);                          \
        shmem_##NAME##_wait_until_all(all, K, none, SHMEM_CMP_EQ, (T)77);                          \
        shmem_##NAME##_wait_until_all_vector(vall, 0, NULL, SHMEM_CMP_EQ, cmpv);                   \
        CHECK(shmem_##NAME##_wait_until_any(any, 0, NULL, SHMEM_CMP_EQ, (T)77) == SIZE_MAX, "shmem_" #NAME "_wait_until_any with nelems 0"); \
        CHECK(shmem_##NAME##_wait_until_any(any, K, none, SHMEM_CMP_EQ, (T)77) == SIZE_MAX, "shmem_" #NAME "_wait_until_any, every element excluded"); \
        CHECK(shmem_##NAME##_wait_until_any_vector(vany, K, none, SHMEM_CMP_EQ, cmpv) == SIZE_MAX, "shmem_" #NAME "_wait_until_any_vector, every element excluded"); \
        CHECK(shmem_##NAME##_wait_until_some(some, 0, idx, NULL, SHMEM_CMP_EQ, (T)77) == 0, "shmem_" #NAME "_wait_until_some with nelems 0"); \
        CHECK(shmem_##NAME##_wait_until_some(some, K, idx, none, SHMEM_CMP_EQ, (T)77) == 0, "shmem_" #NAME "_wait_until_some, every element excluded"); \
        CHECK(shmem_##NAME##_wait_until_some_vector(vsome, K, idx, none, SHMEM_CMP_EQ, cmpv) == 0, "shmem_" #NAME "_wait_until_some_vector, every element excluded"); \
        shmem_barrier_all();                                                                       \
        /* the left neighbour updates my variables */                                              \
        set_##NAME(&one[0], (T)(me + 1), right);                                                   \
        for (int i = 0; i < K; ++i)                                                                \
            if (!status[i]) set_##NAME(&all[i], (T)5, right);                                      \
        set_##NAME(&any[3], (T)9, right);                                                          \
        set_##NAME(&some[1], (T)11, right);                                                        \
        set_##NAME(&some[4], (T)11, right); /* excluded by status */                               \
        set_##NAME(&some[6], (T)11, right);                                                        \
        for (int i = 0; i < K; ++i)                                                                \
            if (!status[i]) set_##NAME(&vall[i], (T)(i + 1), right);                               \
        set_##NAME(&vany[5], (T)6, right);                                                         \
        set_##NAME(&vsome[0], (T)1, right);                                                        \
        set_##NAME(&vsome[2], (T)3, right); /* excluded by status */                               \
        set_##NAME(&vsome[7], (T)8, right);                                                        \
        /* single variable: wait, then every comparison operator */                                \
        T v = (T)(left + 1);                                                                       \
        shmem_##NAME##_wait_until(&one[0], SHMEM_CMP_EQ, v);                                       \
        CHECK(one[0] == v, "shmem_" #NAME "_wait_until returned with %lld", (long long)one[0]);    \
        shmem_##NAME##_wait_until(&one[0], SHMEM_CMP_NE, (T)(v + 1));                              \
        shmem_##NAME##_wait_until(&one[0], SHMEM_CMP_GT, (T)(v - 1));                              \
        shmem_##NAME##_wait_until(&one[0], SHMEM_CMP_GE, v);                                       \
        shmem_##NAME##_wait_until(&one[0], SHMEM_CMP_LT, (T)(v + 1));                              \
        shmem_##NAME##_wait_until(&one[0], SHMEM_CMP_LE, v);                                       \
        CHECK(shmem_##NAME##_test(&one[0], SHMEM_CMP_EQ, v) == 1 && shmem_##NAME##_test(&one[0], SHMEM_CMP_EQ, (T)(v + 1)) == 0, "test EQ"); \
        CHECK(shmem_##NAME##_test(&one[0], SHMEM_CMP_NE, (T)(v + 1)) == 1 && shmem_##NAME##_test(&one[0], SHMEM_CMP_NE, v) == 0, "test NE"); \
        CHECK(shmem_##NAME##_test(&one[0], SHMEM_CMP_GT, (T)(v - 1)) == 1 && shmem_##NAME##_test(&one[0], SHMEM_CMP_GT, v) == 0, "test GT"); \
        CHECK(shmem_##NAME##_test(&one[0], SHMEM_CMP_GE, v) == 1 && shmem_##NAME##_test(&one[0], SHMEM_CMP_GE, (T)(v + 1)) == 0, "test GE"); \
        CHECK(shmem_##NAME##_test(&one[0], SHMEM_CMP_LT, (T)(v + 1)) == 1 && shmem_##NAME##_test(&one[0], SHMEM_CMP_LT, v) == 0, "test LT"); \
        CHECK(shmem_##NAME##_test(&one[0], SHMEM_CMP_LE, v) == 1 && shmem_##NAME##_test(&one[0], SHMEM_CMP_LE, (T)(v - 1)) == 0, "test LE"); \
        /* all */                                                                                  \
        shmem_##NAME##_wait_until_all(all, K, status, SHMEM_CMP_EQ, (T)5);                         \
        for (int i = 0; i < K; ++i)                                                                \
            CHECK(all[i] == (status[i] ? (T)0 : (T)5), "shmem_" #NAME "_wait_until_all returned with element %d = %lld", i, (long long)all[i]); \
        CHECK(shmem_##NAME##_test_all(all, K, status, SHMEM_CMP_EQ, (T)5) == 1, "shmem_" #NAME "_test_all after the updates"); \
        CHECK(shmem_##NAME##_test_all(all, K, NULL, SHMEM_CMP_EQ, (T)5) == 0, "shmem_" #NAME "_test_all ignored the excluded elements' values without a status"); \
        /* any */                                                                                  \
        size_t a = shmem_##NAME##_wait_until_any(any, K, NULL, SHMEM_CMP_EQ, (T)9);                \
        CHECK(a == 3, "shmem_" #NAME "_wait_until_any returned %zu, want 3", a);                   \
        CHECK(shmem_##NAME##_test_any(any, K, status, SHMEM_CMP_EQ, (T)9) == 3, "shmem_" #NAME "_test_any"); \
        int ex3[K] = {0, 0, 0, 1, 0, 0, 0, 0};                                                     \
        CHECK(shmem_##NAME##_test_any(any, K, ex3, SHMEM_CMP_EQ, (T)9) == SIZE_MAX, "shmem_" #NAME "_test_any returned an excluded index"); \
        CHECK(shmem_##NAME##_test_any(any, K, NULL, SHMEM_CMP_GT, (T)100) == SIZE_MAX, "shmem_" #NAME "_test_any with nothing satisfied"); \
        /* some: loop until both included indices were reported */                                 \
        int seen[K] = {0};                                                                         \
        while (!seen[1] || !seen[6]) {                                                             \
            for (int i = 0; i < K; ++i) idx[i] = 1000;                                             \
            size_t n = shmem_##NAME##_wait_until_some(some, K, idx, status, SHMEM_CMP_EQ, (T)11);  \
            CHECK(n >= 1 && n <= 2, "shmem_" #NAME "_wait_until_some returned %zu", n);             \
            for (size_t j = 0; j < n; ++j) {                                                       \
                CHECK(idx[j] == 1 || idx[j] == 6, "shmem_" #NAME "_wait_until_some reported index %zu", idx[j]); \
                for (size_t k2 = 0; k2 < j; ++k2) CHECK(idx[k2] != idx[j], "index %zu reported twice", idx[j]); \
                seen[idx[j]] = 1;                                                                  \
            }                                                                                      \
        }                                                                                          \
        shmem_##NAME##_wait_until(&some[4], SHMEM_CMP_EQ, (T)11); /* the excluded one arrives too */ \
        size_t ns = shmem_##NAME##_test_some(some, K, idx, status, SHMEM_CMP_EQ, (T)11);           \
        CHECK(ns == 2 && ((idx[0] == 1 && idx[1] == 6) || (idx[0] == 6 && idx[1] == 1)), "shmem_" #NAME "_test_some: %zu", ns); \
        CHECK(shmem_##NAME##_test_some(some, K, idx, NULL, SHMEM_CMP_EQ, (T)11) == 3, "shmem_" #NAME "_test_some, null status"); \
        /* vector forms */                                                                         \
        shmem_##NAME##_wait_until_all_vector(vall, K, status, SHMEM_CMP_EQ, cmpv);                 \
        for (int i = 0; i < K; ++i)                                                                \
            CHECK(vall[i] == (status[i] ? (T)0 : (T)(i + 1)), "shmem_" #NAME "_wait_until_all_vector: element %d", i); \
        CHECK(shmem_##NAME##_test_all_vector(vall, K, status, SHMEM_CMP_EQ, cmpv) == 1, "shmem_" #NAME "_test_all_vector"); \
        CHECK(shmem_##NAME##_test_all_vector(vall, K, NULL, SHMEM_CMP_EQ, cmpv) == 0, "shmem_" #NAME "_test_all_vector, null status"); \
        CHECK(shmem_##NAME##_test_all_vector(vall, K, status, SHMEM_CMP_LT, cmpv) == 0, "shmem_" #NAME "_test_all_vector LT"); \
        CHECK(shmem_##NAME##_test_all_vector(vall, K, NULL, SHMEM_CMP_LE, cmpv) == 1, "shmem_" #NAME "_test_all_vector LE"); \
        a = shmem_##NAME##_wait_until_any_vector(vany, K, status, SHMEM_CMP_EQ, cmpv);             \
        CHECK(a == 5, "shmem_" #NAME "_wait_until_any_vector returned %zu, want 5", a);            \
        CHECK(shmem_##NAME##_test_any_vector(vany, K, NULL, SHMEM_CMP_EQ, cmpv) == 5, "shmem_" #NAME "_test_any_vector"); \
        CHECK(shmem_##NAME##_test_any_vector(vany, K, NULL, SHMEM_CMP_GT, cmpv) == SIZE_MAX, "shmem_" #NAME "_test_any_vector GT: nothing"); \
        memset(seen, 0, sizeof seen);                                                              \
        while (!seen[0] || !seen[7]) {                                                             \
            size_t n = shmem_##NAME##_wait_until_some_vector(vsome, K, idx, status, SHMEM_CMP_EQ, cmpv); \
            CHECK(n >= 1 && n <= 2, "shmem_" #NAME "_wait_until_some_vector returned %zu", n);      \
            for (size_t j = 0; j < n; ++j) {                                                       \
                CHECK(idx[j] == 0 || idx[j] == 7, "shmem_" #NAME "_wait_until_some_vector reported index %zu", idx[j]); \
                seen[idx[j]] = 1;                                                                  \
            }                                                                                      \
        }                                                                                          \
        shmem_##NAME##_wait_until(&vsome[2], SHMEM_CMP_EQ, (T)3);                                  \
        CHECK(shmem_##NAME##_test_some_vector(vsome, K, idx, status, SHMEM_CMP_EQ, cmpv) == 2, "shmem_" #NAME "_test_some_vector"); \
        CHECK(shmem_##NAME##_test_some_vector(vsome, K, idx, NULL, SHMEM_CMP_EQ, cmpv) == 3, "shmem_" #NAME "_test_some_vector, null status"); \
        CHECK(shmem_##NAME##_test_some_vector(vsome, K, idx, NULL, SHMEM_CMP_NE, cmpv) == 5, "shmem_" #NAME "_test_some_vector NE"); \
        shmem_barrier_all();                                                                       \
        shmem_free(iv);                                                                            \
    }
KISHMEM_SYNC_TYPES(P2P)

/* Many waiters at once: every PE waits for all the others with wait_until_all on its own row,
 * each PE increments one element per target with atomic_inc. */
static void p2p_all_to_all(void) {
    int *rows = shmem_calloc((size_t)npes, sizeof(int));
    shmem_barrier_all();
    for (int k = 0; k < npes; ++k) shmem_int_atomic_inc(&rows[me], (me + k) % npes);
    shmem_int_wait_until_all(rows, (size_t)npes, NULL, SHMEM_CMP_EQ, 1);
    for (int i = 0; i < npes; ++i) CHECK(rows[i] == 1, "row %d = %d", i, rows[i]);
    shmem_barrier_all();
    shmem_free(rows);
}

/* Repeated test_any / wait_until_any calls must reach every satisfying included index. */
#define ROT_N 6
static void any_rotation(void) {
    long *v = (long *)shmem_calloc(ROT_N, sizeof(long));
    int *w = (int *)shmem_calloc(ROT_N, sizeof(int));
    int status[ROT_N] = {0, 0, 0, 1, 0, 0}; /* element 3 excluded */
    long lref[ROT_N];
    int iref[ROT_N];
    for (int i = 0; i < ROT_N; ++i) {
        v[i] = 7;
        w[i] = 7;
        lref[i] = 7;
        iref[i] = 7;
    }
    for (int form = 0; form < 6; ++form) {
        int seen[ROT_N] = {0};
        for (int call = 0; call < 4 * ROT_N; ++call) {
            size_t r = SIZE_MAX;
            switch (form) {
                case 0: r = shmem_long_test_any(v, ROT_N, status, SHMEM_CMP_EQ, 7L); break;
                case 1: r = shmem_long_wait_until_any(v, ROT_N, status, SHMEM_CMP_EQ, 7L); break;
                case 2: r = shmem_long_test_any_vector(v, ROT_N, status, SHMEM_CMP_EQ, lref); break;
                case 3: r = shmem_long_wait_until_any_vector(v, ROT_N, status, SHMEM_CMP_EQ, lref); break;
                case 4: r = shmem_int_test_any(w, ROT_N, status, SHMEM_CMP_GE, 7); break;
                case 5: r = shmem_int_wait_until_any_vector(w, ROT_N, status, SHMEM_CMP_LE, iref); break;
            }
            CHECK(r < ROT_N && r != 3, "form %d call %d returned %zu: not a satisfying included index", form, call, r);
            seen[r]++;
        }
        for (int i = 0; i < ROT_N; ++i)
            CHECK(i == 3 || seen[i] > 0, "form %d: %d calls never returned index %d (every element satisfies)", form,
                  4 * ROT_N, i);
    }
    /* The same with another array tested between the calls: each array keeps its own rotation
     * (elements 0 and 3 of v satisfy, element 1 of w). */
    for (int i = 0; i < ROT_N; ++i) v[i] = i == 0 || i == 3 ? 1 : 0, w[i] = i == 1;
    int seen0 = 0, seen3 = 0;
    for (int call = 0; call < 20; ++call) {
        CHECK(shmem_int_test_any(w, ROT_N, NULL, SHMEM_CMP_EQ, 1) == 1, "test_any on the other array");
        size_t r = call % 2 ? shmem_long_test_any(v, ROT_N, NULL, SHMEM_CMP_EQ, 1L)
                            : shmem_long_wait_until_any(v, ROT_N, NULL, SHMEM_CMP_EQ, 1L);
        seen0 += r == 0;
        seen3 += r == 3;
    }
    CHECK(seen0 > 0 && seen3 > 0, "with another array tested between the calls: index 0 %d times, index 3 %d times",
          seen0, seen3);
    shmem_barrier_all();
    shmem_free(w);
    shmem_free(v);
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    CHECK(SHMEM_CMP_EQ != SHMEM_CMP_NE && SHMEM_CMP_GT != SHMEM_CMP_GE && SHMEM_CMP_LT != SHMEM_CMP_LE &&
              SHMEM_CMP_EQ != SHMEM_CMP_LT && SHMEM_CMP_NE != SHMEM_CMP_GT,
          "the SHMEM_CMP_* constants are not distinct");

#define CALL_P2P(T, NAME) p2p_##NAME();
    KISHMEM_SYNC_TYPES(CALL_P2P)
    p2p_all_to_all();
    any_rotation();

    mp_pass("api_p2p_sync");
    shmem_finalize();
    return 0;
}
