/* Sandia OpenSHMEM's extensions (included by shmemx.h), so that codes written for it build and
 * run unchanged.  Most are the names it gave routines before the specification adopted them;
 * here each is the same routine as its shmem_ twin (the same checks, the messages naming the
 * shmemx_ name the program called).  Declared from the one type table (kishmem/shmem_types.h).
 *
 *   shmemx_[ctx_]TYPENAME_ibput / _ibget, shmemx_[ctx_]ibputSIZE / ibgetSIZE, shmemx_[ctx_]ibputmem
 *   / ibgetmem      blocked strided put / get: nblocks blocks of bsize elements, block b from
 *                   source + b * sst to dest + b * dst (elements; 1.6's shmem_ibput / shmem_ibget)
 *   shmemx_[ctx_]signal_add / _set          1.6's shmem_signal_add / _set
 *   shmemx_TYPENAME_sum_inscan / _exscan    1.6's team scans (shmem_TYPENAME_sum_inscan / _exscan)
 *   shmemx_[ctx_]TYPENAME_atomic_*_nbi      1.5's non-blocking fetching atomics
 *   SHMEMX_TEAM_NODE                        the PEs on this node: SHMEM_TEAM_SHARED, which here is
 *                                           every PE of this host
 *   SHMEMX_MALLOC_NO_BARRIER                shmem_malloc_with_hints hint: no barrier (see below)
 *   shmemx_pcntr_*                          counts of this PE's operations (see below)
 *   shmemx_register_gettid                  the program's thread numbering, used in messages
 *   shmemx_ct_*, shmemx_putmem_ct / _getmem_ct  counting puts and gets (see below)
 *   shmemx_wtime, shmemx_nodename, shmemx_query_initialized
 * C11 generic selections and C++ overloads: shmemx_ibput, shmemx_ibget, shmemx_sum_inscan,
 * shmemx_sum_exscan, shmemx_atomic_*_nbi, shmemx_signal_add / _set (with or without a context). */
#ifndef KISHMEM_SHMEMX_SOS_H
#define KISHMEM_SHMEMX_SOS_H

#define SHMEMX_TEAM_NODE SHMEM_TEAM_SHARED

/* shmem_malloc_with_hints(size, SHMEMX_MALLOC_NO_BARRIER): the block shmem_malloc would return
 * (every PE must still make the same allocation calls in the same order), without its barrier
 * and argument check; the program synchronizes (e.g. shmem_sync_all) before another PE accesses
 * the block. */
#define SHMEMX_MALLOC_NO_BARRIER (1L << 2)

/* Operation counts of a context, from shmem_init (a new context starts at zero).  An operation
 * is one put, p, get or g, one block of an iput / iget / ibput / ibget (one element each for
 * iput / iget), one atomic, one signal update; a put-with-signal is two writes (data and
 * signal).  Writes are puts, non-fetching atomics and signal updates; reads are gets and
 * fetching atomics.  A blocking read is complete when it returns; every other operation once a
 * shmem_quiet / shmem_ctx_quiet / shmem_pe_quiet on its context (shmem_barrier_all for the
 * default context) returned after it.  Zero-length transfers count nothing.  The target count
 * is the operations of every PE (this one included) completed in this PE's memory, counted
 * only under KISHMEM_PCNTR_TARGET=1 (one more atomic per operation), else 0. */
typedef struct {
    uint64_t pending_put;   /* writes issued (shmemx_pcntr_get_issued_write) */
    uint64_t pending_get;   /* reads issued (shmemx_pcntr_get_issued_read) */
    uint64_t completed_put; /* writes completed (shmemx_pcntr_get_completed_write) */
    uint64_t completed_get; /* reads completed (shmemx_pcntr_get_completed_read) */
    uint64_t target;        /* operations completed at this PE (shmemx_pcntr_get_completed_target) */
} shmemx_pcntr_t;

#include "kishmem/c_decls.h"

KISHMEM_BEGIN_DECLS

#define KISHMEM_X2(RET, NAME, ...) RET shmemx_##NAME(__VA_ARGS__); RET shmemx_ctx_##NAME(shmem_ctx_t ctx, __VA_ARGS__);
#define KISHMEM_X_IB_TYPE(T, N) KISHMEM_SIG_IB(KISHMEM_X2, T, N##_ibput, N##_ibget)
#define KISHMEM_X_IB_SIZE(B) KISHMEM_SIG_IB(KISHMEM_X2, void, ibput##B, ibget##B)
KISHMEM_RMA_TYPES(KISHMEM_X_IB_TYPE)
KISHMEM_RMA_SIZES(KISHMEM_X_IB_SIZE)
KISHMEM_X_IB_SIZE(mem)

