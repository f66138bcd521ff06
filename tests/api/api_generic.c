/* C11 type-generic interfaces (OpenSHMEM 1.5: the C11 synopses of RMA, AMO, signal,
 * point-to-point synchronization and collective routines): every call here names the generic
 * routine (shmem_put, shmem_atomic_fetch_add, shmem_wait_until, shmem_sum_reduce, ...), for
 * every type of the routine's table, with and without a context argument where the spec has
 * both.  Results are checked so that a selection of the wrong typed routine (element size or
 * arithmetic) fails. */
#if !defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L
#error "api_generic.c is a C11 test"
#endif
#include "api_check.h"

#define N 9
#define SENT 99

static int me, npes, right, left;

#define GEN_RMA(T, NAME)                                                                           \
    static void gen_rma_##NAME(shmem_ctx_t ctx) {                                                  \
        T *sym = (T *)shmem_malloc(6 * N * sizeof(T));                                             \
        T src[N], back[N];                                                                         \
        for (int i = 0; i < 6 * N; ++i) sym[i] = (T)SENT;                                          \
        for (int i = 0; i < N; ++i) src[i] = (T)api_val(me, i);                                    \
        shmem_barrier_all();                                                                       \
        shmem_put(sym, src, N, right);                                                             \
        shmem_put(ctx, sym + N, src, N, right);                                                    \
        shmem_put_nbi(sym + 2 * N, src, N, right);                                                 \
        shmem_put_nbi(ctx, sym + 3 * N, src, N, right);                                            \
        shmem_p(sym + 4 * N, (T)(me + 1), right);                                                  \
        shmem_p(ctx, sym + 4 * N + 1, (T)(me + 2), right);                                         \
        shmem_iput(sym + 5 * N, src, 2, 1, 3, right);                                              \
        shmem_iput(ctx, sym + 5 * N + 1, src, 2, 1, 3, right);                                     \
        shmem_ctx_quiet(ctx);                                                                      \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < N; ++i)                                                                \
            for (int b = 0; b < 4; ++b)                                                            \
                CHECK(sym[b * N + i] == (T)api_val(left, i), "generic put form %d (" #NAME "): element %d", b, i); \
        CHECK(sym[4 * N] == (T)(left + 1) && sym[4 * N + 1] == (T)(left + 2), "generic shmem_p (" #NAME ")"); \
        for (int i = 0; i < 6; ++i) CHECK(sym[5 * N + i] == (T)api_val(left, i / 2), "generic shmem_iput (" #NAME "): element %d", i); \
        CHECK(shmem_g(sym + 4 * N, right) == (T)(me + 1), "generic shmem_g (" #NAME ")");          \
        CHECK(shmem_g(ctx, sym + 4 * N + 1, right) == (T)(me + 2), "generic shmem_g with ctx (" #NAME ")"); \
        for (int form = 0; form < 5; ++form) {                                                     \
            for (int i = 0; i < N; ++i) back[i] = (T)SENT;                                         \
            if (form == 0) shmem_get(back, sym, N, right);                                         \
            if (form == 1) shmem_get(ctx, back, sym, N, right);                                    \
            if (form == 2) shmem_get_nbi(back, sym, N, right);                                     \
            if (form == 3) shmem_get_nbi(ctx, back, sym, N, right);                                \
            if (form == 4) {                                                                       \
                shmem_iget(back, sym, 1, 2, 4, right);                                             \
                shmem_iget(ctx, back + 4, sym + 1, 1, 2, 4, right);                                \
            }                                                                                      \
            shmem_ctx_quiet(ctx);                                                                  \
            shmem_quiet();                                                                         \
            for (int i = 0; i < N; ++i) {                                                          \
                T want = (T)api_val(me, i);                                                        \
                if (form == 4) want = i < 4 ? (T)api_val(me, 2 * i) : i < 8 ? (T)api_val(me, 2 * (i - 4) + 1) : (T)SENT; \
                CHECK(back[i] == want, "generic get form %d (" #NAME "): element %d", form, i);    \
            }                                                                                      \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        shmem_free(sym);                                                                           \
    }
KISHMEM_RMA_TYPES(GEN_RMA)

#define GEN_AMO(T, NAME)                                                                           \
    static void gen_amo_##NAME(shmem_ctx_t ctx) {                                                  \
        T *v = (T *)shmem_calloc(4, sizeof(T));                                                    \
        T f = (T)0;                                                                                \
        shmem_barrier_all();                                                                       \
        for (int pe = 0; pe < npes; ++pe) {                                                        \
            shmem_atomic_inc(&v[0], pe);                                                           \
            shmem_atomic_inc(ctx, &v[0], pe);                                                      \
            shmem_atomic_add(&v[0], (T)3, pe);                                                     \
            shmem_atomic_add(ctx, &v[0], (T)4, pe);                                                \
            (void)shmem_atomic_fetch_inc(&v[1], pe);                                               \
            (void)shmem_atomic_fetch_inc(ctx, &v[1], pe);                                          \
            (void)shmem_atomic_fetch_add(&v[1], (T)10, pe);                                        \
            (void)shmem_atomic_fetch_add(ctx, &v[1], (T)20, pe);                                   \
        }                                                                                          \
        shmem_ctx_quiet(ctx);                                                                      \
        shmem_barrier_all();                                                                       \
        CHECK(v[0] == (T)(9 * npes) && v[1] == (T)(32 * npes), "generic inc/add (" #NAME "): %lld %lld", (long long)v[0], (long long)v[1]); \
        shmem_atomic_set(&v[2], (T)(me + 1), right);                                               \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_atomic_fetch(&v[2], right) == (T)(me + 1), "generic atomic_fetch (" #NAME ")"); \
        CHECK(shmem_atomic_fetch(ctx, &v[2], right) == (T)(me + 1), "generic atomic_fetch with ctx (" #NAME ")"); \
        CHECK(shmem_atomic_swap(&v[2], (T)(me + 5), right) == (T)(me + 1), "generic atomic_swap (" #NAME ")"); \
        CHECK(shmem_atomic_swap(ctx, &v[2], (T)(me + 6), right) == (T)(me + 5), "generic atomic_swap with ctx (" #NAME ")"); \
        CHECK(shmem_atomic_compare_swap(&v[2], (T)(me + 6), (T)(me + 7), right) == (T)(me + 6), "generic compare_swap (" #NAME ")"); \
        CHECK(shmem_atomic_compare_swap(ctx, &v[2], (T)(me + 7), (T)(me + 8), right) == (T)(me + 7), "generic compare_swap ctx (" #NAME ")"); \
        shmem_atomic_set(ctx, &v[3], (T)40, right);                                                \
        shmem_ctx_quiet(ctx);                                                                      \
        shmem_atomic_fetch_nbi(&f, &v[2], right);                                                  \
        shmem_quiet();                                                                             \
        CHECK(f == (T)(me + 8), "generic atomic_fetch_nbi (" #NAME ")");                           \
        shmem_atomic_swap_nbi(ctx, &f, &v[2], (T)(me + 9), right);                                 \
        shmem_ctx_quiet(ctx);                                                                      \
        CHECK(f == (T)(me + 8), "generic atomic_swap_nbi (" #NAME ")");                            \
        shmem_atomic_compare_swap_nbi(&f, &v[2], (T)(me + 9), (T)(me + 10), right);                \
        shmem_quiet();                                                                             \
        CHECK(f == (T)(me + 9), "generic atomic_compare_swap_nbi (" #NAME ")");                    \
        shmem_atomic_fetch_add_nbi(&f, &v[3], (T)2, right);                                        \
        shmem_quiet();                                                                             \
        CHECK(f == (T)40, "generic atomic_fetch_add_nbi (" #NAME ")");                             \
        shmem_atomic_fetch_inc_nbi(ctx, &f, &v[3], right);                                         \
        shmem_ctx_quiet(ctx);                                                                      \
        CHECK(f == (T)42, "generic atomic_fetch_inc_nbi (" #NAME ")");                             \
        shmem_barrier_all();                                                                       \
        CHECK(v[2] == (T)(left + 10) && v[3] == (T)43, "generic AMO results (" #NAME ")");         \
        shmem_barrier_all();                                                                       \
        shmem_free(v);                                                                             \
    }
KISHMEM_AMO_STD_TYPES(GEN_AMO)

#define GEN_AMO_EXT(T, NAME)                                                                       \
    static void gen_amo_##NAME(shmem_ctx_t ctx) {                                                  \
        T *v = (T *)shmem_calloc(1, sizeof(T));                                                    \
        T f = (T)0;                                                                                \
        shmem_barrier_all();                                                                       \
        shmem_atomic_set(ctx, v, (T)(me + 0.5), right);                                            \
        shmem_ctx_quiet(ctx);                                                                      \
        shmem_barrier_all();                                                                       \
        CHECK(*v == (T)(left + 0.5), "generic atomic_set (" #NAME ")");                            \
        CHECK(shmem_atomic_fetch(v, right) == (T)(me + 0.5), "generic atomic_fetch (" #NAME ")");  \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_atomic_swap(v, (T)1.25, right) == (T)(me + 0.5), "generic atomic_swap (" #NAME ")"); \
        shmem_atomic_fetch_nbi(ctx, &f, v, right);                                                 \
        shmem_ctx_quiet(ctx);                                                                      \
        CHECK(f == (T)1.25, "generic atomic_fetch_nbi (" #NAME ")");                               \
        shmem_barrier_all();                                                                       \
        shmem_free(v);                                                                             \
    }
KISHMEM_AMO_EXT_ONLY_TYPES(GEN_AMO_EXT)

#define GEN_BIT(T, NAME)                                                                           \
    static void gen_bit_##NAME(shmem_ctx_t ctx) {                                                  \
        T *v = (T *)shmem_calloc(4, sizeof(T));                                                    \
        T mine = (T)((T)1 << (me % 31)), all = 0, f = 0;                                           \
        for (int pe = 0; pe < npes; ++pe) all |= (T)((T)1 << (pe % 31));                           \
        shmem_barrier_all();                                                                       \
        /* every word is touched only in my bit by me */                                           \
        shmem_atomic_or(&v[0], mine, 0);                                                           \
        shmem_atomic_xor(ctx, &v[1], mine, 0);                                                     \
        CHECK(!(shmem_atomic_fetch_or(&v[2], mine, 0) & mine), "generic atomic_fetch_or (" #NAME ")"); \
        shmem_ctx_quiet(ctx);                                                                      \
        shmem_barrier_all();                                                                       \
        if (me == 0) CHECK(v[0] == all && v[1] == all && v[2] == all, "generic atomic_or / xor / fetch_or (" #NAME ")"); \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_atomic_fetch_and(&v[0], (T)~mine, 0) & mine, "generic atomic_fetch_and (" #NAME ")"); \
        CHECK(shmem_atomic_fetch_xor(ctx, &v[1], mine, 0) & mine, "generic atomic_fetch_xor (" #NAME ")"); \
        shmem_atomic_and(ctx, &v[2], (T)~mine, 0);                                                 \
        shmem_atomic_fetch_or_nbi(&f, &v[3], mine, 0);                                             \
        shmem_quiet();                                                                             \
        CHECK(!(f & mine), "generic atomic_fetch_or_nbi (" #NAME ")");                             \
        shmem_atomic_fetch_and_nbi(ctx, &f, &v[3], (T)~mine, 0);                                   \
        shmem_ctx_quiet(ctx);                                                                      \
        CHECK(f & mine, "generic atomic_fetch_and_nbi (" #NAME ")");                               \
        shmem_atomic_fetch_xor_nbi(&f, &v[3], mine, 0);                                            \
        shmem_quiet();                                                                             \
        CHECK(!(f & mine), "generic atomic_fetch_xor_nbi (" #NAME ")");                            \
        shmem_atomic_xor(&v[3], mine, 0);                                                          \
        shmem_ctx_quiet(ctx);                                                                      \
        shmem_barrier_all();                                                                       \
        if (me == 0)                                                                               \
            for (int k = 0; k < 4; ++k) CHECK(v[k] == 0, "generic bitwise (" #NAME "): word %d = %llx", k, (unsigned long long)v[k]); \
        shmem_barrier_all();                                                                       \
        shmem_free(v);                                                                             \
    }
KISHMEM_AMO_BIT_TYPES(GEN_BIT)

#define GEN_SIGNAL(T, NAME)                                                                        \
    static void gen_signal_##NAME(shmem_ctx_t ctx) {                                               \
        T *d = (T *)shmem_malloc(4 * N * sizeof(T));                                               \
        uint64_t *s = (uint64_t *)shmem_calloc(4, sizeof(uint64_t));                               \
        T src[N];                                                                                  \
        for (int i = 0; i < N; ++i) src[i] = (T)api_val(me, i);                                    \
        shmem_barrier_all();                                                                       \
        shmem_put_signal(d, src, N, &s[0], 1, SHMEM_SIGNAL_SET, right);                            \
        shmem_put_signal(ctx, d + N, src, N, &s[1], 2, SHMEM_SIGNAL_ADD, right);                   \
        shmem_put_signal_nbi(d + 2 * N, src, N, &s[2], 3, SHMEM_SIGNAL_SET, right);                \
        shmem_put_signal_nbi(ctx, d + 3 * N, src, N, &s[3], 4, SHMEM_SIGNAL_ADD, right);           \
        shmem_quiet();                                                                             \
        shmem_ctx_quiet(ctx);                                                                      \
        for (int k = 0; k < 4; ++k) shmem_signal_wait_until(&s[k], SHMEM_CMP_EQ, (uint64_t)k + 1); \
        for (int k = 0; k < 4; ++k)                                                                \
            for (int i = 0; i < N; ++i) CHECK(d[k * N + i] == (T)api_val(left, i), "generic put_signal form %d (" #NAME ")", k); \
        shmem_barrier_all();                                                                       \
        shmem_free(s);                                                                             \
        shmem_free(d);                                                                             \
    }
KISHMEM_RMA_TYPES(GEN_SIGNAL)

#define GEN_SYNC(T, NAME)                                                                          \
    static void gen_sync_##NAME(void) {                                                            \
        T *iv = (T *)shmem_calloc(4 * 4, sizeof(T));                                               \
        T cmpv[4] = {1, 2, 3, 4};                                                                  \
        size_t idx[4];                                                                             \
        int status[4] = {0, 0, 0, 0};                                                              \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_test(&iv[0], SHMEM_CMP_NE, (T)0) == 0, "generic shmem_test before (" #NAME ")"); \
        CHECK(shmem_test_any(iv, 4, NULL, SHMEM_CMP_NE, (T)0) == SIZE_MAX, "generic test_any before (" #NAME ")"); \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < 4; ++i) {                                                              \
            shmem_p(&iv[i], (T)7, right);                                                          \
            shmem_p(&iv[4 + i], (T)(i + 1), right);                                                \
        }                                                                                          \
        shmem_fence();                                                                             \
        shmem_p(&iv[8], (T)5, right);                                                              \
        shmem_wait_until(&iv[8], SHMEM_CMP_EQ, (T)5);                                              \
        shmem_wait_until_all(iv, 4, status, SHMEM_CMP_EQ, (T)7);                                   \
        CHECK(shmem_wait_until_any(iv, 4, NULL, SHMEM_CMP_EQ, (T)7) < 4, "generic wait_until_any (" #NAME ")"); \
        CHECK(shmem_wait_until_some(iv, 4, idx, NULL, SHMEM_CMP_EQ, (T)7) >= 1, "generic wait_until_some (" #NAME ")"); \
        shmem_wait_until_all_vector(iv + 4, 4, NULL, SHMEM_CMP_EQ, cmpv);                          \
        CHECK(shmem_wait_until_any_vector(iv + 4, 4, NULL, SHMEM_CMP_EQ, cmpv) < 4, "generic wait_until_any_vector (" #NAME ")"); \
        CHECK(shmem_wait_until_some_vector(iv + 4, 4, idx, NULL, SHMEM_CMP_EQ, cmpv) >= 1, "generic wait_until_some_vector (" #NAME ")"); \
        CHECK(shmem_test(&iv[8], SHMEM_CMP_EQ, (T)5) == 1, "generic shmem_test (" #NAME ")");      \
        CHECK(shmem_test_all(iv, 4, NULL, SHMEM_CMP_EQ, (T)7) == 1, "generic test_all (" #NAME ")"); \
        CHECK(shmem_test_any(iv, 4, NULL, SHMEM_CMP_EQ, (T)7) < 4, "generic test_any (" #NAME ")"); \
        CHECK(shmem_test_some(iv, 4, idx, NULL, SHMEM_CMP_EQ, (T)7) == 4, "generic test_some (" #NAME ")"); \
        CHECK(shmem_test_all_vector(iv + 4, 4, NULL, SHMEM_CMP_EQ, cmpv) == 1, "generic test_all_vector (" #NAME ")"); \
        CHECK(shmem_test_any_vector(iv + 4, 4, NULL, SHMEM_CMP_EQ, cmpv) < 4, "generic test_any_vector (" #NAME ")"); \
        CHECK(shmem_test_some_vector(iv + 4, 4, idx, NULL, SHMEM_CMP_EQ, cmpv) == 4, "generic test_some_vector (" #NAME ")"); \
        shmem_barrier_all();                                                                       \
        shmem_free(iv);                                                                            \
    }
KISHMEM_SYNC_TYPES(GEN_SYNC)

/* team collectives, generic, over the world */
#define GEN_COLL(T, NAME)                                                                          \
    static void gen_coll_##NAME(void) {                                                            \
        T *src = (T *)shmem_malloc(4 * 64 * sizeof(T)), *dst = (T *)shmem_malloc(4 * 64 * sizeof(T)); \
        for (int i = 0; i < 4 * 64; ++i) src[i] = (T)api_val(me, i % 64);                          \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_broadcast(SHMEM_TEAM_WORLD, dst, src, 3, npes - 1) == 0, "generic broadcast"); \
        for (int i = 0; i < 3; ++i) CHECK(dst[i] == (T)api_val(npes - 1, i), "generic broadcast (" #NAME ")"); \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_fcollect(SHMEM_TEAM_WORLD, dst, src, 2) == 0, "generic fcollect");             \
        for (int k = 0; k < npes; ++k)                                                             \
            for (int i = 0; i < 2; ++i) CHECK(dst[2 * k + i] == (T)api_val(k, i), "generic fcollect (" #NAME ")"); \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_collect(SHMEM_TEAM_WORLD, dst, src, 1) == 0, "generic collect");               \
        for (int k = 0; k < npes; ++k) CHECK(dst[k] == (T)api_val(k, 0), "generic collect (" #NAME ")"); \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_alltoall(SHMEM_TEAM_WORLD, dst, src, 1) == 0, "generic alltoall");             \
        for (int k = 0; k < npes; ++k) CHECK(dst[k] == (T)api_val(k, me), "generic alltoall (" #NAME ")"); \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_alltoalls(SHMEM_TEAM_WORLD, dst, src, 1, 2, 1) == 0, "generic alltoalls");     \
        for (int k = 0; k < npes; ++k) CHECK(dst[k] == (T)api_val(k, 2 * me), "generic alltoalls (" #NAME ")"); \
        shmem_barrier_all();                                                                       \
        shmem_free(dst);                                                                           \
        shmem_free(src);                                                                           \
    }
KISHMEM_RMA_TYPES(GEN_COLL)

#define GEN_RED_BIT(T, NAME)                                                                       \
    static void gen_red_bit_##NAME(void) {                                                         \
        T *src = (T *)shmem_malloc(4 * sizeof(T)), *dst = (T *)shmem_malloc(4 * sizeof(T));       \
        src[0] = (T)(1 << (me % 7));                                                               \
        shmem_barrier_all();                                                                       \
        T all = 0, x = 0;                                                                          \
        for (int k = 0; k < npes; ++k) { all |= (T)(1 << (k % 7)); x ^= (T)(1 << (k % 7)); }      \
        CHECK(shmem_or_reduce(SHMEM_TEAM_WORLD, dst, src, 1) == 0 && dst[0] == all, "generic or_reduce (" #NAME ")"); \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_xor_reduce(SHMEM_TEAM_WORLD, dst, src, 1) == 0 && dst[0] == x, "generic xor_reduce (" #NAME ")"); \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_and_reduce(SHMEM_TEAM_WORLD, dst, src, 1) == 0 && dst[0] == (npes == 1 ? all : (T)0), "generic and_reduce (" #NAME ")"); \
        shmem_barrier_all();                                                                       \
        shmem_free(dst);                                                                           \
        shmem_free(src);                                                                           \
    }
API_REDUCE_BITWISE_TYPES(GEN_RED_BIT)

#define GEN_RED_ARITH(T, NAME)                                                                     \
    static void gen_red_arith_##NAME(void) {                                                       \
        T *src = (T *)shmem_malloc(4 * sizeof(T)), *dst = (T *)shmem_malloc(4 * sizeof(T));       \
        src[0] = (T)(me + 1);                                                                      \
        src[1] = (T)(me % 2 + 1);                                                                  \
        shmem_barrier_all();                                                                       \
        T sum = 0, prod = 1;                                                                       \
        for (int k = 0; k < npes; ++k) { sum += (T)(k + 1); prod *= (T)(k % 2 + 1); }             \
        CHECK(shmem_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 1) == 0 && dst[0] == sum, "generic sum_reduce (" #NAME ")"); \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_prod_reduce(SHMEM_TEAM_WORLD, dst + 1, src + 1, 1) == 0 && dst[1] == prod, "generic prod_reduce (" #NAME ")"); \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_max_reduce(SHMEM_TEAM_WORLD, dst, src, 1) == 0 && dst[0] == (T)npes, "generic max_reduce (" #NAME ")"); \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_min_reduce(SHMEM_TEAM_WORLD, dst, src, 1) == 0 && dst[0] == (T)1, "generic min_reduce (" #NAME ")"); \
        shmem_barrier_all();                                                                       \
        shmem_free(dst);                                                                           \
        shmem_free(src);                                                                           \
    }
API_REDUCE_MINMAX_TYPES(GEN_RED_ARITH)

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    CHECK(npes <= 12, "the reduction values of this test stay in range for at most 12 PEs");
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create");

#define CALL_RMA(T, NAME) gen_rma_##NAME(ctx);
#define CALL_AMO(T, NAME) gen_amo_##NAME(ctx);
#define CALL_BIT(T, NAME) gen_bit_##NAME(ctx);
#define CALL_SIGNAL(T, NAME) gen_signal_##NAME(ctx);
#define CALL_SYNC(T, NAME) gen_sync_##NAME();
#define CALL_COLL(T, NAME) gen_coll_##NAME();
#define CALL_RED_BIT(T, NAME) gen_red_bit_##NAME();
#define CALL_RED_ARITH(T, NAME) gen_red_arith_##NAME();
    KISHMEM_RMA_TYPES(CALL_RMA)
    KISHMEM_AMO_STD_TYPES(CALL_AMO)
    KISHMEM_AMO_EXT_ONLY_TYPES(CALL_AMO)
    KISHMEM_AMO_BIT_TYPES(CALL_BIT)
    KISHMEM_RMA_TYPES(CALL_SIGNAL)
    KISHMEM_SYNC_TYPES(CALL_SYNC)
    KISHMEM_RMA_TYPES(CALL_COLL)
    API_REDUCE_BITWISE_TYPES(CALL_RED_BIT)
    API_REDUCE_MINMAX_TYPES(CALL_RED_ARITH)

    /* shmem_sync (1.5 "SHMEM_SYNC"): the C11 form takes a team, the deprecated C form an
     * active set; both through the one name. */
    static long ps[SHMEM_BARRIER_SYNC_SIZE];
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; ++i) ps[i] = SHMEM_SYNC_VALUE;
    static int sync_flag;
    sync_flag = 0;
    shmem_barrier_all();
    shmem_int_atomic_set(&sync_flag, me + 1, right);
    shmem_quiet();
    CHECK(shmem_sync(SHMEM_TEAM_WORLD) == 0, "shmem_sync(SHMEM_TEAM_WORLD) did not return 0");
    CHECK(sync_flag == left + 1, "after shmem_sync(team): flag %d, expected %d", sync_flag, left + 1);
    shmem_sync(0, 0, npes, ps);
    shmem_barrier_all();

    shmem_ctx_destroy(ctx);
    mp_pass("api_generic");
    shmem_finalize();
    return 0;
}
