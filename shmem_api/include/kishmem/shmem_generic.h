/* Type-generic OpenSHMEM interfaces (included by shmem.h): C11 generic selections in C, and
 * overloads in C++.  Both come from the distinct-base-type lists of kishmem/shmem_types.h; the
 * name F of the family is passed through the list to the selector. */
#ifndef KISHMEM_SHMEM_GENERIC_H
#define KISHMEM_SHMEM_GENERIC_H

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L

/* Selected when no association matches: calling it with arguments fails to compile. */
void kishmem_generic_no_such_type(void);

#define KISHMEM_ARG0(a, ...) a
#define KISHMEM_ARG1(a, b, ...) b
#define KISHMEM_SEL(T, N, F) T *: shmem_##N##_##F,
#define KISHMEM_SELQ(T, N, F) T *: shmem_##N##_##F, const T *: shmem_##N##_##F,
#define KISHMEM_SEL_CTX(T, N, F) T *: shmem_ctx_##N##_##F,
#define KISHMEM_SELQ_CTX(T, N, F) T *: shmem_ctx_##N##_##F, const T *: shmem_ctx_##N##_##F,
/* Dispatch on the first pointer argument, or on the second after a context. */
#define KISHMEM_GEN_CTX(LIST, SEL, SELCTX, F, ...)                                                                 \
    _Generic(KISHMEM_ARG0(__VA_ARGS__, 0),                                                                         \
        shmem_ctx_t: _Generic(KISHMEM_ARG1(__VA_ARGS__, 0, 0), LIST(SELCTX, F) default: kishmem_generic_no_such_type), \
        LIST(SEL, F) default: kishmem_generic_no_such_type)(__VA_ARGS__)
/* Dispatch on the first argument (no context form). */
#define KISHMEM_GEN0(LIST, F, ...) _Generic(KISHMEM_ARG0(__VA_ARGS__, 0), LIST(KISHMEM_SEL, F) default: kishmem_generic_no_such_type)(__VA_ARGS__)
#define KISHMEM_GEN0Q(LIST, F, ...) _Generic(KISHMEM_ARG0(__VA_ARGS__, 0), LIST(KISHMEM_SELQ, F) default: kishmem_generic_no_such_type)(__VA_ARGS__)
/* Dispatch on the second argument (team collectives: the first is the team). */
#define KISHMEM_GEN1(LIST, F, ...) _Generic(KISHMEM_ARG1(__VA_ARGS__, 0, 0), LIST(KISHMEM_SEL, F) default: kishmem_generic_no_such_type)(__VA_ARGS__)

#define KISHMEM_RMA KISHMEM_GENERIC_RMA_TYPES
#define shmem_put(...) KISHMEM_GEN_CTX(KISHMEM_RMA, KISHMEM_SEL, KISHMEM_SEL_CTX, put, __VA_ARGS__)
#define shmem_get(...) KISHMEM_GEN_CTX(KISHMEM_RMA, KISHMEM_SEL, KISHMEM_SEL_CTX, get, __VA_ARGS__)
#define shmem_put_nbi(...) KISHMEM_GEN_CTX(KISHMEM_RMA, KISHMEM_SEL, KISHMEM_SEL_CTX, put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...) KISHMEM_GEN_CTX(KISHMEM_RMA, KISHMEM_SEL, KISHMEM_SEL_CTX, get_nbi, __VA_ARGS__)
#define shmem_p(...) KISHMEM_GEN_CTX(KISHMEM_RMA, KISHMEM_SEL, KISHMEM_SEL_CTX, p, __VA_ARGS__)
#define shmem_g(...) KISHMEM_GEN_CTX(KISHMEM_RMA, KISHMEM_SELQ, KISHMEM_SELQ_CTX, g, __VA_ARGS__)
#define shmem_iput(...) KISHMEM_GEN_CTX(KISHMEM_RMA, KISHMEM_SEL, KISHMEM_SEL_CTX, iput, __VA_ARGS__)
#define shmem_iget(...) KISHMEM_GEN_CTX(KISHMEM_RMA, KISHMEM_SEL, KISHMEM_SEL_CTX, iget, __VA_ARGS__)
#define shmem_ibput(...) KISHMEM_GEN_CTX(KISHMEM_RMA, KISHMEM_SEL, KISHMEM_SEL_CTX, ibput, __VA_ARGS__)
#define shmem_ibget(...) KISHMEM_GEN_CTX(KISHMEM_RMA, KISHMEM_SEL, KISHMEM_SEL_CTX, ibget, __VA_ARGS__)
#define shmem_put_signal(...) KISHMEM_GEN_CTX(KISHMEM_RMA, KISHMEM_SEL, KISHMEM_SEL_CTX, put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) KISHMEM_GEN_CTX(KISHMEM_RMA, KISHMEM_SEL, KISHMEM_SEL_CTX, put_signal_nbi, __VA_ARGS__)