KISHMEM_X2(void, signal_add, uint64_t *sig_addr, uint64_t signal, int pe)
KISHMEM_X2(void, signal_set, uint64_t *sig_addr, uint64_t signal, int pe)

#define KISHMEM_X_AMO_EXT(T, N) KISHMEM_SIG_AMO_EXT_NBI(KISHMEM_X2, T, N)
#define KISHMEM_X_AMO_STD(T, N) KISHMEM_SIG_AMO_EXT_NBI(KISHMEM_X2, T, N) KISHMEM_SIG_AMO_STD_NBI(KISHMEM_X2, T, N)
#define KISHMEM_X_AMO_BIT(T, N) KISHMEM_SIG_AMO_BIT_NBI(KISHMEM_X2, T, N)
KISHMEM_AMO_STD_TYPES(KISHMEM_X_AMO_STD)
KISHMEM_AMO_EXT_ONLY_TYPES(KISHMEM_X_AMO_EXT)
KISHMEM_AMO_BIT_TYPES(KISHMEM_X_AMO_BIT)

#define KISHMEM_X_SCAN(T, N)                                                                                       \
    int shmemx_##N##_sum_inscan(shmem_team_t team, T *dest, const T *source, size_t nelems);                        \
    int shmemx_##N##_sum_exscan(shmem_team_t team, T *dest, const T *source, size_t nelems);
KISHMEM_REDUCE_MINMAX_TYPES(KISHMEM_X_SCAN)
KISHMEM_REDUCE_COMPLEX_TYPES(KISHMEM_X_SCAN)

/* The counts of ctx (SHMEM_CTX_DEFAULT or a live context; the call ends the job on any other
 * handle or a NULL result pointer, naming it). */
void shmemx_pcntr_get_issued_write(shmem_ctx_t ctx, uint64_t *cntr_value);
void shmemx_pcntr_get_issued_read(shmem_ctx_t ctx, uint64_t *cntr_value);
void shmemx_pcntr_get_completed_write(shmem_ctx_t ctx, uint64_t *cntr_value);
void shmemx_pcntr_get_completed_read(shmem_ctx_t ctx, uint64_t *cntr_value);
void shmemx_pcntr_get_completed_target(uint64_t *cntr_value);
void shmemx_pcntr_get_all(shmem_ctx_t ctx, shmemx_pcntr_t *pcntr);

/* Counting puts and gets: a counter in every PE's symmetric heap, to which each
 * shmemx_putmem_ct / shmemx_getmem_ct through it adds one at the PE the data goes to (once the
 * data is there) or comes from (once it has been read).  shmemx_ct_create and shmemx_ct_free
 * are collective over every PE, as shmem_calloc and shmem_free; shmemx_ct_get / _set / _wait
 * act on this PE's counter, and _wait returns once it is at least wait_for. */
typedef char *shmemx_ct_t;
void shmemx_ct_create(shmemx_ct_t *ct);
void shmemx_ct_free(shmemx_ct_t *ct);
long shmemx_ct_get(shmemx_ct_t ct);
void shmemx_ct_set(shmemx_ct_t ct, long value);
void shmemx_ct_wait(shmemx_ct_t ct, long wait_for);
void shmemx_putmem_ct(shmemx_ct_t ct, void *target, const void *source, size_t len, int pe);
void shmemx_getmem_ct(shmemx_ct_t ct, void *target, const void *source, size_t len, int pe);

/* Seconds of a monotonic clock (differences are elapsed time); this host's name; and
 * shmem_query_initialized under its shmemx_ name.  HAVE_SHMEMX_WTIME is Sandia OpenSHMEM's own
 * macro for it: its programs define a shmemx_wtime of their own where it is missing. */
#define HAVE_SHMEMX_WTIME
double shmemx_wtime(void);
char *shmemx_nodename(void);
int shmemx_query_initialized(int *initialized);

/* gettid_fn numbers the program's threads (may be called before shmem_init; NULL turns it off):
 * every message of the library then names the thread it comes from, "kishmem: PE n (thread t):". */
void shmemx_register_gettid(uint64_t (*gettid_fn)(void));

KISHMEM_END_DECLS

#undef KISHMEM_X2
#undef KISHMEM_X_IB_TYPE
#undef KISHMEM_X_IB_SIZE
#undef KISHMEM_X_AMO_EXT
#undef KISHMEM_X_AMO_STD
#undef KISHMEM_X_AMO_BIT
#undef KISHMEM_X_SCAN

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* C11: the selectors of kishmem/shmem_generic.h with the shmemx_ prefix. */
#define KISHMEM_XSEL(T, N, F) T *: shmemx_##N##_##F,
#define KISHMEM_XSEL_CTX(T, N, F) T *: shmemx_ctx_##N##_##F,
#define KISHMEM_XGEN(LIST, F, ...) KISHMEM_GEN_CTX(LIST, KISHMEM_XSEL, KISHMEM_XSEL_CTX, F, __VA_ARGS__)
#define KISHMEM_XGEN1(LIST, F, ...) \
    _Generic(KISHMEM_ARG1(__VA_ARGS__, 0, 0), LIST(KISHMEM_XSEL, F) default: kishmem_generic_no_such_type)(__VA_ARGS__)
#define shmemx_ibput(...) KISHMEM_XGEN(KISHMEM_GENERIC_RMA_TYPES, ibput, __VA_ARGS__)
#define shmemx_ibget(...) KISHMEM_XGEN(KISHMEM_GENERIC_RMA_TYPES, ibget, __VA_ARGS__)
#define shmemx_signal_add(...) \
    _Generic(KISHMEM_ARG0(__VA_ARGS__, 0), shmem_ctx_t: shmemx_ctx_signal_add, default: shmemx_signal_add)(__VA_ARGS__)
#define shmemx_signal_set(...) \
    _Generic(KISHMEM_ARG0(__VA_ARGS__, 0), shmem_ctx_t: shmemx_ctx_signal_set, default: shmemx_signal_set)(__VA_ARGS__)
#define shmemx_sum_inscan(...) KISHMEM_XGEN1(KISHMEM_GENERIC_REDUCE_ARITH_TYPES, sum_inscan, __VA_ARGS__)
#define shmemx_sum_exscan(...) KISHMEM_XGEN1(KISHMEM_GENERIC_REDUCE_ARITH_TYPES, sum_exscan, __VA_ARGS__)
#define shmemx_atomic_fetch_nbi(...) KISHMEM_XGEN(KISHMEM_GENERIC_AMO_EXT_TYPES, atomic_fetch_nbi, __VA_ARGS__)
#define shmemx_atomic_swap_nbi(...) KISHMEM_XGEN(KISHMEM_GENERIC_AMO_EXT_TYPES, atomic_swap_nbi, __VA_ARGS__)
#define shmemx_atomic_compare_swap_nbi(...) KISHMEM_XGEN(KISHMEM_GENERIC_AMO_STD_TYPES, atomic_compare_swap_nbi, __VA_ARGS__)
#define shmemx_atomic_fetch_inc_nbi(...) KISHMEM_XGEN(KISHMEM_GENERIC_AMO_STD_TYPES, atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmemx_atomic_fetch_add_nbi(...) KISHMEM_XGEN(KISHMEM_GENERIC_AMO_STD_TYPES, atomic_fetch_add_nbi, __VA_ARGS__)
#define shmemx_atomic_fetch_and_nbi(...) KISHMEM_XGEN(KISHMEM_GENERIC_AMO_BIT_TYPES, atomic_fetch_and_nbi, __VA_ARGS__)
#define shmemx_atomic_fetch_or_nbi(...) KISHMEM_XGEN(KISHMEM_GENERIC_AMO_BIT_TYPES, atomic_fetch_or_nbi, __VA_ARGS__)
#define shmemx_atomic_fetch_xor_nbi(...) KISHMEM_XGEN(KISHMEM_GENERIC_AMO_BIT_TYPES, atomic_fetch_xor_nbi, __VA_ARGS__)

#elif defined(__cplusplus)
/* C++: the overloads of kishmem/shmem_generic.h with the shmemx_ prefix. */
KISHMEM_GENERIC_RMA_TYPES(KISHMEM_CXX_IB, shmemx)
KISHMEM_GENERIC_REDUCE_ARITH_TYPES(KISHMEM_CXX_SCAN, shmemx)
KISHMEM_GENERIC_AMO_EXT_TYPES(KISHMEM_CXX_AMO_EXT_NBI, shmemx)
KISHMEM_GENERIC_AMO_STD_TYPES(KISHMEM_CXX_AMO_STD_NBI, shmemx)
KISHMEM_GENERIC_AMO_BIT_TYPES(KISHMEM_CXX_AMO_BIT_NBI, shmemx)
inline void shmemx_signal_add(shmem_ctx_t c, uint64_t *sig_addr, uint64_t signal, int pe) { shmemx_ctx_signal_add(c, sig_addr, signal, pe); }
inline void shmemx_signal_set(shmem_ctx_t c, uint64_t *sig_addr, uint64_t signal, int pe) { shmemx_ctx_signal_set(c, sig_addr, signal, pe); }
#endif /* C11 / C++ */

#endif /* KISHMEM_SHMEMX_SOS_H */