#define KISHMEM_AEXT KISHMEM_GENERIC_AMO_EXT_TYPES
#define KISHMEM_ASTD KISHMEM_GENERIC_AMO_STD_TYPES
#define KISHMEM_ABIT KISHMEM_GENERIC_AMO_BIT_TYPES
#define shmem_atomic_fetch(...) KISHMEM_GEN_CTX(KISHMEM_AEXT, KISHMEM_SELQ, KISHMEM_SELQ_CTX, atomic_fetch, __VA_ARGS__)
#define shmem_atomic_set(...) KISHMEM_GEN_CTX(KISHMEM_AEXT, KISHMEM_SEL, KISHMEM_SEL_CTX, atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...) KISHMEM_GEN_CTX(KISHMEM_AEXT, KISHMEM_SEL, KISHMEM_SEL_CTX, atomic_swap, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) KISHMEM_GEN_CTX(KISHMEM_AEXT, KISHMEM_SEL, KISHMEM_SEL_CTX, atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) KISHMEM_GEN_CTX(KISHMEM_AEXT, KISHMEM_SEL, KISHMEM_SEL_CTX, atomic_swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap(...) KISHMEM_GEN_CTX(KISHMEM_ASTD, KISHMEM_SEL, KISHMEM_SEL_CTX, atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) KISHMEM_GEN_CTX(KISHMEM_ASTD, KISHMEM_SEL, KISHMEM_SEL_CTX, atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_inc(...) KISHMEM_GEN_CTX(KISHMEM_ASTD, KISHMEM_SEL, KISHMEM_SEL_CTX, atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) KISHMEM_GEN_CTX(KISHMEM_ASTD, KISHMEM_SEL, KISHMEM_SEL_CTX, atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_add(...) KISHMEM_GEN_CTX(KISHMEM_ASTD, KISHMEM_SEL, KISHMEM_SEL_CTX, atomic_add, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) KISHMEM_GEN_CTX(KISHMEM_ASTD, KISHMEM_SEL, KISHMEM_SEL_CTX, atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) KISHMEM_GEN_CTX(KISHMEM_ASTD, KISHMEM_SEL, KISHMEM_SEL_CTX, atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) KISHMEM_GEN_CTX(KISHMEM_ASTD, KISHMEM_SEL, KISHMEM_SEL_CTX, atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) KISHMEM_GEN_CTX(KISHMEM_ABIT, KISHMEM_SEL, KISHMEM_SEL_CTX, atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_and(...) KISHMEM_GEN_CTX(KISHMEM_ABIT, KISHMEM_SEL, KISHMEM_SEL_CTX, atomic_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) KISHMEM_GEN_CTX(KISHMEM_ABIT, KISHMEM_SEL, KISHMEM_SEL_CTX, atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_or(...) KISHMEM_GEN_CTX(KISHMEM_ABIT, KISHMEM_SEL, KISHMEM_SEL_CTX, atomic_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) KISHMEM_GEN_CTX(KISHMEM_ABIT, KISHMEM_SEL, KISHMEM_SEL_CTX, atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_xor(...) KISHMEM_GEN_CTX(KISHMEM_ABIT, KISHMEM_SEL, KISHMEM_SEL_CTX, atomic_xor, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) KISHMEM_GEN_CTX(KISHMEM_ABIT, KISHMEM_SEL, KISHMEM_SEL_CTX, atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) KISHMEM_GEN_CTX(KISHMEM_ABIT, KISHMEM_SEL, KISHMEM_SEL_CTX, atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) KISHMEM_GEN_CTX(KISHMEM_ABIT, KISHMEM_SEL, KISHMEM_SEL_CTX, atomic_fetch_xor_nbi, __VA_ARGS__)

#define shmem_broadcast(...) KISHMEM_GEN1(KISHMEM_RMA, broadcast, __VA_ARGS__)
#define shmem_collect(...) KISHMEM_GEN1(KISHMEM_RMA, collect, __VA_ARGS__)
#define shmem_fcollect(...) KISHMEM_GEN1(KISHMEM_RMA, fcollect, __VA_ARGS__)
#define shmem_alltoall(...) KISHMEM_GEN1(KISHMEM_RMA, alltoall, __VA_ARGS__)
#define shmem_alltoalls(...) KISHMEM_GEN1(KISHMEM_RMA, alltoalls, __VA_ARGS__)
#define shmem_and_reduce(...) KISHMEM_GEN1(KISHMEM_GENERIC_REDUCE_BIT_TYPES, and_reduce, __VA_ARGS__)
#define shmem_or_reduce(...) KISHMEM_GEN1(KISHMEM_GENERIC_REDUCE_BIT_TYPES, or_reduce, __VA_ARGS__)
#define shmem_xor_reduce(...) KISHMEM_GEN1(KISHMEM_GENERIC_REDUCE_BIT_TYPES, xor_reduce, __VA_ARGS__)
#define shmem_max_reduce(...) KISHMEM_GEN1(KISHMEM_GENERIC_REDUCE_MINMAX_TYPES, max_reduce, __VA_ARGS__)
#define shmem_min_reduce(...) KISHMEM_GEN1(KISHMEM_GENERIC_REDUCE_MINMAX_TYPES, min_reduce, __VA_ARGS__)
#define shmem_sum_reduce(...) KISHMEM_GEN1(KISHMEM_GENERIC_REDUCE_ARITH_TYPES, sum_reduce, __VA_ARGS__)
#define shmem_prod_reduce(...) KISHMEM_GEN1(KISHMEM_GENERIC_REDUCE_ARITH_TYPES, prod_reduce, __VA_ARGS__)
#define shmem_sum_inscan(...) KISHMEM_GEN1(KISHMEM_GENERIC_REDUCE_ARITH_TYPES, sum_inscan, __VA_ARGS__)
#define shmem_sum_exscan(...) KISHMEM_GEN1(KISHMEM_GENERIC_REDUCE_ARITH_TYPES, sum_exscan, __VA_ARGS__)

#define KISHMEM_SYNC KISHMEM_GENERIC_SYNC_TYPES
#define shmem_wait_until(...) KISHMEM_GEN0(KISHMEM_SYNC, wait_until, __VA_ARGS__)
#define shmem_wait_until_all(...) KISHMEM_GEN0(KISHMEM_SYNC, wait_until_all, __VA_ARGS__)
#define shmem_wait_until_any(...) KISHMEM_GEN0(KISHMEM_SYNC, wait_until_any, __VA_ARGS__)
#define shmem_wait_until_some(...) KISHMEM_GEN0(KISHMEM_SYNC, wait_until_some, __VA_ARGS__)
#define shmem_wait_until_all_vector(...) KISHMEM_GEN0(KISHMEM_SYNC, wait_until_all_vector, __VA_ARGS__)
#define shmem_wait_until_any_vector(...) KISHMEM_GEN0(KISHMEM_SYNC, wait_until_any_vector, __VA_ARGS__)
#define shmem_wait_until_some_vector(...) KISHMEM_GEN0(KISHMEM_SYNC, wait_until_some_vector, __VA_ARGS__)
#define shmem_test(...) KISHMEM_GEN0(KISHMEM_SYNC, test, __VA_ARGS__)
#define shmem_test_all(...) KISHMEM_GEN0(KISHMEM_SYNC, test_all, __VA_ARGS__)
#define shmem_test_any(...) KISHMEM_GEN0(KISHMEM_SYNC, test_any, __VA_ARGS__)
#define shmem_test_some(...) KISHMEM_GEN0(KISHMEM_SYNC, test_some, __VA_ARGS__)
#define shmem_test_all_vector(...) KISHMEM_GEN0(KISHMEM_SYNC, test_all_vector, __VA_ARGS__)
#define shmem_test_any_vector(...) KISHMEM_GEN0(KISHMEM_SYNC, test_any_vector, __VA_ARGS__)
#define shmem_test_some_vector(...) KISHMEM_GEN0(KISHMEM_SYNC, test_some_vector, __VA_ARGS__)

/* shmem_sync: the team form (1.5 C11 binding) or the deprecated active-set form. */
#define shmem_sync(...) _Generic(KISHMEM_ARG0(__VA_ARGS__, 0), shmem_team_t: shmem_team_sync, default: shmem_sync)(__VA_ARGS__)

/* Deprecated generic names still in OpenSHMEM 1.5 (1.3's AMOs and shmem_wait). */
#define shmem_fetch(...) KISHMEM_GEN0Q(KISHMEM_GENERIC_DEPR_AMO_EXT_TYPES, fetch, __VA_ARGS__)
#define shmem_set(...) KISHMEM_GEN0(KISHMEM_GENERIC_DEPR_AMO_EXT_TYPES, set, __VA_ARGS__)
#define shmem_swap(...) KISHMEM_GEN0(KISHMEM_GENERIC_DEPR_AMO_EXT_TYPES, swap, __VA_ARGS__)
#define shmem_cswap(...) KISHMEM_GEN0(KISHMEM_GENERIC_DEPR_AMO_TYPES, cswap, __VA_ARGS__)
#define shmem_finc(...) KISHMEM_GEN0(KISHMEM_GENERIC_DEPR_AMO_TYPES, finc, __VA_ARGS__)
#define shmem_inc(...) KISHMEM_GEN0(KISHMEM_GENERIC_DEPR_AMO_TYPES, inc, __VA_ARGS__)
#define shmem_fadd(...) KISHMEM_GEN0(KISHMEM_GENERIC_DEPR_AMO_TYPES, fadd, __VA_ARGS__)
#define shmem_add(...) KISHMEM_GEN0(KISHMEM_GENERIC_DEPR_AMO_TYPES, add, __VA_ARGS__)
#define shmem_wait(...) KISHMEM_GEN0(KISHMEM_GENERIC_DEPR_WAIT_TYPES, wait, __VA_ARGS__)

#elif defined(__cplusplus)

/* C++: one overload per base type and family; each forwards to the typed C routine. */
#define KISHMEM_CXX_RMA(T, N, F)                                                                                   \
    inline void shmem_put(T *d, const T *s, size_t n, int pe) { shmem_##N##_put(d, s, n, pe); }                    \
    inline void shmem_put(shmem_ctx_t c, T *d, const T *s, size_t n, int pe) { shmem_ctx_##N##_put(c, d, s, n, pe); } \
    inline void shmem_get(T *d, const T *s, size_t n, int pe) { shmem_##N##_get(d, s, n, pe); }                    \
    inline void shmem_get(shmem_ctx_t c, T *d, const T *s, size_t n, int pe) { shmem_ctx_##N##_get(c, d, s, n, pe); } \
    inline void shmem_put_nbi(T *d, const T *s, size_t n, int pe) { shmem_##N##_put_nbi(d, s, n, pe); }            \
    inline void shmem_put_nbi(shmem_ctx_t c, T *d, const T *s, size_t n, int pe) { shmem_ctx_##N##_put_nbi(c, d, s, n, pe); } \
    inline void shmem_get_nbi(T *d, const T *s, size_t n, int pe) { shmem_##N##_get_nbi(d, s, n, pe); }            \
    inline void shmem_get_nbi(shmem_ctx_t c, T *d, const T *s, size_t n, int pe) { shmem_ctx_##N##_get_nbi(c, d, s, n, pe); } \
    inline void shmem_p(T *d, T v, int pe) { shmem_##N##_p(d, v, pe); }                                            \
    inline void shmem_p(shmem_ctx_t c, T *d, T v, int pe) { shmem_ctx_##N##_p(c, d, v, pe); }                      \
    inline T shmem_g(const T *s, int pe) { return shmem_##N##_g(s, pe); }                                          \
    inline T shmem_g(shmem_ctx_t c, const T *s, int pe) { return shmem_ctx_##N##_g(c, s, pe); }                    \
    inline void shmem_iput(T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) { shmem_##N##_iput(d, s, dst, sst, n, pe); } \
    inline void shmem_iput(shmem_ctx_t c, T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) { shmem_ctx_##N##_iput(c, d, s, dst, sst, n, pe); } \
    inline void shmem_iget(T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) { shmem_##N##_iget(d, s, dst, sst, n, pe); } \
    inline void shmem_iget(shmem_ctx_t c, T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) { shmem_ctx_##N##_iget(c, d, s, dst, sst, n, pe); } \
    inline void shmem_put_signal(T *d, const T *s, size_t n, uint64_t *sig, uint64_t v, int op, int pe) { shmem_##N##_put_signal(d, s, n, sig, v, op, pe); } \
    inline void shmem_put_signal(shmem_ctx_t c, T *d, const T *s, size_t n, uint64_t *sig, uint64_t v, int op, int pe) { shmem_ctx_##N##_put_signal(c, d, s, n, sig, v, op, pe); } \
    inline void shmem_put_signal_nbi(T *d, const T *s, size_t n, uint64_t *sig, uint64_t v, int op, int pe) { shmem_##N##_put_signal_nbi(d, s, n, sig, v, op, pe); } \
    inline void shmem_put_signal_nbi(shmem_ctx_t c, T *d, const T *s, size_t n, uint64_t *sig, uint64_t v, int op, int pe) { shmem_ctx_##N##_put_signal_nbi(c, d, s, n, sig, v, op, pe); } \
    inline int shmem_broadcast(shmem_team_t t, T *d, const T *s, size_t n, int root) { return shmem_##N##_broadcast(t, d, s, n, root); } \
    inline int shmem_collect(shmem_team_t t, T *d, const T *s, size_t n) { return shmem_##N##_collect(t, d, s, n); } \
    inline int shmem_fcollect(shmem_team_t t, T *d, const T *s, size_t n) { return shmem_##N##_fcollect(t, d, s, n); } \
    inline int shmem_alltoall(shmem_team_t t, T *d, const T *s, size_t n) { return shmem_##N##_alltoall(t, d, s, n); } \
    inline int shmem_alltoalls(shmem_team_t t, T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n) { return shmem_##N##_alltoalls(t, d, s, dst, sst, n); }
KISHMEM_GENERIC_RMA_TYPES(KISHMEM_CXX_RMA, _)

/* The families that Sandia OpenSHMEM's shmemx_ names share (kishmem/shmemx_sos.h generates them
 * again with P = shmemx, so these stay defined): P is the prefix, passed as the lists' F. */
#define KISHMEM_CXX_IB(T, N, P)                                                                                    \
    inline void P##_ibput(T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb, int pe) { P##_##N##_ibput(d, s, dst, sst, b, nb, pe); } \
    inline void P##_ibput(shmem_ctx_t c, T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb, int pe) { P##_ctx_##N##_ibput(c, d, s, dst, sst, b, nb, pe); } \
    inline void P##_ibget(T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb, int pe) { P##_##N##_ibget(d, s, dst, sst, b, nb, pe); } \
    inline void P##_ibget(shmem_ctx_t c, T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb, int pe) { P##_ctx_##N##_ibget(c, d, s, dst, sst, b, nb, pe); }
#define KISHMEM_CXX_SCAN(T, N, P)                                                                                  \
    inline int P##_sum_inscan(shmem_team_t t, T *d, const T *s, size_t n) { return P##_##N##_sum_inscan(t, d, s, n); } \
    inline int P##_sum_exscan(shmem_team_t t, T *d, const T *s, size_t n) { return P##_##N##_sum_exscan(t, d, s, n); }
#define KISHMEM_CXX_AMO_EXT_NBI(T, N, P)                                                                           \
    inline void P##_atomic_fetch_nbi(T *f, const T *s, int pe) { P##_##N##_atomic_fetch_nbi(f, s, pe); }           \
    inline void P##_atomic_fetch_nbi(shmem_ctx_t c, T *f, const T *s, int pe) { P##_ctx_##N##_atomic_fetch_nbi(c, f, s, pe); } \
    inline void P##_atomic_swap_nbi(T *f, T *d, T v, int pe) { P##_##N##_atomic_swap_nbi(f, d, v, pe); }           \
    inline void P##_atomic_swap_nbi(shmem_ctx_t c, T *f, T *d, T v, int pe) { P##_ctx_##N##_atomic_swap_nbi(c, f, d, v, pe); }
#define KISHMEM_CXX_AMO_STD_NBI(T, N, P)                                                                           \
    inline void P##_atomic_compare_swap_nbi(T *f, T *d, T c, T v, int pe) { P##_##N##_atomic_compare_swap_nbi(f, d, c, v, pe); } \
    inline void P##_atomic_compare_swap_nbi(shmem_ctx_t x, T *f, T *d, T c, T v, int pe) { P##_ctx_##N##_atomic_compare_swap_nbi(x, f, d, c, v, pe); } \
    inline void P##_atomic_fetch_inc_nbi(T *f, T *d, int pe) { P##_##N##_atomic_fetch_inc_nbi(f, d, pe); }         \
    inline void P##_atomic_fetch_inc_nbi(shmem_ctx_t c, T *f, T *d, int pe) { P##_ctx_##N##_atomic_fetch_inc_nbi(c, f, d, pe); } \
    inline void P##_atomic_fetch_add_nbi(T *f, T *d, T v, int pe) { P##_##N##_atomic_fetch_add_nbi(f, d, v, pe); } \
    inline void P##_atomic_fetch_add_nbi(shmem_ctx_t c, T *f, T *d, T v, int pe) { P##_ctx_##N##_atomic_fetch_add_nbi(c, f, d, v, pe); }
#define KISHMEM_CXX_AMO_BIT_NBI_OP(T, N, P, OP)                                                                    \
    inline void P##_atomic_fetch_##OP##_nbi(T *f, T *d, T v, int pe) { P##_##N##_atomic_fetch_##OP##_nbi(f, d, v, pe); } \
    inline void P##_atomic_fetch_##OP##_nbi(shmem_ctx_t c, T *f, T *d, T v, int pe) { P##_ctx_##N##_atomic_fetch_##OP##_nbi(c, f, d, v, pe); }
#define KISHMEM_CXX_AMO_BIT_NBI(T, N, P) \
    KISHMEM_CXX_AMO_BIT_NBI_OP(T, N, P, and) KISHMEM_CXX_AMO_BIT_NBI_OP(T, N, P, or) KISHMEM_CXX_AMO_BIT_NBI_OP(T, N, P, xor)
KISHMEM_GENERIC_RMA_TYPES(KISHMEM_CXX_IB, shmem)
KISHMEM_GENERIC_REDUCE_ARITH_TYPES(KISHMEM_CXX_SCAN, shmem)
KISHMEM_GENERIC_AMO_EXT_TYPES(KISHMEM_CXX_AMO_EXT_NBI, shmem)
KISHMEM_GENERIC_AMO_STD_TYPES(KISHMEM_CXX_AMO_STD_NBI, shmem)
KISHMEM_GENERIC_AMO_BIT_TYPES(KISHMEM_CXX_AMO_BIT_NBI, shmem)

#define KISHMEM_CXX_AMO_EXT(T, N, F)                                                                               \
    inline T shmem_atomic_fetch(const T *s, int pe) { return shmem_##N##_atomic_fetch(s, pe); }                    \
    inline T shmem_atomic_fetch(shmem_ctx_t c, const T *s, int pe) { return shmem_ctx_##N##_atomic_fetch(c, s, pe); } \
    inline void shmem_atomic_set(T *d, T v, int pe) { shmem_##N##_atomic_set(d, v, pe); }                          \
    inline void shmem_atomic_set(shmem_ctx_t c, T *d, T v, int pe) { shmem_ctx_##N##_atomic_set(c, d, v, pe); }    \
    inline T shmem_atomic_swap(T *d, T v, int pe) { return shmem_##N##_atomic_swap(d, v, pe); }                    \
    inline T shmem_atomic_swap(shmem_ctx_t c, T *d, T v, int pe) { return shmem_ctx_##N##_atomic_swap(c, d, v, pe); }
KISHMEM_GENERIC_AMO_EXT_TYPES(KISHMEM_CXX_AMO_EXT, _)

#define KISHMEM_CXX_AMO_STD(T, N, F)                                                                               \
    inline T shmem_atomic_compare_swap(T *d, T c, T v, int pe) { return shmem_##N##_atomic_compare_swap(d, c, v, pe); } \
    inline T shmem_atomic_compare_swap(shmem_ctx_t x, T *d, T c, T v, int pe) { return shmem_ctx_##N##_atomic_compare_swap(x, d, c, v, pe); } \
    inline T shmem_atomic_fetch_inc(T *d, int pe) { return shmem_##N##_atomic_fetch_inc(d, pe); }                  \
    inline T shmem_atomic_fetch_inc(shmem_ctx_t c, T *d, int pe) { return shmem_ctx_##N##_atomic_fetch_inc(c, d, pe); } \
    inline void shmem_atomic_inc(T *d, int pe) { shmem_##N##_atomic_inc(d, pe); }                                  \
    inline void shmem_atomic_inc(shmem_ctx_t c, T *d, int pe) { shmem_ctx_##N##_atomic_inc(c, d, pe); }            \
    inline T shmem_atomic_fetch_add(T *d, T v, int pe) { return shmem_##N##_atomic_fetch_add(d, v, pe); }          \
    inline T shmem_atomic_fetch_add(shmem_ctx_t c, T *d, T v, int pe) { return shmem_ctx_##N##_atomic_fetch_add(c, d, v, pe); } \
    inline void shmem_atomic_add(T *d, T v, int pe) { shmem_##N##_atomic_add(d, v, pe); }                          \
    inline void shmem_atomic_add(shmem_ctx_t c, T *d, T v, int pe) { shmem_ctx_##N##_atomic_add(c, d, v, pe); }
KISHMEM_GENERIC_AMO_STD_TYPES(KISHMEM_CXX_AMO_STD, _)

/* and/or/xor: OP, with and without a context, fetching and not. */
#define KISHMEM_CXX_AMO_BIT_OP(T, N, OP)                                                                          \
    inline T shmem_atomic_fetch_##OP(T *d, T v, int pe) { return shmem_##N##_atomic_fetch_##OP(d, v, pe); }        \
    inline T shmem_atomic_fetch_##OP(shmem_ctx_t c, T *d, T v, int pe) { return shmem_ctx_##N##_atomic_fetch_##OP(c, d, v, pe); } \
    inline void shmem_atomic_##OP(T *d, T v, int pe) { shmem_##N##_atomic_##OP(d, v, pe); }                        \
    inline void shmem_atomic_##OP(shmem_ctx_t c, T *d, T v, int pe) { shmem_ctx_##N##_atomic_##OP(c, d, v, pe); }
#define KISHMEM_CXX_AMO_BIT(T, N, F) KISHMEM_CXX_AMO_BIT_OP(T, N, and) KISHMEM_CXX_AMO_BIT_OP(T, N, or) KISHMEM_CXX_AMO_BIT_OP(T, N, xor)
KISHMEM_GENERIC_AMO_BIT_TYPES(KISHMEM_CXX_AMO_BIT, _)

#define KISHMEM_CXX_REDUCE(T, N, F) inline int shmem_##F##_reduce(shmem_team_t t, T *d, const T *s, size_t n) { return shmem_##N##_##F##_reduce(t, d, s, n); }
KISHMEM_GENERIC_REDUCE_BIT_TYPES(KISHMEM_CXX_REDUCE, and)
KISHMEM_GENERIC_REDUCE_BIT_TYPES(KISHMEM_CXX_REDUCE, or)
KISHMEM_GENERIC_REDUCE_BIT_TYPES(KISHMEM_CXX_REDUCE, xor)
KISHMEM_GENERIC_REDUCE_MINMAX_TYPES(KISHMEM_CXX_REDUCE, max)
KISHMEM_GENERIC_REDUCE_MINMAX_TYPES(KISHMEM_CXX_REDUCE, min)
KISHMEM_GENERIC_REDUCE_ARITH_TYPES(KISHMEM_CXX_REDUCE, sum)
KISHMEM_GENERIC_REDUCE_ARITH_TYPES(KISHMEM_CXX_REDUCE, prod)

#define KISHMEM_CXX_SYNC(T, N, F)                                                                                  \
    inline void shmem_wait_until(T *v, int cmp, T x) { shmem_##N##_wait_until(v, cmp, x); }                        \
    inline int shmem_test(T *v, int cmp, T x) { return shmem_##N##_test(v, cmp, x); }                              \
    inline void shmem_wait_until_all(T *v, size_t n, const int *st, int cmp, T x) { shmem_##N##_wait_until_all(v, n, st, cmp, x); } \
    inline size_t shmem_wait_until_any(T *v, size_t n, const int *st, int cmp, T x) { return shmem_##N##_wait_until_any(v, n, st, cmp, x); } \
    inline size_t shmem_wait_until_some(T *v, size_t n, size_t *ix, const int *st, int cmp, T x) { return shmem_##N##_wait_until_some(v, n, ix, st, cmp, x); } \
    inline int shmem_test_all(T *v, size_t n, const int *st, int cmp, T x) { return shmem_##N##_test_all(v, n, st, cmp, x); } \
    inline size_t shmem_test_any(T *v, size_t n, const int *st, int cmp, T x) { return shmem_##N##_test_any(v, n, st, cmp, x); } \
    inline size_t shmem_test_some(T *v, size_t n, size_t *ix, const int *st, int cmp, T x) { return shmem_##N##_test_some(v, n, ix, st, cmp, x); } \
    inline void shmem_wait_until_all_vector(T *v, size_t n, const int *st, int cmp, T *xs) { shmem_##N##_wait_until_all_vector(v, n, st, cmp, xs); } \
    inline size_t shmem_wait_until_any_vector(T *v, size_t n, const int *st, int cmp, T *xs) { return shmem_##N##_wait_until_any_vector(v, n, st, cmp, xs); } \
    inline size_t shmem_wait_until_some_vector(T *v, size_t n, size_t *ix, const int *st, int cmp, T *xs) { return shmem_##N##_wait_until_some_vector(v, n, ix, st, cmp, xs); } \
    inline int shmem_test_all_vector(T *v, size_t n, const int *st, int cmp, T *xs) { return shmem_##N##_test_all_vector(v, n, st, cmp, xs); } \
    inline size_t shmem_test_any_vector(T *v, size_t n, const int *st, int cmp, T *xs) { return shmem_##N##_test_any_vector(v, n, st, cmp, xs); } \
    inline size_t shmem_test_some_vector(T *v, size_t n, size_t *ix, const int *st, int cmp, T *xs) { return shmem_##N##_test_some_vector(v, n, ix, st, cmp, xs); }
KISHMEM_GENERIC_SYNC_TYPES(KISHMEM_CXX_SYNC, _)

/* Deprecated generic names still in OpenSHMEM 1.5 (1.3's AMOs and shmem_wait). */
#define KISHMEM_CXX_DEPR_WAIT(T, N, F) inline void shmem_wait(T *v, T x) { shmem_##N##_wait(v, x); }
KISHMEM_GENERIC_DEPR_WAIT_TYPES(KISHMEM_CXX_DEPR_WAIT, _)
#define KISHMEM_CXX_DEPR_AMO_EXT(T, N, F)                                                                          \
    inline T shmem_fetch(const T *s, int pe) { return shmem_##N##_fetch(s, pe); }                                  \
    inline void shmem_set(T *d, T v, int pe) { shmem_##N##_set(d, v, pe); }                                        \
    inline T shmem_swap(T *d, T v, int pe) { return shmem_##N##_swap(d, v, pe); }
KISHMEM_GENERIC_DEPR_AMO_EXT_TYPES(KISHMEM_CXX_DEPR_AMO_EXT, _)
#define KISHMEM_CXX_DEPR_AMO(T, N, F)                                                                              \
    inline T shmem_cswap(T *d, T c, T v, int pe) { return shmem_##N##_cswap(d, c, v, pe); }                        \
    inline T shmem_finc(T *d, int pe) { return shmem_##N##_finc(d, pe); }                                          \
    inline void shmem_inc(T *d, int pe) { shmem_##N##_inc(d, pe); }                                                \
    inline T shmem_fadd(T *d, T v, int pe) { return shmem_##N##_fadd(d, v, pe); }                                  \
    inline void shmem_add(T *d, T v, int pe) { shmem_##N##_add(d, v, pe); }
KISHMEM_GENERIC_DEPR_AMO_TYPES(KISHMEM_CXX_DEPR_AMO, _)

#undef KISHMEM_CXX_RMA
#undef KISHMEM_CXX_AMO_EXT
#undef KISHMEM_CXX_AMO_STD
#undef KISHMEM_CXX_AMO_BIT_OP
#undef KISHMEM_CXX_AMO_BIT
#undef KISHMEM_CXX_REDUCE
#undef KISHMEM_CXX_SYNC
#undef KISHMEM_CXX_DEPR_WAIT
#undef KISHMEM_CXX_DEPR_AMO_EXT
#undef KISHMEM_CXX_DEPR_AMO

/* shmem_sync(team) next to the active-set shmem_sync of the C API. */
#if defined(__CUDACC__)
static inline __host__ __device__ int shmem_sync(shmem_team_t t) { return shmem_team_sync(t); }
#else
inline int shmem_sync(shmem_team_t t) { return shmem_team_sync(t); }
#endif

#endif /* C11 / C++ */

#endif /* KISHMEM_SHMEM_GENERIC_H */
